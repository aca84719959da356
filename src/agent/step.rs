//! The rules of one tool call, as the core's states: a call is judged, maybe asked about, run
//! (allowed commands in the sandbox, approved ones outside it: approval is the escalation), maybe
//! offered a rerun outside the sandbox, and finished: taint noted, its result remembered for
//! duplicates, its record emitted.

use super::approval::{DecidedBy, GateAnswer};
use super::core::Core;
use super::current::{Current, Stage};
use super::machine::{Command, Containment, Input, Judgement};
use super::outcome::{
    blocked, denied, duplicate, not_run_after_refusal, not_run_past_limit, subject_of, verdict_word,
};
use super::turn::Effect;
use crate::policy::{Approver, Assessment, Verdict};
use crate::protocol::{
    Action, ApprovalRequest, CallError, CallErrorCode, Decision, Event, ToolCallRecord,
};
use crate::tool::ToolOutcome;

impl Core<'_> {
    /// Starts the next call of the reply, or hands the results back when all are answered.
    /// Calls past a limit, or after a refusal nobody could answer, are answered as not run, so
    /// the conversation stays valid for a later turn.
    pub(super) fn next_call(&mut self) -> Command {
        loop {
            let limits = self.setup.limits;
            let Some(batch) = self.batch.as_mut() else {
                return self.abort("a call outside a reply");
            };
            let Some(call) = batch.reply.calls.get(batch.results.len()).cloned() else {
                return self.batch_done();
            };
            if !self.turn.unapproved.is_empty() {
                batch.results.push(not_run_after_refusal());
                continue;
            }
            if let Some(hit) = batch.hit.or_else(|| self.turn.begin_call(limits).err()) {
                batch.hit = Some(hit);
                batch.results.push(not_run_past_limit(hit));
                continue;
            }
            self.events.push(Event::ToolCallStarted {
                id: call.id.clone(),
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            });
            if let Some(earlier) = self.turn.earlier(&call) {
                let outcome = duplicate(earlier.clone());
                self.complete(Current::new(call), Decision::Duplicate, outcome);
                continue;
            }
            batch.current = Some(Current::new(call.clone()));
            return Command::Judge(call);
        }
    }

    pub(super) fn call_step(&mut self, input: Input) -> Command {
        // The stage is taken out while its input is handled; each handler sets the next one.
        let stage = self
            .current()
            .map(|c| std::mem::replace(&mut c.stage, Stage::Judging));
        match (stage, input) {
            (Some(Stage::Judging), Input::Judged(judgement)) => self.judged(judgement),
            (Some(Stage::Asking { asked }), Input::Decided(answer)) => {
                self.decided(answer, asked, None)
            }
            (Some(Stage::AskingRerun { asked, blocked }), Input::Decided(answer)) => {
                self.decided(answer, asked, Some(blocked))
            }
            (Some(Stage::Rejudging { edit }), Input::Rejudged(recheck)) => {
                self.rejudged(edit, recheck)
            }
            (
                Some(Stage::Running {
                    contained,
                    approved,
                }),
                Input::Ran(outcome),
            ) => self.ran(outcome, contained, approved),
            (stage, input) => self.abort(&format!("{input:?} at call stage {stage:?}")),
        }
    }

    fn current(&mut self) -> Option<&mut Current> {
        self.batch.as_mut().and_then(|b| b.current.as_mut())
    }

    fn judged(&mut self, judgement: Judgement) -> Command {
        let (action, assessment, containment) = match judgement {
            Judgement::Invalid(outcome) => return self.finish_call(Decision::Invalid, outcome),
            Judgement::Judged {
                action,
                assessment,
                containment,
            } => (action, assessment, containment),
        };
        let mut effective = assessment.clone();
        let mut contain_approved = false;
        if let (Some(source), Action::Exec { .. }, Verdict::Allow) =
            (&self.turn.tainted, &action, assessment.verdict)
        {
            // Every command of the line asks (rules match each one), and an approval keeps the
            // sandbox: taint adds a question, it never removes containment.
            effective = assessment.escalated(format!(
                "the model has read untrusted content from {source}"
            ));
            contain_approved = true;
        }
        let is_command = matches!(action, Action::Exec { .. });
        let Some(current) = self.current() else {
            return self.abort("a judgement without a call");
        };
        current.judged = Some((action, assessment));
        current.containment = containment.clone();
        current.contain_approved = contain_approved;
        match (effective.verdict, is_command, containment) {
            (Verdict::Deny, _, _) => self.finish_call(Decision::Blocked, blocked(&effective)),
            (Verdict::Ask, _, _) => self.ask(effective, None),
            // In the sandbox the environment is an allowlist; outside it, it holds the tokens.
            (Verdict::Allow, true, Containment::Off) if effective.prints_environment => self.ask(
                effective.escalated(
                    "it prints the environment, tokens and keys included, and with the \
                         sandbox off nothing filters it"
                        .into(),
                ),
                None,
            ),
            (Verdict::Allow, false, _) | (Verdict::Allow, true, Containment::Off) => {
                self.run(false, false)
            }
            (Verdict::Allow, true, Containment::Ready) => self.run(true, false),
            (
                Verdict::Allow,
                true,
                Containment::Unavailable(reason) | Containment::Partial(reason),
            ) => self.ask(effective.escalated(reason), None),
        }
    }

    /// Puts the question; `blocked` is the sandbox's refusal when it asks to run the command
    /// outside it.
    fn ask(&mut self, assessment: Assessment, blocked: Option<ToolOutcome>) -> Command {
        let cwd = self.setup.cwd.clone();
        let Some(current) = self.current() else {
            return self.abort("a question without a call");
        };
        let subject = current
            .judged
            .as_ref()
            .map_or_else(|| current.call.name.clone(), |(a, _)| subject_of(a));
        let command = matches!(current.judged, Some((Action::Exec { .. }, _)));
        let uncontainable = matches!(current.containment, Containment::Unavailable(_));
        let mut reasons = assessment.reasons.clone();
        if command && uncontainable && blocked.is_none() {
            reasons.push(
                "nothing can contain it here, so only a person can approve it (flags and rules \
                 approve running inside the sandbox only)"
                    .into(),
            );
        }
        let request = ApprovalRequest {
            tool: current.call.name.clone(),
            subject,
            commands: assessment.to_approve(),
            reasons,
            cwd,
            unconfined: command && !current.contain_approved,
            person_only: blocked.is_some()
                || (command && uncontainable)
                || assessment.approver() == Approver::Person,
            by_rule: assessment.approver() == Approver::Anyone,
        };
        let asked = request.clone();
        current.stage = match blocked {
            Some(blocked) => Stage::AskingRerun { asked, blocked },
            None => Stage::Asking { asked },
        };
        let id = current.call.id.clone();
        self.events.push(Event::ApprovalRequested {
            id,
            reason: assessment.reasons.join("; "),
        });
        Command::Ask(request)
    }

    /// The answer to `asked` (a rerun question when `blocked` holds the sandbox's refusal).
    fn decided(
        &mut self,
        answer: GateAnswer,
        asked: ApprovalRequest,
        blocked: Option<ToolOutcome>,
    ) -> Command {
        let (decision, by) = match &answer {
            GateAnswer::Approved { by, .. } => (Decision::Approved, *by),
            GateAnswer::Denied { by } => (Decision::Denied, *by),
        };
        let unapproved = self.turn.unapproved.len();
        let Some(current) = self.current() else {
            return self.abort("an answer without a call");
        };
        let id = current.call.id.clone();
        let rerun = blocked.is_some();
        // Only a person's own answer leaves the sandbox: flags, rules and "always" approve
        // running inside it, and approval because of taint keeps whatever it can confine.
        let contained = !rerun
            && (current.contain_approved || by != DecidedBy::User)
            && matches!(
                current.containment,
                Containment::Ready | Containment::Partial(_)
            );
        // The person reading the error learns why it asked, not only what.
        let refused = (by == DecidedBy::NoTerminal)
            .then(|| format!("{} ({})", asked.subject, asked.reasons.join("; ")));
        self.events.push(Event::ApprovalDecided {
            id,
            decision,
            by: by.name().to_string(),
        });
        match answer {
            GateAnswer::Denied { by } => {
                if let Some(subject) = refused {
                    self.turn.unapproved.push(subject);
                }
                if let Some(blocked) = blocked {
                    return self.rerun_refused(blocked, unapproved);
                }
                self.finish_call(Decision::Denied, denied(by))
            }
            GateAnswer::Approved { edited: None, .. } => self.run(contained, true),
            GateAnswer::Approved {
                edited: Some(command),
                ..
            } => {
                if let Some(current) = self.current() {
                    current.stage = Stage::Rejudging {
                        edit: command.clone(),
                    };
                }
                Command::Rejudge(command)
            }
        }
    }

    /// The edited command is judged again: a person can approve, never unblock.
    fn rejudged(&mut self, command: String, recheck: Assessment) -> Command {
        self.events.push(Event::Notice {
            message: format!(
                "edited command, {}: {command}",
                verdict_word(recheck.verdict)
            ),
        });
        if recheck.verdict == Verdict::Deny {
            return self.finish_call(Decision::Blocked, blocked(&recheck));
        }
        if let Some(current) = self.current() {
            current.edited = Some((command, recheck));
        }
        // A person's edit leaves the sandbox, unless the question was asked only because of
        // taint: then, like the command it replaces, it stays in what the sandbox can confine.
        let contained = self.current().is_some_and(|c| {
            c.contain_approved
                && matches!(c.containment, Containment::Ready | Containment::Partial(_))
        });
        self.run(contained, true)
    }

    /// Runs the current call: `contained` in the sandbox; `approved` by a person or a rule.
    fn run(&mut self, contained: bool, approved: bool) -> Command {
        let Some(current) = self.current() else {
            return self.abort("a run without a call");
        };
        current.stage = Stage::Running {
            contained,
            approved,
        };
        let mut call = current.call.clone();
        call.arguments = current.ran_with();
        Command::Run { call, contained }
    }

    fn ran(&mut self, outcome: ToolOutcome, contained: bool, approved: bool) -> Command {
        let Some(current) = self.current() else {
            return self.abort("a result without a call");
        };
        current.ran = true;
        // Kept while the result is recorded: a stop now still knows how the call ran.
        current.stage = Stage::Running {
            contained,
            approved,
        };
        if contained
            && !current.contain_approved
            && outcome.error_code == Some(CallErrorCode::Blocked)
        {
            // The sandbox refused something the policy let run (unasked, or approved by a flag
            // or rule, which approve only inside): a person may approve running the same
            // command outside it. A command approved only on condition that it stays contained
            // (taint) stays blocked.
            // One line, at most a few words' worth: its layout cannot pass for ai's own text.
            let error = outcome.result.error.as_deref().unwrap_or_default();
            // Characters that render blank without being spaces count as spaces here.
            let blank = |c: char| c.is_whitespace() || matches!(c, '\u{2800}' | '\u{3164}');
            let what: String = error
                .split(blank)
                .filter(|word| !word.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
                .chars()
                .take(200)
                .collect();
            let Some(assessment) = current.judged.as_ref().map(|(_, a)| {
                // The words are the command's own: code in the sandbox can print anything,
                // so they are shown as its output, never as ai's diagnosis.
                a.escalated(format!(
                    "it failed with what looks like a sandbox refusal (its own output, which \
                         it may have made up: {what}); run it again outside the sandbox?"
                ))
            }) else {
                return self.abort("a sandboxed run that was never judged");
            };
            return self.ask(assessment, Some(outcome));
        }
        let mut outcome = outcome;
        if let Some((command, recheck)) = current.edited.clone() {
            outcome.result.note = Some(format!(
                "the user edited the command before it ran; it ran as: {command}"
            ));
            // What the edited command took in is what taints the turn.
            let name = current.call.name.clone();
            self.taint(&Action::Exec { command }, &recheck, &name);
        }
        let decision = if approved {
            Decision::Approved
        } else {
            Decision::Allow
        };
        self.finish_call(decision, outcome)
    }

    /// Nobody approved running it outside the sandbox: it stays blocked, and without a terminal
    /// the run ends saying that only a person (or `--sandbox off`) can lift it. `before` is how
    /// many refusals nobody could answer there were before this one.
    fn rerun_refused(&mut self, mut outcome: ToolOutcome, before: usize) -> Command {
        let unapproved = self.turn.unapproved.len();
        let Some(current) = self.current() else {
            return self.abort("a refusal without a call");
        };
        let what = outcome.result.error.clone().unwrap_or_default();
        let command = current
            .judged
            .as_ref()
            .map_or_else(String::new, |(a, _)| subject_of(a));
        if unapproved > before {
            self.turn.unapproved.truncate(before);
            self.turn.unapproved.push(format!(
                "{command} ({what}; only a person at the terminal, or --sandbox off, can run it \
                 outside the sandbox)"
            ));
        }
        outcome.result.suggestion = Some(
            "the user, at the terminal, can approve running it outside the sandbox; otherwise \
             find another way or explain what is blocked"
                .into(),
        );
        self.finish_call(Decision::Blocked, outcome)
    }

    fn finish_call(&mut self, decision: Decision, outcome: ToolOutcome) -> Command {
        let Some(current) = self.batch.as_mut().and_then(|b| b.current.take()) else {
            return self.abort("no call to finish");
        };
        self.complete(current, decision, outcome);
        self.next_call()
    }

    /// Ends a call: taint noted, the result remembered for duplicates, the record emitted.
    fn complete(&mut self, current: Current, decision: Decision, outcome: ToolOutcome) {
        let mut effect = Effect::Nothing;
        if let Some((action, assessment)) = &current.judged {
            // Whatever ran took its input in, even a command the sandbox stopped half way and
            // nobody let run again: its output goes back to the model.
            if current.ran {
                self.taint(action, assessment, &current.call.name);
            }
            effect = effect_of(action, decision);
        }
        self.turn.remember(&current.call, &outcome, effect);
        let record = ToolCallRecord {
            id: current.call.id.clone(),
            name: current.call.name.clone(),
            arguments: current.ran_with(),
            decision,
            ok: outcome.result.success,
            exit_code: outcome.exit_code,
            // The driver stamps the time: the core has no clock.
            duration_ms: 0,
            output_truncated: outcome.output_truncated,
            error: outcome.error_code.map(|code| CallError {
                code,
                message: outcome.result.error.clone().unwrap_or_default(),
            }),
        };
        self.events.push(Event::ToolCallCompleted { record });
        if let Some(batch) = self.batch.as_mut() {
            batch.results.push(outcome.result);
        }
    }

    /// After a call has run: if it took in untrusted content, every later command of the turn
    /// asks.
    fn taint(&mut self, action: &Action, assessment: &Assessment, tool: &str) {
        if self.turn.tainted.is_some() {
            return;
        }
        let source = match action {
            Action::Network { .. } => Some(format!("the results of `{tool}`")),
            Action::External { server, .. } => Some(format!("the MCP server {server}")),
            Action::Read { .. } | Action::Exec { .. } => assessment.untrusted.clone(),
        };
        if let Some(source) = source {
            self.events.push(Event::TurnTainted {
                source: source.clone(),
            });
            self.turn.tainted = Some(source);
        }
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
