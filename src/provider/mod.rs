//! Talking to LLMs: one `Provider` per wire protocol, all streaming through the same callback and
//! returning the same `Completion`.

mod answer_tool;
mod anthropic;
mod assemble;
mod error;
mod gemini;
mod http;
#[cfg(feature = "local")]
mod local;
mod ollama;
mod openai;
#[cfg(test)]
mod props;
mod service;
mod sse;

use std::time::Duration;

pub(crate) use anthropic::AnthropicProvider;
pub(crate) use error::ProviderError;
pub(crate) use gemini::GeminiProvider;
pub(crate) use http::HttpClient;
pub(crate) use ollama::OllamaProvider;
pub(crate) use openai::OpenAiProvider;
pub(crate) use service::{Endpoint, Protocol, select_endpoint};

pub(crate) use crate::protocol::BoxFuture;
use crate::protocol::{Message, ToolCall, ToolChoice, ToolSpec, Usage};

/// One request to the model.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ChatRequest<'a> {
    pub(crate) messages: &'a [Message],
    pub(crate) tools: &'a [ToolSpec],
    pub(crate) tool_choice: &'a ToolChoice,
    pub(crate) stream: bool,
    /// A JSON Schema the reply must follow (constrained output on local servers).
    pub(crate) response_format: Option<&'a serde_json::Value>,
    /// The JSON Schema of the final answer (`--output-schema`), sent the provider's own way.
    pub(crate) output_schema: Option<&'a serde_json::Value>,
}

/// What the model replied with, once the reply is complete.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Completion {
    pub(crate) text: String,
    pub(crate) tool_calls: Vec<ToolCall>,
    pub(crate) usage: Option<Usage>,
}

/// What a provider reports while a reply is under way.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ProviderEvent<'a> {
    /// A piece of the answer's text.
    Text(&'a str),
    /// A failed attempt is about to be tried again after `delay`.
    Retrying {
        attempt: u32,
        delay: Duration,
        reason: String,
    },
}

/// The callback a provider streams through.
pub(crate) type Sink<'a> = dyn FnMut(ProviderEvent<'_>) + 'a;

pub(crate) trait Provider {
    /// The provider's name as reported in `--json` (`openai`, `groq`, ...).
    fn name(&self) -> &str;
    /// The model in use (known after `prepare`).
    fn model(&self) -> &str;
    /// Switches to another model (`/model` in the REPL).
    fn set_model(&mut self, model: String);
    /// Anything to settle before the first request (e.g. which model a local server serves).
    fn prepare(&mut self) -> BoxFuture<'_, Result<(), ProviderError>>;
    /// Sends one request, streaming text to `sink`, and returns the whole reply.
    fn complete<'a>(
        &'a self,
        request: ChatRequest<'a>,
        sink: &'a mut Sink<'_>,
    ) -> BoxFuture<'a, Result<Completion, ProviderError>>;
    /// The models the endpoint serves (`ai --list-models`).
    fn list_models(&self) -> BoxFuture<'_, Result<Vec<String>, ProviderError>>;
    /// Tools can only be called prompt-based, with constrained output (the embedded engine).
    fn prompt_only(&self) -> bool {
        false
    }
    /// Whether a request can carry the answer's schema beside tools and still get tool calls
    /// (false where the schema becomes a grammar over the whole reply, or the API refuses both).
    fn schema_beside_tools(&self) -> bool {
        true
    }
    /// What `prepare` is about to do that the user should hear of (a model to load).
    fn preparing(&self) -> Option<String> {
        None
    }
    /// The tool-call family the model was trained on, when the provider knows it (a model of
    /// the embedded engine's catalogue).
    fn tool_family(&self) -> Option<crate::config::ToolFormat> {
        None
    }
}

/// The provider for an endpoint, by its wire protocol.
pub(crate) fn provider_for(
    endpoint: Endpoint,
    http: HttpClient,
    local: &crate::config::LocalSettings,
) -> Box<dyn Provider> {
    match endpoint.protocol {
        #[cfg(feature = "local")]
        Protocol::Local => {
            let model = endpoint.local;
            Box::new(local::LocalProvider::new(local.clone(), model))
        }
        #[cfg(not(feature = "local"))]
        Protocol::Local => {
            let _ = local;
            Box::new(OpenAiProvider::new(endpoint, http))
        }
        Protocol::OpenAi => Box::new(OpenAiProvider::new(endpoint, http)),
        Protocol::Anthropic => Box::new(AnthropicProvider::new(endpoint, http)),
        Protocol::Ollama => Box::new(OllamaProvider::new(endpoint, http)),
        Protocol::Gemini => Box::new(GeminiProvider::new(endpoint, http)),
    }
}
