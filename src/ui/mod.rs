//! Front ends: the consumers of the event stream that print. Only this module writes to stdout.

mod confirm;
mod crash;
mod json;
mod markdown;
#[cfg(test)]
mod markdown_props;
mod plain;
mod sanitize;
mod spinner;
mod status;

use std::io::{IsTerminal, Write};

pub(crate) use confirm::{TerminalAsker, confirm};
pub(crate) use crash::install_panic_hook;
pub(crate) use json::JsonPrinter;
pub(crate) use plain::PlainPrinter;
pub(crate) use sanitize::{is_clean, json_escaped, sanitize, visible};

use crate::config::OutputMode;
use crate::protocol::Event;

/// A consumer of events that writes them somewhere.
pub(crate) trait Frontend {
    fn handle(&mut self, event: &Event);
    /// Whether stdout went away (a closed pipe): the run should stop quietly.
    fn broken(&self) -> bool;
}

/// The front end for an output mode, writing to stdout and stderr. On a terminal the answer is
/// rendered as Markdown; when stderr is a terminal a spinner shows progress. `color` is false
/// under `NO_COLOR`.
pub(crate) fn frontend_for(mode: OutputMode, quiet: bool, color: bool) -> Box<dyn Frontend> {
    frontend(mode, quiet, color, true)
}

/// The front end of a run whose answer is one JSON value (`--output-schema`): the same, but a
/// terminal gets the JSON as it is, never rendered as Markdown.
pub(crate) fn value_frontend_for(mode: OutputMode, quiet: bool, color: bool) -> Box<dyn Frontend> {
    frontend(mode, quiet, color, false)
}

fn frontend(mode: OutputMode, quiet: bool, color: bool, markdown: bool) -> Box<dyn Frontend> {
    let stdout: Box<dyn Write> = Box::new(std::io::stdout());
    match mode {
        OutputMode::Plain => {
            let terminal = std::io::stdout().is_terminal();
            let mut printer =
                PlainPrinter::new(stdout, Box::new(std::io::stderr()), quiet, terminal);
            if terminal && markdown {
                let width = dialoguer::console::Term::stdout().size().1;
                printer = printer.with_markdown(usize::from(width), color);
            }
            if std::io::stderr().is_terminal() {
                let width = dialoguer::console::Term::stderr().size().1;
                printer = printer.with_spinner(color, usize::from(width));
            }
            Box::new(printer)
        }
        OutputMode::Json => Box::new(JsonPrinter::new(stdout, false)),
        // The widget's command is printed once the run is over; nothing streams.
        OutputMode::Command => Box::new(JsonPrinter::new(Box::new(std::io::sink()), false)),
        OutputMode::Jsonl => Box::new(JsonPrinter::new(stdout, true)),
    }
}

/// Shows a failure on stderr and returns its exit code.
pub(crate) fn fail(report: &crate::error::Report) -> i32 {
    to_stderr(&report.to_string());
    report.exit.code()
}

/// Writes to stderr, sanitised (errors and warnings can quote the model or a command), ignoring
/// failures: there is nowhere left to report them.
pub(crate) fn to_stderr(text: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{}", sanitize(text));
}

/// Writes a block of text to stdout (utility output such as `--show-config`); `false` if the
/// pipe closed.
pub(crate) fn to_stdout(text: &str) -> bool {
    let mut stdout = std::io::stdout().lock();
    // On a terminal it is read by a person; through a pipe it is data, given exactly.
    let text = if stdout.is_terminal() {
        sanitize(text)
    } else {
        text.to_string()
    };
    writeln!(stdout, "{text}")
        .and_then(|()| stdout.flush())
        .is_ok()
}

/// True for the errors that mean the reader went away.
fn is_broken_pipe(err: &std::io::Error) -> bool {
    err.kind() == std::io::ErrorKind::BrokenPipe
}
