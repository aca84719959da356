//! The loop's rules as a pure state machine: it takes what happened (a reply, a failed request, a
//! judged call, a person's answer, a finished tool, a stop) and says what to do next (send a
//! request, judge a call, ask a person, run a tool, finish), with the events to emit and the
//! messages to append on the way. No async and no I/O, so every rule of the loop (limits,
//! duplicates, invalid calls, fallback to prompt-based calling, refusals, taint, reruns outside
//! the sandbox, stops) is a table test; `driver` carries the commands out.

use super::answer::OutputSchema;
use super::current::Current;
use super::end::{denied_end, limit_end, provider_end, stopped_end, unexpected_end};
use super::machine::{Command, Input, Output, Setup};
use super::mode::{Reply, ToolMode};
use super::prompt::tools_sentence;
use super::turn::{LimitHit, TurnState};
use super::{Stop, TurnEnd};
use crate::protocol::{Event, Message, ToolChoice, ToolErrorType, ToolResult, ToolSpec, Usage};
use crate::provider::ProviderError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Ready,
    Requesting,
    Calling,
    Finished,
}

/// The calls of one reply, answered in order.
pub(super) struct Batch {
    pub(crate) reply: Reply,
    pub(crate) results: Vec<ToolResult>,
    pub(crate) hit: Option<LimitHit>,
    pub(crate) current: Option<Current>,
}

pub(crate) struct Core<'m> {
    pub(super) mode: &'m mut ToolMode,
    pub(super) setup: Setup,
    pub(super) turn: TurnState,
    usage: Option<Usage>,
    phase: Phase,
    pub(super) batch: Option<Batch>,
    pub(super) events: Vec<Event>,
    append: Vec<Message>,
    /// The model was asked once more for an answer that matches the output schema.
    retried: bool,
}

impl<'m> Core<'m> {
    /// A turn in `mode` (kept across turns: a switch to prompt-based calling lasts). The mode's
    /// format is rebuilt for this turn's tools, which may have changed (`/tools disable`).
    pub(crate) fn new(mode: &'m mut ToolMode, setup: Setup) -> Self {
        mode.retarget(&setup.specs);
        Core {
            mode,
            setup,
            turn: TurnState::default(),
            usage: None,
            phase: Phase::Ready,
            batch: None,
            events: Vec::new(),
            append: Vec::new(),
            retried: false,
        }
    }

    /// The conversation already holds untrusted text (from `source`): the turn starts tainted.
    pub(crate) fn carry_taint(&mut self, source: Option<String>) {
        let Some(source) = source else { return };
        self.events.push(Event::TurnTainted {
            source: source.clone(),
        });
        self.turn.tainted = Some(source);
    }

    pub(crate) fn handle(&mut self, input: Input) -> Output {
        let next = self.step(input);
        Output {
            events: std::mem::take(&mut self.events),
            append: std::mem::take(&mut self.append),
            next,
        }
    }

    fn step(&mut self, input: Input) -> Command {
        match (self.phase, input) {
            (Phase::Finished, input) => unexpected(&input, "after the turn ended"),
            (_, Input::Stopped { why, partial }) => self.stopped(why, &partial),
            (Phase::Ready, Input::Start) => self.request(),
            (Phase::Requesting, Input::Replied { text, reply, usage }) => {
                self.replied(text, reply, usage)
            }
            (Phase::Requesting, Input::Failed(err)) => self.failed(&err),
            (Phase::Calling, input) => self.call_step(input),
            (phase, input) => self.abort(&format!("{input:?} in {phase:?}")),
        }
    }

    /// The system prompt of the next request, derived from the current state: the instructions
    /// `base`, then the tools on offer now (by name, and the format's own section when calls are
    /// prompt-based), so a tool switched off or a format switched mid-run is never advertised.
    pub(crate) fn system_prompt(&self, base: &str) -> String {
        // The sentence naming the tools ends the first paragraph (the instructions); what
        // follows it (the last shell command) stays after it.
        let (head, rest) = base.split_at(base.find("\n\n").unwrap_or(base.len()));
        let mut system = head.to_string();
        if self.setup.name_tools && !self.setup.specs.is_empty() {
            if !system.is_empty() {
                system.push(' ');
            }
            system.push_str(&tools_sentence(&self.tool_names()));
        }
        system.push_str(rest);
        let section = self.mode.system_section(&self.setup.specs);
        if !section.is_empty() {
            system.push_str("\n\n");
            system.push_str(&section);
        }
        if let Some(output) = &self.setup.output {
            system.push_str("\n\n");
            system.push_str(&output.instruction());
        }
        system
    }

    /// The schema the final answer must match, if any.
    pub(crate) fn output(&self) -> Option<&OutputSchema> {
        self.setup.output.as_ref()
    }

    /// Whether the request under way asks again for an answer that matches the schema.
    pub(crate) fn retrying(&self) -> bool {
        self.retried
    }

    pub(crate) fn mode(&self) -> &ToolMode {
        self.mode
    }

    pub(crate) fn specs(&self) -> &[ToolSpec] {
        &self.setup.specs
    }

    pub(crate) fn tool_names(&self) -> Vec<&str> {
        self.setup.specs.iter().map(|s| s.name.as_str()).collect()
    }

    /// The number of the request under way (numbers the ids of calls the model left unnamed).
    pub(crate) fn iteration(&self) -> u32 {
        self.turn.iterations
    }

    pub(super) fn request(&mut self) -> Command {
        if let Err(hit) = self.turn.begin_request(self.setup.limits) {
            return self.finish(limit_end(hit));
        }
        self.phase = Phase::Requesting;
        let first = self.turn.iterations == 1;
        // (With one request allowed, it is both first and last: then tools stay callable.)
        let last = !first && self.turn.iterations == self.setup.limits.max_iterations;
        let choice = if first && self.setup.tool_choice != ToolChoice::Auto {
            self.setup.tool_choice.clone()
        } else if last && self.mode.is_constrained() {
            // A constrained model's last allowed request can only answer: what its calls
            // found ends in an answer, not at the limit with none.
            ToolChoice::None
        } else {
            ToolChoice::Auto
        };
        Command::Request { choice }
    }

    fn replied(&mut self, text: String, reply: Reply, usage: Option<Usage>) -> Command {
        Usage::add_to(&mut self.usage, usage);
        let tool_calls = if self.mode.is_native() {
            reply.calls.clone()
        } else {
            Vec::new()
        };
        let answer = (reply.calls.is_empty() && reply.problems.is_empty())
            .then(|| self.setup.output.is_some().then(|| text.clone()));
        self.append.push(Message::Assistant {
            content: text,
            tool_calls,
        });
        match answer {
            Some(Some(text)) => return self.answered(&text),
            Some(None) => {
                let end = self.refused_or_ok();
                return self.finish(end);
            }
            None => {}
        }
        self.phase = Phase::Calling;
        self.batch = Some(Batch {
            reply,
            results: Vec::new(),
            hit: None,
            current: None,
        });
        self.next_call()
    }

    /// A final answer under `--output-schema`: shown as the JSON value when it matches; else the
    /// model is told why and asked once more; a second miss fails the turn naming what failed.
    fn answered(&mut self, text: &str) -> Command {
        let Some(output) = self.setup.output.clone() else {
            return self.abort("an answer to check without a schema");
        };
        if let Some(subject) = self.turn.unapproved.first() {
            let end = denied_end(subject);
            return self.finish(end);
        }
        match output.read(text, self.mode.is_constrained()) {
            Ok(value) => {
                self.events.push(Event::MessageDelta {
                    text: value.to_string(),
                });
                self.finish(TurnEnd::ok())
            }
            Err(errors) if !self.retried => {
                self.retried = true;
                self.events.push(Event::Notice {
                    message: output.retry_notice(&errors),
                });
                self.append.push(Message::User {
                    content: output.retry_message(&errors),
                });
                self.request()
            }
            Err(errors) => self.finish(output.failed_end(&errors)),
        }
    }

    /// A server that rejects native tools gets the rest of the run prompt-based; the refused
    /// request does not count against the limit.
    fn failed(&mut self, err: &ProviderError) -> Command {
        if !self.mode.rejects_native(err, &self.setup.specs) {
            return self.finish(provider_end(err));
        }
        *self.mode = ToolMode::prompt_for(&self.setup.model, &self.setup.specs, false);
        self.events.push(Event::Notice {
            message: format!(
                "the server rejected native tool calls; using the prompt-based `{}` format for the rest of this run",
                self.mode.name()
            ),
        });
        self.turn.iterations -= 1;
        self.request()
    }

    /// Every call of the reply has its result: they go back to the model, unless a limit or a
    /// refusal nobody could answer ends the turn (the model gets no chance to route around it).
    pub(super) fn batch_done(&mut self) -> Command {
        let Some(batch) = self.batch.take() else {
            return self.abort("no calls to finish");
        };
        self.append
            .extend(self.mode.render(&batch.reply, &batch.results));
        if let Some(hit) = batch.hit {
            return self.finish(limit_end(hit));
        }
        if let Some(subject) = self.turn.unapproved.first() {
            let end = denied_end(subject);
            return self.finish(end);
        }
        self.request()
    }

    fn refused_or_ok(&self) -> TurnEnd {
        match self.turn.unapproved.first() {
            Some(subject) => denied_end(subject),
            None => TurnEnd::ok(),
        }
    }

    pub(super) fn finish(&mut self, end: TurnEnd) -> Command {
        self.phase = Phase::Finished;
        self.events.push(Event::TurnCompleted {
            usage: self.usage,
            iterations: self.turn.iterations,
        });
        Command::Finish(end)
    }

    /// A stop keeps the conversation valid for the next turn: the text of a reply cut short is
    /// kept, marked, and every call of the reply under way gets a result; the call in hand is
    /// completed in the event stream, and the turn's usage and requests are still counted.
    fn stopped(&mut self, why: Stop, partial: &str) -> Command {
        if self.phase == Phase::Requesting && !partial.trim().is_empty() {
            self.append.push(Message::Assistant {
                content: format!("{partial} [interrupted]"),
                tool_calls: Vec::new(),
            });
        }
        self.cut_short("interrupted by the user");
        self.finish(stopped_end(why))
    }

    /// The driver fed the core something that does not fit: a bug, reported as an internal error
    /// rather than a panic, with the conversation left valid.
    pub(super) fn abort(&mut self, what: &str) -> Command {
        self.cut_short("not run: internal error in the tool loop");
        self.finish(unexpected_end(what))
    }

    /// Answers the call in hand and every call after it with `why`, and hands the results back.
    fn cut_short(&mut self, why: &str) {
        let Some(mut batch) = self.batch.take() else {
            return;
        };
        if let Some(current) = batch.current.take() {
            self.events.push(Event::ToolCallCompleted {
                record: current.cut_short(why),
            });
        }
        while batch.results.len() < batch.reply.calls.len() {
            batch
                .results
                .push(ToolResult::fail(ToolErrorType::UserError, why));
        }
        self.append
            .extend(self.mode.render(&batch.reply, &batch.results));
    }
}

/// An input after the turn ended: a bug in the driver, reported, never a panic.
fn unexpected(input: &Input, when: &str) -> Command {
    Command::Finish(unexpected_end(&format!("{input:?} {when}")))
}
