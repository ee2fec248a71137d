//! The `hipo` binary: a thin layer over the `hipo` library.

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
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
