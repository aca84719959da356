//! The tool-calling loop: ask the model, run the calls it makes, feed the results back, until it
//! answers or a limit is reached. Everything it does is told through `Event`s.

mod approval;
mod call;
mod prompt;
mod record;
mod turn;

use std::time::Instant;

pub use approval::{
    Answer, ApprovalRequest, Asker, DecidedBy, Gate, GateAnswer, NoTerminal, NobodyAsker,
};
pub use call::Sandbox;
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
        let mut usage = Usage::default();
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
            let request = ChatRequest {
                messages,
                tools: &specs,
                tool_choice: &choice,
                stream: self.stream,
            };
            let mut forward = |event: ProviderEvent<'_>| match event {
                ProviderEvent::Text(text) => emit(&Event::MessageDelta {
                    text: text.to_string(),
                }),
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
            let completion = match self.provider.complete(request, &mut forward).await {
                Ok(completion) => completion,
                Err(err) => {
                    let kind = if err.is_network() {
                        ErrorKind::Network
                    } else {
                        ErrorKind::Provider
                    };
                    break TurnEnd {
                        status: RunStatus::Error,
                        error: Some(RunError {
                            kind,
                            message: err.to_string(),
                        }),
                        report: Some(err.to_report()),
                    };
                }
            };
            if let Some(reply_usage) = completion.usage {
                usage.add(reply_usage);
            }
            let calls = completion.tool_calls;
            messages.push(Message::Assistant {
                content: completion.text,
                tool_calls: calls.clone(),
            });
            if calls.is_empty() {
                break match turn.unapproved.first() {
                    Some(subject) => denied_end(subject),
                    None => TurnEnd {
                        status: RunStatus::Ok,
                        error: None,
                        report: None,
                    },
                };
            }
            if let Some(hit) = self.run_calls(&calls, &mut turn, messages, emit).await {
                break limit_end(hit);
            }
        };
        emit(&Event::TurnCompleted {
            usage,
            iterations: turn.iterations,
        });
        end
    }

    /// Runs the calls of one reply in order, answering each in `messages`. Calls past a limit are
    /// answered as not run, so the conversation stays valid for a later turn.
    async fn run_calls(
        &mut self,
        calls: &[ToolCall],
        turn: &mut TurnState,
        messages: &mut Vec<Message>,
        emit: &mut dyn FnMut(&Event),
    ) -> Option<LimitHit> {
        let mut hit = None;
        for call in calls {
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
            messages.push(Message::Tool {
                tool_call_id: call.id.clone(),
                name: call.name.clone(),
                content: result.to_model_text(),
            });
        }
        hit
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
                    "duplicate call: this exact call was already made in this turn; its result is \
                     repeated here instead of running it again"
                        .into(),
                );
                (Decision::Duplicate, outcome)
            }
            None => {
                let (decision, outcome) = self.decide_and_run(call, turn, emit).await;
                turn.remember(call, &outcome);
                (decision, outcome)
            }
        };
        let record = ToolCallRecord {
            id: call.id.clone(),
            name: call.name.clone(),
            arguments: call.arguments.clone(),
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
