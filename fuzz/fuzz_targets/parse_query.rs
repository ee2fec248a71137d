//! The query language on any input: a query or a usage error, never a
//! panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(input) = std::str::from_utf8(data) {
        let _ = hipo_core::search::query::parse(input);
    }
});
