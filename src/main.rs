use std::path::PathBuf;

use clap::{Parser, Subcommand};
use kibitz::cli::{self, check::CheckOptions, fmt::FmtOptions, report::OutputFormat};

/// Language server and checker for board-game record files.
#[derive(Parser)]
#[command(name = "kibitz", version, about)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the language server on stdin/stdout.
    Lsp,
    /// Check files (folders are searched for known extensions; `-` reads stdin).
    Check {
        paths: Vec<PathBuf>,
        /// The language of stdin (or of every input), e.g. `sofgameset`.
        #[arg(long)]
        language: Option<String>,
        #[arg(long, value_enum, default_value = "human")]
        format: OutputFormat,
        /// Fail (exit 1) on warnings too: `--deny warnings`.
        #[arg(long, value_parser = ["warnings"])]
        deny: Option<String>,
        /// Worker threads (default: all cores).
        #[arg(long)]
        jobs: Option<usize>,
    },
    /// Format files in place, or with --check list those that would change.
    Fmt {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[arg(long)]
        check: bool,
        #[arg(long)]
        language: Option<String>,
        #[arg(long)]
        jobs: Option<usize>,
    },
}

fn main() {
    let args = match Args::try_parse() {
        Ok(a) => a,
        Err(e) => {
            let code = if e.use_stderr() {
                cli::EXIT_FAILURE
            } else {
                cli::EXIT_OK
            };
            let _ = e.print();
            std::process::exit(code);
        }
    };
    let code = match args.command {
        Command::Lsp => {
            let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build();
            match runtime {
                Ok(rt) => {
                    rt.block_on(kibitz::server::run_stdio());
                    cli::EXIT_OK
                }
                Err(e) => {
                    eprintln!("error: cannot start the async runtime: {e}");
                    cli::EXIT_FAILURE
                }
            }
        }
        Command::Check {
            paths,
            language,
            format,
            deny,
            jobs,
        } => {
            cli::set_jobs(jobs);
            let paths = if paths.is_empty() {
                vec![PathBuf::from(".")]
            } else {
                paths
            };
            cli::check::run(&CheckOptions {
                paths,
                language,
                format,
                deny_warnings: deny.is_some(),
            })
        }
        Command::Fmt {
            paths,
            check,
            language,
            jobs,
        } => {
            cli::set_jobs(jobs);
            cli::fmt::run(&FmtOptions { paths, language, check })
        }
    };
    std::process::exit(code);
}
