//! One tool call from request to result: the tool is found and its arguments checked, the policy
//! judges what it would do, a person is asked if needed, and it runs (allowed commands in the
//! sandbox, approved ones outside it: approval is the escalation).

use std::ffi::OsString;

use serde_json::Value;

use super::Agent;
use super::approval::{ApprovalRequest, DecidedBy, GateAnswer};
use super::turn::TurnState;
use crate::policy::{Assessment, Verdict};
use crate::protocol::{
    Action, CallErrorCode, Decision, Event, ToolCall, ToolErrorType, ToolResult,
};
use crate::tool::{RunOptions, Tool, ToolOutcome, invalid_arguments};

/// The sandbox prefix for allowed commands, checked against the kernel on first use.
pub struct Sandbox {
    prefix: Option<Vec<OsString>>,
    checked: bool,
}

impl Sandbox {
    /// `prefix` runs a program under the sandbox (`None`: sandbox off).
    pub fn new(prefix: Option<Vec<OsString>>) -> Self {
        Sandbox {
            prefix,
            checked: false,
        }
    }

    /// The prefix, once the kernel has shown it enforces it; says once when it cannot.
    fn prefix(&mut self, emit: &mut dyn FnMut(&Event)) -> Option<&[OsString]> {
        if !self.checked {
            self.checked = true;
            if self.prefix.is_some() && !crate::policy::sandbox::enforced() {
                self.prefix = None;
                emit(&Event::Notice {
                    message:
                        "Landlock is not available in this kernel: commands run without a sandbox"
                            .into(),
                });
            }
        }
        self.prefix.as_deref()
    }
}

impl Agent<'_> {
    pub(super) async fn decide_and_run(
        &mut self,
        call: &ToolCall,
        turn: &mut TurnState,
        emit: &mut dyn FnMut(&Event),
    ) -> (Decision, ToolOutcome) {
        let registry = self.registry;
        let tool = match registry.get(&call.name) {
            Some(tool) => tool,
            None => {
                return (
                    Decision::Invalid,
                    unknown_tool(&call.name, &registry.names()),
                );
            }
        };
        if let Value::String(raw) = &call.arguments {
            let result = invalid_arguments(
                tool.name(),
                &format!("the arguments are not valid JSON: {raw}"),
            );
            return (
                Decision::Invalid,
                ToolOutcome::failed(CallErrorCode::ParseError, result),
            );
        }
        if let Err(message) = tool.validate(&call.arguments) {
            let result = invalid_arguments(tool.name(), &message);
            return (
                Decision::Invalid,
                ToolOutcome::failed(CallErrorCode::InvalidArguments, result),
            );
        }
        let action = tool.action(&call.arguments, self.ctx);
        let mut assessment = self.policy.decide(&action);
        if let (Some(source), Action::Exec { .. }, Verdict::Allow) =
            (&turn.tainted, &action, assessment.verdict)
        {
            assessment.verdict = Verdict::Ask;
            assessment.reasons = vec![format!(
                "the model has read untrusted content from {source}"
            )];
        }
        let (decision, outcome) = self
            .act(tool, call, &action, assessment.clone(), turn, emit)
            .await;
        if decision != Decision::Blocked && decision != Decision::Denied {
            taint(turn, &action, &assessment, &call.name, emit);
        }
        (decision, outcome)
    }

    async fn act(
        &mut self,
        tool: &dyn Tool,
        call: &ToolCall,
        action: &Action,
        assessment: Assessment,
        turn: &mut TurnState,
        emit: &mut dyn FnMut(&Event),
    ) -> (Decision, ToolOutcome) {
        match assessment.verdict {
            Verdict::Deny => (Decision::Blocked, blocked(&assessment)),
            Verdict::Allow => {
                let sandbox = match action {
                    Action::Exec { .. } => self.sandbox.prefix(emit).map(<[OsString]>::to_vec),
                    _ => None,
                };
                let outcome = self
                    .run_tool(tool, &call.arguments, &call.id, sandbox.as_deref(), emit)
                    .await;
                (Decision::Allow, outcome)
            }
            Verdict::Ask => {
                self.ask_then_run(tool, call, action, assessment, turn, emit)
                    .await
            }
        }
    }

    async fn ask_then_run(
        &mut self,
        tool: &dyn Tool,
        call: &ToolCall,
        action: &Action,
        assessment: Assessment,
        turn: &mut TurnState,
        emit: &mut dyn FnMut(&Event),
    ) -> (Decision, ToolOutcome) {
        let subject = subject_of(action);
        emit(&Event::ApprovalRequested {
            id: call.id.clone(),
            reason: assessment.reasons.join("; "),
        });
        let request = ApprovalRequest {
            tool: call.name.clone(),
            subject: subject.clone(),
            commands: assessment.to_approve(),
            reasons: assessment.reasons,
            cwd: self.ctx.cwd.clone(),
        };
        let answer = self.gate.decide(&request);
        let (decision, by) = match &answer {
            GateAnswer::Approved { by, .. } => (Decision::Approved, *by),
            GateAnswer::Denied { by } => (Decision::Denied, *by),
        };
        emit(&Event::ApprovalDecided {
            id: call.id.clone(),
            decision,
            by: by.name().to_string(),
        });
        match answer {
            GateAnswer::Denied { by } => {
                if by == DecidedBy::NoTerminal {
                    turn.unapproved.push(subject);
                }
                (Decision::Denied, denied(by))
            }
            GateAnswer::Approved { edited: None, .. } => {
                let outcome = self
                    .run_tool(tool, &call.arguments, &call.id, None, emit)
                    .await;
                (Decision::Approved, outcome)
            }
            GateAnswer::Approved {
                edited: Some(command),
                ..
            } => {
                // The edited command is judged again: a person can approve, never unblock.
                let recheck = self.policy.decide(&Action::Exec {
                    command: command.clone(),
                });
                let mut arguments = call.arguments.clone();
                arguments["command"] = Value::String(command.clone());
                emit(&Event::Notice {
                    message: format!(
                        "edited command, {}: {command}",
                        verdict_word(recheck.verdict)
                    ),
                });
                if recheck.verdict == Verdict::Deny {
                    return (Decision::Blocked, blocked(&recheck));
                }
                let mut outcome = self.run_tool(tool, &arguments, &call.id, None, emit).await;
                turn.ran_as = Some(arguments);
                outcome.result.note = Some(format!(
                    "the user edited the command before it ran; it ran as: {command}"
                ));
                (Decision::Approved, outcome)
            }
        }
    }

    async fn run_tool(
        &self,
        tool: &dyn Tool,
        arguments: &Value,
        id: &str,
        sandbox: Option<&[OsString]>,
        emit: &mut dyn FnMut(&Event),
    ) -> ToolOutcome {
        let mut output = |stream, chunk: &str| {
            emit(&Event::ToolCallOutput {
                id: id.to_string(),
                stream,
                chunk: chunk.to_string(),
            });
        };
        let options = RunOptions {
            sandbox,
            output: &mut output,
        };
        tool.run(arguments, self.ctx, options).await
    }
}

fn verdict_word(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Allow => "known safe",
        Verdict::Ask => "approved by the user",
        Verdict::Deny => "blocked by policy",
    }
}

/// After a call has run: if it took in untrusted content, every later command of the turn asks.
fn taint(
    turn: &mut TurnState,
    action: &Action,
    assessment: &Assessment,
    tool: &str,
    emit: &mut dyn FnMut(&Event),
) {
    if turn.tainted.is_some() {
        return;
    }
    let source = match action {
        Action::Network { .. } => Some(format!("the results of `{tool}`")),
        Action::External { server, .. } => Some(format!("the MCP server {server}")),
        Action::Read { .. } | Action::Exec { .. } => assessment.untrusted.clone(),
    };
    if let Some(source) = source {
        emit(&Event::TurnTainted {
            source: source.clone(),
        });
        turn.tainted = Some(source);
    }
}

/// What a person is asked about: the command, the path, or the query.
fn subject_of(action: &Action) -> String {
    match action {
        Action::Exec { command } => command.clone(),
        Action::Read { resolved, .. } => resolved.display().to_string(),
        Action::Network { what } => what.clone(),
        Action::External { tool, .. } => tool.clone(),
    }
}

fn unknown_tool(name: &str, available: &[&str]) -> ToolOutcome {
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

fn blocked(assessment: &Assessment) -> ToolOutcome {
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

fn denied(by: DecidedBy) -> ToolOutcome {
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
