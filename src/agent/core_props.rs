//! Property tests of the loop core: a simulated driver answers whatever the core asks with any
//! well-formed input (any reply, verdict, containment, answer or result, and stops anywhere), and
//! the safety rules hold on every path: nothing the policy blocks runs, nothing allowed leaves the
//! sandbox without a person's approval, after taint every command is asked about, a refusal
//! nobody could answer is the last thing that happens, and the conversation stays valid.

use proptest::prelude::*;
use serde_json::json;

use super::approval::{DecidedBy, GateAnswer};
use super::core::Core;
use super::machine::{Command, Containment, Input, Judgement, Setup};
use super::mode::{Reply, ToolMode};
use super::test_kit::replied;
use super::turn::Limits;
use super::{Stop, TurnEnd};
use crate::config::ToolFormat;
use crate::policy::{Assessment, Unit, Verdict};
use crate::protocol::{
    Action, CallErrorCode, Event, Message, ToolCall, ToolChoice, ToolErrorType, ToolResult,
    ToolSpec,
};
use crate::provider::ProviderError;
use crate::tool::ToolOutcome;

const TOOLS: [&str; 3] = ["filesystem", "execute_command", "web_search"];

fn setup() -> Setup {
    Setup {
        specs: TOOLS
            .iter()
            .map(|name| ToolSpec {
                name: (*name).into(),
                description: String::new(),
                parameters: json!({"type": "object"}),
            })
            .collect(),
        model: "m".into(),
        cwd: "/p".into(),
        limits: Limits {
            max_iterations: 4,
            max_tool_calls: 6,
        },
        tool_choice: ToolChoice::Auto,
        name_tools: true,
        output: None,
    }
}

/// Draws the driver's answers from a list of numbers.
struct Dice {
    rolls: Vec<u8>,
    at: usize,
    calls: usize,
}

impl Dice {
    fn roll(&mut self, sides: u8) -> u8 {
        let value = self.rolls.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        value % sides
    }

    fn verdict(&mut self) -> Verdict {
        [Verdict::Allow, Verdict::Ask, Verdict::Deny][usize::from(self.roll(3))]
    }

    fn call(&mut self) -> ToolCall {
        self.calls += 1;
        let name = TOOLS[usize::from(self.roll(3))];
        // A few distinct arguments, so identical calls (duplicates) happen too.
        let arguments = json!({"command": format!("c{}", self.roll(3)), "path": "p", "query": "q"});
        ToolCall {
            id: format!("id{}", self.calls),
            name: name.into(),
            arguments,
        }
    }
}

fn assessment(verdict: Verdict, untrusted: bool) -> Assessment {
    Assessment {
        verdict,
        reasons: vec!["why".into()],
        commands: vec![Unit {
            command: "c".into(),
            verdict,
            reasons: Vec::new(),
            approver: Default::default(),
        }],
        untrusted: untrusted.then(|| "a file outside the project".into()),
        fetch: Default::default(),
        prints_environment: false,
    }
}

fn action_of(call: &ToolCall) -> Action {
    match call.name.as_str() {
        "execute_command" => Action::Exec {
            command: call.arguments["command"].as_str().unwrap_or("c").into(),
        },
        "web_search" => Action::Network { what: "q".into() },
        _ => Action::Read {
            requested: "p".into(),
            resolved: "p".into(),
        },
    }
}

/// What the simulated driver did, for the rules to be checked against.
#[derive(Default)]
struct Log {
    /// Every command run: (was it a command line, contained, asked since its judgement).
    runs: Vec<(bool, bool, bool)>,
    /// A run happened of a call whose last verdict was Deny.
    ran_denied: bool,
    /// An allowed, contained command ran outside the sandbox without being asked about.
    escaped: bool,
    /// A command ran unasked after the turn was tainted.
    unasked_after_taint: bool,
    /// A policy-safe command asked about only because of taint ran outside the sandbox.
    taint_widened: bool,
    /// Something happened after a refusal nobody could answer (other than answering the rest).
    after_refusal: bool,
    /// A command the sandbox could have contained (or that nothing could contain) ran outside
    /// it on an approval that was not a person's own (a flag, a rule, "always").
    left_without_person: bool,
}

impl Log {
    /// Notes a run against the rules, with what was seen of the call.
    fn ran(&mut self, seen: &Seen, contained: bool) {
        self.runs.push((seen.is_command, contained, seen.asked));
        self.ran_denied |= seen.verdict == Some(Verdict::Deny);
        self.escaped |= seen.is_command && seen.ready && !contained && !seen.asked;
        self.left_without_person |= seen.is_command
            && seen.ready
            && !contained
            && seen.asked
            && seen.by != Some(DecidedBy::User);
        self.unasked_after_taint |= seen.is_command && seen.tainted && !seen.asked;
        self.taint_widened |= seen.is_command
            && seen.tainted
            && seen.allowed
            && seen.ready
            && !seen.edited
            && !contained;
    }
}

fn reply(dice: &mut Dice) -> Input {
    match dice.roll(8) {
        0 => Input::Failed(ProviderError::BadRequest {
            url: "u".into(),
            status: 400,
            message: "tools are not supported".into(),
        }),
        1 => Input::Replied {
            text: "done".into(),
            reply: Reply::default(),
            usage: None,
        },
        2 => Input::Replied {
            text: String::new(),
            reply: Reply {
                calls: Vec::new(),
                problems: vec!["a call that did not parse".into()],
            },
            usage: None,
        },
        _ => {
            let count = 1 + dice.roll(3);
            replied((0..count).map(|_| dice.call()).collect())
        }
    }
}

fn judgement(dice: &mut Dice, call: &ToolCall) -> (Input, Verdict, bool, bool) {
    if dice.roll(8) == 0 {
        let outcome = ToolOutcome::failed(
            CallErrorCode::InvalidArguments,
            ToolResult::fail(ToolErrorType::ValidationError, "bad"),
        );
        return (
            Input::Judged(Judgement::Invalid(outcome)),
            Verdict::Deny,
            false,
            false,
        );
    }
    let verdict = dice.verdict();
    let action = action_of(call);
    let is_command = matches!(action, Action::Exec { .. });
    // The driver asks the sandbox about every command it may run: allowed or asked about.
    let containment = match (is_command, verdict, dice.roll(5)) {
        (true, Verdict::Deny, _) | (false, _, _) => Containment::Off,
        (true, _, 1) => Containment::Unavailable("no Landlock".into()),
        (true, _, 2) => Containment::Partial("no network rules".into()),
        (true, _, 3) => Containment::Off,
        (true, _, _) => Containment::Ready,
    };
    let ready = !matches!(containment, Containment::Off);
    let input = Input::Judged(Judgement::Judged {
        action,
        assessment: assessment(verdict, dice.roll(4) == 0),
        containment,
    });
    (input, verdict, is_command, ready)
}

/// Any answer the gate could give: a question only a person can answer never gets a flag's.
fn answer(dice: &mut Dice, person_only: bool) -> GateAnswer {
    match dice.roll(if person_only { 3 } else { 5 }) {
        0 => GateAnswer::Denied {
            by: DecidedBy::NoTerminal,
        },
        1 => GateAnswer::Denied {
            by: DecidedBy::User,
        },
        2 => GateAnswer::Approved {
            by: DecidedBy::User,
            edited: Some("edited".into()),
        },
        3 => GateAnswer::Approved {
            by: DecidedBy::User,
            edited: None,
        },
        _ => GateAnswer::Approved {
            by: DecidedBy::YesFlag,
            edited: None,
        },
    }
}

fn outcome(dice: &mut Dice) -> ToolOutcome {
    if dice.roll(4) == 0 {
        ToolOutcome::failed(
            CallErrorCode::Blocked,
            ToolResult::fail(ToolErrorType::SecurityError, "blocked by the sandbox"),
        )
    } else {
        ToolOutcome::ok(json!("output"))
    }
}

/// Where the current call is, as the simulated driver saw it.
#[derive(Default)]
struct Seen {
    verdict: Option<Verdict>,
    is_command: bool,
    ready: bool,
    asked: bool,
    tainted: bool,
    refused: bool,
    /// The policy's own verdict on the call, before taint or an edit.
    allowed: bool,
    edited: bool,
    /// Who gave the last approval.
    by: Option<DecidedBy>,
}

/// Drives one turn to its end; `None` if it did not end within a bound.
fn simulate(format: ToolFormat, rolls: Vec<u8>) -> Option<(TurnEnd, Vec<Message>, Log)> {
    let mut mode = ToolMode::from_settings(format, "m", &setup().specs, false);
    let mut core = Core::new(&mut mode, setup());
    let mut dice = Dice {
        rolls,
        at: 0,
        calls: 0,
    };
    let (mut messages, mut log, mut seen) = (Vec::new(), Log::default(), Seen::default());
    let mut input = Input::Start;
    for _ in 0..500 {
        let output = core.handle(input);
        seen.tainted |= output
            .events
            .iter()
            .any(|e| matches!(e, Event::TurnTainted { .. }));
        messages.extend(output.append);
        if seen.refused && !matches!(output.next, Command::Finish(_)) {
            log.after_refusal = true;
        }
        let stop = dice.roll(40) == 0;
        input = match output.next {
            Command::Finish(end) => return Some((end, messages, log)),
            _ if stop => Input::Stopped {
                why: Stop::Interrupted,
                partial: "part".into(),
            },
            Command::Request { .. } => reply(&mut dice),
            Command::Judge(call) => {
                let (input, verdict, is_command, ready) = judgement(&mut dice, &call);
                let tainted = seen.tainted;
                seen = Seen {
                    verdict: Some(verdict),
                    is_command,
                    ready,
                    tainted,
                    allowed: verdict == Verdict::Allow,
                    ..Seen::default()
                };
                input
            }
            Command::Ask(request) => {
                seen.asked = true;
                let answer = answer(&mut dice, request.person_only);
                if let GateAnswer::Approved { by, .. } = &answer {
                    seen.by = Some(*by);
                }
                seen.refused |= matches!(
                    answer,
                    GateAnswer::Denied {
                        by: DecidedBy::NoTerminal
                    }
                );
                Input::Decided(answer)
            }
            Command::Rejudge(_) => {
                let verdict = dice.verdict();
                seen.verdict = Some(verdict);
                seen.edited = true;
                Input::Rejudged(assessment(verdict, false))
            }
            Command::Run { contained, .. } => {
                log.ran(&seen, contained);
                Input::Ran(outcome(&mut dice))
            }
        };
    }
    None
}

/// Native calls: every call of every assistant message has exactly one result, right after it.
fn every_call_answered(messages: &[Message]) -> bool {
    let mut open: Vec<String> = Vec::new();
    for message in messages {
        match message {
            Message::Assistant { tool_calls, .. } => {
                if !open.is_empty() {
                    return false;
                }
                open = tool_calls.iter().map(|c| c.id.clone()).collect();
            }
            Message::Tool { tool_call_id, .. } => {
                if open.first() != Some(tool_call_id) {
                    return false;
                }
                open.remove(0);
            }
            _ => {}
        }
    }
    open.is_empty()
}

proptest! {
    #[test]
    fn the_loop_keeps_its_rules_whatever_happens(
        rolls in prop::collection::vec(any::<u8>(), 0..200),
        native in any::<bool>(),
    ) {
        let format = if native { ToolFormat::Auto } else { ToolFormat::Hermes };
        let ended = simulate(format, rolls);
        prop_assert!(ended.is_some(), "the turn did not end");
        let Some((end, messages, log)) = ended else { return Ok(()) };
        // A well-behaved driver never meets the core's "unexpected input" end.
        let internal = end.error.as_ref().is_some_and(|e| e.message.contains("internal error"));
        prop_assert!(!internal, "{:?}", end.error);
        prop_assert!(!log.ran_denied, "a blocked call ran");
        prop_assert!(!log.escaped, "an allowed command left the sandbox unasked");
        prop_assert!(!log.unasked_after_taint, "a command ran unasked after taint");
        prop_assert!(!log.taint_widened, "an approval under taint widened the sandbox");
        prop_assert!(!log.after_refusal, "the turn went on after a refusal nobody could answer");
        prop_assert!(!log.left_without_person, "a flag or rule let a command leave the sandbox");
        if format == ToolFormat::Auto && messages.iter().all(|m| !matches!(m, Message::User { .. })) {
            prop_assert!(every_call_answered(&messages), "{messages:?}");
        }
    }
}
