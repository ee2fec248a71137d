//! Secrets said in words (issue 28): "the staging password is
//! hunter2-Tr0ub4dor&3", "pw: …", "my AWS secret key is …", "API secret
//! for billing is <40 hex>", "비밀번호는 … 입니다", "admin / P@ssw0rd!".
//!
//! A regex finds a secret word (password, passphrase, pw, secret, token,
//! key, credentials, and their German, French, Spanish, Portuguese,
//! Italian, Dutch, Polish, Russian, Korean, Japanese and Chinese names);
//! then a small scanner reads the few words after it the way a person
//! reads them: up to seven words of the noun phrase ("for the staging
//! box"), a verb or sign that gives the value ("is", "=", ":", "->",
//! "set to", "ist", "est", "é", "は", "是", …), then the value. The value
//! is a secret only if it looks like one (see [`looks_secret`]): prose
//! about secrets ("the password is too short", "the token count is 4096",
//! "the key commit is 3f78…") stays as it is. A word of the noun phrase
//! that names something else than the secret itself (`hash`, `commit`,
//! `id`, `length`, `file`, `endpoint`, …) ends the reading.
//!
//! Without a verb ("passphrase orchid-tango-maple", "twilio auth token
//! 3f…") the value must look strongly like a secret.

mod context;
mod near;
mod reading;

use super::names::{
    ANSWER_WORDS, CODE_WORDS, ENGLISH_PASSWORD_WORDS, KEY_WORDS, Names, OPENS, OPENS_ENGLISH,
    PASSWORD_WORDS, PIN_WORDS, is_bare_key, names,
};
use super::value::{Strength, looks_made_up, looks_secret, paired_password, password_shape};
use context::{clock_time, ends_there, in_variable, public_code, signed, suffixed};
use reading::{Asks, read_value, value_range};
use regex::Regex;
use std::ops::Range;
use std::sync::LazyLock;

/// The secret words. Group 1, when present, qualifies a bare `key`
/// (`api key`, `secret key`): a bare one ("the cache key is …") asks for
/// more of its value (see [`Strength::Weak`]). Word boundaries are
/// checked in code ([`at_word`]): a Unicode boundary class in the pattern
/// made the search ten times slower.
const KEYWORD: &str = concat!(
    // ASCII words fold ASCII case only: Unicode folding turns every `k`
    // and `s` into three characters and made compiling this regex, which
    // any text with "key" or "code" pays, several times slower.
    r"(?i-u:passwort|kennwort|mot de passe|mdp|senha|wachtwoord|haslo|sifre|heslo|kata sandi|salasana|parola|pincode|fraza)",
    r"|(?i:contraseña|hasło|пароль|токен|şifresi|şifrem|şifre|mật khẩu|lösenord(?:et)?|κωδικός|türcode|код)",
    r"|كلمة المرور|كلمة السر|הסיסמה|סיסמה|סיסמא|पासवर्ड",
    r"|(?i-u:passw(?:or)?ds?|passphrases?|passcodes?|pwd|pw|pass|pins?|wi-?fi|secrets?|tokens?|authtokens?|credentials?|creds)",
    r"|(?i-u:(?:backup|recovery|unlock|access|door|alarm|gate|verification|otp|2fa|mfa|lock|keypad|opener|lockbox|entry|security|safe|garage|building|sms|one[ -]?time|atm|meeting|bridge|release|login|auth|disarm|master|entrance|padlock|bypass|host|cage)[ _-]?codes?)",
    r"|(?i-u:digicode|codice di (?:verifica|accesso|sicurezza))",
    r"|(?i:best[äa]tigungscode|zugangscode|sicherheitscode|toegangscode|deurcode|poortcode|verificatiecode|beveiligingscode|herstelcode|wiederherstellungscodes?)",
    r"|(?i-u:t?otp|mpin|combinazione|combinacao|combinacion)|(?i:combinação|combinación|एमपिन)",
    // What a code opens, said for the code: "server room keypad: 2479#".
    r"|(?i-u:keypad|lockbox|key ?safe|padlock|(?:bike|combo|combination) ?lock)",
    r"|(?i:c[óo]digo de (?:verificaci[óo]n|acceso|seguridad|desbloqueo|recuperaci[óo]n)|code d'acc[èe]s|code de (?:v[ée]rification|s[ée]curit[ée]|r[ée]cup[ée]ration)|c[óo]digos? de recupera[çc][ãa]o|codice di recupero|cl[ée] de r[ée]cup[ée]ration)",
    r"|验证码|驗證碼|認証コード|確認コード|인증번호|인증 ?코드",
    r"|(?i-u:(?:otp|totp|2fa|mfa)[ _-]?seeds?|combo|combination|puk|pasword|passwrod|passowrd|paswrod|paswd)",
    r"|(?i-u:(?:secret|seed|recovery|backup|challenge|mnemonic|wallet|master)[ _-]?phrases?|(?:wallet|recovery|mnemonic)?[ _-]?seed[ _-]?(?:words|phrase)|wallet seed)|비번",
    r"|((?i-u:api|secret|access|private|signing|encryption|auth|master|app|client|license|ssh|gpg|deploy|account|pre-?shared|shared|recovery|backup|bitlocker)[ _-]?)?",
    r"(?:(?i-u:keys?|cle|clave|chiave|sleutel)|(?i:schlüssel|clé|ключ))",
    r"|비밀번호|패스워드|암호|토큰|パスワード|トークン|暗証番号|密码|密碼|口令|令牌|密钥|密鑰",
    r"|(?:API|api)\s?(?:키|キー)",
    r"|(?i-u:security[ _-]?(?:question[ _-]?|q[ _-]?)?answers?|security[ _-]?(?:questions?|q)|secret[ _-]?answer|memorable[ _-]?word|maiden[ _-]?name)",
    // A security question in other languages, its answer after it.
    r"|(?i-u:sicherheitsfrage|pytanie pomocnicze|beveiligingsvraag|domanda di sicurezza|pregunta de seguridad)",
    r"|(?i:g[üu]venlik sorusu|question secr[èe]te|pergunta de seguran[çc]a|контрольный вопрос)|秘密の質問|安全问题|보안 ?질문",
    // Gift cards' codes, and backup codes in more languages.
    r"|(?i-u:gift[ _-]?cards?(?:[ _-]codes?)?|kody zapasowe|herstelsleutel)|(?i:yedek kod(?:u|lar[ıi]))|バックアップコード|恢复码|恢復碼",
    // "the answer to 'first pet' is …": read from the question's quote.
    r#"|(?i-u:answers?\s+(?:to|for)\s+)['"‘“]"#,
    r"|(?i:c[óo]digo de verifica[çc][ãa]o|codice otp|kod 2fa|kod sms|do[ğg]rulama kodu(?:nuz)?|kode otp)|رمز التحقق|ओटीपी",
    // A bare code, for its digits ("the code to the server room is
    // 7391"), last: a longer name at the same place is read first.
    r"|(?i-u:codes?|codice|codigo|kodu?)|(?i:código)|코드|कोड",
    // What a code opens, for its digits: "the side gate is 7360#".
    r"|(?i-u:door|gate|safe|alarmanlage|alarm|locker|lock|keybox|barrier|garage|tresor)|TAN",
    r"|(?i-u:(?:fahrrad|ketten|zahlen)?schloss|(?:voor|buiten|achter)?deur|poort|kluis|(?:fiets|ketting|cijfer)slot)",
    r"|(?i-u:sejf|brama|furtka|cassaforte|cancello|lucchetto|portail|porta|cofre|cadeado|caja fuerte|candado|puerta|porte|coffre|cadenas|kilit)",
    r"|(?i:tür|portão|kłódk[ai])|金庫|オートロック|警報"
);

/// Bare "key" words of CJK text (`키`, `キー`) are left out of
/// [`KEYWORD`] unless qualified: alone they are syllables of other words.
static KEYWORD_RE: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(KEYWORD).ok());

/// True if `word` at `range` of `text` stands alone: a word in a
/// script with spaces is not the inside of a longer word (`bypass`,
/// `tokens_used`); an identifier ending in it counts (`AWS_SECRET`).
fn at_word(text: &str, range: &Range<usize>) -> bool {
    let word = &text[range.clone()];
    let spaced = |c: char| c.is_alphabetic() && !is_cjk(c);
    let before = text[..range.start].chars().next_back();
    let after = text[range.end..].chars().next();
    let glued_before = word.starts_with(spaced) && before.is_some_and(char::is_alphanumeric);
    let glued_after =
        word.ends_with(spaced) && after.is_some_and(|c| c.is_alphanumeric() || c == '_');
    !glued_before && !glued_after
}

fn is_cjk(c: char) -> bool {
    matches!(c, '\u{1100}'..='\u{11FF}' | '\u{3040}'..='\u{30FF}' | '\u{3400}'..='\u{9FFF}' | '\u{AC00}'..='\u{D7AF}')
}

/// A login and its password: `admin / P@ssw0rd!`. The password must look
/// strongly like one (symbols mixed with letters and digits), so
/// `read / write` and `and / or` are not pairs.
static PAIR_RE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r#"(?:^|[\s(:])[A-Za-z][A-Za-z0-9_.@-]{1,31} / ([\x21-\x7E&&[^"'`]]{6,})"#).ok()
});

/// `user:password` after a word that says a login follows ("use
/// deploy:Maple1234! to log in", "creds admin:…"); elsewhere a colon
/// between two words is too common (`std::io`, `12:30`, `key:value`).
static LOGIN_RE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i-u:use|with|login|log in as|creds|credentials|user|username|account)\s*:?\s+",
        r#"[A-Za-z][A-Za-z0-9_.@-]{1,31}[:/]([\x21-\x7E&&[^"'`]]{6,})"#
    ))
    .ok()
});

/// A word that is a password by its shape alone, said with no word for
/// it ("I typed Hazelnut&Rye9 and it worked", "root/AcmeRoot!1 on the
/// lab hosts"): checked by [`password_shape`].
static SHAPE_RE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(concat!(
        r#"(?:^|[\s"'`(\[</])"#,
        r"([A-Za-z0-9][A-Za-z0-9+=?~_-]*[!@#$%^&*][A-Za-z0-9!@#$%^&*+=?~_-]*)",
        r#"(?:$|[\s"'`)\],.;:>])"#
    ))
    .ok()
});

/// The value first: "`X` is the password for staging", "set it to X,
/// that's the kibana password", "the new one is X (password for …)",
/// "X is what I set the root password to", "X — that's the new jenkins
/// password".
/// Matched on the line before a secret word, so it runs once a word.
static BEFORE_RE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(concat!(
        r#"(?:^|[\s"'`])([\x21-\x7E&&[^"'`]]{4,}?)["'`]?(?:\s+|\s*[,(]\s*|\s+[—–-]\s+|\s*(?:<-+|←)\s*)"#,
        r"((?i-u:is|was|that's|that is|it's|as)\s+)?",
        r"((?i-u:what|which)\s+(?:[\w']+\s+){1,3}?(?i-u:as|to)?\s*)?",
        r"((?i-u:the|my|our|your|their)\s+)?",
        r"(?:(?i-u:new|old|current|temporary|temp|default|shared)\s+)?",
        r"(?:[\w-]+\s+){0,2}?$"
    ))
    .ok()
});

/// The secret words a value may come before.
fn said_after(word: &str) -> bool {
    let w = word.to_ascii_lowercase();
    [
        "password",
        "passwords",
        "passphrase",
        "pass",
        "pin",
        "pw",
        "passcode",
        "key",
        "secret",
        "token",
    ]
    .contains(&w.as_str())
        || w.starts_with("api") && w.ends_with("key")
}

/// The secret words' anchors: literals one of which every match of
/// [`KEYWORD`] holds (the prefilter adds the capitals of words in other
/// scripts).
static KEYWORD_ANCHORS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    const OTHERS: &[&str] = &[
        "security",
        "gift",
        "wifi",
        "wi-fi",
        "seed",
        "pasw",
        "passow",
        "phrase",
        "비번",
        "secret",
        "token",
        "credential",
        "creds",
        "токен",
        "토큰",
        "키",
        "トークン",
        "キー",
        "コード",
        "令牌",
        "密钥",
        "密鑰",
    ];
    OTHERS
        .iter()
        .chain(KEY_WORDS)
        .chain(PASSWORD_WORDS)
        .chain(PIN_WORDS)
        .chain(ANSWER_WORDS)
        .chain(CODE_WORDS)
        .chain(OPENS_ENGLISH)
        .chain(OPENS)
        .copied()
        .collect()
});

/// The scanner's parts, each run only when the prefilter finds one of
/// its anchors.
#[derive(Clone, Copy)]
pub(super) enum Part {
    Keyword,
    Pair,
    Login,
    Shape,
    Near,
}

pub(super) const PARTS: [Part; 5] = [
    Part::Keyword,
    Part::Pair,
    Part::Login,
    Part::Shape,
    Part::Near,
];

impl Part {
    /// Literals one of which (ASCII case aside) every match contains.
    pub(super) fn anchors(self) -> &'static [&'static str] {
        match self {
            Part::Keyword => &KEYWORD_ANCHORS,
            Part::Pair => &[" / "],
            Part::Login => &[
                "use",
                "with",
                "login",
                "log in",
                "creds",
                "credential",
                "account",
            ],
            Part::Shape => &["!", "@", "#", "$", "%", "^", "&", "*"],
            Part::Near => near::ANCHORS,
        }
    }

    pub(super) fn regex(self) -> Option<&'static Regex> {
        match self {
            Part::Keyword => KEYWORD_RE.as_ref(),
            Part::Pair => PAIR_RE.as_ref(),
            Part::Login => LOGIN_RE.as_ref(),
            Part::Shape => SHAPE_RE.as_ref(),
            Part::Near => near::RE.as_ref(),
        }
    }
}

/// Every range of `text` that holds a secret said in words; `need[i]`
/// says whether [`PARTS`]`[i]` can match.
pub(super) fn find(text: &str, need: &[bool]) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    let wanted = |p: &Part| need.get(*p as usize).copied().unwrap_or(true);
    for part in PARTS[1..].iter().filter(|p| wanted(p)) {
        let Some(re) = part.regex() else { continue };
        if matches!(part, Part::Near) {
            let mut line_done = usize::MAX;
            for m in re.find_iter(text) {
                let line = text[..m.start()].rfind('\n').map_or(0, |i| i + 1);
                if line == line_done {
                    continue;
                }
                line_done = line;
                for r in near::on_line(text, m.start()) {
                    add(&mut out, r);
                }
            }
            continue;
        }
        for c in re.captures_iter(text) {
            let Some(g) = c.get(1) else { continue };
            if matches!(part, Part::Shape) {
                // A name that runs on past a dot is an address or a file
                // (`<CAF3x9@mail.gmail.com>`, `Build#12.log`).
                let mut after = text[g.end()..].chars();
                let runs_on =
                    after.next() == Some('.') && after.next().is_some_and(char::is_alphanumeric);
                if !runs_on && password_shape(g.as_str()) {
                    add(&mut out, g.range());
                }
                continue;
            }
            let Some(r) = value_range(text, g.start(), g.end()) else {
                continue;
            };
            // A login's pair: a password, made up as passwords are.
            let v = &text[r.clone()];
            if looks_secret(v, Strength::Bare, false)
                || looks_made_up(v, Strength::Bare, Names::Password)
                || paired_password(v)
            {
                add(&mut out, r);
            }
        }
    }
    if !wanted(&Part::Keyword) {
        return out;
    }
    let Some(re) = Part::Keyword.regex() else {
        return out;
    };
    for c in re.captures_iter(text) {
        let Some(m) = c.get(0) else { continue };
        if !at_word(text, &m.range()) {
            continue;
        }
        let word = m.as_str();
        let names = names(word);
        let bare_key = c.get(1).is_none() && is_bare_key(word);
        // A public key is no secret (`public_key: MIIB…`, "02a8… (wallet
        // public key)").
        let mut from = m.start().saturating_sub(12);
        while !text.is_char_boundary(from) {
            from += 1;
        }
        let lead = text[from..m.start()].to_ascii_lowercase();
        let lead = lead.trim_end_matches([' ', '_', '-', '.']);
        if bare_key && (lead.ends_with("pub") || lead.ends_with("public")) {
            continue;
        }
        if names == Names::Code && public_code(text, m.start()) {
            continue;
        }
        // A variable's name, `${APPLE_SHARED_SECRET:?missing}`: the rest
        // is the shell's, not a value.
        if in_variable(&text[..m.start()]) {
            continue;
        }
        // "X, the password is on the router": a word with a verb of its
        // own is given its value after; "X is password protected": a
        // word that qualifies another gives none.
        let rest = &text[m.end()..];
        let own_verb = reading::verb_follows(rest) || reading::qualifies(rest);
        if let Some(r) = (said_after(word) && !own_verb)
            .then(|| before(text, m.start(), names))
            .flatten()
        {
            add(&mut out, r);
        }
        let strength = if bare_key {
            Strength::Weak
        } else {
            Strength::Named
        };
        let lower = word.to_lowercase();
        let passphrase = ["phrase", "seed", "fraza"]
            .iter()
            .any(|p| lower.contains(p));
        let asks = Asks {
            strength,
            passphrase,
            names,
            english: english(word),
        };
        let quote = word.chars().next_back().filter(|c| "'\"‘“".contains(*c));
        let at = m.end() - quote.map_or(0, char::len_utf8);
        if let Some(r) = read_value(text, at, asks)
            && (names != Names::Code || ends_there(&text[r.end..]))
            && !(word.eq_ignore_ascii_case("alarm") && clock_time(&text[r.clone()]))
            && !(names == Names::Answer && !asks.english && !signed(&text[m.end()..r.start]))
            && !suffixed(&text[r.clone()])
        {
            add(&mut out, r);
        }
    }
    out
}

/// A value said before the secret word that starts at `at`.
fn before(text: &str, at: usize, names: Names) -> Option<Range<usize>> {
    let line = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let mut from = at.saturating_sub(120).max(line);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    let c = BEFORE_RE.as_ref()?.captures(&text[from..at])?;
    let g = c.get(1)?;
    let r = value_range(text, from + g.start(), from + g.end())?;
    let v = &text[r.clone()];
    // "X is the pw for the old router" says as much as "the pw … is X";
    // "X is about the password reset" does not.
    let naming = c.get(3).is_some() || c.get(4).is_some();
    let strength = if c.get(2).is_some() && naming {
        Strength::Named
    } else {
        Strength::Bare
    };
    // Without them, only a value that looks random or strong on its own.
    let made_up = strength == Strength::Named && looks_made_up(v, strength, names);
    (looks_secret(v, Strength::Bare, false) || made_up).then_some(r)
}

/// Adds a range unless it overlaps one already found.
fn add(out: &mut Vec<Range<usize>>, r: Range<usize>) {
    if !out.iter().any(|o| o.start < r.end && r.start < o.end) {
        out.push(r);
    }
}

/// Whether a secret word is English's (other languages' words written in
/// ASCII, `Passwort`, `senha`, `mdp`, are not).
fn english(word: &str) -> bool {
    let w = word.to_ascii_lowercase();
    if names(word) == Names::Code {
        return w.starts_with("code") || OPENS_ENGLISH.contains(&w.as_str());
    }
    word.is_ascii()
        && !PASSWORD_WORDS
            .iter()
            .filter(|p| !ENGLISH_PASSWORD_WORDS.contains(p))
            .any(|o| w.starts_with(o))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pattern that does not compile turns the scanner off without a
    /// word (`(?i-u:…)` takes ASCII only).
    #[test]
    fn every_pattern_compiles() {
        for part in PARTS {
            assert!(part.regex().is_some());
        }
        assert!(BEFORE_RE.is_some());
    }

    fn redacted(text: &str) -> Vec<&str> {
        find(text, &[true; 3])
            .into_iter()
            .map(|r| &text[r])
            .collect()
    }

    #[test]
    fn said_secrets_are_found() {
        for (text, secret) in [
            (
                "the staging password is hunter2-Tr0ub4dor&3",
                "hunter2-Tr0ub4dor&3",
            ),
            ("pw: Glacier7858@", "Glacier7858@"),
            (
                "passphrase orchid-tango-maple-river",
                "orchid-tango-maple-river",
            ),
            (
                "Twilio auth token is 6f1ed002ab5595859014ebf0951522d9",
                "6f1ed002ab5595859014ebf0951522d9",
            ),
            // The sentence's punctuation stays out of the secret.
            ("the password, if you need it, is Maple1234!", "Maple1234"),
            ("パスワードはRiver28falcon32です", "River28falcon32"),
            ("비밀번호는 s3cr3t-Pa55 입니다", "s3cr3t-Pa55"),
            (
                "la clé API est a8F3kLm20QpZx7Vb9TnR4wYc",
                "a8F3kLm20QpZx7Vb9TnR4wYc",
            ),
            // As people make passwords: words joined, run together, in
            // quotes; a PIN's digits; hex a password's verb gives.
            (
                "The password to the shared drive is walrus-tuesday.",
                "walrus-tuesday",
            ),
            (
                "the mailbox password is ParisInTheSpring",
                "ParisInTheSpring",
            ),
            (
                "the encryption passphrase is 'granite owl whisper' (all lowercase)",
                "granite owl whisper",
            ),
            (
                "the wifi passphrase is purple monkey dishwasher",
                "purple monkey dishwasher",
            ),
            ("PIN for the deploy box: 604217", "604217"),
            (
                "redis AUTH password is 7d3f9a1c2b8e4f60",
                "7d3f9a1c2b8e4f60",
            ),
            // Past "for the …" the words say whose it is.
            ("Password for the jump host: Jh!9xPq7Lw2e", "Jh!9xPq7Lw2e"),
            (
                "sudo password on build-03 is the same as before: tacocat77",
                "tacocat77",
            ),
            (
                "the SFTP password (Nimbus_4417) expires soon",
                "Nimbus_4417",
            ),
            // Codes said in groups or of letters and digits.
            (
                "the one-time code from the authenticator is 209 448",
                "209 448",
            ),
            ("the meeting passcode is Xr7pQ2", "Xr7pQ2"),
            (
                "cloudflare login pw = Sky!Bridge!Falcon",
                "Sky!Bridge!Falcon",
            ),
            // The value first, however the sentence runs on to the word.
            (
                "Kh8$pW2@nQ is what I set the root password to on the new box",
                "Kh8$pW2@nQ",
            ),
            ("8812 is my PIN for the lab phone", "8812"),
            // One plain word after English's verb, the clause ending; a
            // security question's answer.
            ("yeah the admin pw is quietstorm, one word", "quietstorm"),
            ("my mum's maiden name is Fitzwilliam", "Fitzwilliam"),
            (
                "security answer for \"favourite teacher\" is Mrs Okonkwo",
                "Mrs Okonkwo",
            ),
            ("security q: name of first pet -> Pickles", "Pickles"),
            ("验证码 365 902，五分钟内有效", "365 902"),
            (
                "Marigold77! is the new office wifi password btw",
                "Marigold77",
            ),
        ] {
            assert_eq!(redacted(text), [secret], "{text}");
        }
    }

    #[test]
    fn letters_and_commas_after_a_secret_word_are_prose() {
        // Found by tests/properties.rs (prose_is_never_redacted).
        assert!(redacted("pW,AaA,AA,a").is_empty());
        assert!(redacted("the pw, Jim, Ann, AaBb, is fine").is_empty());
    }

    #[test]
    fn prose_about_secrets_is_kept() {
        for text in [
            "the password is too short",
            "the token count is 4096",
            "the key commit is 3f786850e387550fdab836ed7e6dc881de23001b",
            "the idempotency key is 123e4567-e89b-12d3-a456-426614174000",
            "the key is ~/.ssh/id_ed25519",
            "the token is <your-token>",
            "the password manager is 1Password",
            "the secret manager is v1.14.2",
            "비밀번호는 12자 이상이어야 합니다",
            "the password is case-sensitive",
            "the password is auto-generated",
            "the password is read-only",
            "the wifi network is ACME-Guest",
            "the API key is OPENAI_API_KEY in .env",
            "the PIN is 4 digits long",
            "pin the version to 1.4.2",
            "GPIO pin 17 drives the LED",
            "the password is in 1Password",
            "the recovery phrase is twelve random words",
            "the password is 'password', said nobody sensible",
            "the network name is NETGEAR47-5G, the password is on the router",
            "office wifi is 'HQ-Staff' now",
            "the passcode is 6-digits",
            "password = os.environ['DB_PASS']",
            // MemAware's chats, where the first version of these rules
            // changed one line.
            "Use a suitable rod and reel combo with a medium to medium-heavy action",
            "ticket PAY-4821 is about the password reset flow",
            "jupyter on gpu-box-3 is password protected now; ask Wen for the password",
            "pub: 02a8c151fa2f2624019f0c9d4ea76c27f12e6e534ba81ef032098958dd62f68c90 (wallet public key)",
            "the password is wrong.",
            "Password: changed yesterday",
            "enter your password to continue",
            "la password è scaduta",
            "das Passwort ist falsch",
            "password = getpass.getpass('Vault password: ')",
            "the security answer is case-insensitive",
            "- name: DB_PASSWORD valueFrom: secretKeyRef (see the docs)",
        ] {
            assert!(redacted(text).is_empty(), "{text}");
        }
    }
}
