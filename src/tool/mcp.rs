//! MCP servers over stdio (the official SDK, rmcp, as a client): each configured server is started
//! (all in parallel), its tools are offered as `<server>__<tool>` with their schemas, arguments are
//! checked against those schemas before a call, and results are mapped into tool results. A server
//! that fails to start is reported once and its tools withdrawn; one that dies mid-call answers
//! with a clear tool error and the run goes on.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Map, Value, json};

use super::{Effect, RunOptions, Tool, ToolContext, ToolOutcome};
use crate::config::McpServerConfig;
use crate::protocol::{Action, BoxFuture, CallErrorCode, ToolErrorType, ToolResult, ToolSpec};

/// How long a server may take to start and list its tools.
const START_TIMEOUT: Duration = Duration::from_secs(20);

type Client = RunningService<RoleClient, ()>;

/// A server, shared by its tools: started at once when its tool list had to be read, else
/// on the first call of one of its tools (the list came from the cache).
pub(crate) struct McpServer {
    pub(crate) name: String,
    config: McpServerConfig,
    cache: Option<PathBuf>,
    client: tokio::sync::Mutex<Option<Client>>,
    timeout: Duration,
    /// Why the server is gone, once it is.
    dead: Mutex<Option<String>>,
}

impl McpServer {
    fn mark_dead(&self, why: &str) {
        if let Ok(mut dead) = self.dead.lock() {
            *dead = Some(why.to_string());
        }
    }

    async fn call(&self, tool: &str, arguments: Map<String, Value>) -> Result<Value, String> {
        if let Some(why) = self.dead.lock().ok().and_then(|d| d.clone()) {
            return Err(why);
        }
        let mut guard = self.client.lock().await;
        if guard.is_none() {
            match tokio::time::timeout(START_TIMEOUT, start_one(&self.config)).await {
                Ok(Ok((client, tools))) => {
                    write_cache(self.cache.as_deref(), &tools);
                    *guard = Some(client);
                }
                Ok(Err(err)) => {
                    let why = format!("the MCP server {} could not start: {err}", self.name);
                    self.mark_dead(&why);
                    return Err(why);
                }
                Err(_) => {
                    let why = format!(
                        "the MCP server {} did not start within {} s",
                        self.name,
                        START_TIMEOUT.as_secs()
                    );
                    self.mark_dead(&why);
                    return Err(why);
                }
            }
        }
        let Some(client) = guard.as_ref() else {
            return Err(format!("the MCP server {} is not running", self.name));
        };
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments);
        let result = match tokio::time::timeout(self.timeout, client.call_tool(params)).await {
            Ok(Ok(result)) => result,
            Ok(Err(err)) => {
                let why = format!("the MCP server {} failed: {err}", self.name);
                self.mark_dead(&why);
                return Err(why);
            }
            Err(_) => {
                return Err(format!(
                    "the MCP server {} did not answer within {} s",
                    self.name,
                    self.timeout.as_secs()
                ));
            }
        };
        serde_json::to_value(result).map_err(|err| err.to_string())
    }

    /// Stops the server (its process exits; nothing is left behind).
    pub(crate) async fn shutdown(&self) {
        if let Some(client) = self.client.lock().await.take() {
            let _ = client.cancel().await;
        }
    }
}

/// One tool of one server, as the model sees it.
pub(crate) struct McpTool {
    server: Arc<McpServer>,
    remote: String,
    exposed: String,
    description: String,
    schema: Value,
    /// Named in the server's `allowed_tools`: runs without asking.
    allowed: bool,
}

/// The servers of a run and the tools they offer.
#[derive(Default)]
pub(crate) struct McpHub {
    pub(crate) servers: Vec<Arc<McpServer>>,
    /// The tools, until they are handed to the registry.
    pub(crate) tools: Vec<McpTool>,
    /// One line per server that could not start.
    pub(crate) failures: Vec<String>,
}

impl McpHub {
    /// Offers the tools of every configured server. A server whose tool list is cached (in
    /// `cache_dir`, keyed by its command line) is started only when one of its tools is called;
    /// the others are started now, in parallel, to list their tools.
    pub(crate) async fn start(configs: &[McpServerConfig], cache_dir: Option<&Path>) -> McpHub {
        let mut hub = McpHub::default();
        let mut tasks = tokio::task::JoinSet::new();
        let mut ready: Vec<(usize, McpServerConfig, Option<Client>, Vec<Value>)> = Vec::new();
        for (index, config) in configs.iter().enumerate() {
            if let Some(tools) = read_cache(cache_file(cache_dir, config).as_deref()) {
                ready.push((index, config.clone(), None, tools));
                continue;
            }
            let config = config.clone();
            tasks.spawn(async move {
                let result = tokio::time::timeout(START_TIMEOUT, start_one(&config)).await;
                (index, result, config)
            });
        }
        while let Some(joined) = tasks.join_next().await {
            let Ok((index, result, config)) = joined else {
                continue;
            };
            match result {
                Ok(Ok((client, tools))) => {
                    write_cache(cache_file(cache_dir, &config).as_deref(), &tools);
                    ready.push((index, config, Some(client), tools));
                }
                Ok(Err(err)) => hub.failures.push(format!(
                    "the MCP server {} could not start: {err}; its tools are not offered",
                    config.name
                )),
                Err(_) => hub.failures.push(format!(
                    "the MCP server {} did not start within {} s; its tools are not offered",
                    config.name,
                    START_TIMEOUT.as_secs()
                )),
            }
        }
        ready.sort_by_key(|r| r.0);
        for (_, config, client, tools) in ready {
            let server = Arc::new(McpServer {
                name: config.name.clone(),
                cache: cache_file(cache_dir, &config),
                timeout: Duration::from_secs(config.timeout_seconds.max(1)),
                client: tokio::sync::Mutex::new(client),
                dead: Mutex::new(None),
                config: config.clone(),
            });
            for tool in tools {
                let Some(remote) = tool["name"].as_str().map(String::from) else {
                    continue;
                };
                hub.tools.push(McpTool {
                    exposed: format!("{}__{remote}", config.name),
                    allowed: config.allowed_tools.contains(&remote),
                    description: tool["description"].as_str().unwrap_or_default().to_string(),
                    schema: tool
                        .get("inputSchema")
                        .cloned()
                        .unwrap_or_else(|| json!({"type": "object"})),
                    server: Arc::clone(&server),
                    remote,
                });
            }
            hub.servers.push(server);
        }
        hub
    }

    pub(crate) async fn shutdown(&self) {
        for server in &self.servers {
            server.shutdown().await;
        }
    }
}

/// The cache file of a server's tool list: its name and a hash of how it is started.
fn cache_file(dir: Option<&Path>, config: &McpServerConfig) -> Option<PathBuf> {
    // FNV-1a: stable across runs and builds (std's hasher is not).
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |text: &str| {
        for byte in text.bytes().chain(std::iter::once(0)) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    feed(&config.command);
    config.args.iter().for_each(|a| feed(a));
    config.env.iter().for_each(|(k, v)| {
        feed(k);
        feed(v);
    });
    if let Some(cwd) = &config.cwd {
        feed(&cwd.to_string_lossy());
    }
    Some(dir?.join(format!("{}-{hash:016x}.json", config.name)))
}

fn read_cache(file: Option<&Path>) -> Option<Vec<Value>> {
    let text = std::fs::read_to_string(file?).ok()?;
    serde_json::from_str::<Value>(&text)
        .ok()?
        .as_array()
        .cloned()
}

fn write_cache(file: Option<&Path>, tools: &[Value]) {
    let Some(file) = file else { return };
    if let Some(dir) = file.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = std::fs::write(file, Value::from(tools.to_vec()).to_string());
}

async fn start_one(config: &McpServerConfig) -> Result<(Client, Vec<Value>), String> {
    let mut command = tokio::process::Command::new(crate::config::own_program(&config.command));
    // It runs outside the sandbox, with ai's environment: never where a sandboxed call could
    // have put a module or package it would load first (`python3 -m`, `npx`, `node ./x`).
    command
        .current_dir(config.cwd.as_deref().unwrap_or(Path::new("/")))
        .env("PYTHONSAFEPATH", "1")
        .args(&config.args)
        .envs(&config.env);
    let (transport, _stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .map_err(|err| format!("cannot run {}: {err}", config.command))?;
    let client = ().serve(transport).await.map_err(|err| err.to_string())?;
    let tools = client
        .list_all_tools()
        .await
        .map_err(|err| err.to_string())?;
    let tools = tools
        .iter()
        .filter_map(|t| serde_json::to_value(t).ok())
        .collect();
    Ok((client, tools))
}

impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.exposed
    }

    fn effect(&self) -> Effect {
        Effect::External
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.exposed.clone(),
            description: format!(
                "{} (from the MCP server {})",
                self.description, self.server.name
            ),
            parameters: self.schema.clone(),
        }
    }

    fn validate(&self, arguments: &Value) -> Result<(), String> {
        check_schema(&self.schema, arguments)
    }

    fn asks(&self) -> &'static str {
        if self.allowed {
            "never (in allowed_tools)"
        } else {
            "always"
        }
    }

    fn action(&self, _arguments: &Value, _ctx: &ToolContext) -> Action {
        Action::External {
            tool: self.exposed.clone(),
            server: self.server.name.clone(),
            allowed: self.allowed,
        }
    }

    fn run<'a>(
        &'a self,
        arguments: &'a Value,
        _ctx: &'a ToolContext,
        _options: RunOptions<'a>,
    ) -> BoxFuture<'a, ToolOutcome> {
        Box::pin(async move {
            let arguments = arguments.as_object().cloned().unwrap_or_default();
            match self.server.call(&self.remote, arguments).await {
                Ok(result) => outcome_of(&result),
                Err(message) => ToolOutcome::failed(
                    CallErrorCode::ExecutionFailed,
                    ToolResult::fail(ToolErrorType::SystemError, message),
                ),
            }
        })
    }
}

/// An MCP `CallToolResult` as a tool result: text joined, structured content as data, images
/// and other binaries as placeholders, `isError` as a failure.
fn outcome_of(result: &Value) -> ToolOutcome {
    let parts: Vec<String> = result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|block| match block["type"].as_str() {
            Some("text") => block["text"].as_str().unwrap_or_default().to_string(),
            Some("image") | Some("audio") => format!(
                "[{} content: {}]",
                block["type"].as_str().unwrap_or("binary"),
                block["mimeType"].as_str().unwrap_or("unknown type")
            ),
            Some("resource") => block["resource"]["text"].as_str().map_or_else(
                || {
                    format!(
                        "[resource {}]",
                        block["resource"]["uri"].as_str().unwrap_or("")
                    )
                },
                String::from,
            ),
            Some("resource_link") => format!("[resource {}]", block["uri"].as_str().unwrap_or("")),
            _ => block.to_string(),
        })
        .collect();
    let text = parts.join("\n");
    if result["isError"].as_bool() == Some(true) {
        return ToolOutcome::failed(
            CallErrorCode::ExecutionFailed,
            ToolResult::fail(
                ToolErrorType::UserError,
                if text.is_empty() {
                    "the tool reported an error".into()
                } else {
                    text
                },
            ),
        );
    }
    let data = match result.get("structuredContent") {
        Some(structured) if !structured.is_null() => {
            json!({"content": text, "structured": structured})
        }
        _ => json!({"content": text}),
    };
    ToolOutcome::ok(data)
}

/// Checks arguments against the parts of a JSON Schema that catch a model's usual mistakes:
/// an object, the required properties, and the type of each property given.
pub(crate) fn check_schema(schema: &Value, arguments: &Value) -> Result<(), String> {
    let Some(object) = arguments.as_object() else {
        return Err("arguments must be a JSON object".into());
    };
    for required in schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !object.contains_key(required) {
            return Err(format!("missing field `{required}`"));
        }
    }
    for (key, value) in object {
        let Some(kind) = schema.pointer(&format!("/properties/{key}/type")) else {
            continue;
        };
        let kinds: Vec<&str> = match kind {
            Value::String(k) => vec![k.as_str()],
            Value::Array(ks) => ks.iter().filter_map(Value::as_str).collect(),
            _ => continue,
        };
        let fits = kinds.iter().any(|k| match *k {
            "string" => value.is_string(),
            "integer" => value.is_i64() || value.is_u64(),
            "number" => value.is_number(),
            "boolean" => value.is_boolean(),
            "array" => value.is_array(),
            "object" => value.is_object(),
            "null" => value.is_null(),
            _ => true,
        });
        if !fits {
            return Err(format!("`{key}` must be {}", kinds.join(" or ")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_checks_name_the_field() {
        let schema = json!({"type": "object", "required": ["path"], "properties": {"path": {"type": "string"}, "n": {"type": ["integer", "null"]}}});
        assert_eq!(check_schema(&schema, &json!({"path": "a", "n": 3})), Ok(()));
        assert_eq!(
            check_schema(&schema, &json!({"n": 3})),
            Err("missing field `path`".into())
        );
        assert_eq!(
            check_schema(&schema, &json!({"path": 1})),
            Err("`path` must be string".into())
        );
        assert!(check_schema(&schema, &json!([1])).is_err());
    }

    #[test]
    fn results_map_text_images_and_errors() {
        let ok = outcome_of(
            &json!({"content": [{"type": "text", "text": "a"}, {"type": "image", "data": "x", "mimeType": "image/png"}]}),
        );
        assert_eq!(
            ok.result.data["content"],
            json!("a\n[image content: image/png]")
        );
        let failed =
            outcome_of(&json!({"content": [{"type": "text", "text": "denied"}], "isError": true}));
        assert_eq!(failed.result.error.as_deref(), Some("denied"));
    }
}
