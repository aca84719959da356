//! The thin async half of the loop: carries out what the core asks (a request to the model, a
//! call judged by the policy, a question to the gate, a tool run) and feeds back what happened.
//! A stop (Ctrl-C, a closed stdout) is raced against every wait, so the core always hears of it
//! and leaves the conversation valid.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::time::Instant;

use serde_json::Value;

use super::answer::schema_plan;
use super::approval::Gate;
use super::core::Core;
use super::judge::strictest;
use super::machine::{Command, Containment, Input, Judgement, Output, Setup};
use super::outcome::{unknown_tool, withheld};
use super::sandbox::{AfterCall, Sandbox};
use super::{Agent, Stop, TurnEnd, millis};
use crate::policy::{Assessment, Policy, Verdict};
use crate::protocol::{
    Action, CallErrorCode, Event, Message, ToolCall, ToolChoice, ToolErrorType, ToolResult,
    ToolSpec, Untrusted, fingerprint, untrusted_in,
};
use crate::provider::{ChatRequest, Provider, ProviderEvent};
use crate::sandbox::Launch;
use crate::tool::{Confined, Registry, RunOptions, ToolContext, ToolOutcome, invalid_arguments};

/// What stops a turn early; it resolves with why.
pub(crate) type StopSignal<'s> = Pin<&'s mut (dyn Future<Output = Stop> + 's)>;

/// Emits events on the way out: stamps each call's duration (the core has no clock) and keeps
/// the text shown of the reply under way (kept if the reply is cut short).
struct Emitter<'e> {
    emit: &'e mut dyn FnMut(&Event),
    started: HashMap<String, Instant>,
    partial: String,
}

impl Emitter<'_> {
    fn send(&mut self, event: &Event) {
        match event {
            Event::MessageDelta { text } => self.partial.push_str(text),
            Event::ToolCallStarted { id, .. } => {
                self.started.insert(id.clone(), Instant::now());
            }
            _ => {}
        }
        (self.emit)(event);
    }

    fn send_owned(&mut self, mut event: Event) {
        if let Event::ToolCallCompleted { record } = &mut event {
            record.duration_ms = self.started.remove(&record.id).map_or(0, millis);
        }
        self.send(&event);
    }
}

impl Agent<'_> {
    /// Runs one turn on `messages` (which must end with the user's message), appending the
    /// model's messages and the tool results to it as they come. `stop` ends it early; the
    /// conversation stays valid for the next turn either way.
    pub(crate) async fn run_turn(
        &mut self,
        messages: &mut Vec<Message>,
        emit: &mut dyn FnMut(&Event),
        mut stop: StopSignal<'_>,
    ) -> TurnEnd {
        self.registry.begin_turn();
        let setup = Setup {
            specs: self.registry.specs(),
            model: self.provider.model().to_string(),
            cwd: self.ctx.cwd.clone(),
            limits: self.limits,
            tool_choice: self.tool_choice.clone(),
            name_tools: self.name_tools,
            output: self.output.clone(),
        };
        let driver = Driver {
            provider: self.provider,
            registry: self.registry,
            ctx: self.ctx,
            policy: self.policy,
            gate: &mut self.gate,
            sandbox: &self.sandbox,
            stream: self.stream,
        };
        let mut core = Core::new(&mut self.mode, setup);
        // Untrusted text from an earlier turn still in the context taints this one from the start.
        core.carry_taint(untrusted_in(messages, &self.untrusted));
        let mut emitter = Emitter {
            emit,
            started: HashMap::new(),
            partial: String::new(),
        };
        // The prefix that contains the call being judged, kept until it runs.
        let mut prefix: Option<Launch> = None;
        let mut input = Input::Start;
        loop {
            let Output {
                events,
                append,
                next,
            } = core.handle(input);
            for event in events {
                emitter.send_owned(event);
            }
            mark_untrusted(&mut self.untrusted, core.turn.tainted.as_ref(), &append);
            messages.extend(append);
            input = match next {
                Command::Finish(end) => return end,
                Command::Request { choice } => {
                    let asked = Asked {
                        core: &core,
                        messages,
                        choice: &choice,
                    };
                    driver.request(asked, &mut emitter, &mut stop).await
                }
                Command::Judge(call) => {
                    let (judgement, contained_by) = driver.judge(&call, &mut emitter);
                    prefix = contained_by;
                    Input::Judged(judgement)
                }
                Command::Ask(request) => Input::Decided(driver.gate.decide(&request)),
                Command::Rejudge(command) => {
                    let (recheck, contained_by) = driver.rejudge(command, &mut emitter);
                    prefix = contained_by;
                    Input::Rejudged(recheck)
                }
                Command::Run { call, contained } => {
                    let prefix = if contained { prefix.take() } else { None };
                    let running = Running {
                        call: &call,
                        contained,
                        launch: prefix.as_ref(),
                    };
                    driver.run(running, &mut emitter, &mut stop).await
                }
            };
        }
    }
}

/// What the loop's commands are carried out with.
struct Driver<'d> {
    provider: &'d dyn Provider,
    registry: &'d Registry,
    ctx: &'d ToolContext,
    policy: &'d Policy,
    gate: &'d mut Gate,
    sandbox: &'d Sandbox,
    stream: bool,
}

impl Driver<'_> {
    async fn request(
        &self,
        asked: Asked<'_, '_>,
        emitter: &mut Emitter<'_>,
        stop: &mut StopSignal<'_>,
    ) -> Input {
        let core = asked.core;
        let sent = with_system(asked.messages, |base| core.system_prompt(base));
        let mode = core.mode();
        let answer = core.output().map(|o| o.schema.as_value());
        let plan = schema_plan(
            mode.is_native(),
            mode.is_constrained(),
            self.provider.schema_beside_tools(),
            !core.specs().is_empty(),
            core.retrying(),
        );
        let specs: &[ToolSpec] = if answer.is_some() && !plan.tools {
            &[]
        } else {
            core.specs()
        };
        let shaped = mode.response_format(specs, asked.choice, answer);
        let request = ChatRequest {
            messages: &sent,
            tools: if mode.is_native() { specs } else { &[] },
            tool_choice: asked.choice,
            stream: self.stream,
            response_format: shaped.as_ref(),
            output_schema: answer.filter(|_| plan.carry),
        };
        let mut reading = mode.reader(shaped.is_some());
        emitter.partial.clear();
        // Under a schema only the checked answer is shown, once the core has it.
        let quiet = answer.is_some();
        let mut show = |e: &Event| {
            if !(quiet && matches!(e, Event::MessageDelta { .. })) {
                emitter.send(e);
            }
        };
        let result = {
            let mut forward = |event: ProviderEvent<'_>| match event {
                ProviderEvent::Text(text) => reading.text(text, &mut show),
                ProviderEvent::Retrying {
                    attempt,
                    delay,
                    reason,
                } => show(&Event::Notice {
                    message: format!(
                        "{reason}; retrying in {:.1} s (attempt {attempt})",
                        delay.as_secs_f64()
                    ),
                }),
            };
            until(stop, self.provider.complete(request, &mut forward)).await
        };
        match result {
            Err(why) => Input::Stopped {
                why,
                partial: std::mem::take(&mut emitter.partial),
            },
            Ok(Err(err)) => Input::Failed(err),
            Ok(Ok(completion)) => {
                let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
                let reply = reading.finish(&completion, mode, core.iteration(), &names, &mut show);
                Input::Replied {
                    text: completion.text,
                    reply,
                    usage: completion.usage,
                }
            }
        }
    }

    /// The policy's verdict on a command a person edited, and the sandbox made for the edit
    /// (should it run contained).
    fn rejudge(&self, command: String, emitter: &mut Emitter<'_>) -> (Assessment, Option<Launch>) {
        let recheck = self.policy.decide(&Action::Exec { command });
        let launch = self
            .sandbox
            .containment(&recheck.fetch, &mut |e| emitter.send(e))
            .1;
        (recheck, launch)
    }

    /// Finds the tool, checks the arguments and asks the policy; for a command it allows, also
    /// whether the sandbox can contain it (and the prefix that does).
    fn judge(&self, call: &ToolCall, emitter: &mut Emitter<'_>) -> (Judgement, Option<Launch>) {
        let invalid = |outcome| (Judgement::Invalid(outcome), None);
        let Some(tool) = self.registry.get(&call.name) else {
            return invalid(unknown_tool(&call.name, &self.registry.names()));
        };
        if let Value::String(raw) = &call.arguments {
            let result = invalid_arguments(
                tool.name(),
                &format!("the arguments are not valid JSON: {raw}"),
            );
            return invalid(ToolOutcome::failed(CallErrorCode::ParseError, result));
        }
        if let Err(message) = tool.validate(&call.arguments) {
            let result = invalid_arguments(tool.name(), &message);
            return invalid(ToolOutcome::failed(CallErrorCode::InvalidArguments, result));
        }
        let (action, assessment) = strictest(tool, &call.arguments, self.ctx, self.policy);
        let (containment, prefix) = match (&action, assessment.verdict) {
            (Action::Exec { .. }, Verdict::Allow | Verdict::Ask) => self
                .sandbox
                .containment(&assessment.fetch, &mut |e| emitter.send(e)),
            _ => (Containment::Off, None),
        };
        let judgement = Judgement::Judged {
            action,
            assessment,
            containment,
        };
        (judgement, prefix)
    }

    async fn run(
        &self,
        running: Running<'_>,
        emitter: &mut Emitter<'_>,
        stop: &mut StopSignal<'_>,
    ) -> Input {
        let call = running.call;
        let Some(tool) = self.registry.get(&call.name) else {
            return Input::Ran(unknown_tool(&call.name, &self.registry.names()));
        };
        if running.contained && running.launch.is_none() {
            // Fail closed: a call meant for the sandbox never runs outside it by accident.
            return Input::Ran(ToolOutcome::failed(
                CallErrorCode::Blocked,
                ToolResult::fail(
                    ToolErrorType::SecurityError,
                    "not run: the sandbox was not ready for it",
                ),
            ));
        }
        let id = call.id.clone();
        let mut output = |stream, chunk: &str| {
            emitter.send(&Event::ToolCallOutput {
                id: id.clone(),
                stream,
                chunk: chunk.to_string(),
            });
        };
        let options = RunOptions {
            sandbox: running.launch.map(|launch| Confined {
                argv: &launch.argv,
                network: launch.network,
            }),
            output: &mut output,
        };
        let ran = until(stop, tool.run(&call.arguments, self.ctx, options)).await;
        let after = if running.contained {
            self.sandbox.after_call()
        } else {
            if call.name == "execute_command" {
                self.sandbox.after_unconfined();
            }
            AfterCall {
                withheld: None,
                note: None,
            }
        };
        // The user hears of it however the call ended (the model, only that it happened).
        if let Some(why) = &after.withheld {
            emitter.send(&Event::Notice {
                message: format!("sandbox: {why}"),
            });
        }
        let moved = after.note;
        match (ran, after.withheld) {
            (Ok(_), Some(_)) => Input::Ran(withheld()),
            (Ok(mut outcome), None) => {
                if let Some(moved) = moved {
                    emitter.send(&Event::Notice {
                        message: format!("sandbox: {moved}"),
                    });
                    let note = outcome.result.note.take();
                    outcome.result.note =
                        Some(note.map_or(moved.clone(), |note| format!("{note}; {moved}")));
                }
                Input::Ran(outcome)
            }
            (Err(why), _) => Input::Stopped {
                why,
                partial: String::new(),
            },
        }
    }
}

/// What a request is made of.
struct Asked<'c, 'm> {
    core: &'c Core<'m>,
    messages: &'c [Message],
    choice: &'c ToolChoice,
}

/// A call about to run.
struct Running<'r> {
    call: &'r ToolCall,
    contained: bool,
    launch: Option<&'r Launch>,
}

/// The conversation as sent: its first message, the instructions, becomes the system prompt
/// derived from the current state.
/// What comes back after untrusted text came in (results, the model's replies) carries it.
fn mark_untrusted(untrusted: &mut Vec<Untrusted>, tainted: Option<&String>, append: &[Message]) {
    if let Some(source) = tainted {
        untrusted.extend(append.iter().map(|m| Untrusted {
            fingerprint: fingerprint(m),
            source: source.clone(),
        }));
    }
}

fn with_system(messages: &[Message], system: impl Fn(&str) -> String) -> Vec<Message> {
    let mut sent = Vec::with_capacity(messages.len() + 1);
    match messages.split_first() {
        Some((Message::System { content }, rest)) => {
            sent.push(Message::System {
                content: system(content),
            });
            sent.extend_from_slice(rest);
        }
        _ => {
            let derived = system("");
            if !derived.is_empty() {
                sent.push(Message::System { content: derived });
            }
            sent.extend_from_slice(messages);
        }
    }
    sent
}

/// Waits for `work` unless the stop comes first.
async fn until<T>(stop: &mut StopSignal<'_>, work: impl Future<Output = T>) -> Result<T, Stop> {
    tokio::select! {
        biased;
        why = stop.as_mut() => Err(why),
        value = work => Ok(value),
    }
}
