//! `search.extraGlobs`: the globs compiled (refusing any that leave the
//! project) and the directories a walk for them must start in.

use crate::error::{Error, Result};

/// The extra globs compiled; one that leaves the project is refused with
/// the config named.
pub(super) fn glob_set(globs: &[String]) -> Result<globset::GlobSet> {
    let mut builder = globset::GlobSetBuilder::new();
    for g in globs {
        // Config::load refuses these; a library caller gets the same answer.
        if let Some(why) = crate::config::escapes_project(g) {
            return Err(Error::Config {
                path: crate::layout::CONFIG_FILE.into(),
                message: format!(
                    "search.extraGlobs: `{g}` {why}; use a project-relative glob such as `docs/**/*.md`"
                ),
            });
        }
        let glob = globset::GlobBuilder::new(g)
            .literal_separator(true)
            .build()
            .map_err(|e| Error::Config {
                path: crate::layout::CONFIG_FILE.into(),
                message: format!(
                    "search.extraGlobs: {e}; use a project-relative glob such as `docs/**/*.md`"
                ),
            })?;
        builder.add(glob);
    }
    builder.build().map_err(|e| Error::Config {
        path: crate::layout::CONFIG_FILE.into(),
        message: format!("search.extraGlobs: {e}"),
    })
}

/// The literal directory each glob starts in (`docs` for `docs/**/*.md`)
/// and how deep below it a match can be (unbounded with `**`), so only
/// those directories are walked. A glob starting with a wildcard
/// (`**/*.md`) walks the whole project, dot-directories aside.
pub(super) fn glob_bases(globs: &[String]) -> Vec<(String, usize)> {
    let mut bases: Vec<(String, usize)> = globs
        .iter()
        .map(|g| {
            let parts: Vec<&str> = g.split('/').collect();
            let literal = parts
                .iter()
                .take_while(|part| !part.contains(['*', '?', '[', '{']))
                .count()
                .min(parts.len() - 1);
            let depth = if g.contains("**") {
                usize::MAX
            } else {
                parts.len() - literal
            };
            (parts[..literal].join("/"), depth)
        })
        .collect();
    bases.sort();
    bases.dedup();
    bases
}
