//! The words the loop's core and its driver speak: what happened (`Input`), what to do next
//! (`Command`), and what a turn is set up with. Plain data, so the core stays free of I/O.

use std::path::PathBuf;

use super::answer::OutputSchema;
use super::approval::GateAnswer;
use super::end::{Stop, TurnEnd};
use super::mode::Reply;
use super::turn::Limits;
use crate::policy::Assessment;
use crate::protocol::{
    Action, ApprovalRequest, Event, Message, ToolCall, ToolChoice, ToolSpec, Usage,
};
use crate::provider::ProviderError;
use crate::tool::ToolOutcome;

/// What the driver reports back to the core.
#[derive(Debug)]
pub(crate) enum Input {
    /// The turn begins (the user's message is the last one).
    Start,
    /// The model's reply, read whole.
    Replied {
        text: String,
        reply: Reply,
        usage: Option<Usage>,
    },
    /// The request failed.
    Failed(ProviderError),
    /// The current call was looked up, checked and judged.
    Judged(Judgement),
    /// The gate's answer to the current question.
    Decided(GateAnswer),
    /// The policy's verdict on a command a person edited.
    Rejudged(Assessment),
    /// The current call ran.
    Ran(ToolOutcome),
    /// Ctrl-C or a closed stdout; `partial` is the text shown of a reply cut short.
    Stopped { why: Stop, partial: String },
}

/// What the driver found out about a call before anything runs.
#[derive(Debug)]
pub(crate) enum Judgement {
    /// Not a call that can run (unknown tool, arguments that do not parse or validate).
    Invalid(ToolOutcome),
    Judged {
        action: Action,
        assessment: Assessment,
        /// For commands the policy allows: whether the sandbox can contain it.
        containment: Containment,
    },
}

/// Whether an allowed command can run in the sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Containment {
    /// No sandbox: the user chose `--sandbox off`, or the call is no command.
    Off,
    /// The sandbox is ready for this command.
    Ready,
    /// The sandbox can confine its files but not keep it off the network (Landlock ABI < 4),
    /// and why: it asks instead, and once approved because of taint it still runs confined.
    Partial(String),
    /// The sandbox cannot contain it, and why: it asks instead.
    Unavailable(String),
}

/// What the driver must do next.
#[derive(Debug)]
pub(crate) enum Command {
    /// Send the conversation to the model, with this tool choice.
    Request { choice: ToolChoice },
    /// Look the call up, check its arguments and ask the policy.
    Judge(ToolCall),
    /// Ask the approval gate.
    Ask(ApprovalRequest),
    /// Ask the policy about an edited command.
    Rejudge(String),
    /// Run the call (its arguments as they are to run), in the sandbox or not.
    Run { call: ToolCall, contained: bool },
    /// The turn is over.
    Finish(TurnEnd),
}

/// The core's answer to one input.
#[derive(Debug)]
pub(crate) struct Output {
    pub(crate) events: Vec<Event>,
    /// Messages to append to the conversation, in order.
    pub(crate) append: Vec<Message>,
    pub(crate) next: Command,
}

/// What a turn is set up with.
#[derive(Debug, Clone)]
pub(crate) struct Setup {
    /// The tools on offer this turn.
    pub(crate) specs: Vec<ToolSpec>,
    pub(crate) model: String,
    pub(crate) cwd: PathBuf,
    pub(crate) limits: Limits,
    /// The choice of the first request (later ones are `auto`, or the model could never answer).
    pub(crate) tool_choice: ToolChoice,
    /// Whether the system prompt names the tools (the widget's instructions do without).
    pub(crate) name_tools: bool,
    /// The schema the final answer must match (`--output-schema`).
    pub(crate) output: Option<OutputSchema>,
}
