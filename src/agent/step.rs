//! The rules of one tool call, as the states of a call: it is judged, maybe asked about, run
//! (allowed commands in the sandbox, approved ones outside it: approval is the escalation), maybe
//! offered a rerun outside the sandbox, and finished: taint noted, its result remembered for
//! duplicates, its record emitted. The core hands a call and an input in and gets back the call's
//! next stage or its result; this half never calls back into the core.

use std::path::Path;

use super::approval::{DecidedBy, GateAnswer};
use super::current::{Call, Edit, Judged, Stage, ran_with};
use super::machine::{Command, Containment, Input, Judgement};
use super::outcome::{blocked, denied, duplicate, subject_of, verdict_word};
use super::turn::{Effect, TurnState};
use crate::policy::{Approver, Assessment, Verdict};
use crate::protocol::{
    Action, ApprovalRequest, CallError, CallErrorCode, Decision, Event, ToolCall, ToolCallRecord,
    ToolResult,
};
use crate::tool::ToolOutcome;

/// Where a call stands after an input.
pub(super) enum Next {
    /// It waits on the driver: the call in its new stage, and what the driver must do.
    Wait(Call, Command),
    /// It is answered: the result goes back to the model.
    Done(ToolResult),
    /// The input does not fit the call's stage (a bug in the driver), and what did not fit.
    Unfit(Call, String),
}

/// What a call works with: the turn's bookkeeping, the events on their way out, the directory.
pub(super) struct Desk<'a> {
    pub(super) turn: &'a mut TurnState,
    pub(super) events: &'a mut Vec<Event>,
    pub(super) cwd: &'a Path,
}

impl Desk<'_> {
    /// Starts a call: a duplicate of an earlier read is answered at once, anything else judged.
    pub(super) fn start(&mut self, call: ToolCall) -> Next {
        self.events.push(Event::ToolCallStarted {
            id: call.id.clone(),
            name: call.name.clone(),
            arguments: call.arguments.clone(),
        });
        if let Some(earlier) = self.turn.earlier(&call) {
            let outcome = duplicate(earlier.clone());
            let arguments = call.arguments.clone();
            return self.complete(&call, arguments, None, Decision::Duplicate, outcome);
        }
        let judging = Call {
            call: call.clone(),
            stage: Stage::Judging,
        };
        Next::Wait(judging, Command::Judge(call))
    }

    /// What the driver found out moves the call on.
    pub(super) fn step(&mut self, call: Call, input: Input) -> Next {
        let Call { call, stage } = call;
        match (stage, input) {
            (Stage::Judging, Input::Judged(judgement)) => self.judged(call, judgement),
            (Stage::Asking { judged, asked }, Input::Decided(answer)) => {
                self.decided(call, judged, answer, asked, None)
            }
            (
                Stage::AskingRerun {
                    judged,
                    asked,
                    blocked,
                },
                Input::Decided(answer),
            ) => self.decided(call, judged, answer, asked, Some(blocked)),
            (Stage::Rejudging { judged, edit, ran }, Input::Rejudged(recheck)) => {
                self.rejudged(call, judged, (edit, recheck), ran)
            }
            (
                Stage::Running {
                    judged,
                    contained,
                    approved,
                    edit,
                },
                Input::Ran(outcome),
            ) => self.ran(call, judged, (contained, approved), edit, outcome),
            (stage, input) => {
                let what = format!("{input:?} at call stage {stage:?}");
                // Cut short as a call never run, whatever stage it was at.
                let stage = Stage::Judging;
                Next::Unfit(Call { call, stage }, what)
            }
        }
    }

    fn judged(&mut self, call: ToolCall, judgement: Judgement) -> Next {
        let (action, assessment, containment) = match judgement {
            Judgement::Invalid(outcome) => {
                let arguments = call.arguments.clone();
                return self.complete(&call, arguments, None, Decision::Invalid, outcome);
            }
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
        let judged = Judged {
            action,
            assessment,
            containment: containment.clone(),
            contain_approved,
        };
        match (effective.verdict, is_command, containment) {
            (Verdict::Deny, _, _) => {
                let arguments = call.arguments.clone();
                let ended = Some((&judged, false));
                self.complete(
                    &call,
                    arguments,
                    ended,
                    Decision::Blocked,
                    blocked(&effective),
                )
            }
            (Verdict::Ask, _, _) => self.ask(call, judged, effective, None),
            // In the sandbox the environment is an allowlist; outside it, it holds the tokens.
            (Verdict::Allow, true, Containment::Off) if effective.prints_environment => {
                let effective = effective.escalated(
                    "it prints the environment, tokens and keys included, and with the \
                         sandbox off nothing filters it"
                        .into(),
                );
                self.ask(call, judged, effective, None)
            }
            (Verdict::Allow, false, _) | (Verdict::Allow, true, Containment::Off) => {
                run(call, judged, (false, false), None)
            }
            (Verdict::Allow, true, Containment::Ready) => run(call, judged, (true, false), None),
            (
                Verdict::Allow,
                true,
                Containment::Unavailable(reason) | Containment::Partial(reason),
            ) => self.ask(call, judged, effective.escalated(reason), None),
        }
    }

    /// Puts the question; `blocked` is the sandbox's refusal when it asks to run the command
    /// outside it.
    fn ask(
        &mut self,
        call: ToolCall,
        judged: Judged,
        assessment: Assessment,
        blocked: Option<ToolOutcome>,
    ) -> Next {
        let subject = subject_of(&judged.action);
        let command = matches!(judged.action, Action::Exec { .. });
        let uncontainable = matches!(judged.containment, Containment::Unavailable(_));
        let mut reasons = assessment.reasons.clone();
        if command && uncontainable && blocked.is_none() {
            reasons.push(
                "nothing can contain it here, so only a person can approve it (flags and rules \
                 approve running inside the sandbox only)"
                    .into(),
            );
        }
        let request = ApprovalRequest {
            tool: call.name.clone(),
            subject,
            commands: assessment.to_approve(),
            reasons,
            cwd: self.cwd.to_path_buf(),
            unconfined: command && !judged.contain_approved,
            person_only: blocked.is_some()
                || (command && uncontainable)
                || assessment.approver() == Approver::Person,
            by_rule: assessment.approver() == Approver::Anyone,
        };
        let asked = request.clone();
        let stage = match blocked {
            Some(blocked) => Stage::AskingRerun {
                judged,
                asked,
                blocked,
            },
            None => Stage::Asking { judged, asked },
        };
        self.events.push(Event::ApprovalRequested {
            id: call.id.clone(),
            reason: assessment.reasons.join("; "),
        });
        Next::Wait(Call { call, stage }, Command::Ask(request))
    }

    /// The answer to `asked` (a rerun question when `blocked` holds the sandbox's refusal).
    fn decided(
        &mut self,
        call: ToolCall,
        judged: Judged,
        answer: GateAnswer,
        asked: ApprovalRequest,
        blocked: Option<ToolOutcome>,
    ) -> Next {
        let (decision, by) = match &answer {
            GateAnswer::Approved { by, .. } => (Decision::Approved, *by),
            GateAnswer::Denied { by } => (Decision::Denied, *by),
        };
        let unapproved = self.turn.unapproved.len();
        let rerun = blocked.is_some();
        // Only a person's own answer leaves the sandbox: flags, rules and "always" approve
        // running inside it, and approval because of taint keeps whatever it can confine.
        let contained =
            !rerun && (judged.contain_approved || by != DecidedBy::User) && judged.confinable();
        // The person reading the error learns why it asked, not only what.
        let refused = (by == DecidedBy::NoTerminal)
            .then(|| format!("{} ({})", asked.subject, asked.reasons.join("; ")));
        self.events.push(Event::ApprovalDecided {
            id: call.id.clone(),
            decision,
            by: by.name().to_string(),
        });
        match answer {
            GateAnswer::Denied { by } => {
                if let Some(subject) = refused {
                    self.turn.unapproved.push(subject);
                }
                if let Some(blocked) = blocked {
                    return self.rerun_refused(call, judged, blocked, unapproved);
                }
                let arguments = call.arguments.clone();
                let ended = Some((&judged, false));
                self.complete(&call, arguments, ended, Decision::Denied, denied(by))
            }
            GateAnswer::Approved { edited: None, .. } => run(call, judged, (contained, true), None),
            GateAnswer::Approved {
                edited: Some(command),
                ..
            } => {
                let stage = Stage::Rejudging {
                    judged,
                    edit: command.clone(),
                    ran: rerun,
                };
                Next::Wait(Call { call, stage }, Command::Rejudge(command))
            }
        }
    }

    /// The edited command is judged again: a person can approve, never unblock. `ran`: the
    /// command it replaces already ran in the sandbox.
    fn rejudged(
        &mut self,
        call: ToolCall,
        judged: Judged,
        (command, recheck): (String, Assessment),
        ran: bool,
    ) -> Next {
        self.events.push(Event::Notice {
            message: format!(
                "edited command, {}: {command}",
                verdict_word(recheck.verdict)
            ),
        });
        if recheck.verdict == Verdict::Deny {
            let arguments = call.arguments.clone();
            let ended = Some((&judged, ran));
            return self.complete(
                &call,
                arguments,
                ended,
                Decision::Blocked,
                blocked(&recheck),
            );
        }
        // A person's edit leaves the sandbox, unless the question was asked only because of
        // taint: then, like the command it replaces, it stays in what the sandbox can confine.
        let contained = judged.contain_approved && judged.confinable();
        let edit = Edit { command, recheck };
        run(call, judged, (contained, true), Some(edit))
    }

    /// The call ran (`contained` in the sandbox, `approved` by a person or a rule).
    fn ran(
        &mut self,
        call: ToolCall,
        judged: Judged,
        (contained, approved): (bool, bool),
        edit: Option<Edit>,
        outcome: ToolOutcome,
    ) -> Next {
        if contained
            && !judged.contain_approved
            && outcome.error_code == Some(CallErrorCode::Blocked)
        {
            // The sandbox refused something the policy let run (unasked, or approved by a flag
            // or rule, which approve only inside): a person may approve running the same
            // command outside it. A command approved only on condition that it stays contained
            // (taint) stays blocked.
            let assessment = rerun_question(&judged.assessment, &outcome);
            return self.ask(call, judged, assessment, Some(outcome));
        }
        let mut outcome = outcome;
        if let Some(edit) = &edit {
            outcome.result.note = Some(format!(
                "the user edited the command before it ran; it ran as: {}",
                edit.command
            ));
            // What the edited command took in is what taints the turn.
            let action = Action::Exec {
                command: edit.command.clone(),
            };
            self.taint(&action, &edit.recheck, &call.name);
        }
        let decision = if approved {
            Decision::Approved
        } else {
            Decision::Allow
        };
        let arguments = ran_with(&call, edit.as_ref());
        self.complete(&call, arguments, Some((&judged, true)), decision, outcome)
    }

    /// Nobody approved running it outside the sandbox: it stays blocked, and without a terminal
    /// the run ends saying that only a person (or `--sandbox off`) can lift it. `before` is how
    /// many refusals nobody could answer there were before this one.
    fn rerun_refused(
        &mut self,
        call: ToolCall,
        judged: Judged,
        mut outcome: ToolOutcome,
        before: usize,
    ) -> Next {
        let what = outcome.result.error.clone().unwrap_or_default();
        let command = subject_of(&judged.action);
        if self.turn.unapproved.len() > before {
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
        let arguments = call.arguments.clone();
        let ended = Some((&judged, true));
        self.complete(&call, arguments, ended, Decision::Blocked, outcome)
    }

    /// Ends a call run with `arguments`: taint noted, the result remembered for duplicates, the
    /// record emitted. `ended` is what was judged of it, and whether it ran (at least in part).
    fn complete(
        &mut self,
        call: &ToolCall,
        arguments: serde_json::Value,
        ended: Option<(&Judged, bool)>,
        decision: Decision,
        outcome: ToolOutcome,
    ) -> Next {
        let mut effect = Effect::Nothing;
        if let Some((judged, ran)) = ended {
            // Whatever ran took its input in, even a command the sandbox stopped half way and
            // nobody let run again: its output goes back to the model.
            if ran {
                self.taint(&judged.action, &judged.assessment, &call.name);
            }
            effect = effect_of(&judged.action, decision);
        }
        self.turn.remember(call, &outcome, effect);
        let record = ToolCallRecord {
            id: call.id.clone(),
            name: call.name.clone(),
            arguments,
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
        Next::Done(outcome.result)
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

/// Runs the call: `contained` in the sandbox; `approved` by a person or a rule; as `edit`ed.
fn run(
    call: ToolCall,
    judged: Judged,
    (contained, approved): (bool, bool),
    edit: Option<Edit>,
) -> Next {
    let mut running = call.clone();
    running.arguments = ran_with(&call, edit.as_ref());
    let stage = Stage::Running {
        judged,
        contained,
        approved,
        edit,
    };
    let command = Command::Run {
        call: running,
        contained,
    };
    Next::Wait(Call { call, stage }, command)
}

/// The question put when the sandbox refused what the policy let run: run it outside?
fn rerun_question(assessment: &Assessment, outcome: &ToolOutcome) -> Assessment {
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
    // The words are the command's own: code in the sandbox can print anything, so they are
    // shown as its output, never as ai's diagnosis.
    assessment.escalated(format!(
        "it failed with what looks like a sandbox refusal (its own output, which it may have \
         made up: {what}); run it again outside the sandbox?"
    ))
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
