//! The tool-calling loop: ask the model, run the calls it makes, feed the results back, until it
//! answers or a limit is reached. Everything it does is told through `Event`s.

mod approval;
mod call;
mod mode;
mod prompt;
mod record;
mod turn;

use std::time::Instant;

pub use approval::{
    Answer, ApprovalRequest, Asker, DecidedBy, Gate, GateAnswer, NoTerminal, NobodyAsker,
};
pub use call::Sandbox;
pub use mode::ToolMode;
pub use prompt::system_prompt;
pub use record::{AnswerText, Recorder};
pub use turn::{LimitHit, Limits, TurnState};

use crate::error::Report;
use crate::policy::Policy;
use crate::protocol::{
    CallError, Decision, ErrorKind, Event, Message, RunError, RunStatus, ToolCall, ToolCallRecord,
    ToolChoice, ToolErrorType, ToolResult, Usage,
};
use crate::provider::{ChatRequest, Provider, ProviderEvent};
use crate::tool::{Registry, ToolContext};

/// How a turn ended.
#[derive(Debug)]
pub struct TurnEnd {
    pub status: RunStatus,
    pub error: Option<RunError>,
    /// The full report for the user when the turn failed.
    pub report: Option<Report>,
}

pub struct Agent<'a> {
    pub provider: &'a dyn Provider,
    pub registry: &'a Registry,
    pub ctx: &'a ToolContext,
    pub policy: &'a Policy,
    pub gate: Gate,
    pub sandbox: Sandbox,
    pub limits: Limits,
    pub tool_choice: ToolChoice,
    pub stream: bool,
    pub mode: ToolMode,
}

impl Agent<'_> {
    /// Runs one turn on `messages` (which must end with the user's message), appending the
    /// model's messages and the tool results to it.
    pub async fn run_turn(
        &mut self,
        messages: &mut Vec<Message>,
        emit: &mut dyn FnMut(&Event),
    ) -> TurnEnd {
        let specs = self.registry.specs();
        self.registry.begin_turn();
        let mut turn = TurnState::default();
        let mut usage: Option<Usage> = None;
        let end = loop {
            if let Err(hit) = turn.begin_request(self.limits) {
                break limit_end(hit);
            }
            // A forced choice applies to the first request only, or the model could never answer.
            let choice = if turn.iterations == 1 {
                self.tool_choice.clone()
            } else {
                ToolChoice::Auto
            };
            let shaped = self.mode.response_format(&specs, &choice);
            let request = ChatRequest {
                messages,
                tools: if self.mode.is_native() { &specs } else { &[] },
                tool_choice: &choice,
                stream: self.stream,
                response_format: shaped.as_ref(),
            };
            let mut reading = self.mode.reader(shaped.is_some());
            let result = {
                let mut forward = |event: ProviderEvent<'_>| match event {
                    ProviderEvent::Text(text) => reading.text(text, emit),
                    ProviderEvent::Retrying {
                        attempt,
                        delay,
                        reason,
                    } => emit(&Event::Notice {
                        message: format!(
                            "{reason}; retrying in {:.1} s (attempt {attempt})",
                            delay.as_secs_f64()
                        ),
                    }),
                };
                self.provider.complete(request, &mut forward).await
            };
            let completion = match result {
                Ok(completion) => completion,
                Err(err) if self.mode.rejects_native(&err, &specs) => {
                    self.mode = ToolMode::prompt_for(self.provider.model(), &specs, false);
                    emit(&Event::Notice {
                        message: format!(
                            "the server rejected native tool calls; using the prompt-based `{}` format for the rest of this run",
                            self.mode.name()
                        ),
                    });
                    if let Some(Message::System { content }) = messages.first_mut() {
                        content.push_str("\n\n");
                        content.push_str(&self.mode.system_section(&specs));
                    }
                    turn.iterations -= 1;
                    continue;
                }
                Err(err) => break provider_end(&err),
            };
            Usage::add_to(&mut usage, completion.usage);
            let reply = reading.finish(
                &completion,
                &self.mode,
                turn.iterations,
                &self.registry.names(),
                emit,
            );
            messages.push(Message::Assistant {
                content: completion.text,
                tool_calls: if self.mode.is_native() {
                    reply.calls.clone()
                } else {
                    Vec::new()
                },
            });
            if reply.calls.is_empty() && reply.problems.is_empty() {
                break match turn.unapproved.first() {
                    Some(subject) => denied_end(subject),
                    None => TurnEnd {
                        status: RunStatus::Ok,
                        error: None,
                        report: None,
                    },
                };
            }
            let (results, hit) = self.run_calls(&reply.calls, &mut turn, emit).await;
            messages.extend(self.mode.render(&reply, &results));
            if let Some(hit) = hit {
                break limit_end(hit);
            }
            // With no one to ask, a refusal ends the turn: the model gets no chance to route
            // around it with another call.
            if let Some(subject) = turn.unapproved.first() {
                break denied_end(subject);
            }
        };
        emit(&Event::TurnCompleted {
            usage,
            iterations: turn.iterations,
        });
        end
    }

    /// Runs the calls of one reply in order and returns their results. Calls past a limit are
    /// answered as not run, so the conversation stays valid for a later turn.
    async fn run_calls(
        &mut self,
        calls: &[ToolCall],
        turn: &mut TurnState,
        emit: &mut dyn FnMut(&Event),
    ) -> (Vec<ToolResult>, Option<LimitHit>) {
        let mut hit = None;
        let mut results = Vec::new();
        for call in calls {
            if !turn.unapproved.is_empty() {
                results.push(ToolResult::fail(
                    ToolErrorType::PermissionError,
                    "not run: an earlier call needed approval that no one could give, which ended the run",
                ));
                continue;
            }
            let result = match hit.or_else(|| turn.begin_call(self.limits).err()) {
                Some(limit) => {
                    hit = Some(limit);
                    ToolResult::fail(
                        ToolErrorType::UserError,
                        format!("not run: {}", limit.message()),
                    )
                }
                None => self.run_call(call, turn, emit).await,
            };
            results.push(result);
        }
        (results, hit)
    }

    async fn run_call(
        &mut self,
        call: &ToolCall,
        turn: &mut TurnState,
        emit: &mut dyn FnMut(&Event),
    ) -> ToolResult {
        emit(&Event::ToolCallStarted {
            id: call.id.clone(),
            name: call.name.clone(),
            arguments: call.arguments.clone(),
        });
        let started = Instant::now();
        let (decision, outcome) = match turn.earlier(call) {
            Some(earlier) => {
                let mut outcome = earlier.clone();
                outcome.result.note = Some(
                    "duplicate call: this exact read was already made in this turn and nothing has \
                     changed since; its result is repeated here instead of reading again"
                        .into(),
                );
                (Decision::Duplicate, outcome)
            }
            None => self.decide_and_run(call, turn, emit).await,
        };
        // An edited command is recorded (and audited) as it ran, not as the model wrote it.
        let arguments = turn.ran_as.take().unwrap_or_else(|| call.arguments.clone());
        let record = ToolCallRecord {
            id: call.id.clone(),
            name: call.name.clone(),
            arguments,
            decision,
            ok: outcome.result.success,
            exit_code: outcome.exit_code,
            duration_ms: millis(started),
            output_truncated: outcome.output_truncated,
            error: outcome.error_code.map(|code| CallError {
                code,
                message: outcome.result.error.clone().unwrap_or_default(),
            }),
        };
        emit(&Event::ToolCallCompleted { record });
        outcome.result
    }
}

fn provider_end(err: &crate::provider::ProviderError) -> TurnEnd {
    let kind = if err.is_network() {
        ErrorKind::Network
    } else {
        ErrorKind::Provider
    };
    TurnEnd {
        status: RunStatus::Error,
        error: Some(RunError {
            kind,
            message: err.summary(),
        }),
        report: Some(err.to_report()),
    }
}

/// A call needed approval and nobody could give it: the run ends with exit 3.
fn denied_end(subject: &str) -> TurnEnd {
    let message = format!("a tool call needed approval and no one could give it: {subject}");
    TurnEnd {
        status: RunStatus::Denied,
        error: Some(RunError {
            kind: ErrorKind::Denied,
            message: message.clone(),
        }),
        report: Some(
            Report::new(crate::error::ExitCode::Denied, message).with_hint(
                "run it in a terminal to be asked, or approve with --yes or --allow 'PATTERN'",
            ),
        ),
    }
}

fn limit_end(hit: LimitHit) -> TurnEnd {
    TurnEnd {
        status: RunStatus::Limit,
        error: Some(RunError {
            kind: ErrorKind::Limit,
            message: hit.message(),
        }),
        report: Some(
            Report::new(crate::error::ExitCode::Limit, hit.message()).with_hint(
                "raise the limit with --max-iterations or SWEBASH_AI_TOOLS_MAX_ITER / _MAX_CALLS",
            ),
        ),
    }
}

pub fn millis(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}
