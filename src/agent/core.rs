//! The loop's rules as a pure state machine: it takes what happened (a reply, a failed request, a
//! judged call, a person's answer, a finished tool, a stop) and says what to do next (send a
//! request, judge a call, ask a person, run a tool, finish), with the events to emit and the
//! messages to append on the way. No async and no I/O, so every rule of the loop (limits,
//! duplicates, invalid calls, fallback to prompt-based calling, refusals, taint, reruns outside
//! the sandbox, stops) is a table test; `driver` carries the commands out.

use super::answer::OutputSchema;
use super::current::Call;
use super::end::{denied_end, limit_end, provider_end, stopped_end, unexpected_end};
use super::machine::{Command, Input, Output, Setup};
use super::mode::{Reply, ToolMode};
use super::outcome::{not_run_after_refusal, not_run_past_limit};
use super::prompt::tools_sentence;
use super::step::{Desk, Next};
use super::turn::{LimitHit, TurnState};
use super::{Stop, TurnEnd};
use crate::protocol::{Event, Message, ToolChoice, ToolErrorType, ToolResult, ToolSpec, Usage};
use crate::provider::ProviderError;

/// Where the turn is, with what only that phase needs.
enum Phase {
    Ready,
    Requesting,
    /// Answering the calls of a reply in order: `call` is the one in hand.
    Calling {
        batch: Batch,
        call: Box<Call>,
    },
    Finished,
}

impl Phase {
    fn name(&self) -> &'static str {
        match self {
            Phase::Ready => "Ready",
            Phase::Requesting => "Requesting",
            Phase::Calling { .. } => "Calling",
            Phase::Finished => "Finished",
        }
    }
}

/// The calls of one reply and the results of those answered so far.
struct Batch {
    reply: Reply,
    results: Vec<ToolResult>,
    hit: Option<LimitHit>,
}

pub(crate) struct Core<'m> {
    pub(super) mode: &'m mut ToolMode,
    pub(super) setup: Setup,
    pub(super) turn: TurnState,
    usage: Option<Usage>,
    phase: Phase,
    events: Vec<Event>,
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

    /// The phase is taken out while its input is handled; each handler sets the next one.
    fn step(&mut self, input: Input) -> Command {
        match (std::mem::replace(&mut self.phase, Phase::Finished), input) {
            (Phase::Finished, input) => unexpected(&input, "after the turn ended"),
            (phase, Input::Stopped { why, partial }) => self.stopped(phase, why, &partial),
            (Phase::Ready, Input::Start) => self.request(),
            (Phase::Requesting, Input::Replied { text, reply, usage }) => {
                self.replied(text, reply, usage)
            }
            (Phase::Requesting, Input::Failed(err)) => self.failed(&err),
            (Phase::Calling { batch, call }, input) => {
                let next = self.desk().step(*call, input);
                self.went(batch, next)
            }
            (phase, input) => self.abort(None, &format!("{input:?} in {}", phase.name())),
        }
    }

    /// What a call works with.
    fn desk(&mut self) -> Desk<'_> {
        Desk {
            turn: &mut self.turn,
            events: &mut self.events,
            cwd: &self.setup.cwd,
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

    fn request(&mut self) -> Command {
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
        let answer = (reply.calls.is_empty() && reply.problems.is_empty()).then(|| {
            self.setup
                .output
                .clone()
                .map(|output| (output, text.clone()))
        });
        self.append.push(Message::Assistant {
            content: text,
            tool_calls,
        });
        match answer {
            Some(Some((output, text))) => return self.answered(&output, &text),
            Some(None) => {
                let end = self.refused_or_ok();
                return self.finish(end);
            }
            None => {}
        }
        self.next_call(Batch {
            reply,
            results: Vec::new(),
            hit: None,
        })
    }

    /// Starts the next call of the reply, or hands the results back when all are answered.
    /// Calls past a limit, or after a refusal nobody could answer, are answered as not run, so
    /// the conversation stays valid for a later turn.
    fn next_call(&mut self, mut batch: Batch) -> Command {
        let limits = self.setup.limits;
        while let Some(call) = batch.reply.calls.get(batch.results.len()).cloned() {
            if !self.turn.unapproved.is_empty() {
                batch.results.push(not_run_after_refusal());
                continue;
            }
            if let Some(hit) = batch.hit.or_else(|| self.turn.begin_call(limits).err()) {
                batch.hit = Some(hit);
                batch.results.push(not_run_past_limit(hit));
                continue;
            }
            match self.desk().start(call) {
                Next::Done(result) => batch.results.push(result),
                next => return self.went(batch, next),
            }
        }
        self.batch_done(batch)
    }

    /// Where the call in hand went: it waits on the driver, or it is answered and the next one
    /// starts.
    fn went(&mut self, mut batch: Batch, next: Next) -> Command {
        match next {
            Next::Wait(call, command) => {
                self.phase = Phase::Calling {
                    batch,
                    call: Box::new(call),
                };
                command
            }
            Next::Done(result) => {
                batch.results.push(result);
                self.next_call(batch)
            }
            Next::Unfit(call, what) => self.abort(Some((batch, call)), &what),
        }
    }

    /// A final answer under `--output-schema`: shown as the JSON value when it matches; else the
    /// model is told why and asked once more; a second miss fails the turn naming what failed.
    fn answered(&mut self, output: &OutputSchema, text: &str) -> Command {
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
    fn batch_done(&mut self, batch: Batch) -> Command {
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

    fn finish(&mut self, end: TurnEnd) -> Command {
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
    fn stopped(&mut self, phase: Phase, why: Stop, partial: &str) -> Command {
        match phase {
            Phase::Requesting if !partial.trim().is_empty() => {
                self.append.push(Message::Assistant {
                    content: format!("{partial} [interrupted]"),
                    tool_calls: Vec::new(),
                });
            }
            Phase::Calling { batch, call } => {
                self.cut_short(batch, &call, "interrupted by the user")
            }
            _ => {}
        }
        self.finish(stopped_end(why))
    }

    /// The driver fed the core something that does not fit: a bug, reported as an internal error
    /// rather than a panic, with the conversation left valid.
    /// `calling` is the reply under way and the call in hand, if any.
    fn abort(&mut self, calling: Option<(Batch, Call)>, what: &str) -> Command {
        if let Some((batch, call)) = calling {
            self.cut_short(batch, &call, "not run: internal error in the tool loop");
        }
        self.finish(unexpected_end(what))
    }

    /// Answers the call in hand and every call after it with `why`, and hands the results back.
    fn cut_short(&mut self, mut batch: Batch, call: &Call, why: &str) {
        self.events.push(Event::ToolCallCompleted {
            record: call.cut_short(why),
        });
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
