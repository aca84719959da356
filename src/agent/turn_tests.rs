//! Whole turns in process: the real driver, policy, gate and tools, on real files in a temp dir,
//! with a scripted provider in place of a server.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;

use super::{Agent, Gate, Limits, NobodyAsker, Sandbox, Stop, ToolMode, TurnEnd};
use crate::config::{Env, ForeignVars, Paths, PolicyConfig, SandboxMode, ToolFormat};
use crate::policy::{Policy, Roots, Rules};
use crate::protocol::{
    BoxFuture, Decision, Event, Message, RunStatus, ToolCall, ToolChoice, ToolSpec,
};
use crate::provider::{ChatRequest, Completion, Provider, ProviderError, ProviderEvent, Sink};
use crate::sandbox;
use crate::tool::{ExecSettings, ExecTool, FilesystemTool, Registry, ToolContext};

/// A provider that answers from a script and keeps every request it was sent.
struct Scripted {
    replies: RefCell<VecDeque<Completion>>,
    /// The messages and the native tools of each request.
    seen: RefCell<Vec<(Vec<Message>, Vec<ToolSpec>)>>,
}

impl Scripted {
    fn new(replies: Vec<Completion>) -> Self {
        Scripted {
            replies: RefCell::new(replies.into()),
            seen: RefCell::new(Vec::new()),
        }
    }

    fn system_of(&self, request: usize) -> String {
        match self.seen.borrow().get(request).and_then(|(m, _)| m.first()) {
            Some(Message::System { content }) => content.clone(),
            _ => String::new(),
        }
    }
}

impl Provider for Scripted {
    fn name(&self) -> &str {
        "scripted"
    }

    fn model(&self) -> &str {
        "scripted-model"
    }

    fn set_model(&mut self, _model: String) {}

    fn prepare(&mut self) -> BoxFuture<'_, Result<(), ProviderError>> {
        Box::pin(async { Ok(()) })
    }

    fn complete<'a>(
        &'a self,
        request: ChatRequest<'a>,
        sink: &'a mut Sink<'_>,
    ) -> BoxFuture<'a, Result<Completion, ProviderError>> {
        self.seen
            .borrow_mut()
            .push((request.messages.to_vec(), request.tools.to_vec()));
        let next = self.replies.borrow_mut().pop_front();
        Box::pin(async move {
            let completion = next.ok_or_else(|| ProviderError::BadResponse {
                url: "scripted".into(),
                message: "no more replies in the script".into(),
            })?;
            sink(ProviderEvent::Text(&completion.text));
            Ok(completion)
        })
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<String>, ProviderError>> {
        Box::pin(async { Ok(vec!["scripted-model".into()]) })
    }
}

fn text(reply: &str) -> Completion {
    Completion {
        text: reply.into(),
        ..Completion::default()
    }
}

fn calling(calls: Vec<ToolCall>) -> Completion {
    Completion {
        tool_calls: calls,
        ..Completion::default()
    }
}

/// Everything a turn needs, around a project in a temp dir.
struct Bench {
    _dir: tempfile::TempDir,
    cwd: PathBuf,
    registry: Registry,
    ctx: ToolContext,
    policy: Policy,
}

impl Bench {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let cwd = dir.path().join("project");
        std::fs::create_dir_all(&cwd).expect("project dir");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).expect("home dir");
        let temp = std::env::temp_dir();
        let rules = Rules::new(&[], &PolicyConfig::default()).expect("rules");
        let roots = Roots::new(&["cwd".into()], &cwd, &temp, Some(&home));
        let policy = Policy::new(roots, Some(home.clone()), cwd.clone(), temp, rules);
        let mut registry = Registry::default();
        registry.add(Box::new(FilesystemTool));
        registry.add(Box::new(ExecTool));
        let ctx = ToolContext {
            cwd: cwd.clone(),
            home: Some(home),
            fs_max_size: 1 << 20,
            exec: ExecSettings {
                shell: PathBuf::from("/bin/sh"),
                timeout: Duration::from_secs(30),
                strip_env: Vec::new(),
                sandbox_env: Vec::new(),
            },
            secret: crate::policy::sensitive,
        };
        Bench {
            _dir: dir,
            cwd,
            registry,
            ctx,
            policy,
        }
    }

    fn agent<'a>(&'a self, provider: &'a Scripted, format: ToolFormat) -> Agent<'a> {
        let rules = Rules::new(&[], &PolicyConfig::default()).expect("rules");
        let env = Env::from_pairs([("HOME", "/nonexistent-home")]);
        let plan = sandbox::Plan::new(
            SandboxMode::Off,
            &self.cwd,
            &Paths::new(&env),
            &ForeignVars::default(),
        );
        Agent {
            provider,
            registry: &self.registry,
            ctx: &self.ctx,
            policy: &self.policy,
            gate: Gate::new(true, false, rules, Box::new(NobodyAsker)),
            sandbox: Sandbox::new(plan),
            limits: Limits {
                max_iterations: 5,
                max_tool_calls: 5,
            },
            tool_choice: ToolChoice::Auto,
            stream: true,
            mode: ToolMode::from_settings(format, provider.model(), &self.registry.specs(), false),
            name_tools: true,
            output: None,
            untrusted: Vec::new(),
        }
    }
}

/// Runs a turn that nothing stops.
async fn turn(agent: &mut Agent<'_>, messages: &mut Vec<Message>) -> (TurnEnd, Vec<Event>) {
    let mut events = Vec::new();
    let never = std::pin::pin!(std::future::pending::<Stop>());
    let end = agent
        .run_turn(messages, &mut |e| events.push(e.clone()), never)
        .await;
    (end, events)
}

fn conversation(question: &str) -> Vec<Message> {
    vec![
        Message::System {
            content: "Be brief.".into(),
        },
        Message::User {
            content: question.into(),
        },
    ]
}

fn read(path: &Path) -> ToolCall {
    ToolCall {
        id: "read_1".into(),
        name: "filesystem".into(),
        arguments: json!({"operation": "read", "path": path}),
    }
}

#[tokio::test]
async fn a_turn_reads_a_real_file_and_answers_with_it() {
    let bench = Bench::new();
    std::fs::write(bench.cwd.join("notes.txt"), "the answer is 42\n").expect("write");
    let provider = Scripted::new(vec![
        calling(vec![read(Path::new("notes.txt"))]),
        text("It is 42."),
    ]);
    let mut agent = bench.agent(&provider, ToolFormat::Native);
    let mut messages = conversation("what is in notes.txt?");
    let (end, events) = turn(&mut agent, &mut messages).await;
    assert_eq!(end.status, RunStatus::Ok);
    // The second request carried the file's content back to the model.
    let second = provider.seen.borrow()[1].0.clone();
    let result = second.iter().find_map(|m| match m {
        Message::Tool { content, .. } => Some(content.clone()),
        _ => None,
    });
    assert!(result.is_some_and(|r| r.contains("the answer is 42")));
    let decisions: Vec<Decision> = events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallCompleted { record } => Some(record.decision),
            _ => None,
        })
        .collect();
    assert_eq!(decisions, vec![Decision::Allow]);
    // The conversation holds the call, its result and the answer, the instructions unchanged.
    assert_eq!(messages.len(), 5);
    assert_eq!(
        messages[0],
        Message::System {
            content: "Be brief.".into()
        }
    );
}

#[tokio::test]
async fn a_tool_switched_off_is_no_longer_described_to_a_prompt_based_model() {
    let mut bench = Bench::new();
    let provider = Scripted::new(vec![text("First."), text("Second.")]);
    let mut messages = conversation("hi");
    {
        let mut agent = bench.agent(&provider, ToolFormat::Hermes);
        turn(&mut agent, &mut messages).await;
    }
    assert!(provider.system_of(0).contains("execute_command"));
    // `/tools disable execute_command` in the REPL, then the next turn.
    assert!(bench.registry.set_enabled("execute_command", false));
    messages.push(Message::User {
        content: "again".into(),
    });
    let mut agent = bench.agent(&provider, ToolFormat::Hermes);
    turn(&mut agent, &mut messages).await;
    let system = provider.system_of(1);
    assert!(system.contains("filesystem"), "{system}");
    assert!(!system.contains("execute_command"), "{system}");
}

#[tokio::test]
async fn a_stop_ends_a_running_command_and_the_call_is_answered() {
    let bench = Bench::new();
    let provider = Scripted::new(vec![calling(vec![ToolCall {
        id: "wait_1".into(),
        name: "execute_command".into(),
        arguments: json!({"command": "sleep 20"}),
    }])]);
    let mut agent = bench.agent(&provider, ToolFormat::Native);
    let mut messages = conversation("wait");
    let started = Instant::now();
    let stop = std::pin::pin!(async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        Stop::Interrupted
    });
    let end = agent.run_turn(&mut messages, &mut |_| {}, stop).await;
    assert_eq!(end.stopped, Some(Stop::Interrupted));
    assert!(started.elapsed() < Duration::from_secs(15));
    let answered = messages.last().is_some_and(|m| {
        matches!(m, Message::Tool { tool_call_id, content, .. }
            if tool_call_id == "wait_1" && content.contains("interrupted"))
    });
    assert!(answered, "{messages:?}");
}

#[tokio::test]
async fn a_command_that_asks_ends_the_run_when_nobody_can_answer() {
    let bench = Bench::new();
    std::fs::write(bench.cwd.join("keep.txt"), "keep").expect("write");
    let provider = Scripted::new(vec![calling(vec![ToolCall {
        id: "rm_1".into(),
        name: "execute_command".into(),
        arguments: json!({"command": "rm keep.txt"}),
    }])]);
    let mut agent = bench.agent(&provider, ToolFormat::Native);
    let mut messages = conversation("clean up");
    let (end, _) = turn(&mut agent, &mut messages).await;
    assert_eq!(end.status, RunStatus::Denied);
    assert!(bench.cwd.join("keep.txt").exists());
    // One request only: the model got no chance to route around the refusal.
    assert_eq!(provider.seen.borrow().len(), 1);
}
