//! Ollama's native `/api/chat`: NDJSON streaming, `tools`, `tool_calls` whose arguments are
//! objects, results as `tool` messages naming the tool, `format` for structured output, and
//! `/api/tags` for the models it has.

use serde_json::{Value, json};

use super::anthropic::ids;
use super::http::{
    Deadline, HttpClient, finish_body, next_chunk, server_message, shorten, with_retries,
};
use super::{
    BoxFuture, ChatRequest, Completion, Endpoint, Provider, ProviderError, ProviderEvent, Sink,
};
use crate::protocol::{Message, ToolCall, Usage};

pub(crate) struct OllamaProvider {
    endpoint: Endpoint,
    http: HttpClient,
    model: String,
}

impl OllamaProvider {
    pub(crate) fn new(endpoint: Endpoint, http: HttpClient) -> Self {
        let model = endpoint.model.clone().unwrap_or_default();
        OllamaProvider {
            endpoint,
            http,
            model,
        }
    }

    async fn list(&self) -> Result<Vec<String>, ProviderError> {
        let url = format!("{}/api/tags", self.endpoint.base_url);
        let value = self.http.json(self.http.get(&url, None), &url).await?;
        Ok(ids(&value, "/models", "name"))
    }

    async fn complete_inner(
        &self,
        request: ChatRequest<'_>,
        sink: &mut Sink<'_>,
    ) -> Result<Completion, ProviderError> {
        let url = format!("{}/api/chat", self.endpoint.base_url);
        let body = request_body(&self.model, request);
        with_retries!(self.http, sink, |started, deadline| self
            .attempt(&url, &body, sink, started, deadline))
    }

    async fn attempt(
        &self,
        url: &str,
        body: &Value,
        sink: &mut Sink<'_>,
        started: &mut bool,
        deadline: Deadline,
    ) -> Result<Completion, ProviderError> {
        let mut response = self
            .http
            .send(
                self.http.post(url, self.endpoint.api_key.as_ref(), body),
                url,
                &self.model,
                deadline,
                true,
            )
            .await?;
        let mut completion = Completion::default();
        let mut pending: Vec<u8> = Vec::new();
        let mut done = false;
        loop {
            let chunk = next_chunk(
                &mut response,
                url,
                self.http.settings.idle_timeout,
                deadline,
            )
            .await?;
            let at_end = chunk.is_none();
            if let Some(bytes) = chunk {
                pending.extend_from_slice(&bytes);
            }
            for line in split_lines(&mut pending, at_end) {
                let line = String::from_utf8_lossy(&line);
                if !line.trim().is_empty() {
                    done |= take_line(&line, url, &mut completion, sink, started)?;
                }
            }
            if done || at_end {
                break;
            }
        }
        finish_body(response).await;
        if !done {
            return Err(ProviderError::Interrupted {
                url: url.to_string(),
                message: "the stream ended before `done`".into(),
            });
        }
        Ok(completion)
    }
}

impl Provider for OllamaProvider {
    /// `format` becomes a grammar over the whole reply: under it the model cannot call a tool.
    fn schema_beside_tools(&self) -> bool {
        false
    }

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
                self.model = self.list().await?.into_iter().next().ok_or_else(|| {
                    ProviderError::bad_response(
                        &self.endpoint.base_url,
                        "it has no model; `ollama pull` one, or pass -m MODEL",
                    )
                })?;
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

/// The complete lines at the front of `pending` (all of it `at_end`); the rest stays.
pub(super) fn split_lines(pending: &mut Vec<u8>, at_end: bool) -> Vec<Vec<u8>> {
    let mut lines: Vec<Vec<u8>> = Vec::new();
    while let Some(newline) = pending.iter().position(|b| *b == b'\n') {
        lines.push(pending.drain(..=newline).collect());
    }
    if at_end && !pending.is_empty() {
        lines.push(std::mem::take(pending));
    }
    lines
}

/// One NDJSON line; `true` when it is the last one (`done`).
pub(super) fn take_line(
    line: &str,
    url: &str,
    completion: &mut Completion,
    sink: &mut Sink<'_>,
    started: &mut bool,
) -> Result<bool, ProviderError> {
    let value: Value = serde_json::from_str(line).map_err(|_| {
        ProviderError::bad_response(
            url,
            format!("a stream line is not JSON: {}", shorten(line, 120)),
        )
    })?;
    if let Some(error) = value.get("error") {
        return Err(ProviderError::Server {
            url: url.to_string(),
            status: 200,
            message: server_message(&json!({"error": error}).to_string()),
        });
    }
    let message = value.get("message").cloned().unwrap_or_default();
    if let Some(text) = message.get("content").and_then(Value::as_str)
        && !text.is_empty()
    {
        *started = true;
        completion.text.push_str(text);
        sink(ProviderEvent::Text(text));
    }
    for call in message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let function = call.get("function").cloned().unwrap_or_default();
        let n = completion.tool_calls.len();
        completion.tool_calls.push(ToolCall {
            id: call
                .get("id")
                .and_then(Value::as_str)
                .map_or_else(|| format!("call_{n}"), String::from),
            name: function
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            arguments: match function.get("arguments") {
                Some(Value::String(text)) => super::assemble::parse_arguments(text),
                Some(other) => other.clone(),
                None => json!({}),
            },
        });
    }
    let done = value.get("done").and_then(Value::as_bool).unwrap_or(false);
    if done {
        completion.usage = Some(Usage {
            input_tokens: value
                .get("prompt_eval_count")
                .and_then(Value::as_u64)
                .unwrap_or(0),
            output_tokens: value.get("eval_count").and_then(Value::as_u64).unwrap_or(0),
            cached_input_tokens: 0,
        });
    }
    Ok(done)
}

fn request_body(model: &str, request: ChatRequest<'_>) -> Value {
    let messages: Vec<Value> = request
        .messages
        .iter()
        .map(|message| match message {
            Message::System { content } => json!({"role": "system", "content": content}),
            Message::User { content } => json!({"role": "user", "content": content}),
            Message::Assistant {
                content,
                tool_calls,
            } => {
                let mut wire = json!({"role": "assistant", "content": content});
                if !tool_calls.is_empty() {
                    wire["tool_calls"] = tool_calls
                        .iter()
                        .map(|c| json!({"function": {"name": c.name, "arguments": c.arguments}}))
                        .collect();
                }
                wire
            }
            Message::Tool { name, content, .. } => {
                json!({"role": "tool", "tool_name": name, "content": content})
            }
        })
        .collect();
    // Ollama streams tool calls whole; streaming is always on for live text.
    let mut body = json!({"model": model, "messages": messages, "stream": true});
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}))
            .collect();
    }
    if let Some(schema) = request.response_format.or(request.output_schema) {
        body["format"] = schema.clone();
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ndjson_lines_give_text_calls_and_usage() {
        let mut completion = Completion::default();
        let mut texts = Vec::new();
        let mut sink = |e: ProviderEvent<'_>| {
            if let ProviderEvent::Text(t) = e {
                texts.push(t.to_string());
            }
        };
        let mut started = false;
        let lines = [
            r#"{"message":{"role":"assistant","content":"Hi "},"done":false}"#,
            r#"{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":{"a":1}}}]},"done":false}"#,
            r#"{"message":{"role":"assistant","content":""},"done":true,"prompt_eval_count":5,"eval_count":2}"#,
        ];
        let mut done = false;
        for line in lines {
            done = take_line(line, "u", &mut completion, &mut sink, &mut started).unwrap_or(false);
        }
        assert!(done);
        assert_eq!(texts, vec!["Hi ".to_string()]);
        assert_eq!(completion.tool_calls[0].arguments, json!({"a": 1}));
        assert_eq!(
            completion.usage,
            Some(Usage {
                input_tokens: 5,
                output_tokens: 2,
                cached_input_tokens: 0,
            })
        );
    }
}
