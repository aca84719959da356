//! Builds the `--json` result from the event stream, so that a run cut short (Ctrl-C, an error)
//! still reports everything that happened up to that point.

use serde_json::Value;

use crate::protocol::{
    AnswerText, Event, RunError, RunResult, RunStatus, SCHEMA_VERSION, ToolCallRecord, Usage,
};

/// Collects what the run's events say.
#[derive(Debug, Default)]
pub(crate) struct Recorder {
    pub(crate) answer: AnswerText,
    provider: String,
    model: String,
    tool_format: String,
    iterations: u32,
    tool_calls: Vec<ToolCallRecord>,
    usage: Option<Usage>,
    /// The answer is one JSON value (`--output-schema`): `--json` carries it as a value.
    structured: bool,
}

impl Recorder {
    /// A recorder of a run whose answer is one validated JSON value.
    pub(crate) fn structured() -> Self {
        Recorder {
            structured: true,
            ..Recorder::default()
        }
    }

    /// The answer as `--json` carries it: the JSON value of a structured run that ended well,
    /// else the text.
    fn answer_value(&self, status: RunStatus) -> Value {
        let text = self.answer.as_str();
        if self.structured
            && status == RunStatus::Ok
            && let Ok(value) = serde_json::from_str(text)
        {
            return value;
        }
        Value::String(text.to_string())
    }

    pub(crate) fn observe(&mut self, event: &Event) {
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

    pub(crate) fn finish(
        &self,
        status: RunStatus,
        error: Option<RunError>,
        duration_ms: u64,
    ) -> RunResult {
        RunResult {
            schema_version: SCHEMA_VERSION,
            status,
            answer: self.answer_value(status),
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
