//! The `hipo` binary: a thin layer over the `hipo` library.

mod cli;
mod harness;
mod hook;
mod mcp;
mod platforms;
mod render;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    reset_sigpipe();
    let cli = cli::Cli::parse();
    match cli::run(cli) {
        Ok(code) => code,
        Err(err) => {
            // `hipo … | head` closing the pipe is not an error.
            if err.chain().any(|e| {
                e.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            let mut msg = format!("hipo: {err}");
            for cause in err.chain().skip(1) {
                let cause = cause.to_string();
                if !msg.contains(&cause) {
                    msg.push_str(&format!(": {cause}"));
                }
            }
            eprintln!("{msg}");
            ExitCode::from(cli::exit_code_of(&err))
        }
    }
}

/// Lets a closed stdout (`hipo status | head -1`) end the process quietly,
/// as it ends other Unix tools, instead of `println!` panicking on the
/// broken pipe. Rust ignores SIGPIPE by default; the Ollama client's
/// sockets never raise it (MSG_NOSIGNAL on Linux, SO_NOSIGPIPE on macOS).
#[cfg(unix)]
fn reset_sigpipe() {
    // SAFETY: called first thing in `main`, before any other thread exists;
    // restoring a signal's default disposition has no other effect.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn reset_sigpipe() {}
