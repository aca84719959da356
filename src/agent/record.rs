//! Builds the `--json` result from the event stream, so that a run cut short (Ctrl-C, an error)
//! still reports everything that happened up to that point.

use crate::protocol::{
    Event, RunError, RunResult, RunStatus, SCHEMA_VERSION, ToolCallRecord, Usage,
};

/// The answer as the user sees it: the text of every assistant message of the run, with a blank
/// line where tool calls came between two of them. Plain output and `answer` are the same text.
#[derive(Debug, Default, Clone)]
pub struct AnswerText {
    text: String,
    after_tools: bool,
}

impl AnswerText {
    /// Adds a delta and returns exactly what was appended (the delta, maybe after a separator).
    pub fn push(&mut self, delta: &str) -> String {
        let mut piece = String::new();
        if self.after_tools && !self.text.is_empty() {
            piece.push_str(if self.text.ends_with("\n\n") {
                ""
            } else if self.text.ends_with('\n') {
                "\n"
            } else {
                "\n\n"
            });
        }
        self.after_tools = false;
        piece.push_str(delta);
        self.text.push_str(&piece);
        piece
    }

    /// Notes that tool calls came after the text so far.
    pub fn tools_ran(&mut self) {
        self.after_tools = true;
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_around_tool_calls_is_separated_by_one_blank_line() {
        let mut answer = AnswerText::default();
        assert_eq!(answer.push("Let me look."), "Let me look.");
        answer.tools_ran();
        assert_eq!(answer.push("It is 1.0."), "\n\nIt is 1.0.");
        answer.tools_ran();
        answer.tools_ran();
        assert_eq!(answer.push(" More"), "\n\n More");
        assert_eq!(answer.as_str(), "Let me look.\n\nIt is 1.0.\n\n More");
    }

    #[test]
    fn no_separator_before_the_first_text() {
        let mut answer = AnswerText::default();
        answer.tools_ran();
        assert_eq!(answer.push("Answer"), "Answer");
    }
}
