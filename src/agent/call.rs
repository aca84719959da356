//! One tool call from request to result: the tool is found and its arguments checked, the policy
//! judges what it would do, a person is asked if needed, and it runs (allowed commands in the
//! sandbox, approved ones outside it: approval is the escalation).

use std::ffi::OsString;

use serde_json::Value;

use super::Agent;
use super::approval::{ApprovalRequest, DecidedBy, GateAnswer};
use super::turn::{Effect, TurnState};
use crate::policy::sandbox::{Capabilities, Plan, SandboxMode};
use crate::policy::{Assessment, Verdict};
use crate::protocol::{
    Action, CallErrorCode, Decision, Event, ToolCall, ToolErrorType, ToolResult,
};
use crate::tool::{RunOptions, Tool, ToolOutcome, invalid_arguments};

/// The sandbox of allowed commands, checked against the kernel on first use.
pub struct Sandbox {
    plan: Plan,
}

impl Sandbox {
    pub fn new(plan: Plan) -> Self {
        Sandbox { plan }
    }

    /// What this kernel enforces; the first time in a session, says what it cannot.
    fn capabilities(&self, emit: &mut dyn FnMut(&Event)) -> &Capabilities {
        let (capabilities, first) = self.plan.capabilities();
        if first {
            for message in limits_of(&self.plan, capabilities) {
                emit(&Event::Notice { message });
            }
        }
        capabilities
    }

    /// The launcher prefix for an allowed command (`None`: run it directly).
    fn prefix(&self, command: &str, emit: &mut dyn FnMut(&Event)) -> Option<Vec<OsString>> {
        if self.plan.mode == SandboxMode::Off || !self.capabilities(emit).filesystem {
            return None;
        }
        self.plan.prefix(command)
    }

    /// Why an allowed command must ask instead: the kernel cannot contain it (no Landlock), or
    /// cannot keep it off the network. `--sandbox off` is the user's own choice to run unasked.
    fn must_ask(&self, emit: &mut dyn FnMut(&Event)) -> Option<String> {
        if self.plan.mode == SandboxMode::Off {
            return None;
        }
        let capabilities = self.capabilities(emit);
        if !capabilities.filesystem {
            return Some(
                "this kernel has no Landlock, so nothing would contain the command (--sandbox off \
                 runs such commands unasked)"
                    .into(),
            );
        }
        (!capabilities.network).then(|| {
            "this kernel cannot keep sandboxed commands off the network (Landlock ABI < 4)".into()
        })
    }
}

/// What the sandbox cannot do here, said once per session.
fn limits_of(plan: &Plan, capabilities: &Capabilities) -> Vec<String> {
    let mut notes = Vec::new();
    if plan.mode == SandboxMode::Off {
        return notes;
    }
    if !capabilities.filesystem {
        notes.push(
            "Landlock is not available in this kernel: commands ai knows to be safe ask too \
             (--sandbox off runs them unasked)"
                .into(),
        );
        return notes;
    }
    if let (SandboxMode::Workspace, Err(why)) = (plan.mode, &plan.project) {
        notes.push(format!(
            "sandbox: {why}: no writable project, commands run without asking may write only temp"
        ));
    }
    if !capabilities.network {
        notes.push(
            "sandbox: this kernel cannot close the network to commands (Landlock ABI < 4); \
             commands ask instead"
                .into(),
        );
    }
    notes
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
        let (action, mut assessment) = self.judge(tool, &call.arguments);
        if let (Some(source), Action::Exec { .. }, Verdict::Allow) =
            (&turn.tainted, &action, assessment.verdict)
        {
            // Every command of the line asks (rules match each one), and an approval keeps the
            // sandbox: taint adds a question, it never removes containment.
            assessment = assessment.escalated(format!(
                "the model has read untrusted content from {source}"
            ));
            turn.contain_approved = true;
        }
        let (decision, outcome) = self
            .act(tool, call, &action, assessment.clone(), turn, emit)
            .await;
        turn.contain_approved = false;
        if decision != Decision::Blocked && decision != Decision::Denied {
            taint(turn, &action, &assessment, &call.name, emit);
        }
        turn.remember(call, &outcome, effect_of(&action, decision));
        (decision, outcome)
    }

    /// The policy's verdict on everything the call would do: with several actions (a read of
    /// several files) the strictest verdict wins, its reasons merged, and the action shown to a
    /// person is the first one that earned it.
    fn judge(&self, tool: &dyn Tool, arguments: &Value) -> (Action, Assessment) {
        let mut judged: Vec<(Action, Assessment)> = tool
            .actions(arguments, self.ctx)
            .into_iter()
            .map(|action| {
                let assessment = self.policy.decide(&action);
                (action, assessment)
            })
            .collect();
        if judged.len() == 1 {
            return judged.remove(0);
        }
        let strictest = judged
            .iter()
            .map(|(_, a)| a.verdict)
            .max()
            .unwrap_or(Verdict::Deny);
        let mut reasons: Vec<String> = Vec::new();
        for (_, assessment) in judged.iter().filter(|(_, a)| a.verdict == strictest) {
            for reason in &assessment.reasons {
                if !reasons.contains(reason) {
                    reasons.push(reason.clone());
                }
            }
        }
        let untrusted = judged.iter().find_map(|(_, a)| a.untrusted.clone());
        let Some(index) = judged.iter().position(|(_, a)| a.verdict == strictest) else {
            // No action at all: nothing to vouch for.
            let denied = Assessment {
                verdict: Verdict::Deny,
                reasons: vec!["the call names nothing to act on".into()],
                commands: Vec::new(),
                untrusted: None,
            };
            return (tool.action(arguments, self.ctx), denied);
        };
        let asking: Vec<String> = judged
            .iter()
            .filter(|(_, a)| a.verdict == strictest)
            .map(|(action, _)| subject_of(action))
            .collect();
        let (mut action, mut assessment) = judged.swap_remove(index);
        assessment.reasons = reasons;
        assessment.untrusted = untrusted;
        if let (Action::Read { resolved, .. }, true) = (&mut action, asking.len() > 1) {
            // The person is asked about every path that needs it, and an "always" answer
            // remembers exactly this set: a JSON list, which no single path can spell.
            *resolved = serde_json::to_string(&asking).unwrap_or_default().into();
        }
        (action, assessment)
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
                let Action::Exec { command } = &action else {
                    let outcome = self
                        .run_tool(tool, &call.arguments, &call.id, None, emit)
                        .await;
                    return (Decision::Allow, outcome);
                };
                if let Some(reason) = self.sandbox.must_ask(emit) {
                    let assessment = assessment.escalated(reason);
                    return self
                        .ask_then_run(tool, call, action, assessment, turn, emit)
                        .await;
                }
                let prefix = self.sandbox.prefix(command, emit);
                if prefix.is_none() && self.sandbox.plan.mode != SandboxMode::Off {
                    // The sandbox could not be prepared for this command: nothing contains it.
                    let assessment =
                        assessment.escalated("the sandbox could not be prepared for it".into());
                    return self
                        .ask_then_run(tool, call, action, assessment, turn, emit)
                        .await;
                }
                let outcome = self
                    .run_tool(tool, &call.arguments, &call.id, prefix.as_deref(), emit)
                    .await;
                if prefix.is_some() && outcome.error_code == Some(CallErrorCode::Blocked) {
                    return self
                        .rerun_outside(tool, call, action, outcome, turn, emit)
                        .await;
                }
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
                    // The person reading the error learns why it asked, not only what.
                    turn.unapproved
                        .push(format!("{subject} ({})", request.reasons.join("; ")));
                }
                (Decision::Denied, denied(by))
            }
            GateAnswer::Approved { edited: None, .. } => {
                let prefix = if turn.contain_approved {
                    self.sandbox.prefix(&subject, emit)
                } else {
                    None
                };
                let outcome = self
                    .run_tool(tool, &call.arguments, &call.id, prefix.as_deref(), emit)
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
                // What the edited command took in is what taints the turn.
                let ran = Action::Exec {
                    command: command.clone(),
                };
                taint(turn, &ran, &recheck, &call.name, emit);
                outcome.result.note = Some(format!(
                    "the user edited the command before it ran; it ran as: {command}"
                ));
                (Decision::Approved, outcome)
            }
        }
    }

    /// The sandbox refused something: a person may approve running the same command outside
    /// it (yes / no / always); without one the call stays blocked and the run ends saying which
    /// `--allow` would approve it.
    async fn rerun_outside(
        &mut self,
        tool: &dyn Tool,
        call: &ToolCall,
        action: &Action,
        blocked: ToolOutcome,
        turn: &mut TurnState,
        emit: &mut dyn FnMut(&Event),
    ) -> (Decision, ToolOutcome) {
        let what = blocked.result.error.clone().unwrap_or_default();
        // Outside the sandbox every command of the line runs unconfined: each needs approval.
        let assessment = self
            .policy
            .decide(action)
            .escalated(format!("{what}; run it again outside the sandbox?"));
        let unapproved = turn.unapproved.len();
        let (decision, outcome) = self
            .ask_then_run(tool, call, action, assessment, turn, emit)
            .await;
        if decision != Decision::Denied {
            return (decision, outcome);
        }
        let command = subject_of(action);
        // One pattern per command of the line (rules match each one), glob characters escaped.
        let flag = self
            .policy
            .decide(action)
            .commands
            .iter()
            .map(|unit| {
                let pattern: String = unit
                    .command
                    .chars()
                    .flat_map(|c| {
                        let escape = matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\');
                        escape.then_some('\\').into_iter().chain(std::iter::once(c))
                    })
                    .collect();
                format!("--allow '{}'", pattern.replace('\'', "'\\''"))
            })
            .collect::<Vec<_>>()
            .join(" ");
        if turn.unapproved.len() > unapproved {
            turn.unapproved.truncate(unapproved);
            turn.unapproved.push(format!(
                "{command} ({what}; {flag} runs it outside the sandbox)"
            ));
        }
        let mut blocked = blocked;
        blocked.result.suggestion = Some(format!(
            "the user can approve running it outside the sandbox ({flag}); otherwise find another \
             way or explain what is blocked"
        ));
        (Decision::Blocked, blocked)
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

/// Whether a call's result may answer the same call later. Commands and MCP tools may change
/// anything (even a blocked command ran in the sandbox up to the block), and an approved call is
/// one the policy could not vouch for; only plain reads are kept.
fn effect_of(action: &Action, decision: Decision) -> Effect {
    match (action, decision) {
        (_, Decision::Invalid) => Effect::Nothing,
        (Action::Exec { .. } | Action::External { .. }, _) | (_, Decision::Approved) => {
            Effect::Change
        }
        (_, Decision::Allow) => Effect::Read,
        _ => Effect::Nothing,
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
