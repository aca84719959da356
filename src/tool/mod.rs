//! Tools the model can call: the `Tool` trait, the registry of enabled tools, and argument
//! validation. A tool says what it does and checks its own arguments; whether it may run is the
//! agent's question to the policy, never the tool's.

mod capture;
mod exec;
mod fs;
mod fs_batch;
mod html;
mod mcp;
mod path;
mod refusal;
mod web;

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::Value;

pub(crate) use exec::ExecTool;
pub(crate) use fs::FilesystemTool;
pub(crate) use mcp::McpHub;
pub(crate) use path::{absolute, resolve};
pub(crate) use web::{WebBackend, WebSearchTool, WebSettings};

use crate::config::Settings;
use crate::protocol::{
    Action, BoxFuture, CallErrorCode, OutputStream, ToolErrorType, ToolResult, ToolSpec,
};

/// What a tool does to the world, for the policy to weigh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    Read,
    Exec,
    Network,
    /// An MCP server's tool: unknown effects.
    External,
}

/// What a finished call produced: the result for the model plus facts for the record.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolOutcome {
    pub(crate) result: ToolResult,
    pub(crate) exit_code: Option<i32>,
    pub(crate) output_truncated: bool,
    /// Set when the call failed, for the `--json` record.
    pub(crate) error_code: Option<CallErrorCode>,
}

impl ToolOutcome {
    pub(crate) fn ok(data: Value) -> Self {
        ToolOutcome {
            result: ToolResult::ok(data),
            exit_code: None,
            output_truncated: false,
            error_code: None,
        }
    }

    pub(crate) fn failed(code: CallErrorCode, result: ToolResult) -> Self {
        ToolOutcome {
            result,
            exit_code: None,
            output_truncated: false,
            error_code: Some(code),
        }
    }
}

/// What tools need to know about where they run.
#[derive(Debug, Clone)]
pub(crate) struct ToolContext {
    pub(crate) cwd: PathBuf,
    pub(crate) home: Option<PathBuf>,
    pub(crate) fs_max_size: u64,
    pub(crate) exec: ExecSettings,
    /// Why a path is a secret, if it is (the policy's rule, handed down so a tool can check what
    /// it actually opened: a symlink swapped after the policy's check must not leak a key).
    pub(crate) secret: fn(&std::path::Path, Option<&std::path::Path>) -> Option<String>,
}

/// How `execute_command` runs commands.
#[derive(Debug, Clone)]
pub(crate) struct ExecSettings {
    /// The shell commands run through (`$SHELL` when it is a POSIX-like shell, else `/bin/sh`).
    pub(crate) shell: PathBuf,
    /// The default and the longest timeout.
    pub(crate) timeout: Duration,
    /// Variables removed from the child's environment (the API keys this process holds).
    pub(crate) strip_env: Vec<String>,
    /// The whole environment of a sandboxed command (an allowlist, no credentials).
    pub(crate) sandbox_env: Vec<(String, String)>,
}

/// A command's confinement, as the agent got it from the sandbox.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Confined<'a> {
    /// The argv prefix that runs the command in the sandbox.
    pub(crate) argv: &'a [OsString],
    /// The sandbox leaves it the network (a package manager's fetch).
    pub(crate) network: bool,
}

/// Per-call options the agent decides: the sandbox prefix, and where streamed output goes.
pub(crate) struct RunOptions<'a> {
    /// How the command is confined (`None`: it runs directly).
    pub(crate) sandbox: Option<Confined<'a>>,
    pub(crate) output: &'a mut dyn FnMut(OutputStream, &str),
}

pub(crate) trait Tool {
    fn name(&self) -> &str;
    fn effect(&self) -> Effect;
    /// The definition offered to the model; its `parameters` are derived from the argument type.
    fn spec(&self) -> ToolSpec;
    /// Checks the arguments without doing anything; the error names the field at fault.
    fn validate(&self, arguments: &Value) -> Result<(), String>;
    /// What the call would do, for the policy. Called only with valid arguments.
    fn action(&self, arguments: &Value, ctx: &ToolContext) -> Action;
    /// Everything the call would do when it does several things (a read of several files):
    /// the policy judges each, and the call goes as far as the strictest verdict lets it.
    fn actions(&self, arguments: &Value, ctx: &ToolContext) -> Vec<Action> {
        vec![self.action(arguments, ctx)]
    }
    /// Does the work. Called only with arguments `validate` accepted and the policy let through.
    fn run<'a>(
        &'a self,
        arguments: &'a Value,
        ctx: &'a ToolContext,
        options: RunOptions<'a>,
    ) -> BoxFuture<'a, ToolOutcome>;
    /// A new turn starts (per-turn budgets reset).
    fn begin_turn(&self) {}
    /// When a call asks for approval, in words (`ai --list-tools`).
    fn asks(&self) -> &'static str {
        "never"
    }
}

/// The tools enabled for a run.
#[derive(Default)]
pub(crate) struct Registry {
    tools: Vec<Box<dyn Tool>>,
    /// Tools switched off for now (`/tools disable NAME` in the REPL).
    disabled: Vec<String>,
}

impl Registry {
    pub(crate) fn from_settings(settings: &Settings, web: WebSettings) -> Self {
        let mut registry = Registry::default();
        if settings.tools.fs {
            registry.tools.push(Box::new(FilesystemTool));
        }
        if settings.tools.exec {
            registry.tools.push(Box::new(ExecTool));
        }
        if settings.tools.web {
            registry.tools.push(Box::new(WebSearchTool::new(web)));
        }
        registry
    }

    /// Adds tools from elsewhere (MCP servers).
    pub(crate) fn add(&mut self, tool: Box<dyn Tool>) {
        self.tools.push(tool);
    }

    /// Every tool offered, with where it comes from and when calling it asks.
    pub(crate) fn listing(&self) -> Vec<(String, &'static str, &'static str)> {
        self.enabled()
            .map(|t| {
                let source = if t.effect() == Effect::External {
                    "mcp"
                } else {
                    "built-in"
                };
                (t.name().to_string(), source, t.asks())
            })
            .collect()
    }

    pub(crate) fn begin_turn(&self) {
        for tool in &self.tools {
            tool.begin_turn();
        }
    }

    fn enabled(&self) -> impl Iterator<Item = &dyn Tool> {
        self.tools
            .iter()
            .map(|t| t.as_ref())
            .filter(|t| !self.disabled.iter().any(|d| d == t.name()))
    }

    pub(crate) fn specs(&self) -> Vec<ToolSpec> {
        self.enabled().map(|t| t.spec()).collect()
    }

    pub(crate) fn get(&self, name: &str) -> Option<&dyn Tool> {
        self.enabled().find(|t| t.name() == name)
    }

    pub(crate) fn names(&self) -> Vec<&str> {
        self.enabled().map(|t| t.name()).collect()
    }

    /// Every tool with whether it is on.
    pub(crate) fn all(&self) -> Vec<(&str, bool)> {
        self.tools
            .iter()
            .map(|t| (t.name(), !self.disabled.iter().any(|d| d == t.name())))
            .collect()
    }

    /// Switches a tool on or off; `false` when there is no such tool.
    pub(crate) fn set_enabled(&mut self, name: &str, on: bool) -> bool {
        if !self.tools.iter().any(|t| t.name() == name) {
            return false;
        }
        self.disabled.retain(|d| d != name);
        if !on {
            self.disabled.push(name.to_string());
        }
        true
    }
}

/// Deserialises arguments into a tool's typed struct; the message says which field is wrong.
pub(crate) fn parse_arguments<T: DeserializeOwned>(arguments: &Value) -> Result<T, String> {
    if !arguments.is_object() {
        return Err(format!(
            "arguments must be a JSON object, got {}",
            match arguments {
                Value::String(_) => "a string that is not valid JSON",
                Value::Array(_) => "an array",
                Value::Null => "null",
                _ => "a scalar",
            }
        ));
    }
    serde_json::from_value(arguments.clone()).map_err(|err| {
        // serde's messages already name the field: "missing field `path`",
        // "unknown variant `write`, expected one of `read`, `list`, ...".
        let text = err.to_string();
        text.split(" at line ").next().unwrap_or(&text).to_string()
    })
}

/// The typed arguments of a call, or the outcome that tells the model what is wrong with them.
pub(crate) fn arguments_or_outcome<T: DeserializeOwned>(
    tool: &str,
    arguments: &Value,
) -> Result<T, Box<ToolOutcome>> {
    parse_arguments(arguments).map_err(|message| {
        Box::new(ToolOutcome::failed(
            CallErrorCode::InvalidArguments,
            invalid_arguments(tool, &message),
        ))
    })
}

/// The JSON Schema of an argument type, as providers want it: self-contained (sub-schemas
/// inlined, no `$ref`, which grammar converters and Gemini reject), no `$schema`, no `title`.
pub(crate) fn schema_of<T: schemars::JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|settings| settings.inline_subschemas = true)
        .into_generator();
    let mut schema =
        serde_json::to_value(generator.into_root_schema_for::<T>()).unwrap_or(Value::Null);
    if let Some(object) = schema.as_object_mut() {
        object.remove("$schema");
        object.remove("title");
    }
    schema
}

/// The result for arguments `validate` rejected.
pub(crate) fn invalid_arguments(tool: &str, message: &str) -> ToolResult {
    ToolResult::fail(
        ToolErrorType::ValidationError,
        format!("invalid arguments for {tool}: {message}"),
    )
    .with_suggestion("call the tool again with arguments that match its schema")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_schemas_are_self_contained_objects() {
        for spec in [FilesystemTool.spec(), ExecTool.spec()] {
            let text = spec.parameters.to_string();
            assert_eq!(spec.parameters["type"], "object", "{text}");
            assert!(
                !text.contains("$ref") && !text.contains("$defs") && !text.contains("$schema"),
                "{text}"
            );
        }
        let fs = FilesystemTool.spec().parameters;
        // `path` stays required (grammar-constrained models must name one); `paths` adds more.
        assert_eq!(fs["required"], serde_json::json!(["operation", "path"]));
        assert!(fs["properties"]["paths"].is_object(), "{fs}");
    }
}
