//! The machine front ends: `--json` prints the run's result object once at the end (and what
//! ai has to tell the person, its notices, on stderr); `--jsonl` prints every event as one line
//! as it happens.

use std::io::Write;

use super::{Frontend, is_broken_pipe};
use crate::protocol::Event;

pub(crate) struct JsonPrinter {
    out: Box<dyn Write>,
    every_event: bool,
    broken: bool,
}

impl JsonPrinter {
    pub(crate) fn new(out: Box<dyn Write>, every_event: bool) -> Self {
        JsonPrinter {
            out,
            every_event,
            broken: false,
        }
    }

    fn line(&mut self, value: &impl serde::Serialize) {
        if self.broken {
            return;
        }
        let Ok(text) = serde_json::to_string(value) else {
            return;
        };
        let text = super::sanitize::json_escaped(&text);
        if let Err(err) = writeln!(self.out, "{text}").and_then(|()| self.out.flush()) {
            self.broken = is_broken_pipe(&err) || err.kind() != std::io::ErrorKind::Interrupted;
        }
    }
}

impl Frontend for JsonPrinter {
    fn handle(&mut self, event: &Event) {
        match event {
            _ if self.every_event => self.line(event),
            Event::RunCompleted { result } => self.line(result),
            Event::Notice { message } => {
                let clean = super::sanitize::one_line(message);
                let _ = writeln!(std::io::stderr(), "ai: {clean}");
            }
            _ => {}
        }
    }

    fn broken(&self) -> bool {
        self.broken
    }
}
