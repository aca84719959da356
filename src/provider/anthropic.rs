//! Anthropic Messages: `system` at the top level, `max_tokens` always sent, `tool_use` blocks with
//! `input_json_delta` assembly, `tool_result` blocks back, and the SSE event stream.

use serde_json::{Value, json};

use super::answer_tool::{answer_tool, forced_choice, take_answer};
use super::assemble::parse_arguments;
use super::http::{
    Deadline, HttpClient, finish_body, first_model, next_chunk, read_body, shorten, with_retries,
};
use super::sse::SseDecoder;
use super::{
    BoxFuture, ChatRequest, Completion, Endpoint, Provider, ProviderError, ProviderEvent, Sink,
};
use crate::protocol::{Message, ToolCall, ToolChoice, Usage};

const VERSION: &str = "2023-06-01";
const MAX_TOKENS: u64 = 8192;

pub(crate) struct AnthropicProvider {
    endpoint: Endpoint,
    http: HttpClient,
    model: String,
}

impl AnthropicProvider {
    pub(crate) fn new(endpoint: Endpoint, http: HttpClient) -> Self {
        let model = endpoint.model.clone().unwrap_or_default();
        AnthropicProvider {
            endpoint,
            http,
            model,
        }
    }

    fn request(&self, url: &str, body: Option<&Value>) -> reqwest::RequestBuilder {
        let builder = match body {
            Some(body) => self.http.post(url, None, body),
            None => self.http.get(url, None),
        };
        let builder = builder.header("anthropic-version", VERSION);
        match &self.endpoint.api_key {
            Some(key) => builder.header("x-api-key", key.expose()),
            None => builder,
        }
    }

    async fn complete_inner(
        &self,
        request: ChatRequest<'_>,
        sink: &mut Sink<'_>,
    ) -> Result<Completion, ProviderError> {
        let url = format!("{}/v1/messages", self.endpoint.base_url);
        let body = request_body(&self.model, request);
        let stream = request.stream;
        let mut completion = with_retries!(self.http, sink, |started, deadline| self
            .attempt(&url, &body, stream, sink, started, deadline))?;
        if let Some(schema) = request.output_schema {
            take_answer(&mut completion, schema);
        }
        Ok(completion)
    }

    async fn attempt(
        &self,
        url: &str,
        body: &Value,
        stream: bool,
        sink: &mut Sink<'_>,
        started: &mut bool,
        deadline: Deadline,
    ) -> Result<Completion, ProviderError> {
        let response = self
            .http
            .send(
                self.request(url, Some(body)),
                url,
                &self.model,
                deadline,
                stream,
            )
            .await?;
        if !stream {
            let text = read_body(response, url, deadline).await?;
            let value: Value = serde_json::from_str(&text).map_err(|_| {
                ProviderError::bad_response(
                    url,
                    format!("the body is not JSON: {}", shorten(&text, 200)),
                )
            })?;
            return Ok(whole_reply(&value, sink));
        }
        let mut response = response;
        let mut decoder = SseDecoder::default();
        let mut state = StreamState::default();
        loop {
            let chunk = next_chunk(
                &mut response,
                url,
                self.http.settings.idle_timeout,
                deadline,
            )
            .await?;
            let events = match &chunk {
                Some(bytes) => decoder.feed(bytes),
                None => decoder.finish(),
            };
            for data in events {
                state.take(&data, url, sink, started)?;
            }
            if state.stopped || chunk.is_none() {
                break;
            }
        }
        finish_body(response).await;
        if !state.stopped {
            return Err(ProviderError::Interrupted {
                url: url.to_string(),
                message: "the stream ended before message_stop".into(),
            });
        }
        Ok(state.finish())
    }

    async fn list(&self) -> Result<Vec<String>, ProviderError> {
        let url = format!("{}/v1/models", self.endpoint.base_url);
        let value = self.http.json(self.request(&url, None), &url).await?;
        Ok(ids(&value, "/data", "id"))
    }
}

impl Provider for AnthropicProvider {
    fn name(&self) -> &str {
        self.endpoint.service
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn set_model(&mut self, model: String) {
        self.model = model;
    }

    fn prepare(&mut self) -> BoxFuture<'_, Result<(), ProviderError>> {
        Box::pin(async move {
            if self.model.is_empty() {
                self.model = first_model(self.list().await?, &self.endpoint.base_url)?;
            }
            Ok(())
        })
    }

    fn complete<'a>(
        &'a self,
        request: ChatRequest<'a>,
        sink: &'a mut Sink<'_>,
    ) -> BoxFuture<'a, Result<Completion, ProviderError>> {
        Box::pin(self.complete_inner(request, sink))
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<String>, ProviderError>> {
        Box::pin(self.list())
    }
}

pub(crate) fn ids(value: &Value, pointer: &str, key: &str) -> Vec<String> {
    value
        .pointer(pointer)
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|m| m.get(key).and_then(Value::as_str).map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

fn request_body(model: &str, request: ChatRequest<'_>) -> Value {
    let system: Vec<&str> = request
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::System { content } => Some(content.as_str()),
            _ => None,
        })
        .collect();
    let mut body = json!({
        "model": model,
        "max_tokens": MAX_TOKENS,
        "messages": wire_messages(request.messages),
        "stream": request.stream,
    });
    if !system.is_empty() {
        body["system"] = json!(system.join("\n\n"));
    }
    let mut tools: Vec<Value> = request
        .tools
        .iter()
        .map(
            |t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}),
        )
        .collect();
    if let Some(schema) = request.output_schema {
        // The answer is a forced tool call: the model calls a real tool or gives the answer.
        tools.push(answer_tool(schema));
        body["tools"] = Value::Array(tools);
        body["tool_choice"] = forced_choice(request.tool_choice);
    } else if !tools.is_empty() {
        body["tools"] = Value::Array(tools);
        body["tool_choice"] = match request.tool_choice {
            ToolChoice::Auto => json!({"type": "auto"}),
            ToolChoice::Required => json!({"type": "any"}),
            ToolChoice::None => json!({"type": "none"}),
            ToolChoice::Named(name) => json!({"type": "tool", "name": name}),
        };
    }
    body
}

/// Messages as Anthropic wants them: strictly alternating roles, tool results as `tool_result`
/// blocks in a user turn, consecutive turns of one role merged.
fn wire_messages(messages: &[Message]) -> Vec<Value> {
    let mut out: Vec<(String, Vec<Value>)> = Vec::new();
    for message in messages {
        let (role, blocks) = match message {
            Message::System { .. } => continue,
            Message::User { content } => ("user", vec![json!({"type": "text", "text": content})]),
            Message::Assistant {
                content,
                tool_calls,
            } => {
                let mut blocks = Vec::new();
                if !content.is_empty() {
                    blocks.push(json!({"type": "text", "text": content}));
                }
                for call in tool_calls {
                    let input = if call.arguments.is_object() {
                        call.arguments.clone()
                    } else {
                        json!({})
                    };
                    blocks.push(json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input}));
                }
                if blocks.is_empty() {
                    blocks.push(json!({"type": "text", "text": "(no answer)"}));
                }
                ("assistant", blocks)
            }
            Message::Tool {
                tool_call_id,
                content,
                ..
            } => (
                "user",
                vec![
                    json!({"type": "tool_result", "tool_use_id": tool_call_id, "content": content}),
                ],
            ),
        };
        match out.last_mut() {
            Some((last, existing)) if last == role => existing.extend(blocks),
            _ => out.push((role.to_string(), blocks)),
        }
    }
    out.into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect()
}

fn whole_reply(value: &Value, sink: &mut Sink<'_>) -> Completion {
    let mut completion = Completion::default();
    for block in value
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => completion.text.push_str(
                block
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
            ),
            Some("tool_use") => completion.tool_calls.push(ToolCall {
                id: block
                    .get("id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                name: block
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                arguments: block.get("input").cloned().unwrap_or_else(|| json!({})),
            }),
            _ => {}
        }
    }
    if !completion.text.is_empty() {
        sink(ProviderEvent::Text(&completion.text));
    }
    completion.usage = value.get("usage").map(|u| Usage {
        input_tokens: u.get("input_tokens").and_then(Value::as_u64).unwrap_or(0),
        output_tokens: u.get("output_tokens").and_then(Value::as_u64).unwrap_or(0),
        cached_input_tokens: u
            .get("cache_read_input_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(0),
    });
    completion
}

/// A tool_use block being streamed.
#[derive(Default)]
struct Block {
    id: String,
    name: String,
    json: String,
}

#[derive(Default)]
struct StreamState {
    completion: Completion,
    blocks: Vec<(u64, Block)>,
    usage: Usage,
    stopped: bool,
}

impl StreamState {
    fn take(
        &mut self,
        data: &str,
        url: &str,
        sink: &mut Sink<'_>,
        started: &mut bool,
    ) -> Result<(), ProviderError> {
        let event: Value = serde_json::from_str(data).map_err(|_| {
            ProviderError::bad_response(
                url,
                format!("a stream event is not JSON: {}", shorten(data, 120)),
            )
        })?;
        let index = event.get("index").and_then(Value::as_u64).unwrap_or(0);
        match event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
        {
            "message_start" => {
                if let Some(usage) = event.pointer("/message/usage") {
                    self.usage.input_tokens = usage
                        .get("input_tokens")
                        .and_then(Value::as_u64)
                        .unwrap_or(0);
                }
            }
            "content_block_start" => {
                let block = event.get("content_block").cloned().unwrap_or_default();
                if block.get("type").and_then(Value::as_str) == Some("tool_use") {
                    self.blocks.push((
                        index,
                        Block {
                            id: block
                                .get("id")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_string(),
                            name: block
                                .get("name")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_string(),
                            json: String::new(),
                        },
                    ));
                }
            }
            "content_block_delta" => {
                let delta = event.get("delta").cloned().unwrap_or_default();
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") => {
                        let text = delta
                            .get("text")
                            .and_then(Value::as_str)
                            .unwrap_or_default();
                        if !text.is_empty() {
                            *started = true;
                            self.completion.text.push_str(text);
                            sink(ProviderEvent::Text(text));
                        }
                    }
                    Some("input_json_delta") => {
                        if let Some((_, block)) = self.blocks.iter_mut().find(|(i, _)| *i == index)
                        {
                            block.json.push_str(
                                delta
                                    .get("partial_json")
                                    .and_then(Value::as_str)
                                    .unwrap_or_default(),
                            );
                        }
                    }
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(output) = event
                    .pointer("/usage/output_tokens")
                    .and_then(Value::as_u64)
                {
                    self.usage.output_tokens = output;
                }
            }
            "message_stop" => self.stopped = true,
            "error" => {
                let kind = event
                    .pointer("/error/type")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let message = event
                    .pointer("/error/message")
                    .and_then(Value::as_str)
                    .unwrap_or("(no message)")
                    .to_string();
                let url = url.to_string();
                return Err(
                    if kind == "overloaded_error" || kind == "rate_limit_error" {
                        ProviderError::RateLimited {
                            url,
                            status: 529,
                            retry_after: None,
                            message,
                        }
                    } else {
                        ProviderError::Server {
                            url,
                            status: 200,
                            message,
                        }
                    },
                );
            }
            _ => {} // ping, content_block_stop
        }
        Ok(())
    }

    fn finish(mut self) -> Completion {
        self.completion.tool_calls = self
            .blocks
            .into_iter()
            .map(|(_, block)| ToolCall {
                id: block.id,
                name: block.name,
                arguments: parse_arguments(&block.json),
            })
            .collect();
        self.completion.usage = Some(self.usage);
        self.completion
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_results_become_tool_result_blocks_in_one_user_turn() {
        let messages = vec![
            Message::System {
                content: "sys".into(),
            },
            Message::User {
                content: "q".into(),
            },
            Message::Assistant {
                content: String::new(),
                tool_calls: vec![
                    ToolCall {
                        id: "a".into(),
                        name: "f".into(),
                        arguments: json!({"x": 1}),
                    },
                    ToolCall {
                        id: "b".into(),
                        name: "g".into(),
                        arguments: json!({}),
                    },
                ],
            },
            Message::Tool {
                tool_call_id: "a".into(),
                name: "f".into(),
                content: "1".into(),
            },
            Message::Tool {
                tool_call_id: "b".into(),
                name: "g".into(),
                content: "2".into(),
            },
        ];
        let wire = wire_messages(&messages);
        assert_eq!(wire.len(), 3);
        assert_eq!(wire[1]["content"][0]["type"], json!("tool_use"));
        assert_eq!(wire[2]["role"], json!("user"));
        assert_eq!(
            wire[2]["content"][1],
            json!({"type": "tool_result", "tool_use_id": "b", "content": "2"})
        );
    }
}
