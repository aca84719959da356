//! How a turn ends: its status, the error for `--json`, and the report for the user.

use crate::error::{ExitCode, Report};
use crate::protocol::{ErrorKind, RunError, RunStatus};
use crate::provider::ProviderError;

use super::turn::LimitHit;

/// What stopped a turn from outside the loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// Ctrl-C.
    Interrupted,
    /// Nobody reads stdout any more.
    PipeClosed,
}

/// How a turn ended.
#[derive(Debug)]
pub(crate) struct TurnEnd {
    pub(crate) status: RunStatus,
    pub(crate) error: Option<RunError>,
    /// The full report for the user when the turn failed.
    pub(crate) report: Option<Report>,
    /// Set when a stop ended the turn.
    pub(crate) stopped: Option<Stop>,
}

impl TurnEnd {
    pub(crate) fn ok() -> Self {
        TurnEnd {
            status: RunStatus::Ok,
            error: None,
            report: None,
            stopped: None,
        }
    }

    fn failed(status: RunStatus, kind: ErrorKind, message: String, report: Report) -> Self {
        TurnEnd {
            status,
            error: Some(RunError { kind, message }),
            report: Some(report),
            stopped: None,
        }
    }
}

pub(crate) fn provider_end(err: &ProviderError) -> TurnEnd {
    TurnEnd::failed(RunStatus::Error, err.kind(), err.summary(), err.to_report())
}

/// A call needed approval and nobody could give it: the run ends with exit 3.
pub(crate) fn denied_end(subject: &str) -> TurnEnd {
    let message = format!("a tool call needed approval and no one could give it: {subject}");
    let report = Report::new(ExitCode::Denied, message.clone())
        .with_hint("run it in a terminal to be asked, or approve with --yes or --allow 'PATTERN'");
    TurnEnd::failed(RunStatus::Denied, ErrorKind::Denied, message, report)
}

pub(crate) fn limit_end(hit: LimitHit) -> TurnEnd {
    let report = Report::new(ExitCode::Limit, hit.message()).with_hint(
        "raise the limit with --max-iterations or SWEBASH_AI_TOOLS_MAX_ITER / _MAX_CALLS",
    );
    TurnEnd::failed(RunStatus::Limit, ErrorKind::Limit, hit.message(), report)
}

pub(crate) fn stopped_end(why: Stop) -> TurnEnd {
    TurnEnd {
        status: RunStatus::Interrupted,
        error: Some(RunError {
            kind: ErrorKind::Interrupted,
            message: "interrupted".into(),
        }),
        report: None,
        stopped: Some(why),
    }
}

/// The driver fed the core something that does not fit: a bug, reported as an internal error
/// rather than a panic.
pub(crate) fn unexpected_end(what: &str) -> TurnEnd {
    let message = format!("internal error in the tool loop: {what} (please report)");
    TurnEnd::failed(
        RunStatus::Error,
        ErrorKind::Provider,
        message.clone(),
        Report::new(ExitCode::Runtime, message),
    )
}
