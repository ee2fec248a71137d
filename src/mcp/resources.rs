//! Resources: `memory/ROOT.md` and the hot files that exist
//! (hipocampus's `SCRATCHPAD.md`, `WORKING.md`, `TASK-QUEUE.md`, and
//! OpenClaw's `MEMORY.md`), so a client can attach them. Their URIs are
//! `file://` URIs of the files; their text is redacted like everything
//! hipo shows.

use hipo_core::read_utf8;
use hipo_core::redact;
use rmcp::ErrorData;
use rmcp::model::{ReadResourceResult, Resource, ResourceContents};
use std::path::Path;

/// The files offered, project-relative, with what each is.
const FILES: [(&str, &str); 5] = [
    (
        "memory/ROOT.md",
        "The root of the memory tree: active context, recent patterns, history and a topics index. Attach it at the start of a session.",
    ),
    (
        "SCRATCHPAD.md",
        "Working notes of the current task (hipocampus hot file).",
    ),
    (
        "WORKING.md",
        "What is in progress right now (hipocampus hot file).",
    ),
    (
        "TASK-QUEUE.md",
        "Tasks waiting to be done (hipocampus hot file).",
    ),
    (
        "MEMORY.md",
        "OpenClaw's memory file, with hipo's Compaction Root section.",
    ),
];

fn uri(root: &Path, rel: &str) -> String {
    format!("file://{}", root.join(rel).display())
}

/// The resources that exist under `root`.
pub(super) fn list(root: &Path) -> Vec<Resource> {
    FILES
        .iter()
        .filter_map(|(rel, about)| {
            let meta = std::fs::metadata(root.join(rel)).ok()?;
            meta.is_file().then(|| {
                Resource::new(uri(root, rel), *rel)
                    .with_description(*about)
                    .with_mime_type("text/markdown")
                    .with_size(meta.len())
            })
        })
        .collect()
}

/// The text of the resource at `uri`.
pub(super) fn read(root: &Path, uri_asked: &str) -> Result<ReadResourceResult, ErrorData> {
    let Some((rel, _)) = FILES.iter().find(|(rel, _)| uri(root, rel) == uri_asked) else {
        let known: Vec<String> = list(root).iter().map(|r| r.uri.clone()).collect();
        return Err(ErrorData::resource_not_found(
            format!(
                "`uri`: {uri_asked} is not one of hipo's resources; resources/list gives them: {}",
                known.join(", ")
            ),
            None,
        ));
    };
    let text = read_utf8(root, rel)
        .map_err(|e| ErrorData::resource_not_found(format!("`uri`: {uri_asked}: {e}"), None))?;
    Ok(ReadResourceResult::new(vec![
        ResourceContents::text(redact(&text).into_owned(), uri_asked)
            .with_mime_type("text/markdown"),
    ]))
}
