//! Links the `hipo` binary as a fixed-address (non-PIE) executable on Linux:
//! its ~27k relative relocations then need no work at start-up, which is a
//! third of a fresh `hipo search`'s page faults. Only the binaries are
//! affected; the library, tests and proc-macros build as usual.
fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
