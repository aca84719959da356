//! What the tests of the loop core share: a turn under test, and the inputs a driver would feed
//! it (replies, verdicts, answers, results), built in one line each.

use serde_json::json;

use super::TurnEnd;
use super::approval::{DecidedBy, GateAnswer};
use super::core::Core;
use super::machine::{Command, Containment, Input, Judgement, Setup};
use super::mode::{Reply, ToolMode};
use super::turn::Limits;
use crate::config::ToolFormat;
use crate::policy::{Assessment, Unit, Verdict};
use crate::protocol::{
    Action, CallErrorCode, Decision, Event, Message, ToolCall, ToolChoice, ToolErrorType,
    ToolResult, ToolSpec,
};
use crate::tool::ToolOutcome;

pub(super) fn specs(names: &[&str]) -> Vec<ToolSpec> {
    names
        .iter()
        .map(|name| ToolSpec {
            name: (*name).into(),
            description: format!("the {name} tool"),
            parameters: json!({"type": "object", "properties": {}}),
        })
        .collect()
}

pub(super) const TOOLS: &[&str] = &["filesystem", "execute_command", "web_search"];

pub(super) fn setup(max_iterations: u32, max_tool_calls: u32) -> Setup {
    Setup {
        specs: specs(TOOLS),
        model: "test-model".into(),
        cwd: "/work/project".into(),
        limits: Limits {
            max_iterations,
            max_tool_calls,
        },
        tool_choice: ToolChoice::Auto,
        name_tools: true,
        output: None,
    }
}

pub(super) fn mode(format: ToolFormat) -> ToolMode {
    ToolMode::from_settings(format, "test-model", &specs(TOOLS), false)
}

/// A turn under test: what it emitted and appended so far.
pub(super) struct Turn<'m> {
    pub(super) core: Core<'m>,
    pub(super) events: Vec<Event>,
    pub(super) messages: Vec<Message>,
}

impl<'m> Turn<'m> {
    pub(super) fn new(mode: &'m mut ToolMode, setup: Setup) -> Self {
        Turn {
            core: Core::new(mode, setup),
            events: Vec::new(),
            messages: Vec::new(),
        }
    }

    pub(super) fn feed(&mut self, input: Input) -> Command {
        let output = self.core.handle(input);
        self.events.extend(output.events);
        self.messages.extend(output.append);
        output.next
    }

    pub(super) fn records(&self) -> Vec<(String, Decision)> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::ToolCallCompleted { record } => Some((record.id.clone(), record.decision)),
                _ => None,
            })
            .collect()
    }

    pub(super) fn count(&self, wanted: fn(&Event) -> bool) -> usize {
        self.events.iter().filter(|e| wanted(e)).count()
    }
}

pub(super) fn read(id: &str, path: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: "filesystem".into(),
        arguments: json!({"operation": "read", "path": path}),
    }
}

pub(super) fn call(id: &str, name: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: json!({"path": id}),
    }
}

pub(super) fn command(id: &str, line: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: "execute_command".into(),
        arguments: json!({"command": line}),
    }
}

pub(super) fn replied(calls: Vec<ToolCall>) -> Input {
    Input::Replied {
        text: String::new(),
        reply: Reply {
            calls,
            problems: Vec::new(),
        },
        usage: None,
    }
}

pub(super) fn answered(text: &str) -> Input {
    Input::Replied {
        text: text.into(),
        reply: Reply::default(),
        usage: None,
    }
}

pub(super) fn assessment(verdict: Verdict, line: &str) -> Assessment {
    Assessment {
        verdict,
        reasons: vec![format!("{line}: {verdict:?}")],
        commands: vec![Unit {
            command: line.into(),
            verdict,
            reasons: Vec::new(),
            approver: Default::default(),
        }],
        untrusted: None,
        fetch: Default::default(),
        prints_environment: false,
    }
}

pub(super) fn read_judged(path: &str, verdict: Verdict) -> Input {
    Input::Judged(Judgement::Judged {
        action: Action::Read {
            requested: path.into(),
            resolved: path.into(),
        },
        assessment: assessment(verdict, path),
        containment: Containment::Off,
    })
}

pub(super) fn exec_judged(line: &str, verdict: Verdict, containment: Containment) -> Input {
    Input::Judged(Judgement::Judged {
        action: Action::Exec {
            command: line.into(),
        },
        assessment: assessment(verdict, line),
        containment,
    })
}

pub(super) fn ran_ok(data: &str) -> Input {
    Input::Ran(ToolOutcome::ok(json!(data)))
}

pub(super) fn approved_by(by: DecidedBy) -> Input {
    Input::Decided(GateAnswer::Approved { by, edited: None })
}

pub(super) fn approved() -> Input {
    Input::Decided(GateAnswer::Approved {
        by: DecidedBy::User,
        edited: None,
    })
}

pub(super) fn denied(by: DecidedBy) -> Input {
    Input::Decided(GateAnswer::Denied { by })
}

pub(super) fn end_of(command: Command) -> Option<TurnEnd> {
    match command {
        Command::Finish(end) => Some(end),
        _ => None,
    }
}

pub(super) fn is_request(command: &Command) -> bool {
    matches!(command, Command::Request { .. })
}

pub(super) fn runs(command: &Command) -> Option<(String, bool)> {
    match command {
        Command::Run { call, contained } => Some((call.id.clone(), *contained)),
        _ => None,
    }
}

pub(super) fn asks(command: &Command) -> Option<String> {
    match command {
        Command::Ask(request) => Some(request.reasons.join("; ")),
        _ => None,
    }
}

pub(super) fn web_search(id: &str) -> (ToolCall, Input) {
    let call = ToolCall {
        id: id.into(),
        name: "web_search".into(),
        arguments: json!({"query": "fix"}),
    };
    let judged = Input::Judged(Judgement::Judged {
        action: Action::Network { what: "fix".into() },
        assessment: assessment(Verdict::Allow, "fix"),
        containment: Containment::Off,
    });
    (call, judged)
}

pub(super) fn blocked_by_sandbox() -> Input {
    Input::Ran(ToolOutcome::failed(
        CallErrorCode::Blocked,
        ToolResult::fail(
            ToolErrorType::SecurityError,
            "blocked by the sandbox: write to /etc",
        ),
    ))
}

pub(super) fn edited(line: &str) -> Input {
    Input::Decided(GateAnswer::Approved {
        by: DecidedBy::User,
        edited: Some(line.into()),
    })
}

/// Starts the turn with a reply of one command, call "1", and the driver's judgement of it.
pub(super) fn first_command(
    turn: &mut Turn<'_>,
    line: &str,
    verdict: Verdict,
    containment: Containment,
) -> Command {
    turn.feed(Input::Start);
    turn.feed(replied(vec![command("1", line)]));
    turn.feed(exec_judged(line, verdict, containment))
}
