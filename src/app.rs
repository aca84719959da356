//! The top: turns a parsed command line into a run (settings, endpoint, tools, the loop, a front
//! end) and the run into an exit code. Ctrl-C and a closed stdout are handled here.

use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use crate::agent::{
    Agent, Gate, Limits, NobodyAsker, Recorder, Sandbox, ToolMode, TurnEnd, millis, system_prompt,
};
use crate::audit::{AuditLog, state_dir};
use crate::cli::Cli;
use crate::commands;
use crate::config::{Env, FileLayer, OutputMode, Secret, Settings, config_path, resolve};
use crate::error::{ConfigError, ExitCode, Report};
use crate::policy::{Policy, Roots, sandbox};
use crate::protocol::{ErrorKind, Event, Message, RunError, RunStatus};
use crate::provider::{HttpClient, SERVICES, provider_for, select_endpoint};
use crate::shell::{command_instructions, context_file, extract_command, last_command};
use crate::tool::{ExecSettings, Registry, ToolContext, WebBackend, WebSettings};
use crate::ui::{self, TerminalAsker, fail, frontend_for};

/// Most bytes of piped stdin added to the prompt.
const STDIN_MAX: usize = 200 * 1024;

/// Runs `ai` and returns the process exit code.
pub fn run(cli: Cli) -> i32 {
    let env = Env::from_process();
    if let Some(code) = utility(&cli, &env) {
        return code;
    }
    let settings = match load_settings(&cli, &env) {
        Ok(settings) => settings,
        Err(report) => return fail(&report),
    };
    if cli.show_config {
        return show_config(&settings, &env);
    }
    if cli.list_models {
        return match runtime() {
            Ok(runtime) => runtime.block_on(commands::list_models(&settings, &env, cli.json)),
            Err(report) => fail(&report),
        };
    }
    let prompt = match read_prompt(&cli, &settings) {
        Ok(prompt) => prompt,
        Err(report) => return fail(&report),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            return fail(&Report::new(
                ExitCode::Runtime,
                format!("cannot start: {err}"),
            ));
        }
    };
    runtime.block_on(one_shot(&settings, &env, prompt))
}

/// Variables holding API keys: removed from the environment of commands the model runs.
fn key_variables() -> Vec<String> {
    let mut names: Vec<String> = SERVICES
        .iter()
        .filter_map(|s| s.key_var.map(String::from))
        .collect();
    names.extend(
        [
            "SWEBASH_AI_API_KEY",
            "SWEBASH_AI_WEB_API_KEY",
            "ANTHROPIC_API_KEY",
            "GEMINI_API_KEY",
            "GOOGLE_API_KEY",
            "BRAVE_API_KEY",
        ]
        .map(String::from),
    );
    names
}

/// The user's shell when commands written for POSIX shells run in it, else `/bin/sh`.
fn command_shell(env: &Env) -> PathBuf {
    match env.get("SHELL") {
        Some(shell)
            if ["bash", "zsh", "sh", "dash", "ksh"]
                .contains(&shell.rsplit('/').next().unwrap_or_default()) =>
        {
            PathBuf::from(shell)
        }
        _ => PathBuf::from("/bin/sh"),
    }
}

/// The commands that answer without settings or a conversation.
fn utility(cli: &Cli, env: &Env) -> Option<i32> {
    if let Some(command) = &cli.check_command {
        return Some(commands::check_command(command, cli.json, env));
    }
    if let Some(format) = &cli.parse_tool_calls {
        return Some(commands::parse_tool_calls(format));
    }
    if let Some(shell) = &cli.init {
        return Some(commands::init(shell, cli.key.as_deref(), cli.context, env));
    }
    if let Some(shell) = &cli.completions {
        return Some(commands::completions(shell));
    }
    cli.man.then(commands::man)
}

fn runtime() -> Result<tokio::runtime::Runtime, Report> {
    tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(|err| Report::new(ExitCode::Runtime, format!("cannot start: {err}")))
}

fn load_settings(cli: &Cli, env: &Env) -> Result<Settings, Report> {
    let file = match config_path(env) {
        Some(path) => FileLayer::load(&path)?,
        None => FileLayer::default(),
    };
    let settings = resolve(cli, env, &file)?;
    if !settings.unknown_file_keys.is_empty() && !cli.quiet {
        ui::to_stderr(&format!(
            "ai: warning: unknown keys in {}: {}",
            file.path
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
            settings.unknown_file_keys.join(", ")
        ));
    }
    Ok(settings)
}

fn show_config(settings: &Settings, env: &Env) -> i32 {
    let mut lines: Vec<String> = settings
        .shown
        .iter()
        .map(|s| format!("{:<32} {:<40} ({})", s.env_name, s.value, s.source))
        .collect();
    match select_endpoint(settings, env) {
        Ok(endpoint) => {
            lines.push(format!("{:<32} {}", "effective provider", endpoint.service));
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
    if ui::to_stdout(&lines.join("\n")) {
        0
    } else {
        ExitCode::Ok.code()
    }
}

/// The prompt from the arguments, with piped stdin appended as context (bounded).
fn read_prompt(cli: &Cli, settings: &Settings) -> Result<String, Report> {
    let mut prompt = cli.prompt.join(" ").trim().to_string();
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        let mut bytes = Vec::new();
        let mut handle = stdin.lock().take(STDIN_MAX as u64 + 1);
        handle
            .read_to_end(&mut bytes)
            .map_err(|err| Report::new(ExitCode::Runtime, format!("cannot read stdin: {err}")))?;
        let cut = bytes.len() > STDIN_MAX;
        bytes.truncate(STDIN_MAX);
        let text = String::from_utf8_lossy(&bytes);
        let text = text.trim_end();
        if !text.is_empty() {
            if cut && !settings.quiet {
                ui::to_stderr(&format!(
                    "ai: stdin is longer than {STDIN_MAX} bytes; only the first {STDIN_MAX} were sent"
                ));
            }
            let note = if cut {
                format!("\n[input cut: only its first {STDIN_MAX} bytes are shown]")
            } else {
                String::new()
            };
            prompt = if prompt.is_empty() {
                format!("{text}{note}")
            } else {
                format!("{prompt}\n\nInput from stdin:\n<stdin>\n{text}\n</stdin>{note}")
            };
        }
    }
    if prompt.is_empty() {
        return Err(Report::from(ConfigError::Usage("no prompt given".into()))
            .with_hint("ask a question: ai \"why does the build fail?\" (or see ai --help)"));
    }
    Ok(prompt)
}

async fn one_shot(settings: &Settings, env: &Env, prompt: String) -> i32 {
    let started = Instant::now();
    let endpoint = match select_endpoint(settings, env) {
        Ok(endpoint) => endpoint,
        Err(err) => return fail(&Report::from(err)),
    };
    let http = match HttpClient::new(settings.http, &endpoint.base_url) {
        Ok(http) => http,
        Err(err) => return fail(&err.to_report()),
    };
    let provider_key = endpoint.api_key.clone();
    let mut provider = provider_for(endpoint, http);
    if let Err(err) = provider.prepare().await {
        return fail(&err.to_report());
    }
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(err) => {
            return fail(&Report::new(
                ExitCode::Runtime,
                format!("cannot read the working directory: {err}"),
            ));
        }
    };
    let home: Option<PathBuf> = directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf());
    let temp = std::env::temp_dir();
    let policy = Policy {
        roots: Roots::new(&settings.fs_roots, &cwd, &temp, home.as_deref()),
        home: home.clone(),
    };
    let ctx = ToolContext {
        cwd: cwd.clone(),
        home,
        fs_max_size: settings.fs_max_size,
        exec: ExecSettings {
            shell: command_shell(env),
            timeout: settings.exec_timeout,
            strip_env: key_variables(),
        },
    };
    let web = WebSettings {
        backend: WebBackend::parse(&settings.web_provider).unwrap_or(WebBackend::DuckDuckGo),
        base_url: settings.web_url.clone(),
        api_key: settings.web_api_key.clone(),
        timeout: std::time::Duration::from_secs(15),
        min_interval: std::time::Duration::from_secs(1),
        max_per_turn: 5,
    };
    let command_mode = settings.output == OutputMode::Command;
    let mut offered = settings.clone();
    // The widget only looks things up; it never runs commands to find an answer.
    offered.tools.exec &= !command_mode;
    let registry = Registry::from_settings(&offered, web);
    let specs = registry.specs();
    let gate = match Gate::new(
        settings.confirm,
        settings.approve_all,
        &settings.allow,
        if command_mode {
            Box::new(NobodyAsker)
        } else {
            Box::new(TerminalAsker)
        },
    ) {
        Ok(gate) => gate,
        Err(message) => return fail(&Report::from(ConfigError::Usage(message))),
    };
    let secrets: Vec<Secret> = [&settings.api_key, &provider_key, &settings.web_api_key]
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    let mut audit = state_dir(env).and_then(|dir| AuditLog::open(&dir, &secrets));
    let mut agent = Agent {
        provider: provider.as_ref(),
        registry: &registry,
        ctx: &ctx,
        policy: &policy,
        gate,
        sandbox: Sandbox::new(sandbox::launcher_prefix(
            settings.sandbox,
            policy.roots.dirs(),
        )),
        limits: Limits {
            max_iterations: settings.max_iterations,
            max_tool_calls: settings.max_tool_calls,
        },
        tool_choice: settings.tool_choice.clone(),
        stream: settings.stream,
        mode: ToolMode::from_settings(
            settings.tool_format,
            provider.model(),
            &specs,
            settings.constrain,
        ),
    };
    let mut system = if command_mode {
        let shell = command_shell(env);
        let shell = shell
            .file_name()
            .map_or("sh".into(), |n| n.to_string_lossy().into_owned());
        command_instructions(&shell, std::env::consts::OS)
    } else {
        system_prompt(&cwd, &registry.names())
    };
    if let Some((status, command)) =
        state_dir(env).and_then(|dir| last_command(&context_file(&dir)))
    {
        system.push_str(&format!(
            "\n\nThe user's last shell command was `{command}`; it exited with status {status}."
        ));
    }
    let section = agent.mode.system_section(&specs);
    if !section.is_empty() {
        system.push_str("\n\n");
        system.push_str(&section);
    }
    let mut messages = vec![
        Message::System { content: system },
        Message::User { content: prompt },
    ];

    let mut frontend = frontend_for(settings.output, settings.quiet);
    let mut recorder = Recorder::default();
    let pipe_closed = Arc::new(tokio::sync::Notify::new());
    let ended = {
        let closed = Arc::clone(&pipe_closed);
        let mut emit = |event: &Event| {
            recorder.observe(event);
            if let Some(audit) = audit.as_mut() {
                audit.observe(event);
            }
            frontend.handle(event);
            if frontend.broken() {
                closed.notify_one();
            }
        };
        emit(&Event::RunStarted {
            provider: provider.name().to_string(),
            model: provider.model().to_string(),
            tool_format: agent.mode.name().into(),
        });
        tokio::select! {
            end = agent.run_turn(&mut messages, &mut emit) => Ended::Turn(end),
            _ = tokio::signal::ctrl_c() => Ended::Interrupted,
            () = pipe_closed.notified() => Ended::PipeClosed,
        }
    };
    let (status, error, report) = match ended {
        Ended::Turn(TurnEnd {
            status,
            error,
            report,
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
    let result = recorder.finish(status, error, millis(started));
    if command_mode && status == RunStatus::Ok {
        return print_command(&result.answer);
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
        RunStatus::Interrupted => ExitCode::Interrupted,
        RunStatus::Limit => ExitCode::Limit,
        RunStatus::Denied => ExitCode::Denied,
        RunStatus::Error => report.map_or(ExitCode::Runtime, |r| r.exit),
    }
    .code()
}

/// `ai --command`: exactly one command line on stdout, or nothing and a failure.
fn print_command(answer: &str) -> i32 {
    match extract_command(answer) {
        Some(command) => {
            if ui::to_stdout(&command) {
                ExitCode::Ok.code()
            } else {
                ExitCode::Runtime.code()
            }
        }
        None => fail(&Report::new(
            ExitCode::Runtime,
            "the model's answer held no command",
        )),
    }
}

enum Ended {
    Turn(TurnEnd),
    Interrupted,
    PipeClosed,
}
