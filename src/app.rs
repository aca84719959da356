//! The top: turns a parsed command line into a run (settings, endpoint, tools, the loop, a front
//! end) and the run into an exit code. Ctrl-C and a closed stdout are handled here.

use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use crate::agent::{
    Agent, Gate, Limits, Recorder, Sandbox, ToolMode, TurnEnd, millis, system_prompt,
};
use crate::audit::{AuditLog, state_dir};
use crate::cli::Cli;
use crate::config::{Env, FileLayer, Secret, Settings, config_path, resolve};
use crate::error::{ConfigError, ExitCode, Report};
use crate::policy::{Policy, Roots, assess_command, sandbox};
use crate::protocol::{ErrorKind, Event, Message, RunError, RunStatus};
use crate::provider::{HttpClient, SERVICES, provider_for, select_endpoint};
use crate::tool::{ExecSettings, Registry, ToolContext, WebBackend, WebSettings};
use crate::toolformat::{self, Family, format_for};
use crate::ui::{self, TerminalAsker, frontend_for};

/// Most bytes of piped stdin added to the prompt.
const STDIN_MAX: usize = 200 * 1024;

/// Runs `ai` and returns the process exit code.
pub fn run(cli: Cli) -> i32 {
    let env = Env::from_process();
    if let Some(command) = &cli.check_command {
        return check_command(command, cli.json, &env);
    }
    if let Some(format) = &cli.parse_tool_calls {
        return parse_tool_calls(format);
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
            Ok(runtime) => runtime.block_on(list_models(&settings, &env, cli.json)),
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

/// `ai --list-models`: what the configured endpoint serves, one per line (a JSON array with --json).
async fn list_models(settings: &Settings, env: &Env, json: bool) -> i32 {
    let endpoint = match select_endpoint(settings, env) {
        Ok(endpoint) => endpoint,
        Err(err) => return fail(&Report::from(err)),
    };
    let http = match HttpClient::new(settings.http, &endpoint.base_url) {
        Ok(http) => http,
        Err(err) => return fail(&err.to_report()),
    };
    match provider_for(endpoint, http).list_models().await {
        Ok(models) => {
            let text = if json {
                serde_json::Value::from(models).to_string()
            } else {
                models.join("\n")
            };
            ui::to_stdout(&text);
            ExitCode::Ok.code()
        }
        Err(err) => fail(&err.to_report()),
    }
}

/// `ai --check-command CMD`: the policy's decision and its reasons.
fn check_command(command: &str, json: bool, env: &Env) -> i32 {
    let assessment = assess_command(command, env.get("HOME"));
    let text = if json {
        serde_json::to_string(&assessment).unwrap_or_default()
    } else {
        let verdict = serde_json::to_value(assessment.verdict)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default();
        assessment
            .reasons
            .iter()
            .map(|reason| format!("{verdict}: {reason}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    ui::to_stdout(&text);
    ExitCode::Ok.code()
}

/// `ai --parse-tool-calls FORMAT`: the calls found in model text read from stdin.
fn parse_tool_calls(format: &str) -> i32 {
    let Some(family) = Family::parse(format) else {
        return fail(&Report::from(ConfigError::Invalid {
            name: "--parse-tool-calls".into(),
            value: format.into(),
            expected: "generic, hermes, qwen, llama3, mistral or json".into(),
        }));
    };
    let mut text = String::new();
    if let Err(err) = std::io::stdin().read_to_string(&mut text) {
        return fail(&Report::new(
            ExitCode::Runtime,
            format!("cannot read stdin: {err}"),
        ));
    }
    let mut parsed = toolformat::parse(format_for(family, &[]).as_ref(), &text);
    parsed.content = parsed.content.trim().to_string();
    let value = serde_json::json!({
        "calls": parsed.calls.iter().map(|c| serde_json::json!({"name": c.name, "arguments": c.arguments})).collect::<Vec<_>>(),
        "content": parsed.content,
        "diagnostics": parsed.diagnostics,
    });
    ui::to_stdout(&value.to_string());
    ExitCode::Ok.code()
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

fn runtime() -> Result<tokio::runtime::Runtime, Report> {
    tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(|err| Report::new(ExitCode::Runtime, format!("cannot start: {err}")))
}

fn fail(report: &Report) -> i32 {
    ui::to_stderr(&report.to_string());
    report.exit.code()
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
    let registry = Registry::from_settings(settings, web);
    let specs = registry.specs();
    let gate = match Gate::new(
        settings.confirm,
        settings.approve_all,
        &settings.allow,
        Box::new(TerminalAsker),
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
    let mut system = system_prompt(&cwd, &registry.names());
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

enum Ended {
    Turn(TurnEnd),
    Interrupted,
    PipeClosed,
}
