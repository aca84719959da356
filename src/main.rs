//! The `ai` binary: parse argv, run, exit with the run's code. Everything else is in the library.

use clap::Parser;

fn main() {
    // `ai __sandbox ...` is the sandbox launcher: handled before anything else is set up.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args
        .get(1)
        .is_some_and(|a| a == swebash_ai::sandbox::LAUNCHER_ARG)
    {
        std::process::exit(swebash_ai::sandbox::launch(&args[2..]));
    }
    let env = swebash_ai::app::start();
    let cli = match swebash_ai::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            // --help and --version are "errors" to clap; they print to stdout and exit 0.
            let _ = err.print();
            std::process::exit(if err.use_stderr() { 2 } else { 0 });
        }
    };
    std::process::exit(swebash_ai::app::run(cli, env));
}
