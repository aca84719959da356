//! The plain data every layer speaks: messages, tool specs and calls, tool results, agent events and
//! the `--json` result object. It imports nothing else of ours, so every front end and every test
//! can depend on it without dragging in I/O.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The future type of object-safe async trait methods (providers, tools).
pub(crate) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// The schema version of the `--json` object and `run.completed` event (DESIGN §3).
pub(crate) const SCHEMA_VERSION: u32 = 1;

/// One message of a conversation, in the provider-neutral shape the agent keeps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub(crate) enum Message {
    System {
        content: String,
    },
    User {
        content: String,
    },
    Assistant {
        content: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    Tool {
        tool_call_id: String,
        name: String,
        content: String,
    },
}

/// A message that carries text from outside the project (a web result, a file from elsewhere,
/// network output) or was written after it: while one is in the context, every command asks
/// (DESIGN §6, taint). Saved with the conversation, so `--resume` keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Untrusted {
    /// The message's [`fingerprint`].
    pub(crate) fingerprint: u64,
    /// Where the untrusted text came from.
    pub(crate) source: String,
}

/// A stable digest of a message (FNV-1a of its JSON), the same in every run.
pub(crate) fn fingerprint(message: &Message) -> u64 {
    let text = serde_json::to_string(message).unwrap_or_default();
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Where untrusted text still in `messages` came from, if any is.
pub(crate) fn untrusted_in(messages: &[Message], untrusted: &[Untrusted]) -> Option<String> {
    if untrusted.is_empty() {
        return None;
    }
    messages.iter().find_map(|message| {
        let print = fingerprint(message);
        (untrusted.iter())
            .find(|u| u.fingerprint == print)
            .map(|u| u.source.clone())
    })
}

/// A tool offered to the model: its name, what it does and the JSON Schema of its arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ToolSpec {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) parameters: Value,
}

/// What a tool call would do to the world, for the policy to judge before it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Action {
    /// Read a file or directory: the path as asked (made absolute) and where it really leads.
    Read {
        requested: PathBuf,
        resolved: PathBuf,
    },
    /// Run a shell command.
    Exec { command: String },
    /// Reach the network (e.g. a web search).
    Network { what: String },
    /// A tool of an MCP server: its effects are unknown unless the user allowed it.
    External {
        tool: String,
        server: String,
        allowed: bool,
    },
}

/// A call the model asked for. `arguments` is whatever JSON the model produced; it is validated by
/// the tool before anything runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ToolCall {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) arguments: Value,
}

/// How the model may use tools on a request (`SWEBASH_AI_TOOL_CHOICE`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) enum ToolChoice {
    Auto,
    Required,
    None,
    Named(String),
}

/// Token counts as the provider reported them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Usage {
    pub(crate) input_tokens: u64,
    pub(crate) output_tokens: u64,
    /// Of `input_tokens`, those the provider did not evaluate again (a prompt cache, or the
    /// embedded engine's KV cache kept across the requests of a turn and across REPL turns).
    #[serde(default)]
    pub(crate) cached_input_tokens: u64,
}

impl Usage {
    pub(crate) fn add(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cached_input_tokens += other.cached_input_tokens;
    }

    /// Adds to a total that stays `None` (JSON `null`, not a false 0) until a server reports.
    pub(crate) fn add_to(total: &mut Option<Usage>, more: Option<Usage>) {
        if let Some(more) = more {
            total.get_or_insert_with(Usage::default).add(more);
        }
    }
}

/// The class of a failed tool result, told to the model so it knows whether to retry (DESIGN §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[allow(clippy::enum_variant_names)] // the names are DESIGN §5's wire format
pub(crate) enum ToolErrorType {
    ValidationError,
    UserError,
    SystemError,
    PermissionError,
    SecurityError,
}

/// What a tool call produced, exactly as it is fed back to the model (DESIGN §5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ToolResult {
    pub(crate) success: bool,
    pub(crate) data: Value,
    pub(crate) error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error_type: Option<ToolErrorType>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) suggestion: Option<String>,
    /// Said by the loop rather than the tool (e.g. that this answers a repeated call).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) note: Option<String>,
}

impl ToolResult {
    pub(crate) fn ok(data: Value) -> Self {
        ToolResult {
            success: true,
            data,
            error: None,
            error_type: None,
            suggestion: None,
            note: None,
        }
    }

    pub(crate) fn fail(error_type: ToolErrorType, error: impl Into<String>) -> Self {
        ToolResult {
            success: false,
            data: Value::Null,
            error: Some(error.into()),
            error_type: Some(error_type),
            suggestion: None,
            note: None,
        }
    }

    pub(crate) fn with_suggestion(mut self, suggestion: impl Into<String>) -> Self {
        self.suggestion = Some(suggestion.into());
        self
    }

    /// The text sent back to the model as the tool message.
    pub(crate) fn to_model_text(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| String::from("{\"success\":false}"))
    }
}

/// How the loop decided to treat one call (DESIGN §3 `decision`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Decision {
    Allow,
    Approved,
    Denied,
    Blocked,
    Duplicate,
    Invalid,
}

/// The machine-readable code of a failed call (DESIGN §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub(crate) enum CallErrorCode {
    ToolNotFound,
    InvalidArguments,
    ParseError,
    ExecutionFailed,
    Timeout,
    Denied,
    Blocked,
    Duplicate,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct CallError {
    pub(crate) code: CallErrorCode,
    pub(crate) message: String,
}

/// One tool call as reported in the `--json` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ToolCallRecord {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) arguments: Value,
    pub(crate) decision: Decision,
    pub(crate) ok: bool,
    pub(crate) exit_code: Option<i32>,
    pub(crate) duration_ms: u64,
    pub(crate) output_truncated: bool,
    pub(crate) error: Option<CallError>,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RunStatus {
    Ok,
    /// The model ended its turn without a word: not an answer, so not `ok`.
    Empty,
    Error,
    Denied,
    Limit,
    Interrupted,
}

/// The class of the error that ended a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ErrorKind {
    Provider,
    Network,
    Config,
    Io,
    Limit,
    Denied,
    Interrupted,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RunError {
    pub(crate) kind: ErrorKind,
    pub(crate) message: String,
}

/// The `--json` object and the payload of `run.completed` (DESIGN §3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RunResult {
    pub(crate) schema_version: u32,
    pub(crate) status: RunStatus,
    /// The answer's text; with `--output-schema`, the validated JSON value itself.
    pub(crate) answer: Value,
    pub(crate) provider: String,
    pub(crate) model: String,
    pub(crate) tool_format: String,
    pub(crate) iterations: u32,
    pub(crate) tool_calls: Vec<ToolCallRecord>,
    /// `None` when no server reported token counts.
    pub(crate) usage: Option<Usage>,
    pub(crate) duration_ms: u64,
    pub(crate) error: Option<RunError>,
}

/// Which output stream of a running tool a chunk came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum OutputStream {
    Stdout,
    Stderr,
}

/// Everything that happens in a run, in order. Every front end consumes this one stream.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type")]
pub(crate) enum Event {
    #[serde(rename = "run.started")]
    RunStarted {
        provider: String,
        model: String,
        tool_format: String,
    },
    #[serde(rename = "message.delta")]
    MessageDelta { text: String },
    /// A model's thinking (`<think>...</think>`), never part of the answer.
    #[serde(rename = "reasoning.delta")]
    ReasoningDelta { text: String },
    #[serde(rename = "tool_call.started")]
    ToolCallStarted {
        id: String,
        name: String,
        arguments: Value,
    },
    #[serde(rename = "approval.requested")]
    ApprovalRequested { id: String, reason: String },
    #[serde(rename = "approval.decided")]
    ApprovalDecided {
        id: String,
        decision: Decision,
        /// Who decided: `user`, `--yes`, `--allow`, `no terminal`, ...
        by: String,
    },
    #[serde(rename = "tool_call.output")]
    ToolCallOutput {
        id: String,
        stream: OutputStream,
        chunk: String,
    },
    #[serde(rename = "tool_call.completed")]
    ToolCallCompleted {
        #[serde(flatten)]
        record: ToolCallRecord,
    },
    #[serde(rename = "turn.completed")]
    TurnCompleted {
        usage: Option<Usage>,
        iterations: u32,
    },
    /// Something the user should know that is neither answer nor error (e.g. a retry).
    #[serde(rename = "notice")]
    Notice { message: String },
    /// The turn has taken in untrusted content: from now on every command asks.
    #[serde(rename = "turn.tainted")]
    TurnTainted { source: String },
    #[serde(rename = "run.completed")]
    RunCompleted {
        #[serde(flatten)]
        result: RunResult,
    },
}

/// What a person is asked to approve: a call the policy could not vouch for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ApprovalRequest {
    pub(crate) tool: String,
    /// The command, or the path, the call acts on.
    pub(crate) subject: String,
    /// For commands: each simple command that asks; rules must cover every one of them.
    pub(crate) commands: Vec<String>,
    pub(crate) reasons: Vec<String>,
    pub(crate) cwd: PathBuf,
    /// Approved by a person, the command runs outside the sandbox, unconfined (the prompt says
    /// so). Flags, rules and "always" only ever approve running it inside.
    pub(crate) unconfined: bool,
    /// Only a person at the terminal can approve it: it could only run outside the sandbox (a
    /// rerun after a sandbox block, or a kernel that cannot contain it), or it may reach a secret
    /// by a path nobody can compute before it runs.
    pub(crate) person_only: bool,
    /// An allow rule or an "always" answer may approve it: every command that asks is one
    /// simple command, with no option, variable or wrapper that runs another program.
    pub(crate) by_rule: bool,
}

/// A person's answer to an approval request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Answer {
    Yes,
    No,
    /// Yes, and the same subject is approved for the rest of the session.
    Always,
    /// Run this (edited) command instead.
    Edit(String),
}

/// There is no terminal to ask on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NoTerminal;

/// Asks a person; the terminal front end implements it, the agent's gate calls it.
/// `Send`: asking blocks on a person, so it may run on a blocking thread.
pub(crate) trait Asker: Send {
    fn ask(&mut self, request: &ApprovalRequest) -> Result<Answer, NoTerminal>;
}

/// The answer as the user sees it: the text of every assistant message of a run, with a blank
/// line where tool calls came between two of them. Plain output and `--json`'s `answer` are the
/// same text because both are built by this.
#[derive(Debug, Default, Clone)]
pub(crate) struct AnswerText {
    text: String,
    after_tools: bool,
}

impl AnswerText {
    /// Adds a delta and returns exactly what was appended (the delta, maybe after a separator).
    pub(crate) fn push(&mut self, delta: &str) -> String {
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
    pub(crate) fn tools_ran(&mut self) {
        self.after_tools = true;
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.text
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
