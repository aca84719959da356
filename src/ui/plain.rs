//! The plain front end: the answer streams to stdout and nothing else goes there; tool traces and
//! notices go to stderr unless `-q`.

use std::io::Write;

use super::{Frontend, sanitize};
use crate::agent::AnswerText;
use crate::protocol::Event;

pub struct PlainPrinter {
    out: Box<dyn Write>,
    err: Box<dyn Write>,
    quiet: bool,
    /// stdout is a terminal: control characters from the model are neutralised.
    terminal: bool,
    answer: AnswerText,
    broken: bool,
}

impl PlainPrinter {
    pub fn new(out: Box<dyn Write>, err: Box<dyn Write>, quiet: bool, terminal: bool) -> Self {
        PlainPrinter {
            out,
            err,
            quiet,
            terminal,
            answer: AnswerText::default(),
            broken: false,
        }
    }

    fn write_out(&mut self, text: &str) {
        if self.broken {
            return;
        }
        let text = if self.terminal {
            sanitize(text)
        } else {
            text.to_string()
        };
        // A closed pipe, or any other failure to deliver the answer: stop either way.
        self.broken = self
            .out
            .write_all(text.as_bytes())
            .and_then(|()| self.out.flush())
            .is_err();
    }

    fn note(&mut self, line: &str) {
        if !self.quiet {
            let _ = writeln!(self.err, "{}", sanitize(line));
        }
    }
}

impl Frontend for PlainPrinter {
    fn handle(&mut self, event: &Event) {
        match event {
            Event::MessageDelta { text } => {
                let piece = self.answer.push(text);
                self.write_out(&piece);
            }
            Event::ToolCallStarted { .. } => self.answer.tools_ran(),
            Event::ToolCallCompleted { record } => {
                let mark = if record.ok { "✓" } else { "✗" };
                let mut line = format!(
                    "  {mark} {} {} ({} ms)",
                    record.name,
                    summarize(&record.arguments),
                    record.duration_ms
                );
                if let Some(error) = &record.error {
                    line.push_str(&format!(": {}", error.message));
                }
                self.note(&line);
            }
            Event::Notice { message } => self.note(&format!("ai: {message}")),
            Event::RunCompleted { .. }
                if !self.answer.as_str().is_empty() && !self.answer.as_str().ends_with('\n') =>
            {
                self.write_out("\n");
            }
            _ => {}
        }
    }

    fn broken(&self) -> bool {
        self.broken
    }
}

/// One short line for a call's arguments: the values, not the JSON.
fn summarize(arguments: &serde_json::Value) -> String {
    let text = match arguments.as_object() {
        Some(map) => map
            .values()
            .map(|v| match v {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect::<Vec<_>>()
            .join(" "),
        None => arguments.to_string(),
    };
    let line = text.lines().next().unwrap_or_default();
    let short: String = line.chars().take(80).collect();
    if short.len() < text.len() {
        format!("{short}…")
    } else {
        short
    }
}
