//! The top: turns a parsed command line into a run (settings, endpoint, tools, the loop, a front
//! end) and the run into an exit code. Ctrl-C and a closed stdout are handled here.

use std::io::IsTerminal;
use std::time::Instant;

use crate::agent::{Recorder, TurnEnd, millis};
use crate::cli::{Cli, Mode};
use crate::commands;
pub use crate::config::Env;
use crate::config::{
    Diagnostics, FetchNeeds, FileLayer, Flags, OutputMode, Paths, Settings, project_doc_paths,
    resolve,
};
use crate::conversation::ConversationStore;
use crate::conversation::Mode as SavedAs;
use crate::error::{ConfigError, ExitCode, Report};
use crate::excerpt::read_excerpt;
use crate::policy::{Policy, Verdict};
use crate::protocol::{ErrorKind, Event, Message, RunError, RunStatus};
use crate::provider::select_endpoint;
use crate::session::{
    CONTEXT_BUDGET, Ended, Interrupt, Parts, Session, SetupError, Turned, empty_or_ok,
    load_output_schema, new_store, resume_note, save_marks, save_or_warn, trim_to_budget,
    unknown_conversation, warn_skipped,
};
use crate::shell::extract_command;
use crate::ui::{self, fail, frontend_for};

/// Most bytes of piped stdin kept from its start and from its end: the end gets more, since a
/// failing build or test says why last.
const STDIN_HEAD: usize = 48 * 1024;
const STDIN_TAIL: usize = 152 * 1024;

/// What must happen first, while `ai` is one thread: the environment read into its snapshot, the
/// keys in it wiped where the commands ai runs could read them, and the panic hook installed.
pub fn start() -> Env {
    let env = Env::from_process();
    let secrets: Vec<&str> = crate::config::secret_vars().collect();
    crate::environ::protect(&secrets);
    install_panic_hook(&env);
    env
}

/// Installs the panic hook (with a backtrace if `RUST_BACKTRACE` asks) before anything else
/// runs; `SWEBASH_AI_TEST_PANIC` then panics, so the test suite can check the hook on the real
/// binary (there is no known panic to trigger).
fn install_panic_hook(env: &Env) {
    let diagnostics = Diagnostics::new(env);
    ui::install_panic_hook(diagnostics.backtrace);
    if diagnostics.test_panic {
        panic!("test panic requested by SWEBASH_AI_TEST_PANIC");
    }
}

/// The command line's setting flags as `config` takes them.
pub(crate) fn flags(cli: &Cli) -> Flags {
    Flags {
        model: cli.model.clone(),
        provider: cli.provider.clone(),
        base_url: cli.base_url.clone(),
        tool_format: cli.tool_format.clone(),
        no_stream: cli.no_stream,
        tools: cli.tools.clone(),
        no_tools: cli.no_tools,
        max_iterations: cli.max_iterations.clone(),
        yes: cli.yes,
        allow: cli.allow.clone(),
        sandbox: cli.sandbox.clone(),
        json: cli.json,
        jsonl: cli.jsonl,
        command: cli.command,
        shell: cli.shell.clone(),
        quiet: cli.quiet,
        output_schema: cli.output_schema.clone(),
    }
}

/// Runs `ai` in the environment `env` (the process's, snapshotted once) and returns the process
/// exit code.
pub fn run(cli: Cli, env: Env) -> i32 {
    let started = Instant::now();
    let mode = match cli.mode() {
        Ok(mode) => mode,
        Err(message) => {
            let report = Report::from(ConfigError::Usage(message));
            let output = crate::config::output_mode(&flags(&cli));
            return fail_run(output, &report.into(), started);
        }
    };
    if let Some(code) = utility(&mode, &cli, &Paths::new(&env)) {
        return code;
    }
    let output = run_output(&cli, &mode);
    let settings = match load_settings(&cli, &env) {
        Ok(settings) => settings,
        Err(report) => return fail_run(output, &report.into(), started),
    };
    match mode {
        Mode::ShowConfig => show_config(&settings),
        Mode::CheckCommand(command) => {
            let sandbox = |fetch: &FetchNeeds| sandbox_report(&settings, Some(fetch));
            commands::check_command(&command, cli.json, &settings, &sandbox)
        }
        Mode::ListTools => on_runtime(commands::list_tools(&settings, cli.json)),
        Mode::ListModels => on_runtime(commands::list_models(&settings, cli.json)),
        Mode::Pull(model) => on_runtime(commands::pull(&settings, &model)),
        Mode::Interactive => {
            let (resume, words) = resume_and_prompt(&cli, &settings);
            // `ai -i "prompt"`: the words are the first turn, not dropped.
            let first = Some(words.join(" ").trim().to_string()).filter(|p| !p.is_empty());
            on_runtime(crate::repl::run(&settings, resume.as_deref(), first))
        }
        _ => one_shot(&cli, &settings, output, started),
    }
}

/// A one-shot run (`ai PROMPT`, `ai --command PROMPT`).
fn one_shot(cli: &Cli, settings: &Settings, output: OutputMode, started: Instant) -> i32 {
    let (resume, words) = resume_and_prompt(cli, settings);
    let prompt = match read_prompt(&words, settings) {
        Ok(prompt) => prompt,
        Err(report) => return fail_run(output, &report.into(), started),
    };
    let run = OneShot {
        settings,
        resume: resume.as_deref(),
        started,
    };
    match runtime() {
        Ok(runtime) => runtime.block_on(run.run(prompt)),
        Err(report) => fail_run(output, &report.into(), started),
    }
}

/// Runs `future` to its exit code on a runtime of its own.
fn on_runtime(future: impl std::future::Future<Output = i32>) -> i32 {
    match runtime() {
        Ok(runtime) => runtime.block_on(future),
        Err(report) => fail(&report),
    }
}

/// The output of a run as the flags ask for it, before settings are read: the utilities that
/// print their own JSON (or none) are not runs.
fn run_output(cli: &Cli, mode: &Mode) -> OutputMode {
    match mode {
        Mode::Ask | Mode::Widget => crate::config::output_mode(&flags(cli)),
        _ => OutputMode::Plain,
    }
}

/// `--resume [ID]` and the prompt's words. clap gives `ai --resume "and the second error?"`
/// the question as the ID: in one-shot mode, a value that is no saved conversation's id and
/// does not look like one (`1732000000000-4242`) is the start of the prompt.
fn resume_and_prompt(cli: &Cli, settings: &Settings) -> (Option<String>, Vec<String>) {
    let mut words = cli.prompt.clone();
    let resume = cli.resume.clone().map(|value| {
        let an_id = value.is_empty()
            || cli.interactive
            || looks_like_id(&value)
            || crate::conversation::exists(&settings.paths, &value);
        if an_id {
            value
        } else {
            words.insert(0, value);
            String::new()
        }
    });
    (resume, words)
}

/// `1732000000000-4242`: a start time in milliseconds and a process id.
fn looks_like_id(value: &str) -> bool {
    let digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    value
        .split_once('-')
        .is_some_and(|(time, pid)| digits(time) && digits(pid))
}

/// Ends a run that failed outside its turn (a bad setting, no provider, a server that cannot
/// be reached, Ctrl-C while setting up): the report on stderr and, with `--json` or `--jsonl`,
/// the result object every run ends with, so `ai --json ... | jq` always has one to read.
fn fail_run(output: OutputMode, err: &SetupError, started: Instant) -> i32 {
    if matches!(output, OutputMode::Json | OutputMode::Jsonl) {
        let status = match err.kind {
            ErrorKind::Interrupted => RunStatus::Interrupted,
            _ => RunStatus::Error,
        };
        let error = RunError {
            kind: err.kind,
            message: err.report.message.clone(),
        };
        let result = Recorder::default().finish(status, Some(error), millis(started));
        frontend_for(output, true, false).handle(&Event::RunCompleted { result });
    }
    if err.kind == ErrorKind::Interrupted {
        return err.report.exit.code();
    }
    fail(&err.report)
}

/// The commands that answer without settings or a conversation (a bad setting must not stop
/// them: they need only the paths).
fn utility(mode: &Mode, cli: &Cli, paths: &Paths) -> Option<i32> {
    Some(match mode {
        Mode::ParseToolCalls(format) => commands::parse_tool_calls(format),
        Mode::Init(shell) => commands::init(shell, cli.key.as_deref(), cli.context, paths),
        Mode::History => commands::history(paths, cli.json),
        Mode::Stats => commands::stats(paths, cli.since.as_deref(), cli.json),
        Mode::Completions(shell) => commands::completions(shell),
        Mode::Man => commands::man(),
        _ => return None,
    })
}

fn runtime() -> Result<tokio::runtime::Runtime, Report> {
    tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(|err| Report::from_error(ExitCode::Runtime, "cannot start", &err))
}

fn load_settings(cli: &Cli, env: &Env) -> Result<Settings, Report> {
    let file = match &Paths::new(env).config_file {
        Some(path) => FileLayer::load(path)?,
        None => FileLayer::default(),
    };
    let settings = resolve(&flags(cli), env, &file)?;
    if !cli.quiet {
        for warning in &settings.unknown_env {
            ui::to_stderr(&format!("ai: warning: {warning}"));
        }
    }
    if !cli.quiet {
        for warning in &settings.unknown_file_keys {
            ui::to_stderr(&format!("ai: warning: {warning}"));
        }
    }
    Ok(settings)
}

fn show_config(settings: &Settings) -> i32 {
    let mut lines: Vec<String> = settings
        .shown
        .iter()
        .map(|s| format!("{:<32} {:<40} ({})", s.env_name, s.value, s.source))
        .collect();
    match select_endpoint(settings) {
        Ok(endpoint) => {
            lines.push(format!("{:<32} {}", "effective provider", endpoint.service));
            lines.push(format!(
                "{:<32} {}",
                "provider chosen because", endpoint.why
            ));
            if let Some(model) = &endpoint.local {
                lines.push(format!("{:<32} {}", "local model", local_model_line(model)));
            }
            lines.push(format!(
                "{:<32} {}",
                "effective base URL", endpoint.base_url
            ));
            lines.push(format!(
                "{:<32} {}",
                "effective model",
                endpoint
                    .model
                    .as_deref()
                    .unwrap_or("(first model the server lists)")
            ));
            lines.push(format!(
                "{:<32} {}",
                "effective API key",
                if endpoint.api_key.is_some() {
                    "<redacted>"
                } else {
                    "(none)"
                }
            ));
        }
        Err(err) => lines.push(format!("{:<32} (none: {err})", "effective provider")),
    }
    for line in sandbox_report(settings, None) {
        lines.push(format!("{:<32} {line}", "sandbox"));
    }
    lines.push(format!(
        "{:<32} {}",
        "project instructions",
        project_docs_line(settings)
    ));
    if ui::to_stdout(&lines.join("\n")) {
        0
    } else {
        ExitCode::Ok.code()
    }
}

/// The embedded engine's model, for `--show-config`: what it is and whether it is on disk.
fn local_model_line(model: &crate::engine::model::LocalModel) -> String {
    use crate::engine::model::OnDisk;
    let size = model
        .shown_size()
        .map(|n| format!(", {}", crate::engine::catalogue::human(n)))
        .unwrap_or_default();
    let pull = model.download.as_ref().map(|d| d.pull.as_str());
    let state = match (model.on_disk(), pull) {
        (OnDisk::Ready, _) => "on disk".to_string(),
        (OnDisk::Missing, Some(pull)) => format!("not downloaded: ai --pull {pull}"),
        (OnDisk::Missing, None) => "missing".to_string(),
        (OnDisk::Bad(why), _) => format!("not usable: {why}"),
    };
    format!("{}{size} at {} ({state})", model.name, model.file.display())
}

/// The AGENTS.md files a run here would read, for `--show-config`.
fn project_docs_line(settings: &Settings) -> String {
    if !settings.project_doc {
        return "(off: SWEBASH_AI_PROJECT_DOC)".into();
    }
    let found: Vec<String> = project_doc_paths(&settings.paths)
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    if found.is_empty() {
        "(no AGENTS.md found)".into()
    } else {
        found.join(", ")
    }
}

/// What the sandbox enforces on this kernel for a session started here, and for `command`
/// (`--show-config`, `--check-command`).
fn sandbox_report(settings: &Settings, fetch: Option<&FetchNeeds>) -> Vec<String> {
    let cwd = (settings.paths.cwd.clone()).unwrap_or_else(|| std::path::PathBuf::from("."));
    let plan = crate::session::sandbox_plan(settings, &cwd);
    let capabilities = plan.probe();
    let mut lines = capabilities.lines(&plan);
    let fetch = fetch.cloned().unwrap_or_default();
    // Only a fetch gets the network and the managers' caches (a build or test gets neither).
    if capabilities.filesystem && fetch.network {
        let names: Vec<&str> = fetch.managers.iter().map(|f| f.name()).collect();
        let when = if fetch.prefetch.is_empty() {
            String::new()
        } else {
            format!(
                " while `{}` runs first; the command itself then runs offline",
                fetch.prefetch.join(" ")
            )
        };
        lines.push(format!(
            "this command: network open (TCP 80/443, UDP) and caches writable for {}{when}",
            names.join(", ")
        ));
    }
    lines
}

/// The prompt from the arguments, with piped stdin appended as context (bounded).
fn read_prompt(words: &[String], settings: &Settings) -> Result<String, Report> {
    let mut prompt = words.join(" ").trim().to_string();
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        let excerpt = read_excerpt(stdin.lock(), STDIN_HEAD, STDIN_TAIL)
            .map_err(|err| Report::from_error(ExitCode::Runtime, "cannot read stdin", &err))?;
        let text = excerpt.to_text();
        let text = text.trim_end();
        if !text.is_empty() {
            if excerpt.is_cut() && !settings.quiet {
                ui::to_stderr(&format!(
                    "ai: stdin is long: its start and end were sent, {} lines ({} bytes) in the middle left out",
                    excerpt.omitted_lines, excerpt.omitted_bytes
                ));
            }
            prompt = if prompt.is_empty() {
                text.to_string()
            } else {
                format!("{prompt}\n\nInput from stdin:\n<stdin>\n{text}\n</stdin>")
            };
        }
    }
    if prompt.is_empty() {
        return Err(Report::from(ConfigError::Usage("no prompt given".into()))
            .with_hint("ask a question: ai \"why does the build fail?\" (or see ai --help)"));
    }
    Ok(prompt)
}

/// A one-shot run: one question (a follow-up with `--resume`), one turn, one result.
struct OneShot<'a> {
    settings: &'a Settings,
    resume: Option<&'a str>,
    started: Instant,
}

impl OneShot<'_> {
    async fn run(&self, prompt: String) -> i32 {
        let settings = self.settings;
        // Read before anything starts: a bad schema file is a usage error, not a wasted request.
        let output = match load_output_schema(settings) {
            Ok(output) => output.filter(|_| !settings.command_mode()),
            Err(report) => return self.fail(&report.into()),
        };
        // Ctrl-C from the start: while the endpoint is chosen and the model asked for, too.
        let mut interrupt = Interrupt::listen();
        let prepared = tokio::select! {
            prepared = Parts::prepare(settings) => prepared,
            () = interrupt.pressed() => Err(SetupError::interrupted()),
        };
        let parts = match prepared {
            Ok(parts) => parts,
            Err(err) => return self.fail(&err),
        };
        let ready = parts
            .agent(settings)
            .and_then(|agent| Ok((agent, self.conversation(&parts, prompt)?)));
        let (mut agent, (mut store, mut messages)) = match ready {
            Ok(ready) => ready,
            Err(report) => return self.fail(&report.into()),
        };
        agent.output = output;
        agent.untrusted = store.as_mut().map(|s| s.untrusted()).unwrap_or_default();
        let mut session = Session::new(settings, Some(interrupt), parts.audit_log());
        // The question is on disk before the turn: a crash or a kill mid-reply keeps it.
        save_or_warn(&mut store, &messages);
        let Turned {
            ended,
            recorder,
            mut frontend,
        } = session.turn(&mut agent, &mut messages).await;
        save_or_warn(&mut store, &messages);
        save_marks(&mut store, &agent.untrusted);
        parts.mcp.shutdown().await;
        // The format in force at the end (a server that refused native tools switches it).
        let tool_format = agent.mode.name();
        self.finish(
            ended,
            &recorder,
            tool_format,
            frontend.as_mut(),
            &parts.policy,
        )
    }

    fn fail(&self, err: &SetupError) -> i32 {
        fail_run(self.settings.output, err, self.started)
    }

    /// The messages of the run and where they are saved: a new conversation, or with
    /// `--resume` the saved one continued (its file goes on growing).
    fn conversation(
        &self,
        parts: &Parts,
        prompt: String,
    ) -> Result<(Option<ConversationStore>, Vec<Message>), Report> {
        let settings = self.settings;
        let mut messages = vec![Message::System {
            content: parts.instructions(),
        }];
        let resumed = match self.resume {
            Some(id) => resume(settings, id)?,
            None => None,
        };
        let store = match resumed {
            Some((store, earlier)) => {
                messages.extend(earlier);
                Some(store)
            }
            None => {
                let mode = if settings.command_mode() {
                    SavedAs::Command
                } else {
                    SavedAs::OneShot
                };
                new_store(&parts.provider_label(), mode, settings)
            }
        };
        messages.push(Message::User { content: prompt });
        let dropped = trim_to_budget(&mut messages, CONTEXT_BUDGET);
        if dropped > 0 && !settings.quiet {
            ui::to_stderr(&format!(
                "ai: dropped the {dropped} oldest messages to stay within the context budget"
            ));
        }
        Ok((store, messages))
    }

    /// The run's result, printed, and its exit code.
    fn finish(
        &self,
        ended: Ended,
        recorder: &Recorder,
        tool_format: &str,
        frontend: &mut dyn ui::Frontend,
        policy: &Policy,
    ) -> i32 {
        let (status, error, report) = match ended {
            Ended::Turn(TurnEnd {
                status,
                error,
                report,
                ..
            }) => (status, error, report),
            Ended::Interrupted => (
                RunStatus::Interrupted,
                Some(RunError {
                    kind: ErrorKind::Interrupted,
                    message: "interrupted".into(),
                }),
                None,
            ),
            Ended::PipeClosed => return ExitCode::Ok.code(),
        };
        let (status, error, report) = if status == RunStatus::Ok {
            empty_or_ok(recorder.answer.as_str())
        } else {
            (status, error, report)
        };
        let mut result = recorder.finish(status, error, millis(self.started));
        result.tool_format = tool_format.into();
        if self.settings.command_mode() && status == RunStatus::Ok {
            return print_command(recorder.answer.as_str(), self.settings, policy);
        }
        frontend.handle(&Event::RunCompleted { result });
        if frontend.broken() {
            return ExitCode::Ok.code();
        }
        if let Some(report) = &report {
            ui::to_stderr(&report.to_string());
        }
        match status {
            RunStatus::Ok => ExitCode::Ok,
            RunStatus::Empty => ExitCode::Runtime,
            RunStatus::Interrupted => ExitCode::Interrupted,
            RunStatus::Limit => ExitCode::Limit,
            RunStatus::Denied => ExitCode::Denied,
            RunStatus::Error => report.map_or(ExitCode::Runtime, |r| r.exit),
        }
        .code()
    }
}

/// The saved conversation `--resume [ID]` names (the last one when `id` is empty), said on
/// stderr; `None` (a new conversation, said too) when there is none to resume.
fn resume(
    settings: &Settings,
    id: &str,
) -> Result<Option<(ConversationStore, Vec<Message>)>, Report> {
    let named = Some(id).filter(|i| !i.is_empty());
    match ConversationStore::open(&settings.paths, named) {
        Some((store, earlier, summary, skipped)) => {
            if !settings.quiet {
                ui::to_stderr(&format!("ai:{}", resume_note(&summary)));
            }
            warn_skipped(&store, skipped);
            Ok(Some((store, earlier)))
        }
        None if named.is_some() => Err(unknown_conversation(id)),
        None => {
            if !settings.quiet {
                ui::to_stderr("ai: no conversation to resume; starting a new one");
            }
            Ok(None)
        }
    }
}

/// `ai --command`: exactly one command line on stdout, or nothing and one line on stderr that
/// the widget shows under the prompt. A command the policy would ask for or deny goes on the line
/// with a warning the widget shows (or, with `SWEBASH_AI_WIDGET_UNSAFE=refuse`, not at all):
/// the user presses Enter, not ai, so it must never be silent.
fn print_command(answer: &str, settings: &Settings, policy: &Policy) -> i32 {
    let command = match extract_command(answer, settings.foreign.path.as_deref()) {
        Ok(command) => command,
        Err(why) => return fail(&Report::new(ExitCode::Runtime, why)),
    };
    // The line is the user's to read and run: what could make it read differently from what it
    // is (bidi overrides, zero-width or control characters) never lands there.
    if !ui::is_clean(&command) {
        let shown = ui::visible(&command, 200);
        return fail(&Report::new(
            ExitCode::Runtime,
            format!(
                "the model's command holds control, bidi or zero-width characters, not put on \
                 the line: {shown}"
            ),
        ));
    }
    if let Some(warning) = unsafe_warning(&command, policy) {
        if settings.widget_refuse_unsafe {
            return fail(
                &Report::new(ExitCode::Runtime, format!("{warning}; not put on the line"))
                    .with_hint("SWEBASH_AI_WIDGET_UNSAFE=warn puts it there with this warning"),
            );
        }
        ui::to_stderr(&format!("ai: warning: {warning}"));
    }
    if ui::to_stdout(&command) {
        ExitCode::Ok.code()
    } else {
        ExitCode::Runtime.code()
    }
}

/// One line on what the policy would do with `command` were the model to run it, unless it
/// would run it without asking.
fn unsafe_warning(command: &str, policy: &Policy) -> Option<String> {
    let assessment = policy.command(command);
    let why = ui::sanitize(&assessment.reasons.join("; "));
    match assessment.verdict {
        Verdict::Allow => None,
        Verdict::Ask => Some(format!("ai would ask before running this: {why}")),
        Verdict::Deny => Some(format!("DANGER, ai would never run this: {why}")),
    }
}
