//! The results the loop itself gives the model (a call not run, refused, blocked or repeated)
//! and how a call is shown to a person: each says what happened and what the model can do next.

use crate::policy::{Assessment, Verdict};
use crate::protocol::{Action, CallErrorCode, ToolErrorType, ToolResult};
use crate::tool::ToolOutcome;

use super::approval::DecidedBy;
use super::turn::LimitHit;

/// A contained call whose output must not reach the model: a file the sandbox covered was
/// replaced while it ran. The model is told no more than that: a path the call made could
/// carry the secret in its name.
pub(crate) fn withheld() -> ToolOutcome {
    let result = ToolResult::fail(
        ToolErrorType::SecurityError,
        "the command ran, but its output is withheld: a secret file was saved while it ran, \
         which the sandbox could not hide; the project now counts as secret",
    )
    .with_suggestion("tell the user; commands now need their approval".to_string());
    // Not `Blocked`: that offers to run it again outside the sandbox, and it has run.
    ToolOutcome::failed(CallErrorCode::ExecutionFailed, result)
}

pub(crate) fn unknown_tool(name: &str, available: &[&str]) -> ToolOutcome {
    let available = available.join(", ");
    let result = ToolResult::fail(
        ToolErrorType::ValidationError,
        format!("unknown tool `{name}`"),
    )
    .with_suggestion(if available.is_empty() {
        "no tools are available; answer without them".to_string()
    } else {
        format!("use one of: {available}")
    });
    ToolOutcome::failed(CallErrorCode::ToolNotFound, result)
}

pub(crate) fn blocked(assessment: &Assessment) -> ToolOutcome {
    ToolOutcome::failed(
        CallErrorCode::Blocked,
        ToolResult::fail(
            ToolErrorType::SecurityError,
            format!("blocked by policy: {}", assessment.reasons.join("; ")),
        )
        .with_suggestion(
            "this is never run, whatever the user allows; find another way or explain to the user",
        ),
    )
}

pub(crate) fn denied(by: DecidedBy) -> ToolOutcome {
    let result = if by == DecidedBy::NoTerminal {
        ToolResult::fail(
            ToolErrorType::PermissionError,
            "not run: this call needs the user's approval and no one is at a terminal to give it",
        )
        .with_suggestion(
            "answer without it, or tell the user to rerun with --yes or --allow 'PATTERN'",
        )
    } else {
        ToolResult::fail(
            ToolErrorType::PermissionError,
            "not run: the user declined it",
        )
        .with_suggestion("do not retry it; ask the user or find another way")
    };
    ToolOutcome::failed(CallErrorCode::Denied, result)
}

/// An identical read made earlier in the turn, with nothing changed since: its result again.
pub(crate) fn duplicate(mut earlier: ToolOutcome) -> ToolOutcome {
    earlier.result.note = Some(
        "duplicate call: this exact read was already made in this turn and nothing has \
         changed since; its result is repeated here instead of reading again"
            .into(),
    );
    earlier
}

pub(crate) fn not_run_after_refusal() -> ToolResult {
    ToolResult::fail(
        ToolErrorType::PermissionError,
        "not run: an earlier call needed approval that no one could give, which ended the run",
    )
}

pub(crate) fn not_run_past_limit(hit: LimitHit) -> ToolResult {
    ToolResult::fail(
        ToolErrorType::UserError,
        format!("not run: {}", hit.message()),
    )
}

/// What a person is asked about: the command, the path, or the query.
pub(crate) fn subject_of(action: &Action) -> String {
    match action {
        Action::Exec { command } => command.clone(),
        Action::Read { resolved, .. } => resolved.display().to_string(),
        Action::Network { what } => what.clone(),
        Action::External { tool, .. } => tool.clone(),
    }
}

pub(crate) fn verdict_word(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Allow => "known safe",
        Verdict::Ask => "approved by the user",
        Verdict::Deny => "blocked by policy",
    }
}
