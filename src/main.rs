//! The `ai` binary: parse argv, run, exit with the run's code. Everything else is in the library.

use clap::Parser;

fn main() {
    let cli = match swebash_ai::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            // --help and --version are "errors" to clap; they print to stdout and exit 0.
            let _ = err.print();
            std::process::exit(if err.use_stderr() { 2 } else { 0 });
        }
    };
    std::process::exit(swebash_ai::app::run(cli));
}
