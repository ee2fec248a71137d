//! Brute-force nearest sections: every passage's i8 row against the
//! question, a section scored by its best passage, then the best
//! candidates rescored with their exact f16 rows.
//!
//! Why i8 for the scan: at 100k rows of 384 dimensions the f16 file is
//! 77 MB, and streaming it (and converting each half) is what a query
//! waits on; i8 rows are half the bytes and turn into floats with plain
//! integer instructions every x86-64 and ARM core has. The quantisation
//! error (a scale per row, so about 0.4% of its largest component) can
//! only swap sections whose cosines are within a hair, which the rescoring
//! of the best [`RESCORE`]× candidates with the exact rows undoes for the
//! ones returned.

use super::cache::format::Record;
use half::f16;
use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};
use rayon::prelude::*;

/// Candidate sections rescored exactly, as a multiple of those asked for
/// (plus a few), so quantisation never decides the order returned.
pub const RESCORE: usize = 2;
/// Rows from which the scan is split across threads: below it the threads'
/// start-up costs more than it saves.
const PARALLEL_ROWS: usize = 16_384;

/// The cache's arrays, borrowed for one query.
pub(super) struct View<'a> {
    pub dim: usize,
    pub f16: &'a [u8],
    pub i8: &'a [u8],
    pub records: &'a [Record],
    /// Each section's rows `[start, end)`.
    pub groups: &'a [(u64, usize, usize)],
}

impl View<'_> {
    /// The `k` best sections for the unit vector `q`, best first, ties by
    /// row order.
    pub fn nearest(&self, q: &[f32], k: usize) -> Vec<(u64, f32)> {
        let (qi, qscale) = quantised(q);
        let approx = |g: &(u64, usize, usize)| {
            (g.1..g.2)
                .map(|i| self.approx(&qi, i) * qscale)
                .fold(f32::NEG_INFINITY, f32::max)
        };
        let mut scored: Vec<(f32, usize)> = if self.records.len() >= PARALLEL_ROWS {
            self.groups
                .par_iter()
                .enumerate()
                .map(|(n, g)| (approx(g), n))
                .collect()
        } else {
            self.groups
                .iter()
                .enumerate()
                .map(|(n, g)| (approx(g), n))
                .collect()
        };
        let order = |a: &(f32, usize), b: &(f32, usize)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
        let keep = (k * RESCORE + 8).min(scored.len());
        if keep == 0 {
            return Vec::new();
        }
        if keep < scored.len() {
            scored.select_nth_unstable_by(keep - 1, order);
            scored.truncate(keep);
        }
        let mut row = vec![0f32; self.dim];
        for s in &mut scored {
            let (_, start, end) = self.groups[s.1];
            s.0 = (start..end)
                .map(|i| {
                    f16_into(self.f16, self.dim, i, &mut row);
                    dot(&row, q)
                })
                .fold(f32::NEG_INFINITY, f32::max);
        }
        scored.sort_by(order);
        scored.truncate(k);
        scored
            .into_iter()
            .map(|(s, n)| (self.groups[n].0, s))
            .collect()
    }

    /// Row `i`'s cosine with the quantised question (times its scale)
    /// from the row's i8 copy.
    fn approx(&self, q: &[i16], i: usize) -> f32 {
        let row = &self.i8[i * self.dim..(i + 1) * self.dim];
        dot_i8(row, q) as f32 * self.records[i].scale
    }
}

/// `q` as i16 and the scale back (a component is `i16 × scale`), at the
/// largest magnitude for which a row's sum of products stays inside i32
/// (`dim × 127 × max`): 15 bits at 384 dimensions, 13 at 1,024.
fn quantised(q: &[f32]) -> (Vec<i16>, f32) {
    let limit = (i32::MAX as usize / (127 * q.len().max(1))).min(i16::MAX as usize) as f32;
    let max = q.iter().fold(0f32, |m, x| m.max(x.abs()));
    let scale = if max > 0.0 { max / limit } else { 1.0 };
    let qi = q
        .iter()
        .map(|x| (x / scale).round().clamp(-limit, limit) as i16)
        .collect();
    (qi, scale)
}

/// Row `i` of an f16 file as floats.
pub(super) fn f16_row(map: &[u8], dim: usize, i: usize) -> Vec<f32> {
    let mut out = vec![0f32; dim];
    f16_into(map, dim, i, &mut out);
    out
}

fn f16_into(map: &[u8], dim: usize, i: usize, out: &mut [f32]) {
    let bytes = &map[i * 2 * dim..(i + 1) * 2 * dim];
    let bits: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    let halves: &[f16] = bits.reinterpret_cast();
    halves.convert_to_f32_slice(out);
}

/// `Σ row[j] × q[j]` with `row` as i8, in integers: their sum is
/// associative, so the compiler vectorises it freely (multiply-add of
/// 16-bit pairs, which every x86-64 has since SSE2).
fn dot_i8(row: &[u8], q: &[i16]) -> i32 {
    row.iter()
        .zip(q)
        .map(|(&x, &y)| i32::from(x as i8) * i32::from(y))
        .sum()
}

/// Written as eight running sums so the compiler vectorises it.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    acc.iter().sum::<f32>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_i8_dot_is_the_float_dot_within_its_step() {
        let q: Vec<f32> = (0..37)
            .map(|i| ((i * 7 % 11) as f32 - 5.0) / 20.0)
            .collect();
        let row: Vec<i8> = (0..37).map(|i: i32| (i * 13 % 255 - 127) as i8).collect();
        let bytes: Vec<u8> = row.iter().map(|&x| x as u8).collect();
        let exact: f32 = row.iter().zip(&q).map(|(&x, y)| f32::from(x) * y).sum();
        let (qi, scale) = quantised(&q);
        let approx = dot_i8(&bytes, &qi) as f32 * scale;
        assert!((approx - exact).abs() < 1e-2, "{approx} {exact}");
        // No overflow at a large model's dimension.
        let (qi, _) = quantised(&[1.0; 4096]);
        let ones = [127u8; 4096];
        assert!(dot_i8(&ones, &qi) > 0);
    }
}
