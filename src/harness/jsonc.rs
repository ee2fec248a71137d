//! Editing a JSON (or JSONC: comments, trailing commas) settings file as
//! text: one member added or removed, every other byte kept, so a
//! person's formatting, key order and comments survive `hipo init` and
//! `hipo uninstall`. Parsing the whole file and printing it again would
//! reorder and reformat what hipo does not own.

/// One `"key": value` of an object, as byte ranges of the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub key: String,
    /// Where the key's opening quote is.
    pub start: usize,
    /// The value's first byte and one past its last.
    pub value: (usize, usize),
}

/// An object's members and where its braces are.
#[derive(Debug, Clone)]
pub struct Object {
    pub open: usize,
    pub close: usize,
    pub members: Vec<Member>,
}

impl Object {
    pub fn get(&self, key: &str) -> Option<&Member> {
        self.members.iter().find(|m| m.key == key)
    }
}

struct Scan<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scan<'_> {
    fn skip_space(&mut self) {
        loop {
            while self.i < self.b.len() && self.b[self.i].is_ascii_whitespace() {
                self.i += 1;
            }
            let rest = &self.b[self.i..];
            if rest.starts_with(b"//") {
                while self.i < self.b.len() && self.b[self.i] != b'\n' {
                    self.i += 1;
                }
            } else if rest.starts_with(b"/*") {
                match rest[2..].windows(2).position(|w| w == b"*/") {
                    Some(p) => self.i += p + 4,
                    None => self.i = self.b.len(),
                }
            } else {
                return;
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// A string at the cursor, decoded.
    fn string(&mut self) -> Option<String> {
        let start = self.i;
        if self.peek() != Some(b'"') {
            return None;
        }
        self.i += 1;
        while let Some(c) = self.peek() {
            self.i += 1;
            match c {
                b'\\' => self.i += 1,
                b'"' => return serde_json::from_slice(&self.b[start..self.i]).ok(),
                _ => {}
            }
        }
        None
    }

    /// Skips a value; `None` when the text is not one.
    fn value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(drop),
            b'{' => self.object().map(drop),
            b'[' => {
                self.i += 1;
                loop {
                    self.skip_space();
                    match self.peek()? {
                        b']' => {
                            self.i += 1;
                            return Some(());
                        }
                        b',' => self.i += 1,
                        _ => self.value()?,
                    }
                }
            }
            _ => {
                let start = self.i;
                while self
                    .peek()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || b"+-.".contains(&c))
                {
                    self.i += 1;
                }
                (self.i > start).then_some(())
            }
        }
    }

    /// An object at the cursor.
    fn object(&mut self) -> Option<Object> {
        let open = self.i;
        if self.peek() != Some(b'{') {
            return None;
        }
        self.i += 1;
        let mut members = Vec::new();
        loop {
            self.skip_space();
            match self.peek()? {
                b'}' => {
                    self.i += 1;
                    return Some(Object {
                        open,
                        close: self.i - 1,
                        members,
                    });
                }
                b',' => self.i += 1,
                b'"' => {
                    let start = self.i;
                    let key = self.string()?;
                    self.skip_space();
                    if self.peek()? != b':' {
                        return None;
                    }
                    self.i += 1;
                    self.skip_space();
                    let v0 = self.i;
                    self.value()?;
                    members.push(Member {
                        key,
                        start,
                        value: (v0, self.i),
                    });
                }
                _ => return None,
            }
        }
    }
}

/// The object that starts at byte `at` (the whole file's: the first
/// non-space byte), or `None` when the text there is not an object.
pub fn object_at(text: &str, at: usize) -> Option<Object> {
    let mut s = Scan {
        b: text.as_bytes(),
        i: at,
    };
    s.skip_space();
    let o = s.object()?;
    if at == 0 {
        s.skip_space();
        if s.i != s.b.len() {
            return None;
        }
    }
    Some(o)
}

/// The indentation of the line holding byte `at`.
fn indent_of(text: &str, at: usize) -> &str {
    let line = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let rest = &text[line..];
    &rest[..rest.len() - rest.trim_start_matches([' ', '\t']).len()]
}

/// `text` with `"key": value` added as the object's first or last member,
/// indented like its siblings (or one step in from the object's line).
pub fn insert(text: &str, obj: &Object, key: &str, value: &str, first: bool) -> String {
    let outer = indent_of(text, obj.open).to_string();
    let inner = match obj.members.first() {
        Some(m) => indent_of(text, m.start).to_string(),
        None => format!("{outer}  "),
    };
    let pair = format!("{}: {value}", serde_json::Value::from(key));
    let Some(last) = obj.members.last() else {
        return format!(
            "{}{{\n{inner}{pair}\n{outer}}}{}",
            &text[..obj.open],
            &text[obj.close + 1..]
        );
    };
    if first {
        // On a line of its own right after `{`: what followed the brace
        // (a comment, the first member) stays as it was.
        let at = obj.open + 1;
        return format!("{}\n{inner}{pair},{}", &text[..at], &text[at..]);
    }
    let end = last.value.1;
    format!("{},\n{inner}{pair}{}", &text[..end], &text[end..])
}

/// `text` without `member` (and the comma that separated it), the rest
/// untouched (a trailing comma after the last member stays).
pub fn remove(text: &str, obj: &Object, member: &Member) -> String {
    let i = obj
        .members
        .iter()
        .position(|m| m == member)
        .unwrap_or_default();
    let (from, to) = match (i.checked_sub(1), obj.members.get(i + 1)) {
        // After a sibling: from its value's end (the comma before us).
        (Some(p), _) => (obj.members[p].value.1, member.value.1),
        // First of several: from the brace to the comma after it.
        (None, Some(next)) => {
            let comma = text[member.value.1..next.start]
                .find(',')
                .map_or(next.start, |c| member.value.1 + c + 1);
            (obj.open + 1, comma)
        }
        // The only one: the object becomes empty.
        (None, None) => (obj.open + 1, obj.close),
    };
    format!("{}{}", &text[..from], &text[to..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_are_found_through_comments_strings_and_nesting() {
        let t = "// mine\n{\n  \"a\": {\"x\": [1, \"}\"]}, /* c */\n  \"b\": true,\n}\n";
        let o = object_at(t, 0).unwrap();
        let keys: Vec<&str> = o.members.iter().map(|m| m.key.as_str()).collect();
        assert_eq!(keys, ["a", "b"]);
        let a = o.get("a").unwrap();
        assert_eq!(&t[a.value.0..a.value.1], "{\"x\": [1, \"}\"]}");
        assert!(object_at("{\"a\": }", 0).is_none());
        assert!(object_at("{} trailing", 0).is_none());
    }

    #[test]
    fn insert_then_remove_gives_back_the_bytes() {
        for t in [
            "{\n  \"model\": \"x\",\n  \"z\": 1\n}\n",
            "{\n\t\"model\": \"x\" // why\n}",
            "{}\n",
            "{\"a\": 1,}",
        ] {
            for first in [true, false] {
                let o = object_at(t, 0).unwrap();
                let added = insert(t, &o, "mcp", "{\"k\": 1}", first);
                let o2 = object_at(&added, 0).unwrap_or_else(|| panic!("{added}"));
                let m = o2.get("mcp").unwrap().clone();
                assert_eq!(&added[m.value.0..m.value.1], "{\"k\": 1}");
                let back = remove(&added, &o2, &m);
                assert_eq!(back, t, "{added}");
            }
        }
        let t = "{\n  \"model\": \"x\"\n}\n";
        let o = object_at(t, 0).unwrap();
        assert_eq!(
            insert(t, &o, "$schema", "\"s\"", true),
            "{\n  \"$schema\": \"s\",\n  \"model\": \"x\"\n}\n"
        );
        assert_eq!(
            insert(t, &o, "mcp", "{}", false),
            "{\n  \"model\": \"x\",\n  \"mcp\": {}\n}\n"
        );
    }
}
