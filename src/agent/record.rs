//! Builds the `--json` result from the event stream, so that a run cut short (Ctrl-C, an error)
//! still reports everything that happened up to that point.

use crate::protocol::{
    AnswerText, Event, RunError, RunResult, RunStatus, SCHEMA_VERSION, ToolCallRecord, Usage,
};

/// Collects what the run's events say.
#[derive(Debug, Default)]
pub struct Recorder {
    pub answer: AnswerText,
    provider: String,
    model: String,
    tool_format: String,
    iterations: u32,
    tool_calls: Vec<ToolCallRecord>,
    usage: Option<Usage>,
}

impl Recorder {
    pub fn observe(&mut self, event: &Event) {
        match event {
            Event::RunStarted {
                provider,
                model,
                tool_format,
            } => {
                self.provider.clone_from(provider);
                self.model.clone_from(model);
                self.tool_format.clone_from(tool_format);
            }
            Event::MessageDelta { text } => {
                self.answer.push(text);
            }
            Event::ToolCallStarted { .. } => self.answer.tools_ran(),
            Event::ToolCallCompleted { record } => self.tool_calls.push(record.clone()),
            Event::TurnCompleted { usage, iterations } => {
                Usage::add_to(&mut self.usage, *usage);
                self.iterations += iterations;
            }
            _ => {}
        }
    }

    pub fn finish(
        &self,
        status: RunStatus,
        error: Option<RunError>,
        duration_ms: u64,
    ) -> RunResult {
        RunResult {
            schema_version: SCHEMA_VERSION,
            status,
            answer: self.answer.as_str().to_string(),
            provider: self.provider.clone(),
            model: self.model.clone(),
            tool_format: self.tool_format.clone(),
            iterations: self.iterations,
            tool_calls: self.tool_calls.clone(),
            usage: self.usage,
            duration_ms,
            error,
        }
    }
}
