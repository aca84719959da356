//! Talking to LLMs: one `Provider` per wire protocol, all streaming through the same callback and
//! returning the same `Completion`.

mod assemble;
mod error;
mod http;
mod openai;
mod service;
mod sse;

use std::time::Duration;

pub use error::ProviderError;
pub use http::HttpClient;
pub use openai::OpenAiProvider;
pub use service::{Endpoint, SERVICES, Service, select_endpoint};

pub use crate::protocol::BoxFuture;
use crate::protocol::{Message, ToolCall, ToolChoice, ToolSpec, Usage};

/// One request to the model.
#[derive(Debug, Clone, Copy)]
pub struct ChatRequest<'a> {
    pub messages: &'a [Message],
    pub tools: &'a [ToolSpec],
    pub tool_choice: &'a ToolChoice,
    pub stream: bool,
    /// A JSON Schema the reply must follow (constrained output on local servers).
    pub response_format: Option<&'a serde_json::Value>,
}

/// What the model replied with, once the reply is complete.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Completion {
    pub text: String,
    pub tool_calls: Vec<ToolCall>,
    pub usage: Option<Usage>,
}

/// What a provider reports while a reply is under way.
#[derive(Debug, Clone, PartialEq)]
pub enum ProviderEvent<'a> {
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
pub type Sink<'a> = dyn FnMut(ProviderEvent<'_>) + 'a;

pub trait Provider {
    /// The provider's name as reported in `--json` (`openai`, `groq`, ...).
    fn name(&self) -> &str;
    /// The model in use (known after `prepare`).
    fn model(&self) -> &str;
    /// Anything to settle before the first request (e.g. which model a local server serves).
    fn prepare(&mut self) -> BoxFuture<'_, Result<(), ProviderError>>;
    /// Sends one request, streaming text to `sink`, and returns the whole reply.
    fn complete<'a>(
        &'a self,
        request: ChatRequest<'a>,
        sink: &'a mut Sink<'_>,
    ) -> BoxFuture<'a, Result<Completion, ProviderError>>;
}
