//! The spinner on stderr (only when stderr is a terminal): "thinking" until the first token, the
//! running tool's name, arguments, elapsed time and last output line, then one line per finished
//! call. It is cleared before any answer text is written, so the two never interleave.

use std::time::Duration;

use dialoguer::console::Term;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};

use super::sanitize::one_line;
use super::status::fit;

/// Columns kept for the spinner glyph and the timer around the message.
const FRAME: usize = 16;

pub(crate) struct Spinner {
    bar: Option<ProgressBar>,
    color: bool,
    label: String,
    /// Columns of the terminal: a message wider than it would wrap, and a wrapped line is not
    /// cleared (0: unknown, no fitting).
    width: usize,
}

impl Spinner {
    pub(crate) fn new(color: bool, width: usize) -> Self {
        Spinner {
            bar: None,
            color,
            label: String::new(),
            width,
        }
    }

    /// The status line for `message`: sanitised (a command's own escape sequences never reach
    /// the terminal), one line, fitted to the width.
    fn fitted(&self, message: &str) -> String {
        let message = one_line(message);
        if self.width == 0 {
            return message;
        }
        fit(&message, self.width.saturating_sub(FRAME).max(10))
    }

    /// Shows `label` with a spinner and a timer.
    pub(crate) fn start(&mut self, label: &str) {
        self.stop();
        let style = ProgressStyle::with_template(if self.color {
            "{spinner:.cyan} {msg} {elapsed:.dim}"
        } else {
            "{spinner} {msg} {elapsed}"
        })
        .unwrap_or_else(|_| ProgressStyle::default_spinner());
        let target = ProgressDrawTarget::term_like(Box::new(ShortOfTheEdge(Term::stderr())));
        let bar =
            ProgressBar::with_draw_target(None, target).with_style(style.tick_chars("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏ "));
        self.label = label.to_string();
        bar.set_message(self.fitted(label));
        bar.enable_steady_tick(Duration::from_millis(100));
        self.bar = Some(bar);
    }

    /// Adds a detail after the label (the last line of a tool's output).
    pub(crate) fn detail(&mut self, detail: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(self.fitted(&format!("{} · {detail}", self.label)));
        }
    }

    /// Clears the spinner line.
    pub(crate) fn stop(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.stop();
    }
}

/// stderr as indicatif sees it, a few columns narrower than it is. indicatif pads its line to the
/// last column; the `^C` a terminal echoes there would wrap onto a new line, and clearing the
/// spinner would then clear that line and leave the spinner behind.
#[derive(Debug)]
struct ShortOfTheEdge(Term);

/// Columns left free at the end of the spinner line: room for the echoed `^C`.
const ECHO_ROOM: u16 = 3;

impl TermLike for ShortOfTheEdge {
    fn width(&self) -> u16 {
        self.0.size().1.saturating_sub(ECHO_ROOM).max(1)
    }
    fn height(&self) -> u16 {
        self.0.size().0
    }
    fn move_cursor_up(&self, n: usize) -> std::io::Result<()> {
        self.0.move_cursor_up(n)
    }
    fn move_cursor_down(&self, n: usize) -> std::io::Result<()> {
        self.0.move_cursor_down(n)
    }
    fn move_cursor_right(&self, n: usize) -> std::io::Result<()> {
        self.0.move_cursor_right(n)
    }
    fn move_cursor_left(&self, n: usize) -> std::io::Result<()> {
        self.0.move_cursor_left(n)
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        self.0.write_line(s)
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        self.0.write_str(s)
    }
    fn clear_line(&self) -> std::io::Result<()> {
        self.0.clear_line()
    }
    fn flush(&self) -> std::io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_line_never_carries_a_commands_escape_sequences() {
        for width in [0, 80] {
            let spinner = Spinner::new(false, width);
            let line = spinner.fitted(
                "execute_command printf '\u{1b}]52;c;cm0=\u{7}\u{1b}]0;title\u{7}' \u{202e}x\ny",
            );
            assert!(
                !line.chars().any(|c| c.is_control() || c == '\u{202e}'),
                "{line:?}"
            );
        }
    }
}
