//! The call the loop is answering: where it is (judged, asked about, running) and what has been
//! decided about it so far.

use serde_json::Value;

use super::machine::Containment;
use crate::policy::Assessment;
use crate::protocol::{
    Action, ApprovalRequest, CallError, CallErrorCode, Decision, ToolCall, ToolCallRecord,
};
use crate::tool::ToolOutcome;

/// Where the current call is, with what only that stage needs.
#[derive(Debug, Clone)]
pub(super) enum Stage {
    Judging,
    /// A question is out (to a rule, a flag or a person).
    Asking {
        asked: ApprovalRequest,
    },
    /// The sandbox refused it; a person is asked to run it outside.
    AskingRerun {
        asked: ApprovalRequest,
        /// The sandbox's refusal, which stands if nobody lets it out.
        blocked: ToolOutcome,
    },
    /// A person edited the command; the policy judges the edit.
    Rejudging {
        edit: String,
    },
    Running {
        contained: bool,
        approved: bool,
    },
}

/// The call being answered.
pub(super) struct Current {
    pub(super) call: ToolCall,
    pub(super) stage: Stage,
    /// What the call would do and the policy's own verdict on it.
    pub(super) judged: Option<(Action, Assessment)>,
    pub(super) containment: Containment,
    /// Safe by policy, asked only because of taint: once approved it still runs in the sandbox
    /// (approval must not widen what the sandbox contains).
    pub(super) contain_approved: bool,
    /// It ran, at least in part (a sandbox block stops a command that has already run).
    pub(super) ran: bool,
    /// The command as a person edited it, with the policy's verdict on it.
    pub(super) edited: Option<(String, Assessment)>,
}

impl Current {
    pub(super) fn new(call: ToolCall) -> Self {
        Current {
            call,
            stage: Stage::Judging,
            judged: None,
            containment: Containment::Off,
            contain_approved: false,
            ran: false,
            edited: None,
        }
    }

    /// The arguments it ran with: an edited command is recorded (and audited) as it ran.
    pub(super) fn ran_with(&self) -> Value {
        let mut arguments = self.call.arguments.clone();
        if let (Some((command, _)), Some(object)) = (&self.edited, arguments.as_object_mut()) {
            object.insert("command".into(), Value::String(command.clone()));
        }
        arguments
    }

    /// The record of a call a stop (or a fault) cut short: it never finished.
    pub(super) fn cut_short(&self, why: &str) -> ToolCallRecord {
        let decision = match self.stage {
            Stage::Running { approved: true, .. } => Decision::Approved,
            Stage::Running {
                approved: false, ..
            } => Decision::Allow,
            _ => Decision::Denied,
        };
        ToolCallRecord {
            id: self.call.id.clone(),
            name: self.call.name.clone(),
            arguments: self.ran_with(),
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
