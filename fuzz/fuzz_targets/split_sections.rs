//! The search index's section cutter on any text: no panic, ranges in
//! bounds and on character boundaries, windows tiling their section.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut prev = 0;
    for s in hipo_core::index::sections::split(text) {
        assert!(prev <= s.bytes.start && s.bytes.start < s.bytes.end && s.bytes.end <= text.len());
        assert!(text.is_char_boundary(s.bytes.start) && text.is_char_boundary(s.bytes.end));
        assert!(s.lines.0 <= s.lines.1);
        let (first, last) = (&s.windows[0], &s.windows[s.windows.len() - 1]);
        assert_eq!(
            (first.bytes.start, last.bytes.end),
            (s.bytes.start, s.bytes.end)
        );
        prev = s.bytes.end;
    }
});
