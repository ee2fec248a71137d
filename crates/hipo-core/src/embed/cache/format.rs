//! The byte layout of the cache's rows, and the hasher of its lookups.

use half::f16;
use half::slice::HalfFloatSliceExt;
use std::hash::{BuildHasherDefault, Hasher};

/// Bytes of a row's record in `rows.G.bin`.
pub const ROW_BYTES: usize = 24;

/// A row's record, as read back.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(in crate::embed) struct Record {
    pub section: u64,
    pub text: u64,
    pub piece: u16,
    pub count: u16,
    pub scale: f32,
}

/// Fingerprints are hashes already: a multiply spreads them (and a
/// caller's small ids) over the table, at a fraction of SipHash's cost,
/// which a search's open paid per row.
#[derive(Default)]
pub(super) struct FpHasher(u64);

impl Hasher for FpHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(*b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

pub(super) type FpHash = BuildHasherDefault<FpHasher>;

/// `unit` as f16 bytes onto `halves` and i8 onto `bytes`; returns the i8
/// scale (a component is `i8 × scale`).
pub(super) fn encode_vector(unit: &[f32], halves: &mut Vec<u8>, bytes: &mut Vec<u8>) -> f32 {
    let mut half = vec![f16::ZERO; unit.len()];
    half.convert_from_f32_slice(unit);
    for h in half {
        halves.extend_from_slice(&h.to_bits().to_le_bytes());
    }
    let max = unit.iter().fold(0f32, |m, x| m.max(x.abs()));
    let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
    bytes.extend(
        unit.iter()
            .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8 as u8),
    );
    scale
}

pub(super) fn encode(r: &Record) -> [u8; ROW_BYTES] {
    let mut b = [0u8; ROW_BYTES];
    b[0..8].copy_from_slice(&r.section.to_le_bytes());
    b[8..16].copy_from_slice(&r.text.to_le_bytes());
    b[16..18].copy_from_slice(&r.piece.to_le_bytes());
    b[18..20].copy_from_slice(&r.count.to_le_bytes());
    b[20..24].copy_from_slice(&r.scale.to_le_bytes());
    b
}

pub(super) fn decode(b: &[u8]) -> Record {
    let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or([0; 8]));
    let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
    Record {
        section: u64_at(0),
        text: u64_at(8),
        piece: u16_at(16),
        count: u16_at(18),
        scale: f32::from_le_bytes(b[20..24].try_into().unwrap_or([0; 4])),
    }
}
