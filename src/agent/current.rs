//! The call the loop is answering: where it is (judged, asked about, running), each stage holding
//! what has been decided about the call so far and nothing it cannot know yet.

use serde_json::Value;

use super::machine::Containment;
use crate::policy::Assessment;
use crate::protocol::{
    Action, ApprovalRequest, CallError, CallErrorCode, Decision, ToolCall, ToolCallRecord,
};
use crate::tool::ToolOutcome;

/// What the policy found about a call: what it would do, its own verdict on it, and where it
/// can run.
#[derive(Debug, Clone)]
pub(super) struct Judged {
    pub(super) action: Action,
    /// The policy's own verdict (before taint or an edit).
    pub(super) assessment: Assessment,
    pub(super) containment: Containment,
    /// Safe by policy, asked only because of taint: once approved it still runs in the sandbox
    /// (approval must not widen what the sandbox contains).
    pub(super) contain_approved: bool,
}

impl Judged {
    /// Whether the sandbox can confine it (maybe without keeping it off the network).
    pub(super) fn confinable(&self) -> bool {
        matches!(
            self.containment,
            Containment::Ready | Containment::Partial(_)
        )
    }
}

/// The command as a person edited it, with the policy's verdict on it.
#[derive(Debug, Clone)]
pub(super) struct Edit {
    pub(super) command: String,
    pub(super) recheck: Assessment,
}

/// Where the current call is, with what only that stage needs.
#[derive(Debug, Clone)]
pub(super) enum Stage {
    Judging,
    /// A question is out (to a rule, a flag or a person).
    Asking {
        judged: Judged,
        asked: ApprovalRequest,
    },
    /// The sandbox refused it (so it ran, in part); a person is asked to run it outside.
    AskingRerun {
        judged: Judged,
        asked: ApprovalRequest,
        /// The sandbox's refusal, which stands if nobody lets it out.
        blocked: ToolOutcome,
    },
    /// A person edited the command; the policy judges the edit. `ran`: the command it replaces
    /// already ran in the sandbox (the question was a rerun outside it).
    Rejudging {
        judged: Judged,
        edit: String,
        ran: bool,
    },
    /// It runs: `contained` in the sandbox, `approved` by a person or a rule, as `edit`ed.
    Running {
        judged: Judged,
        contained: bool,
        approved: bool,
        edit: Option<Edit>,
    },
}

/// The call being answered.
#[derive(Debug)]
pub(super) struct Call {
    pub(super) call: ToolCall,
    pub(super) stage: Stage,
}

impl Call {
    /// The record of a call a stop (or a fault) cut short: it never finished.
    pub(super) fn cut_short(&self, why: &str) -> ToolCallRecord {
        let (decision, edit) = match &self.stage {
            Stage::Running {
                approved: true,
                edit,
                ..
            } => (Decision::Approved, edit.as_ref()),
            Stage::Running {
                approved: false,
                edit,
                ..
            } => (Decision::Allow, edit.as_ref()),
            _ => (Decision::Denied, None),
        };
        ToolCallRecord {
            id: self.call.id.clone(),
            name: self.call.name.clone(),
            arguments: ran_with(&self.call, edit),
            decision,
            ok: false,
            exit_code: None,
            duration_ms: 0,
            output_truncated: false,
            error: Some(CallError {
                code: CallErrorCode::ExecutionFailed,
                message: why.into(),
            }),
        }
    }
}

/// The arguments `call` runs with: an edited command is recorded (and audited) as it ran.
pub(super) fn ran_with(call: &ToolCall, edit: Option<&Edit>) -> Value {
    let mut arguments = call.arguments.clone();
    if let (Some(edit), Some(object)) = (edit, arguments.as_object_mut()) {
        object.insert("command".into(), Value::String(edit.command.clone()));
    }
    arguments
}
