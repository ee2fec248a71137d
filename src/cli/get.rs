//! `hipo get PATH[:LINE[:COUNT]]` or `hipo get '#ID'`
//!
//! Printed as it is read, text or JSON, so a 200 MB log is never held.

use super::{Ctx, exit};
use anyhow::Result;
use hipo_core::Lines;
use serde::ser::{Error as _, SerializeSeq, SerializeStruct};
use std::cell::RefCell;
use std::io::Write;

pub fn run(ctx: &Ctx, target: &str) -> Result<u8> {
    let lines = ctx.hipo()?.get_lines(&hipo_core::parse_target(target)?)?;
    // Stdout is line-buffered: a write per line (or per JSON token) took
    // twice as long for a big file.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if ctx.json {
        serde_json::to_writer_pretty(&mut out, &Streamed(RefCell::new(Some(lines))))?;
        writeln!(out)?;
        out.flush()?;
        return Ok(exit::OK);
    }
    let (first, width) = (lines.first, (lines.first + lines.count).to_string().len());
    for (i, line) in lines.enumerate() {
        let line = line?;
        let n = (first + i).to_string();
        writeln!(out, "{}  {line}", ctx.style.dim(&format!("{n:>width$}")))?;
    }
    out.flush()?;
    Ok(exit::OK)
}

/// [`hipo_core::Slice`]'s JSON (the same fields in the same
/// order), its lines written as they are read. Serializing takes the lines,
/// so it can be done once.
struct Streamed(RefCell<Option<Lines>>);

impl serde::Serialize for Streamed {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let lines = take(&self.0)?;
        let (path, first, total) = (lines.path.clone(), lines.first, lines.total);
        let mut slice = s.serialize_struct("Slice", 4)?;
        slice.serialize_field("path", &path)?;
        slice.serialize_field("first", &first)?;
        slice.serialize_field("lines", &Seq(RefCell::new(Some(lines))))?;
        slice.serialize_field("total", &total)?;
        slice.end()
    }
}

/// The lines of a [`Streamed`] slice, as a JSON array.
struct Seq(RefCell<Option<Lines>>);

impl serde::Serialize for Seq {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let lines = take(&self.0)?;
        let mut seq = s.serialize_seq(Some(lines.count))?;
        for line in lines {
            seq.serialize_element(&line.map_err(S::Error::custom)?)?;
        }
        seq.end()
    }
}

/// The lines to write, which can be taken once.
fn take<E: serde::ser::Error>(cell: &RefCell<Option<Lines>>) -> Result<Lines, E> {
    cell.borrow_mut()
        .take()
        .ok_or_else(|| E::custom("a slice's lines can be written once"))
}
