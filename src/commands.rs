//! The utility commands: each answers from the command line and exits, without a conversation
//! (`--check-command`, `--parse-tool-calls`, `--list-models`, `--init`, `--completions`, `--man`,
//! `--pull`).

mod pull;

use std::io::Read;

use clap::CommandFactory;

use crate::cli::Cli;
use crate::config::{FetchNeeds, Paths, Settings};
use crate::error::{ConfigError, ExitCode, Report};
use crate::policy::{Approver, Policy, Roots, Verdict};
use crate::provider::{HttpClient, provider_for, select_endpoint};
use crate::shell::{Shell, context_file, init_script};
use crate::tool::{ExecTool, FilesystemTool, Registry, WebBackend, WebSearchTool, WebSettings};
use crate::toolformat::{self, Family, format_for};
use crate::ui::{self, fail};

pub(crate) use pull::pull;

/// `ai --check-command CMD`: the policy's decision and its reasons, each simple command's verdict,
/// the allow rule that would approve it, and for a command that would run without asking, what
/// the sandbox it runs in enforces (`sandbox` lines).
pub(crate) fn check_command(
    command: &str,
    json: bool,
    settings: &Settings,
    sandbox: &dyn Fn(&FetchNeeds) -> Vec<String>,
) -> i32 {
    let rules = match crate::session::Parts::rules(settings) {
        Ok(rules) => rules,
        Err(report) => return fail(&report),
    };
    let paths = &settings.paths;
    let cwd = (paths.cwd.clone()).unwrap_or_else(|| std::path::PathBuf::from("."));
    let home = paths.home.clone();
    let temp = paths.temp.clone();
    let roots = Roots::new(&settings.fs_roots, &cwd, &temp, home.as_deref());
    let policy = Policy::new(roots, home, cwd, temp, rules.clone());
    let assessment = policy.command(command);
    let sandbox = sandbox(&assessment.fetch);
    let sandboxed = assessment.verdict == Verdict::Allow && !sandbox.is_empty();
    let approved_by: Vec<Option<String>> = assessment
        .commands
        .iter()
        .map(|unit| {
            (unit.verdict == Verdict::Ask && unit.approver == Approver::Anyone)
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
        ui::json_escaped(&value.to_string())
    } else {
        let mut lines: Vec<String> = assessment
            .reasons
            .iter()
            .map(|reason| {
                let reason = ui::sanitize(reason);
                format!("{}: {reason}", verdict_name(assessment.verdict))
            })
            .collect();
        if assessment.commands.len() > 1 || approved_by.iter().any(Option::is_some) {
            for (unit, rule) in assessment.commands.iter().zip(&approved_by) {
                let rule = rule
                    .as_ref()
                    .map(|r| format!(" (approved by {})", ui::sanitize(r)))
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
                .map(|line| format!("sandbox: {}", ui::sanitize(line))),
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
pub(crate) fn parse_tool_calls(format: &str) -> i32 {
    let Some(family) = Family::parse(format) else {
        let names: Vec<&str> = Family::ALL.iter().map(|f| f.name()).collect();
        return fail(&Report::from(ConfigError::Invalid {
            name: "--parse-tool-calls".into(),
            value: format.into(),
            expected: format!("one of {}", names.join(", ")),
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
    // The built-in tools' schemas type the values of formats that carry raw text.
    let mut tools = Registry::default();
    tools.add(Box::new(FilesystemTool));
    tools.add(Box::new(ExecTool));
    tools.add(Box::new(WebSearchTool::new(WebSettings {
        backend: WebBackend::DuckDuckGo,
        base_url: None,
        api_key: None,
        timeout: std::time::Duration::from_secs(1),
        min_interval: std::time::Duration::ZERO,
        max_per_turn: 0,
    })));
    let mut parsed = toolformat::parse(format_for(family, &tools.specs()).as_ref(), &text);
    parsed.content = parsed.content.trim().to_string();
    let mut value = serde_json::json!({
        "calls": parsed.calls.iter().map(|c| serde_json::json!({"name": c.name, "arguments": c.arguments})).collect::<Vec<_>>(),
        "content": parsed.content,
        "diagnostics": parsed.diagnostics,
    });
    if !parsed.reasoning.trim().is_empty() {
        value["reasoning"] = parsed.reasoning.trim().into();
    }
    ui::to_stdout(&value.to_string());
    ExitCode::Ok.code()
}

/// `ai --list-models`: what the configured endpoint serves, one per line (a JSON array with --json).
pub(crate) async fn list_models(settings: &Settings, json: bool) -> i32 {
    let endpoint = match select_endpoint(settings) {
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
pub(crate) fn init(shell: &str, key: Option<&str>, context: bool, paths: &Paths) -> i32 {
    let Some(shell) = Shell::parse(shell) else {
        return usage("--init", shell, "bash, zsh or fish");
    };
    let context_path = if context {
        let Some(dir) = &paths.state_dir else {
            return fail(&Report::new(
                ExitCode::Usage,
                "--context needs HOME or XDG_STATE_HOME",
            ));
        };
        if let Err(err) = std::fs::create_dir_all(dir) {
            return fail(&Report::from_error(
                ExitCode::Runtime,
                format!("cannot create {}", dir.display()),
                &err,
            ));
        }
        Some(context_file(dir))
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
pub(crate) async fn list_tools(settings: &Settings, json: bool) -> i32 {
    let (registry, mcp) = crate::session::tools(settings).await;
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

/// `ai --stats [--since PERIOD]`: the metrics of the audit log (the rotated part first).
pub(crate) fn stats(paths: &Paths, since: Option<&str>, json: bool) -> i32 {
    let since_unix_ms = match since.map(|text| (text, crate::stats::parse_period(text))) {
        None => 0,
        Some((_, Some(period))) => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
            now.saturating_sub(period)
        }
        Some((text, None)) => return usage("--since", text, "a period such as 7d, 12h or 30m"),
    };
    let texts: Vec<String> = (paths.audit_log.as_ref())
        .map(|log| {
            [crate::audit::rotated(log), log.clone()]
                .iter()
                .filter_map(|path| std::fs::read(path).ok())
                .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                .collect()
        })
        .unwrap_or_default();
    let stats = crate::stats::compute(texts.iter().map(String::as_str), since_unix_ms);
    let text = if json {
        serde_json::to_string(&stats).unwrap_or_default()
    } else {
        crate::stats::table(&stats)
    };
    ui::to_stdout(&text);
    ExitCode::Ok.code()
}

/// `ai --history`: recent saved conversations, newest first, empty runs hidden (a JSON array
/// with --json). The id is what `ai -i --resume ID` takes.
pub(crate) fn history(paths: &Paths, json: bool) -> i32 {
    let conversations = crate::conversation::recent(paths, 20);
    let text = if json {
        serde_json::Value::from(
            conversations
                .iter()
                .map(|c| {
                    serde_json::json!({"id": c.id, "file": c.path.display().to_string(),
                        "started_unix_ms": c.started_unix_ms, "model": c.model, "mode": c.mode,
                        "cwd": c.cwd, "messages": c.messages, "turns": c.turns,
                        "status": c.status, "first_question": c.first_question})
                })
                .collect::<Vec<_>>(),
        )
        .to_string()
    } else if conversations.is_empty() {
        "(no saved conversations)".to_string()
    } else {
        let home =
            (paths.home.as_ref()).map_or_else(|| "\u{0}".to_string(), |h| h.display().to_string());
        conversations
            .iter()
            .map(|c| {
                let dir = match c.cwd.strip_prefix(home.as_str()) {
                    Some(rest) if !c.cwd.is_empty() => format!("~{rest}"),
                    _ => c.cwd.clone(),
                };
                format!(
                    "{}  {}  {:<24} {:>3} turn{} {:<11} {}",
                    c.id,
                    crate::conversation::utc_minute(c.started_unix_ms),
                    ui::sanitize(&dir),
                    c.turns,
                    if c.turns == 1 { " " } else { "s" },
                    c.status,
                    ui::sanitize(&c.first_question)
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    ui::to_stdout(&text);
    ExitCode::Ok.code()
}

/// `ai --completions SHELL`: a completion script generated from the command line definition.
pub(crate) fn completions(shell: &str) -> i32 {
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
pub(crate) fn man() -> i32 {
    let mut out = Vec::new();
    if let Err(err) = clap_mangen::Man::new(Cli::command()).render(&mut out) {
        return fail(&Report::from_error(
            ExitCode::Runtime,
            "cannot render the man page",
            &err,
        ));
    }
    let page = format!(
        "{}\n{MAN_SECTIONS}",
        String::from_utf8_lossy(&out).trim_end()
    );
    ui::to_stdout(page.trim_end());
    ExitCode::Ok.code()
}

/// What clap cannot generate: the environment, the files and the exit codes (DESIGN §2, §4).
const MAN_SECTIONS: &str = r#".SH ENVIRONMENT
Flags override variables, variables override the config file. An unknown SWEBASH_AI_* variable
gets a warning.
.TP
\fBSWEBASH_AI_PROVIDER\fR, \fBSWEBASH_AI_MODEL\fR, \fBSWEBASH_AI_BASE_URL\fR
The LLM endpoint (auto-detected when unset).
.TP
\fBSWEBASH_AI_API_KEY\fR, \fBSWEBASH_AI_API_KEY_CMD\fR
The key, or a command that prints it. The services' own variables work too:
\fBOPENAI_API_KEY\fR, \fBANTHROPIC_API_KEY\fR, \fBGEMINI_API_KEY\fR, \fBGROQ_API_KEY\fR,
\fBOPENROUTER_API_KEY\fR, \fBDEEPSEEK_API_KEY\fR, \fBMISTRAL_API_KEY\fR, \fBTOGETHER_API_KEY\fR;
\fBOLLAMA_HOST\fR for Ollama.
.TP
\fBSWEBASH_AI_TOOLS_FS\fR, \fBSWEBASH_AI_TOOLS_EXEC\fR, \fBSWEBASH_AI_TOOLS_WEB\fR
Enable each tool (default true).
.TP
\fBSWEBASH_AI_TOOLS_CONFIRM\fR
Ask before dangerous operations (default true).
.TP
\fBSWEBASH_AI_TOOLS_MAX_ITER\fR, \fBSWEBASH_AI_TOOLS_MAX_CALLS\fR
Model requests and tool calls per turn (default 10 each).
.TP
\fBSWEBASH_AI_FS_MAX_SIZE\fR, \fBSWEBASH_AI_FS_ROOTS\fR
Most bytes read from one file; the roots the filesystem tool may read without asking.
.TP
\fBSWEBASH_AI_EXEC_TIMEOUT\fR
Command timeout in seconds (default 30, at most 300).
.TP
\fBSWEBASH_AI_SANDBOX\fR
workspace, read-only or off.
.TP
\fBSWEBASH_AI_WEB_PROVIDER\fR, \fBSWEBASH_AI_WEB_URL\fR, \fBSWEBASH_AI_WEB_API_KEY\fR
The web search backend.
.TP
\fBSWEBASH_AI_TOOL_FORMAT\fR, \fBSWEBASH_AI_TOOL_CHOICE\fR, \fBSWEBASH_AI_CONSTRAIN\fR
How tools are called.
.TP
\fBSWEBASH_AI_MCP\fR
off disables every configured MCP server.
.TP
\fBSWEBASH_AI_HTTP_TIMEOUT\fR, \fBSWEBASH_AI_HTTP_CONNECT_TIMEOUT\fR, \fBSWEBASH_AI_HTTP_IDLE_TIMEOUT\fR, \fBSWEBASH_AI_HTTP_RETRIES\fR
Network limits.
.TP
\fBSWEBASH_AI_MODEL_PATH\fR, \fBSWEBASH_AI_MODEL_URL\fR, \fBSWEBASH_AI_MODEL_SHA256\fR, \fBSWEBASH_AI_LOCAL_CTX\fR, \fBSWEBASH_AI_LOCAL_THREADS\fR
The embedded engine (\fB--provider local\fR): a GGUF file to run, a mirror URL and checksum for the chosen model, its context and threads.
.TP
\fBNO_COLOR\fR
No colour when set.
.SH FILES
.TP
\fI$XDG_CONFIG_HOME/swebash-ai/config.toml\fR
The config file (default \fI~/.config/swebash-ai/config.toml\fR).
.TP
\fI$XDG_DATA_HOME/swebash-ai/conversations/\fR
Saved conversations (\fB--history\fR, \fB-i --resume\fR); \fIhistory\fR beside it is the REPL's input history.
.TP
\fI$XDG_CACHE_HOME/swebash-ai/models/\fR
The embedded engine's models (\fBai --pull\fR), each with its verified SHA-256 beside it (\fINAME.gguf.sha256\fR).
.TP
\fI$XDG_STATE_HOME/swebash-ai/audit.jsonl\fR
The audit log of tool calls.
.SH "EXIT STATUS"
.TP
\fB0\fR
The model gave a final answer.
.TP
\fB1\fR
Runtime error: provider, network, I/O, or an empty answer.
.TP
\fB2\fR
Usage or configuration error.
.TP
\fB3\fR
A tool call needed approval and none could be given.
.TP
\fB4\fR
A loop limit was reached.
.TP
\fB130\fR
Interrupted (Ctrl-C).
"#;

fn usage(flag: &str, value: &str, expected: &str) -> i32 {
    fail(&Report::from(ConfigError::Invalid {
        name: flag.into(),
        value: value.into(),
        expected: expected.into(),
    }))
}
