//! The integration tests, one binary: each module drives the real `hipo`
//! binary on temp copies of `fixtures/`. One binary links the engine once
//! where 31 linked it 31 times. A new file in `tests/` is a module here
//! (`autotests` is off), except `hostile.rs`, which reads its children's
//! peak memory and so runs in a process of its own.

mod common;

mod adoption;
mod agents;
mod capture;
mod checkpoint;
mod codex_hooks;
mod compact;
mod compact_recovery;
mod compact_settled;
mod concurrency;
mod disks;
mod embed;
mod export;
mod failpoints;
mod get;
mod hardening;
mod harness;
mod index_gc;
mod llm;
mod llm_answers;
mod llm_root;
mod mcp;
mod memaware;
mod model;
mod openclaw;
mod opencode;
mod outputs;
mod private;
mod recall;
mod root;
mod root_context;
mod sample;
mod scenario;
mod sealed;
mod search;
mod secrets;
mod team;
