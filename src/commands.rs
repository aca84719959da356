//! The utility commands: each answers from the command line and exits, without a conversation
//! (`--check-command`, `--parse-tool-calls`, `--list-models`, `--init`, `--completions`, `--man`).

use std::io::Read;

use clap::CommandFactory;

use crate::audit::state_dir;
use crate::cli::Cli;
use crate::config::{Env, Settings};
use crate::error::{ConfigError, ExitCode, Report};
use crate::policy::{Policy, Roots, Verdict};
use crate::provider::{HttpClient, provider_for, select_endpoint};
use crate::shell::{Shell, context_file, init_script};
use crate::toolformat::{self, Family, format_for};
use crate::ui::{self, fail};

/// `ai --check-command CMD`: the policy's decision and its reasons, each simple command's verdict,
/// the allow rule that would approve it, and for a command that would run without asking, what
/// the sandbox it runs in enforces (`sandbox` lines).
pub fn check_command(
    command: &str,
    json: bool,
    settings: &Settings,
    env: &Env,
    sandbox: &[String],
) -> i32 {
    let rules = match crate::session::Parts::rules(settings) {
        Ok(rules) => rules,
        Err(report) => return fail(&report),
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("."));
    let home = env.get("HOME").map(std::path::PathBuf::from);
    let temp = std::env::temp_dir();
    let roots = Roots::new(&settings.fs_roots, &cwd, &temp, home.as_deref());
    let policy = Policy::new(roots, home, cwd, temp, rules.clone());
    let assessment = policy.command(command);
    let sandboxed = assessment.verdict == Verdict::Allow && !sandbox.is_empty();
    let approved_by: Vec<Option<String>> = assessment
        .commands
        .iter()
        .map(|unit| {
            (unit.verdict == Verdict::Ask)
                .then(|| rules.approving(&unit.command))
                .flatten()
        })
        .collect();
    let text = if json {
        let mut value = serde_json::to_value(&assessment).unwrap_or_default();
        if let Some(units) = value.get_mut("commands").and_then(|c| c.as_array_mut()) {
            for (unit, rule) in units.iter_mut().zip(&approved_by) {
                unit["approved_by"] = serde_json::json!(rule);
            }
        }
        if sandboxed {
            value["sandbox"] = serde_json::json!(sandbox);
        }
        value.to_string()
    } else {
        let mut lines: Vec<String> = assessment
            .reasons
            .iter()
            .map(|reason| format!("{}: {reason}", verdict_name(assessment.verdict)))
            .collect();
        if assessment.commands.len() > 1 || approved_by.iter().any(Option::is_some) {
            for (unit, rule) in assessment.commands.iter().zip(&approved_by) {
                let rule = rule
                    .as_ref()
                    .map(|r| format!(" (approved by {r})"))
                    .unwrap_or_default();
                lines.push(format!(
                    "  {} {}{rule}",
                    verdict_name(unit.verdict),
                    ui::sanitize(&unit.command)
                ));
            }
        }
        lines.extend(
            sandbox
                .iter()
                .filter(|_| sandboxed)
                .map(|line| format!("sandbox: {line}")),
        );
        lines.join("\n")
    };
    ui::to_stdout(&text);
    ExitCode::Ok.code()
}

fn verdict_name(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Allow => "allow",
        Verdict::Ask => "ask",
        Verdict::Deny => "deny",
    }
}

/// `ai --parse-tool-calls FORMAT`: the calls found in model text read from stdin.
pub fn parse_tool_calls(format: &str) -> i32 {
    let Some(family) = Family::parse(format) else {
        return fail(&Report::from(ConfigError::Invalid {
            name: "--parse-tool-calls".into(),
            value: format.into(),
            expected: "generic, hermes, qwen, llama3, mistral or json".into(),
        }));
    };
    let mut text = String::new();
    if let Err(err) = std::io::stdin().read_to_string(&mut text) {
        return fail(&Report::from_error(
            ExitCode::Runtime,
            "cannot read stdin",
            &err,
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

/// `ai --list-models`: what the configured endpoint serves, one per line (a JSON array with --json).
pub async fn list_models(settings: &Settings, env: &Env, json: bool) -> i32 {
    let endpoint = match select_endpoint(settings, env) {
        Ok(endpoint) => endpoint,
        Err(err) => return fail(&Report::from(err)),
    };
    let http = match HttpClient::new(settings.http, &endpoint.base_url) {
        Ok(http) => http,
        Err(err) => return fail(&err.to_report()),
    };
    match provider_for(endpoint, http, &settings.local)
        .list_models()
        .await
    {
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

/// `ai --init SHELL [--key KEY] [--context]`: the widget script to eval.
pub fn init(shell: &str, key: Option<&str>, context: bool, env: &Env) -> i32 {
    let Some(shell) = Shell::parse(shell) else {
        return usage("--init", shell, "bash, zsh or fish");
    };
    let context_path = if context {
        let Some(dir) = state_dir(env) else {
            return fail(&Report::new(
                ExitCode::Usage,
                "--context needs HOME or XDG_STATE_HOME",
            ));
        };
        if let Err(err) = std::fs::create_dir_all(&dir) {
            return fail(&Report::from_error(
                ExitCode::Runtime,
                format!("cannot create {}", dir.display()),
                &err,
            ));
        }
        Some(context_file(&dir))
    } else {
        None
    };
    match init_script(shell, key, context_path.as_deref()) {
        Ok(script) => {
            ui::to_stdout(script.trim_end());
            ExitCode::Ok.code()
        }
        Err(message) => fail(&Report::from(ConfigError::Usage(message))),
    }
}

/// `ai --list-tools`: every tool the model would see, where it comes from and when it asks.
pub async fn list_tools(settings: &Settings, json: bool) -> i32 {
    let (registry, mcp) = crate::session::tools(settings, false).await;
    let listing = registry.listing();
    mcp.shutdown().await;
    let text = if json {
        serde_json::Value::from(
            listing
                .iter()
                .map(|(name, source, asks)| serde_json::json!({"name": name, "source": source, "asks": asks}))
                .collect::<Vec<_>>(),
        )
        .to_string()
    } else {
        listing
            .iter()
            .map(|(name, source, asks)| format!("{name:<32} {source:<9} asks: {asks}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    ui::to_stdout(&text);
    ExitCode::Ok.code()
}

/// `ai --history`: recent saved conversations (a JSON array with --json).
pub fn history(env: &Env, json: bool) -> i32 {
    let conversations = crate::conversation::recent(env, 20);
    let text = if json {
        serde_json::Value::from(
            conversations
                .iter()
                .map(|c| {
                    serde_json::json!({"file": c.path.display().to_string(), "started_unix_ms": c.started_unix_ms,
                        "model": c.model, "messages": c.messages, "first_question": c.first_question})
                })
                .collect::<Vec<_>>(),
        )
        .to_string()
    } else if conversations.is_empty() {
        "(no saved conversations)".to_string()
    } else {
        conversations
            .iter()
            .map(|c| {
                format!(
                    "{}  {:<28} {:>3} msgs  {}",
                    c.started_unix_ms, c.model, c.messages, c.first_question
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    ui::to_stdout(&text);
    ExitCode::Ok.code()
}

/// `ai --completions SHELL`: a completion script generated from the command line definition.
pub fn completions(shell: &str) -> i32 {
    use clap_complete::Shell as Target;
    let target = match shell {
        "bash" => Target::Bash,
        "zsh" => Target::Zsh,
        "fish" => Target::Fish,
        "elvish" => Target::Elvish,
        "powershell" => Target::PowerShell,
        _ => {
            return usage(
                "--completions",
                shell,
                "bash, zsh, fish, elvish or powershell",
            );
        }
    };
    let mut out = Vec::new();
    clap_complete::generate(target, &mut Cli::command(), "ai", &mut out);
    ui::to_stdout(String::from_utf8_lossy(&out).trim_end());
    ExitCode::Ok.code()
}

/// `ai --man`: the man page, in roff.
pub fn man() -> i32 {
    let mut out = Vec::new();
    if let Err(err) = clap_mangen::Man::new(Cli::command()).render(&mut out) {
        return fail(&Report::from_error(
            ExitCode::Runtime,
            "cannot render the man page",
            &err,
        ));
    }
    ui::to_stdout(String::from_utf8_lossy(&out).trim_end());
    ExitCode::Ok.code()
}

fn usage(flag: &str, value: &str, expected: &str) -> i32 {
    fail(&Report::from(ConfigError::Invalid {
        name: flag.into(),
        value: value.into(),
        expected: expected.into(),
    }))
}
