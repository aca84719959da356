//! The plain front end: the answer streams to stdout and nothing else goes there; tool traces and
//! notices go to stderr unless `-q`.

use std::io::Write;

use super::markdown::MarkdownStream;
use super::spinner::Spinner;
use super::status::finished_line;
use super::{Frontend, sanitize};
use crate::protocol::AnswerText;
use crate::protocol::Event;

pub(crate) struct PlainPrinter {
    out: Box<dyn Write>,
    err: Box<dyn Write>,
    quiet: bool,
    /// stdout is a terminal: control characters from the model are neutralised.
    terminal: bool,
    answer: AnswerText,
    broken: bool,
    /// Markdown rendering, when stdout is a terminal.
    markdown: Option<MarkdownStream>,
    /// The spinner, when stderr is a terminal.
    spinner: Option<Spinner>,
    /// Columns of the stderr terminal, so status lines never wrap (0: not a terminal).
    err_width: usize,
}

impl PlainPrinter {
    pub(crate) fn new(
        out: Box<dyn Write>,
        err: Box<dyn Write>,
        quiet: bool,
        terminal: bool,
    ) -> Self {
        PlainPrinter {
            out,
            err,
            quiet,
            terminal,
            answer: AnswerText::default(),
            broken: false,
            markdown: None,
            spinner: None,
            err_width: 0,
        }
    }

    /// Renders Markdown (stdout is a terminal `width` columns wide).
    pub(crate) fn with_markdown(mut self, width: usize, color: bool) -> Self {
        self.markdown = Some(MarkdownStream::new(width, color));
        self
    }

    /// Shows a spinner on stderr, a terminal `width` columns wide.
    pub(crate) fn with_spinner(mut self, color: bool, width: usize) -> Self {
        if !self.quiet {
            self.spinner = Some(Spinner::new(color, width));
        }
        self.err_width = width;
        self
    }

    fn spin(&mut self, label: &str) {
        if let Some(spinner) = &mut self.spinner {
            spinner.start(label);
        }
    }

    fn stop_spinner(&mut self) {
        if let Some(spinner) = &mut self.spinner {
            spinner.stop();
        }
    }

    /// Writes the rest of a half-rendered line (before a tool runs, or at the end).
    fn flush_markdown(&mut self) {
        if let Some(markdown) = &mut self.markdown {
            let rest = markdown.finish();
            if !rest.is_empty() {
                let rest = format!("{rest}\n");
                self.raw_out(&rest);
            }
        }
    }

    fn raw_out(&mut self, text: &str) {
        if self.broken {
            return;
        }
        self.broken = self
            .out
            .write_all(text.as_bytes())
            .and_then(|()| self.out.flush())
            .is_err();
    }

    fn write_out(&mut self, text: &str) {
        let text = match &mut self.markdown {
            Some(markdown) => markdown.push(text),
            None if self.terminal => sanitize(text),
            None => text.to_string(),
        };
        if !text.is_empty() {
            // A closed pipe, or any other failure to deliver the answer: stop either way.
            self.raw_out(&text);
        }
    }

    fn note(&mut self, line: &str) {
        if !self.quiet {
            self.stop_spinner();
            let _ = writeln!(self.err, "{}", sanitize(line));
        }
    }
}

impl Frontend for PlainPrinter {
    fn handle(&mut self, event: &Event) {
        match event {
            Event::RunStarted { .. } => self.spin("thinking"),
            Event::MessageDelta { text } => {
                self.stop_spinner();
                let piece = self.answer.push(text);
                self.write_out(&piece);
            }
            Event::ToolCallStarted {
                name, arguments, ..
            } => {
                self.answer.tools_ran();
                self.flush_markdown();
                let label = format!("{name} {}", summarize(arguments));
                self.spin(&label);
            }
            Event::ToolCallOutput { chunk, .. } => {
                if let Some(spinner) = &mut self.spinner
                    && let Some(last) = chunk.lines().rev().find(|l| !l.trim().is_empty())
                {
                    let last: String = sanitize(last).chars().take(60).collect();
                    spinner.detail(&last);
                }
            }
            Event::ApprovalRequested { .. } => self.stop_spinner(),
            Event::TurnCompleted { .. } => {
                self.stop_spinner();
                self.flush_markdown();
            }
            Event::ToolCallCompleted { record } => {
                let summary = sanitize(&summarize(&record.arguments));
                let line = finished_line(record, &summary, self.err_width);
                self.note(&line);
                self.spin("thinking");
            }
            Event::Notice { message } => self.note(&format!("ai: {message}")),
            Event::TurnTainted { source } => self.note(&format!(
                "ai: the model has read untrusted content from {source}; every command asks for the rest of this turn"
            )),
            Event::RunCompleted { .. } => {
                self.stop_spinner();
                self.flush_markdown();
                if self.markdown.is_none()
                    && !self.answer.as_str().is_empty()
                    && !self.answer.as_str().ends_with('\n')
                {
                    self.raw_out("\n");
                }
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
