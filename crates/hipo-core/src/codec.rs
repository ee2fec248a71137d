//! The one place that decides how values are encoded in the redb store.
//!
//! serde + postcard: compact, stable for a given struct layout, and
//! maintained (bincode 3 is an empty crate and bincode 2 is unmaintained).
//! A layout change must bump [`crate::store::SCHEMA_VERSION`].

use serde::Serialize;
use serde::de::DeserializeOwned;

/// Encodes a value for storage.
pub fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    // postcard only fails on writer errors or unsupported types; a Vec
    // writer and our plain structs cannot hit either.
    postcard::to_stdvec(value).unwrap_or_default()
}

/// Decodes a stored value; `None` means the bytes are not of this layout
/// (a corrupt or foreign store), which callers treat as "rebuild".
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Option<T> {
    postcard::from_bytes(bytes).ok()
}

/// Decodes the first fields of a stored value, as a struct holding only
/// those (in the same order): the rest of the bytes are not read.
pub fn decode_head<T: DeserializeOwned>(bytes: &[u8]) -> Option<T> {
    postcard::take_from_bytes(bytes).ok().map(|(head, _)| head)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, serde::Deserialize, PartialEq, Debug)]
    struct Rec {
        a: u64,
        b: String,
        c: [u8; 4],
    }

    #[test]
    fn round_trips() {
        let rec = Rec {
            a: 7,
            b: "x".into(),
            c: [1, 2, 3, 4],
        };
        assert_eq!(decode::<Rec>(&encode(&rec)), Some(rec));
    }

    #[test]
    fn garbage_is_none() {
        assert_eq!(decode::<Rec>(&[0xff, 0xff, 0xff]), None);
    }
}
