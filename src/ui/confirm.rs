//! The confirmation prompt, on the controlling terminal (`/dev/tty`), so `cat log | ai ...` can
//! still ask. With no terminal it answers "no terminal", and the gate fails closed. The command is
//! edited with the REPL's line editor (rustyline: Home/End, Ctrl-A/E/U/W/K, word moves).

use std::fs::{File, OpenOptions};

use dialoguer::console::Term;
use dialoguer::{Confirm, Select};
use rustyline::{Behavior, Config, DefaultEditor};

use super::sanitize::{sanitize, visible};
use crate::protocol::{Answer, ApprovalRequest, Asker, NoTerminal};

pub(crate) struct TerminalAsker;

impl TerminalAsker {
    fn open_tty() -> Option<(File, File)> {
        let read = OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .ok()?;
        let write = read.try_clone().ok()?;
        Some((read, write))
    }
}

impl Asker for TerminalAsker {
    fn ask(&mut self, request: &ApprovalRequest) -> Result<Answer, NoTerminal> {
        let (read, write) = Self::open_tty().ok_or(NoTerminal)?;
        let term = Term::read_write_pair(read, write);
        if !term.is_term() {
            return Err(NoTerminal);
        }
        let what = if request.tool == "execute_command" {
            "run"
        } else {
            "use"
        };
        let width = usize::from(term.size().1).saturating_sub(4);
        let subject = visible(&request.subject, width).replace('\n', "\n    ");
        // Reasons can quote a command's own output: shown like the command, with runs of
        // spaces counted, so padding cannot lay out lines that look like ai's own.
        let reasons = visible(&request.reasons.join("; "), width).replace('\n', "\n    ");
        let header = format!(
            "\nai wants to {what}:\n    {subject}\n  why it asks: {reasons}\n  in: {}",
            sanitize(&request.cwd.display().to_string())
        );
        let _ = term.write_line(&header);
        if request.unconfined {
            let _ = term.write_line(
                "  if you allow it, it runs OUTSIDE the sandbox, as you: it can write anywhere \
                 you can, read your secrets and use the network",
            );
        }
        let mut items = vec!["yes", "no", "always (this exact call, for this session)"];
        if request.tool == "execute_command" {
            items.push("edit the command first");
        }
        let choice = Select::new()
            .with_prompt("Allow it?")
            .items(&items)
            .default(1)
            .interact_on_opt(&term);
        // Ctrl-C ends the menu with an error (console raises SIGINT, which interrupts the run)
        // before dialoguer shows the cursor again: it would stay hidden after `ai` exits.
        if choice.is_err() {
            let _ = term.show_cursor();
            let _ = term.write_line("");
        }
        let answer = match choice {
            Ok(Some(0)) => Answer::Yes,
            Ok(Some(2)) => Answer::Always,
            Ok(Some(3)) => match edit_line(&request.subject) {
                Some(command) if !command.trim().is_empty() => Answer::Edit(command),
                _ => Answer::No,
            },
            // "no", Esc, or a terminal that went away: never run it.
            _ => Answer::No,
        };
        Ok(answer)
    }
}

/// A yes/no question on the terminal (default no); `None` when there is no terminal to ask on.
pub(crate) fn confirm(question: &str) -> Option<bool> {
    let (read, write) = TerminalAsker::open_tty()?;
    let term = Term::read_write_pair(read, write);
    if !term.is_term() {
        return None;
    }
    let answer = Confirm::new()
        .with_prompt(sanitize(question))
        .default(false)
        .interact_on_opt(&term);
    if answer.is_err() {
        let _ = term.show_cursor();
        let _ = term.write_line("");
    }
    Some(matches!(answer, Ok(Some(true))))
}

/// The command edited on the terminal, starting from `initial`, with the REPL's keys; `None` for
/// Ctrl-C, Ctrl-D or a terminal that went away (never run then).
fn edit_line(initial: &str) -> Option<String> {
    // `PreferTerm`: the controlling terminal even when stdin is a pipe (`cat log | ai ...`).
    let config = Config::builder()
        .behavior(Behavior::PreferTerm)
        .auto_add_history(false)
        .build();
    let mut editor = DefaultEditor::with_config(config).ok()?;
    editor
        .readline_with_initial("new command: ", (initial, ""))
        .ok()
}
