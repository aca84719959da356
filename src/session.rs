//! One session with a model: everything a run needs (provider, tools, policy, the agent and its
//! system prompt) built once from settings, and one turn driven with Ctrl-C and a closed stdout
//! handled. The one-shot run and the REPL both stand on it.

mod model;
mod turn;

use std::path::PathBuf;

use crate::agent::{
    Agent, Gate, Limits, NobodyAsker, OutputSchema, Sandbox, ToolMode, instructions,
};
use crate::audit::AuditLog;
use crate::config::{
    PROJECT_DOC_MAX, Paths, ProjectDoc, Secret, Settings, ToolFormat, project_doc_paths,
    read_project_doc,
};
use crate::conversation::{ConversationStore, Mode, Summary, utc_minute};
use crate::error::{ConfigError, ExitCode, Report};
use crate::policy::{Policy, Roots, Rules};
use crate::protocol::{ErrorKind, Message, RunError, RunStatus, Untrusted};
use crate::provider::{HttpClient, Provider, provider_for, select_endpoint};
use crate::sandbox;
use crate::shell::{command_instructions, context_file, last_command};
use crate::tool::{ExecSettings, McpHub, Registry, ToolContext, WebSettings};
use crate::ui::TerminalAsker;

pub(crate) use model::fetch_model;
pub(crate) use turn::{Ended, Interrupt, Session, Turned};

/// Why a session could not be set up, with the `--json` error kind it is.
#[derive(Debug)]
pub(crate) struct SetupError {
    pub(crate) report: Report,
    pub(crate) kind: ErrorKind,
}

impl SetupError {
    /// Ctrl-C before the turn began.
    pub(crate) fn interrupted() -> Self {
        SetupError {
            report: Report::new(ExitCode::Interrupted, "interrupted"),
            kind: ErrorKind::Interrupted,
        }
    }

    pub(crate) fn provider(err: &crate::provider::ProviderError) -> Self {
        SetupError {
            report: err.to_report(),
            kind: err.kind(),
        }
    }
}

/// A failure known only by its report: a usage or configuration error, or one of I/O.
impl From<Report> for SetupError {
    fn from(report: Report) -> Self {
        let kind = match report.exit {
            ExitCode::Usage => ErrorKind::Config,
            ExitCode::Interrupted => ErrorKind::Interrupted,
            ExitCode::Denied => ErrorKind::Denied,
            ExitCode::Limit => ErrorKind::Limit,
            ExitCode::Ok | ExitCode::Runtime => ErrorKind::Io,
        };
        SetupError { report, kind }
    }
}

impl From<ConfigError> for SetupError {
    fn from(err: ConfigError) -> Self {
        SetupError::from(Report::from(err))
    }
}

/// The sandbox plan of a session started in `cwd`: ai's own config, state, data and cache
/// directories are kept out of reach of what it runs (the config hidden whole).
pub(crate) fn sandbox_plan(settings: &Settings, cwd: &std::path::Path) -> sandbox::Plan {
    sandbox::Plan::new(settings.sandbox, cwd, &settings.paths, &settings.foreign)
        .reading(&settings.sandbox_read)
}

/// What a session is made of.
pub(crate) struct Parts {
    pub(crate) provider: Box<dyn Provider>,
    pub(crate) registry: Registry,
    pub(crate) ctx: ToolContext,
    pub(crate) policy: Policy,
    /// The MCP servers started for this session (stopped by `shutdown`).
    pub(crate) mcp: McpHub,
    secrets: Vec<Secret>,
    /// Where the sandbox of allowed commands draws its lines.
    pub(crate) sandbox: sandbox::Plan,
    /// ai's directories and files (the audit log, the shell hooks' last command).
    pub(crate) paths: Paths,
    /// In command mode (the shell widget), the shell the command line is for.
    command_shell: Option<String>,
    /// The AGENTS.md files that join the instructions (none when `SWEBASH_AI_PROJECT_DOC=off`).
    pub(crate) project_docs: Vec<ProjectDoc>,
}

impl Parts {
    /// Chooses the endpoint, settles the model, and sets up tools and policy. In command mode
    /// (the shell widget) only read-only tools are offered.
    pub(crate) async fn prepare(settings: &Settings) -> Result<Parts, SetupError> {
        // Port probes and the key command block: off the runtime's only thread.
        let owned_settings = settings.clone();
        let endpoint = tokio::task::spawn_blocking(move || select_endpoint(&owned_settings))
            .await
            .map_err(|err| {
                Report::new(
                    ExitCode::Runtime,
                    format!("choosing the endpoint stopped: {err}"),
                )
            })??;
        let http = HttpClient::new(settings.http, &endpoint.base_url)
            .map_err(|err| SetupError::provider(&err))?;
        let provider_key = endpoint.api_key.clone();
        if let Some(model) = &endpoint.local {
            model::ensure_model(model, settings).await?;
        }
        let mut provider = provider_for(endpoint, http, &settings.local);
        if let Some(note) = provider.preparing().filter(|_| !settings.quiet) {
            crate::ui::to_stderr(&format!("ai: {note}"));
        }
        provider
            .prepare()
            .await
            .map_err(|err| SetupError::provider(&err))?;
        let paths = &settings.paths;
        let cwd = paths.cwd.clone().ok_or_else(|| {
            Report::new(
                ExitCode::Runtime,
                "cannot read the working directory (was it removed?)",
            )
        })?;
        let home: Option<PathBuf> = paths.home.clone();
        let temp = paths.temp.clone();
        let policy = Policy::new(
            Roots::new(&settings.fs_roots, &cwd, &temp, home.as_deref()),
            home.clone(),
            cwd.clone(),
            temp,
            Self::rules(settings)?,
        );
        let ctx = ToolContext {
            cwd,
            home,
            secret: crate::policy::sensitive,
            fs_max_size: settings.fs_max_size,
            exec: ExecSettings {
                shell: settings.shell.clone(),
                timeout: settings.exec_timeout,
                strip_env: key_variables(),
                sandbox_env: settings.sandbox_env.clone(),
            },
        };
        let (registry, mcp) = tools(settings).await;
        let secrets = [&settings.api_key, &provider_key, &settings.web_api_key]
            .into_iter()
            .flatten()
            .cloned()
            .collect();
        let sandbox = sandbox_plan(settings, &ctx.cwd);
        Ok(Parts {
            command_shell: (settings.command_mode()).then(|| settings.command_shell.clone()),
            project_docs: project_docs(settings),
            sandbox,
            paths: paths.clone(),
            provider,
            registry,
            ctx,
            policy,
            mcp,
            secrets,
        })
    }

    /// The approval gate. Nobody is asked in command mode.
    pub(crate) fn gate(settings: &Settings) -> Result<Gate, Report> {
        let asker: Box<dyn crate::protocol::Asker> = if settings.command_mode() {
            Box::new(NobodyAsker)
        } else {
            Box::new(TerminalAsker)
        };
        Ok(Gate::new(
            settings.confirm,
            settings.approve_all,
            Self::rules(settings)?,
            asker,
        ))
    }

    /// The user's command rules: `--allow` patterns and the `[policy]` table.
    pub(crate) fn rules(settings: &Settings) -> Result<Rules, Report> {
        Rules::new(&settings.allow, &settings.policy)
            .map_err(|err| Report::from(ConfigError::Usage(err.to_string())))
    }

    /// How tools are called with the current model.
    pub(crate) fn mode(&self, settings: &Settings) -> ToolMode {
        if self.provider.prompt_only() {
            // `auto`: the family the model was trained on, when known.
            let format = match (settings.tool_format, self.provider.tool_family()) {
                (ToolFormat::Auto, Some(family)) => family,
                (format, _) => format,
            };
            return ToolMode::for_engine(format, &self.registry.specs());
        }
        ToolMode::from_settings(
            settings.tool_format,
            self.provider.model(),
            &self.registry.specs(),
            settings.constrain,
        )
    }

    /// The agent over these parts, for one run.
    pub(crate) fn agent(&self, settings: &Settings) -> Result<Agent<'_>, Report> {
        let gate = Self::gate(settings)?;
        let mut agent = self.agent_with(settings, gate, self.mode(settings));
        // The widget's instructions ask for one command line; naming tools there only distracts.
        agent.name_tools = !settings.command_mode();
        Ok(agent)
    }

    /// The agent with a gate and mode kept from earlier turns (REPL approvals, a format switch).
    pub(crate) fn agent_with(&self, settings: &Settings, gate: Gate, mode: ToolMode) -> Agent<'_> {
        Agent {
            provider: self.provider.as_ref(),
            registry: &self.registry,
            ctx: &self.ctx,
            policy: &self.policy,
            gate,
            sandbox: Sandbox::new(self.sandbox.with_mode(settings.sandbox)),
            limits: Limits {
                max_iterations: settings.max_iterations,
                max_tool_calls: settings.max_tool_calls,
            },
            tool_choice: settings.tool_choice.clone(),
            stream: settings.stream,
            mode,
            name_tools: true,
            output: None,
            untrusted: Vec::new(),
        }
    }

    /// The instructions that open the conversation: the task, and the last shell command if the
    /// hooks recorded one. The agent adds what it says of tools per request, from what is on offer
    /// then.
    pub(crate) fn instructions(&self) -> String {
        let mut system = if let Some(shell) = &self.command_shell {
            command_instructions(shell, std::env::consts::OS)
        } else {
            let mut system = instructions(&self.ctx.cwd);
            for doc in &self.project_docs {
                system.push_str(&format!(
                    "\n\nThe project's own instructions, from {}:\n{}",
                    doc.path.display(),
                    doc.text
                ));
                if doc.cut {
                    system.push_str(&format!(
                        "\n[the rest of this file, past {} KiB, was left out]",
                        PROJECT_DOC_MAX / 1024
                    ));
                }
            }
            system
        };
        if let Some((status, command)) =
            (self.paths.state_dir.as_ref()).and_then(|dir| last_command(&context_file(dir)))
        {
            system.push_str(&format!(
                "\n\nThe user's last shell command was `{command}`; it exited with status {status}."
            ));
        }
        system
    }

    /// The audit log; one warning when it cannot be written (the run goes on without it).
    pub(crate) fn audit_log(&self) -> Option<AuditLog> {
        let path = self.paths.audit_log.as_ref()?;
        AuditLog::open(path, &self.secrets)
            .map_err(|why| {
                crate::ui::to_stderr(&format!(
                    "ai: warning: tool calls are not audited: cannot write {why}"
                ));
            })
            .ok()
    }

    /// `provider/model`, for saved conversations.
    pub(crate) fn provider_label(&self) -> String {
        format!("{}/{}", self.provider.name(), self.provider.model())
    }
}

/// The AGENTS.md files of this session, read once; a file cut at the size cap is said on stderr,
/// one that cannot be read is a warning (the run goes on without it).
fn project_docs(settings: &Settings) -> Vec<ProjectDoc> {
    if !settings.project_doc {
        return Vec::new();
    }
    let mut docs = Vec::new();
    for path in project_doc_paths(&settings.paths) {
        match read_project_doc(&path) {
            Ok(doc) => {
                if doc.cut && !settings.quiet {
                    crate::ui::to_stderr(&format!(
                        "ai: {} is over {} KiB: only its first {} KiB are used",
                        path.display(),
                        PROJECT_DOC_MAX / 1024,
                        PROJECT_DOC_MAX / 1024
                    ));
                }
                docs.push(doc);
            }
            Err(err) => crate::ui::to_stderr(&format!(
                "ai: warning: cannot read {}: {err}",
                path.display()
            )),
        }
    }
    docs
}

/// The schema of `--output-schema` (or `SWEBASH_AI_OUTPUT_SCHEMA`), read and checked: a file
/// that is missing, not JSON or no schema this validator understands is a usage error (exit 2).
pub(crate) fn load_output_schema(settings: &Settings) -> Result<Option<OutputSchema>, Report> {
    let Some(path) = &settings.output_schema else {
        return Ok(None);
    };
    let origin = settings.origin_of("output_schema");
    let bad = |why: String| {
        Report::new(
            ExitCode::Usage,
            format!("the output schema {} ({origin}) {why}", path.display()),
        )
    };
    let text =
        std::fs::read_to_string(path).map_err(|err| bad(format!("cannot be read: {err}")))?;
    let value = serde_json::from_str(&text).map_err(|err| bad(format!("is not JSON: {err}")))?;
    let schema = crate::schema::Schema::new(value)
        .map_err(|err| bad(format!("is not a usable JSON Schema: {err}")))?;
    Ok(Some(OutputSchema {
        schema,
        file: path.display().to_string(),
    }))
}

/// The tools of a session: the built-in ones the settings enable and those of the configured
/// MCP servers (started in parallel; a server that fails is reported and left out). In command
/// mode (the shell widget) `execute_command` is not offered.
pub(crate) async fn tools(settings: &Settings) -> (Registry, McpHub) {
    let web = WebSettings {
        backend: settings.web_provider.into(),
        base_url: settings.web_url.clone(),
        api_key: settings.web_api_key.clone(),
        timeout: std::time::Duration::from_secs(15),
        min_interval: std::time::Duration::from_secs(1),
        max_per_turn: 5,
    };
    let mut offered = settings.clone();
    offered.tools.exec &= !settings.command_mode();
    let mut registry = Registry::from_settings(&offered, web);
    let mut mcp = if settings.mcp_servers.is_empty() {
        McpHub::default()
    } else {
        McpHub::start(&settings.mcp_servers, settings.paths.mcp_cache.as_deref()).await
    };
    for failure in &mcp.failures {
        crate::ui::to_stderr(&format!("ai: {failure}"));
    }
    for tool in std::mem::take(&mut mcp.tools) {
        registry.add(Box::new(tool));
    }
    (registry, mcp)
}

/// Estimated tokens of context a conversation carries into a turn (REPL, `--resume`).
pub(crate) const CONTEXT_BUDGET: usize = 24_000;

/// " Resuming 'fix the flaky test' from 2026-11-23 14:02 UTC, 6 turns."
pub(crate) fn resume_note(summary: &Summary) -> String {
    format!(
        " Resuming '{}' from {} UTC, {} turn{}.",
        crate::ui::sanitize(&summary.first_question),
        utc_minute(summary.started_unix_ms),
        summary.turns,
        if summary.turns == 1 { "" } else { "s" }
    )
}

/// `--resume ID` with no such conversation: a usage error.
pub(crate) fn unknown_conversation(id: &str) -> Report {
    Report::new(
        ExitCode::Usage,
        format!("no saved conversation has the id {id:?}"),
    )
    .with_hint("ai --history lists them, newest first")
}

/// One warning for the lines of a resumed conversation that could not be read.
pub(crate) fn warn_skipped(store: &ConversationStore, skipped: usize) {
    if skipped > 0 {
        crate::ui::to_stderr(&format!(
            "ai: warning: skipped {skipped} unreadable lines of {}",
            store.path().display()
        ));
    }
}

/// Drops the oldest whole turns until the conversation's estimated size (about four characters
/// a token) fits `budget` tokens; the system prompt and the last turn always stay. Returns how
/// many messages were dropped.
pub(crate) fn trim_to_budget(messages: &mut Vec<Message>, budget: usize) -> usize {
    let size = |m: &Message| -> usize {
        match m {
            Message::System { content } | Message::User { content } => content.len(),
            Message::Assistant {
                content,
                tool_calls,
            } => {
                content.len()
                    + tool_calls
                        .iter()
                        .map(|c| c.arguments.to_string().len() + c.name.len())
                        .sum::<usize>()
            }
            Message::Tool { content, .. } => content.len(),
        }
    };
    let mut dropped = 0;
    while messages.iter().map(size).sum::<usize>() / 4 > budget {
        let users: Vec<usize> = messages
            .iter()
            .enumerate()
            .filter(|(_, m)| matches!(m, Message::User { .. }))
            .map(|(i, _)| i)
            .collect();
        if users.len() < 2 {
            break;
        }
        let (first, next) = (users[0], users[1]);
        messages.drain(first..next);
        dropped += next - first;
    }
    dropped
}

/// Variables holding API keys: removed from the environment of commands the model runs.
fn key_variables() -> Vec<String> {
    crate::config::secret_vars().map(String::from).collect()
}

/// A new saved conversation, or one warning (an unwritable data dir must not stop the answer).
pub(crate) fn new_store(label: &str, mode: Mode, settings: &Settings) -> Option<ConversationStore> {
    let keep = usize::try_from(settings.history_keep).unwrap_or(usize::MAX);
    ConversationStore::create(&settings.paths, label, mode, keep)
        .map_err(|why| {
            crate::ui::to_stderr(&format!(
                "ai: warning: the conversation is not saved: {why}"
            ))
        })
        .ok()
}

/// Saves which messages carry untrusted text (their marks follow the messages in the file).
pub(crate) fn save_marks(store: &mut Option<ConversationStore>, untrusted: &[Untrusted]) {
    if let Some(Err(why)) = store.as_mut().map(|s| s.save_untrusted(untrusted)) {
        crate::ui::to_stderr(&format!(
            "ai: warning: the conversation's untrusted marks are not saved: {why}"
        ));
    }
}

/// Saves what is new; after a failure (a full disk), one warning and no more attempts.
pub(crate) fn save_or_warn(store: &mut Option<ConversationStore>, messages: &[Message]) {
    if let Some(Err(why)) = store.as_mut().map(|s| s.save(messages)) {
        crate::ui::to_stderr(&format!(
            "ai: warning: the conversation is no longer saved: {why}"
        ));
        *store = None;
    }
}

/// A turn that ended with no text at all is reported, never shown as a silent success.
pub(crate) fn empty_or_ok(answer: &str) -> (RunStatus, Option<RunError>, Option<Report>) {
    if !answer.trim().is_empty() {
        return (RunStatus::Ok, None, None);
    }
    let message = "the model's answer was empty";
    (
        RunStatus::Empty,
        Some(RunError {
            kind: ErrorKind::Provider,
            message: message.into(),
        }),
        Some(
            Report::new(ExitCode::Runtime, message)
                .with_hint("ask again, or try another model with -m MODEL"),
        ),
    )
}
