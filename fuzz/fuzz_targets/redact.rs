//! Redaction on any text: idempotent, line breaks kept, and whatever
//! changed became `[REDACTED]`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let once = hipo_core::redact::redact(text);
    assert_eq!(hipo_core::redact::redact(&once), once);
    assert_eq!(once.matches('\n').count(), text.matches('\n').count());
    if once != text {
        assert!(once.contains(hipo_core::redact::REDACTED));
    }
});
