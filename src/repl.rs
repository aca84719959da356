//! `ai -i`: the REPL. rustyline reads input (persistent history, multi-line with a trailing `\`
//! or a `"""` block, Tab completion of slash commands); each turn runs like a one-shot run, with
//! Ctrl-C cancelling the reply (and any running command) and returning to the prompt. Context is
//! kept across turns, trimmed to a budget, and the conversation is saved after every turn.

use std::path::PathBuf;

use rustyline::completion::Completer;
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{Config, Context, Editor, Helper};

use crate::agent::{Agent, Gate, ToolMode};
use crate::config::{Paths, Settings};
use crate::conversation::{ConversationStore, Mode, Summary, recent, utc_minute};
use crate::error::{ExitCode, Report};
use crate::protocol::{Event, Message, RunStatus, Untrusted};
use crate::session::{
    CONTEXT_BUDGET, Ended, Parts, Session, Turned, empty_or_ok, new_store, resume_note, save_marks,
    save_or_warn, trim_to_budget, unknown_conversation, warn_skipped,
};
use crate::ui::{self, fail};

/// A saved conversation opened to go on with: its store, messages, summary, and how many of its
/// lines could not be read.
type Resumed = (ConversationStore, Vec<Message>, Summary, usize);

const HISTORY_SIZE: usize = 1_000;

const COMMANDS: &[(&str, &str)] = &[
    ("/help", "this list"),
    ("/model", "show the model, or switch: /model NAME"),
    (
        "/tools",
        "list tools; /tools enable NAME, /tools disable NAME",
    ),
    ("/clear", "start a new conversation"),
    ("/history", "recent saved conversations"),
    ("/save", "save this conversation as Markdown: /save FILE"),
    ("/exit", "leave (or Ctrl-D)"),
];

/// Tab completion of slash commands and tool names.
struct ReplHelper {
    tools: Vec<String>,
}

impl Completer for ReplHelper {
    type Candidate = String;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        let before = &line[..pos];
        if !before.starts_with('/') {
            return Ok((pos, Vec::new()));
        }
        match before.split_once(' ') {
            None => Ok((
                0,
                COMMANDS
                    .iter()
                    .map(|(c, _)| c.to_string())
                    .filter(|c| c.starts_with(before))
                    .collect(),
            )),
            Some((_, rest)) if before.starts_with("/tools ") => {
                let word_start = before.rfind(' ').map_or(0, |i| i + 1);
                let word = &before[word_start..];
                let options: Vec<String> = if rest.contains(' ') {
                    self.tools.clone()
                } else {
                    vec!["enable".into(), "disable".into()]
                };
                Ok((
                    word_start,
                    options
                        .into_iter()
                        .filter(|o| o.starts_with(word))
                        .collect(),
                ))
            }
            Some(_) => Ok((pos, Vec::new())),
        }
    }
}

impl Hinter for ReplHelper {
    type Hint = String;
}
impl Highlighter for ReplHelper {}
impl Validator for ReplHelper {}
impl Helper for ReplHelper {}

/// The conversation under way: its messages, which of them carry untrusted text, and where it
/// is saved.
struct Talk {
    store: Option<ConversationStore>,
    messages: Vec<Message>,
    untrusted: Vec<Untrusted>,
}

/// What the agent keeps across turns: the approvals given and how tools are called (a switch to
/// prompt-based calling lasts).
struct Kept {
    gate: Gate,
    mode: ToolMode,
}

/// Runs the REPL until Ctrl-D or `/exit`.
pub(crate) async fn run(settings: &Settings, resume: Option<&str>, first: Option<String>) -> i32 {
    let mut first = first;
    let mut parts = match Parts::prepare(settings).await {
        Ok(parts) => parts,
        Err(err) => return fail(&err.report),
    };
    let mut kept = match Parts::gate(settings) {
        Ok(gate) => Kept {
            gate,
            mode: parts.mode(settings),
        },
        Err(report) => return fail(&report),
    };
    let system = parts.instructions();
    let resumed = match resumed(settings, resume) {
        Ok(resumed) => resumed,
        Err(report) => return fail(&report),
    };
    let resumed_note = resumed
        .as_ref()
        .map(|(_, _, summary, _)| resume_note(summary));
    let mut talk = Talk::start(&parts, &system, resumed, settings);
    let mut session = Session::new(settings, None, parts.audit_log());
    let history = settings.paths.history_file.clone();
    let mut editor = match new_editor(&parts, history.as_ref()) {
        Ok(editor) => editor,
        Err(message) => return fail(&crate::error::Report::new(ExitCode::Runtime, message)),
    };
    if !settings.quiet {
        greet(&parts, resumed_note);
    }
    loop {
        let prompt = format!("{}> ", parts.provider.model());
        let read = match first.take() {
            Some(given) => Ok(Some(given)),
            None => read_input(&mut editor, &prompt),
        };
        let input = match read {
            Ok(Some(input)) => input,
            Ok(None) => continue,
            Err(ReadlineError::Interrupted) => continue, // Ctrl-C: a fresh line
            Err(ReadlineError::Eof) => break,
            Err(err) => {
                ui::to_stderr(&format!("ai: error: reading input: {err}"));
                break;
            }
        };
        if let Some(history) = &history {
            let _ = editor.add_history_entry(input.as_str());
            // Appending (under rustyline's file lock) keeps what another REPL added meanwhile;
            // saving would rewrite the file with only this one's lines.
            let _ = editor.append_history(history);
        }
        if !input.starts_with('/') {
            kept = talk.ask(input, &parts, &mut session, kept, settings).await;
            continue;
        }
        match slash(&input, &mut parts, &settings.paths, &talk.messages) {
            Slash::Exit => break,
            Slash::Clear => {
                talk = Talk::start(&parts, &system, None, settings);
                ui::to_stderr("(a new conversation)");
            }
            Slash::Model => {
                settle_model(&mut parts).await;
                kept.mode = parts.mode(settings);
            }
            Slash::Done => {}
        }
        if let Some(helper) = editor.helper_mut() {
            helper.tools = tool_names(&parts);
        }
    }
    parts.mcp.shutdown().await;
    ExitCode::Ok.code()
}

/// The first line: who answers, how to get help and leave, and what was resumed.
fn greet(parts: &Parts, resumed_note: Option<String>) {
    ui::to_stderr(&format!(
        "ai {} · {} via {}. /help for commands, Ctrl-D to leave.{}",
        env!("CARGO_PKG_VERSION"),
        parts.provider.model(),
        parts.provider.name(),
        resumed_note.unwrap_or_default()
    ));
}

/// The conversation `--resume [ID]` names (the last one when `id` is empty); `None` for a new
/// one, said on stderr when there was none to resume.
fn resumed(settings: &Settings, resume: Option<&str>) -> Result<Option<Resumed>, Report> {
    match resume
        .map(|id| ConversationStore::open(&settings.paths, Some(id).filter(|i| !i.is_empty())))
    {
        Some(None) if resume.is_some_and(|id| !id.is_empty()) => {
            Err(unknown_conversation(resume.unwrap_or_default()))
        }
        Some(found) => {
            if found.is_none() && !settings.quiet {
                ui::to_stderr("ai: no conversation to resume; starting a new one");
            }
            Ok(found)
        }
        None => Ok(None),
    }
}

/// Settles the model `/model` switched to. Once a turn has listened for Ctrl-C, tokio holds
/// SIGINT for good: every long wait of the REPL must listen for it itself, or Ctrl-C does nothing.
async fn settle_model(parts: &mut Parts) {
    tokio::select! {
        prepared = parts.provider.prepare() => {
            if let Err(err) = prepared {
                ui::to_stderr(&err.to_report().to_string());
            }
        }
        _ = tokio::signal::ctrl_c() => ui::to_stderr("^C (/model cancelled)"),
    }
}

fn tool_names(parts: &Parts) -> Vec<String> {
    parts
        .registry
        .all()
        .into_iter()
        .map(|(n, _)| n.to_string())
        .collect()
}

impl Talk {
    /// A new conversation (saved as a REPL one), or a resumed one continued.
    fn start(parts: &Parts, system: &str, resumed: Option<Resumed>, settings: &Settings) -> Talk {
        let mut messages = vec![Message::System {
            content: system.to_string(),
        }];
        let (store, untrusted) = match resumed {
            Some((mut store, earlier, _, skipped)) => {
                warn_skipped(&store, skipped);
                messages.extend(earlier);
                // Which messages carry untrusted text: a resumed conversation's are in its file.
                let untrusted = store.untrusted();
                (Some(store), untrusted)
            }
            None => {
                let store = new_store(&parts.provider_label(), Mode::Repl, settings);
                (store, Vec::new())
            }
        };
        Talk {
            store,
            messages,
            untrusted,
        }
    }

    /// One question and the turn that answers it, saved before and after; what the agent keeps
    /// across turns comes back.
    async fn ask(
        &mut self,
        input: String,
        parts: &Parts,
        session: &mut Session<'_>,
        kept: Kept,
        settings: &Settings,
    ) -> Kept {
        // Asking again after a failed turn (the question is still the last message): sending
        // it twice would make the model see the question twice.
        if !is_retry(&self.messages, &input) {
            self.messages.push(Message::User { content: input });
        }
        self.trim(parts, &kept.mode);
        // The question is on disk before the turn: a crash or a kill mid-reply keeps it.
        save_or_warn(&mut self.store, &self.messages);
        let mut agent = parts.agent_with(settings, kept.gate, kept.mode);
        agent.untrusted = std::mem::take(&mut self.untrusted);
        let ended = shown(session.turn(&mut agent, &mut self.messages).await);
        let Agent {
            gate,
            mode,
            untrusted,
            ..
        } = agent;
        self.untrusted = untrusted;
        if let Ended::Interrupted = ended {
            // The agent has kept what was shown and answered the calls it cut short.
            ui::to_stderr("^C (reply cancelled)");
        }
        save_or_warn(&mut self.store, &self.messages);
        save_marks(&mut self.store, &self.untrusted);
        Kept { gate, mode }
    }

    /// Drops the oldest whole turns to stay within the context budget, said once on stderr.
    /// What the agent adds to the instructions on each request (the tools' section of a
    /// prompt-based format) counts against the budget too.
    fn trim(&mut self, parts: &Parts, mode: &ToolMode) {
        let tool_section = mode.system_section(&parts.registry.specs()).len() / 4;
        let budget = CONTEXT_BUDGET.saturating_sub(tool_section);
        let dropped = trim_to_budget(&mut self.messages, budget);
        if dropped > 0 {
            ui::to_stderr(&format!(
                "(dropped the {dropped} oldest messages to stay within the context budget)"
            ));
            if let Some(store) = self.store.as_mut() {
                store.forget_dropped(dropped);
            }
        }
    }
}

fn new_editor(
    parts: &Parts,
    history: Option<&PathBuf>,
) -> Result<Editor<ReplHelper, DefaultHistory>, String> {
    let config = Config::builder()
        .max_history_size(HISTORY_SIZE)
        .map_err(|err| err.to_string())?
        .history_ignore_dups(true)
        .map_err(|err| err.to_string())?
        .auto_add_history(false)
        .build();
    let mut editor = Editor::with_config(config).map_err(|err| err.to_string())?;
    editor.set_helper(Some(ReplHelper {
        tools: tool_names(parts),
    }));
    if let Some(path) = history {
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        // An existing file (even empty) makes rustyline append under its lock; with none it
        // creates one by truncating, which races another REPL starting at the same moment.
        let _ = crate::journal::open_append(path);
        match editor.load_history(path) {
            Err(ReadlineError::Io(err)) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => set_aside_history(path, &err),
            Ok(()) => {}
        }
    }
    Ok(editor)
}

/// A history file rustyline cannot read (not UTF-8, cut off) is moved aside with one warning,
/// so the REPL starts and new lines are saved again.
fn set_aside_history(path: &std::path::Path, err: &ReadlineError) {
    let aside = path.with_extension("corrupt");
    let moved = std::fs::rename(path, &aside).is_ok();
    ui::to_stderr(&format!(
        "ai: warning: the history file {} is unreadable ({err}){}",
        path.display(),
        if moved {
            format!("; moved to {}", aside.display())
        } else {
            String::new()
        }
    ));
}

/// Whether `input` repeats the last message, a question that got no reply.
fn is_retry(messages: &[Message], input: &str) -> bool {
    matches!(messages.last(), Some(Message::User { content }) if content == input)
}

/// One input: a line, a line continued with `\`, or a `"""` block. `None` for an empty line.
fn read_input(
    editor: &mut Editor<ReplHelper, DefaultHistory>,
    prompt: &str,
) -> Result<Option<String>, ReadlineError> {
    let first = editor.readline(prompt)?;
    if first.trim() == "\"\"\"" {
        let mut lines = Vec::new();
        loop {
            let line = editor.readline("... ")?;
            if line.trim() == "\"\"\"" {
                break;
            }
            lines.push(line);
        }
        return Ok(Some(lines.join("\n")).filter(|t| !t.trim().is_empty()));
    }
    let mut text = first;
    while text.ends_with('\\') {
        text.pop();
        text.push('\n');
        text.push_str(&editor.readline("... ")?);
    }
    let text = text.trim().to_string();
    Ok((!text.is_empty()).then_some(text))
}

enum Slash {
    Done,
    Clear,
    /// Another model: how tools are called may change with it.
    Model,
    Exit,
}

fn slash(input: &str, parts: &mut Parts, paths: &Paths, messages: &[Message]) -> Slash {
    let mut words = input.split_whitespace();
    let command = words.next().unwrap_or_default();
    let args: Vec<&str> = words.collect();
    match command {
        "/exit" | "/quit" => return Slash::Exit,
        "/clear" => return Slash::Clear,
        "/help" => {
            let lines: Vec<String> = COMMANDS
                .iter()
                .map(|(c, what)| format!("  {c:<9} {what}"))
                .collect();
            ui::to_stderr(&format!(
                "{}\n  A line ending in \\ continues; \"\"\" starts and ends a block.",
                lines.join("\n")
            ));
        }
        "/model" => match args.first() {
            Some(name) => {
                parts.provider.set_model((*name).to_string());
                ui::to_stderr(&format!("(model: {name})"));
                return Slash::Model;
            }
            None => ui::to_stderr(&format!(
                "model: {} via {}",
                parts.provider.model(),
                parts.provider.name()
            )),
        },
        "/tools" => match (args.first(), args.get(1)) {
            (Some(&verb @ ("enable" | "disable")), Some(name)) => {
                if parts.registry.set_enabled(name, verb == "enable") {
                    ui::to_stderr(&format!("({name} {verb}d)"));
                } else {
                    ui::to_stderr(&format!("no tool named {name}"));
                }
            }
            _ => {
                let lines: Vec<String> = parts
                    .registry
                    .all()
                    .into_iter()
                    .map(|(name, on)| format!("  {name:<16} {}", if on { "on" } else { "off" }))
                    .collect();
                ui::to_stderr(&lines.join("\n"));
            }
        },
        "/history" => {
            let lines: Vec<String> = recent(paths, 10)
                .into_iter()
                .map(|s| {
                    format!(
                        "  {}  {}  {:>3} turns  {:<11} {}",
                        s.id,
                        utc_minute(s.started_unix_ms),
                        s.turns,
                        s.status,
                        ui::sanitize(&s.first_question)
                    )
                })
                .collect();
            ui::to_stderr(&if lines.is_empty() {
                "(no saved conversations)".to_string()
            } else {
                lines.join("\n")
            });
        }
        "/save" => match args.first() {
            Some(file) => match std::fs::write(file, markdown(messages)) {
                Ok(()) => ui::to_stderr(&format!("(saved to {file})")),
                Err(err) => ui::to_stderr(&format!("ai: error: cannot write {file}: {err}")),
            },
            None => ui::to_stderr("usage: /save FILE"),
        },
        other => ui::to_stderr(&format!("unknown command {other}; /help lists them")),
    }
    Slash::Done
}

/// The conversation as Markdown, for `/save`.
fn markdown(messages: &[Message]) -> String {
    let mut out = String::from("# Conversation with ai\n");
    for message in messages {
        match message {
            Message::System { .. } => {}
            Message::User { content } => out.push_str(&format!("\n## You\n\n{content}\n")),
            Message::Assistant {
                content,
                tool_calls,
            } => {
                if !content.is_empty() {
                    out.push_str(&format!("\n## ai\n\n{content}\n"));
                }
                for call in tool_calls {
                    out.push_str(&format!("\n> tool `{}` {}\n", call.name, call.arguments));
                }
            }
            Message::Tool { .. } => {}
        }
    }
    out
}

/// Shows how a turn ended (its error said on stderr, its result to the front end); returns how
/// it ended.
fn shown(turned: Turned) -> Ended {
    let Turned {
        ended,
        recorder,
        mut frontend,
    } = turned;
    match &ended {
        Ended::Turn(end) => {
            let (status, error, report) = if end.status == RunStatus::Ok {
                empty_or_ok(recorder.answer.as_str())
            } else {
                (end.status, end.error.clone(), end.report.clone())
            };
            if let Some(report) = &report {
                ui::to_stderr(&report.to_string());
            }
            let result = recorder.finish(status, error, 0);
            frontend.handle(&Event::RunCompleted { result });
        }
        Ended::Interrupted | Ended::PipeClosed => {
            let result = recorder.finish(RunStatus::Interrupted, None, 0);
            frontend.handle(&Event::RunCompleted { result });
        }
    }
    ended
}
