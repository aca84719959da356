//! The OpenAI-compatible chat completions protocol: request bodies, SSE streaming with tool-call
//! deltas, the non-streaming reply, and the quirks of servers that only mostly follow it.

use serde_json::{Value, json};

use super::assemble::{ToolCallAssembler, parse_arguments};
use super::http::{
    Deadline, HttpClient, RetryBudget, finish_body, first_model, next_chunk, read_body,
    server_message, shorten,
};
use super::sse::SseDecoder;
use super::{
    BoxFuture, ChatRequest, Completion, Endpoint, Provider, ProviderError, ProviderEvent, Sink,
};
use crate::protocol::{Message, ToolCall, ToolChoice, ToolSpec, Usage};

pub(crate) struct OpenAiProvider {
    endpoint: Endpoint,
    http: HttpClient,
    model: String,
}

/// How one attempt went wrong, and whether text had already reached the user.
struct Failed {
    error: ProviderError,
    output_started: bool,
}

impl OpenAiProvider {
    pub(crate) fn new(endpoint: Endpoint, http: HttpClient) -> Self {
        let model = endpoint.model.clone().unwrap_or_default();
        OpenAiProvider {
            endpoint,
            http,
            model,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.endpoint.base_url)
    }

    /// Asks `/models` which models the server serves.
    async fn served_models(&self) -> Result<Vec<String>, ProviderError> {
        let url = self.url("models");
        let request = self.http.get(&url, self.endpoint.api_key.as_ref());
        let value = self.http.json(request, &url).await?;
        Ok(super::anthropic::ids(&value, "/data", "id"))
    }

    async fn complete_inner(
        &self,
        request: ChatRequest<'_>,
        sink: &mut Sink<'_>,
    ) -> Result<Completion, ProviderError> {
        let mut stream = request.stream;
        let mut include_usage = true;
        let mut retries = RetryBudget::new(&self.http.settings);
        let deadline = self.http.deadline();
        loop {
            let body = request_body(&self.model, request, stream, stream && include_usage);
            let attempt = if stream {
                self.stream_once(&body, sink, deadline).await
            } else {
                self.whole_once(&body, sink, deadline).await
            };
            let failed = match attempt {
                Ok(completion) => return Ok(completion),
                Err(failed) => failed,
            };
            match &failed.error {
                // Some local servers answer a streamed request that has tools with an empty body.
                ProviderError::EmptyStream { .. } if stream => {
                    stream = false;
                    continue;
                }
                ProviderError::BadRequest { message, .. }
                    if include_usage && stream && message.contains("stream_options") =>
                {
                    include_usage = false;
                    continue;
                }
                _ => {}
            }
            match retries.next_delay(&failed.error, failed.output_started, deadline, sink) {
                Some(delay) => tokio::time::sleep(delay).await,
                None => return Err(failed.error),
            }
        }
    }

    async fn open(
        &self,
        body: &Value,
        deadline: Deadline,
        streamed: bool,
    ) -> Result<(reqwest::Response, String), Failed> {
        let url = self.url("chat/completions");
        let request = self.http.post(&url, self.endpoint.api_key.as_ref(), body);
        match (self
            .http
            .send(request, &url, &self.model, deadline, streamed))
        .await
        {
            Ok(response) => Ok((response, url)),
            Err(error) => Err(Failed {
                error,
                output_started: false,
            }),
        }
    }

    async fn stream_once(
        &self,
        body: &Value,
        sink: &mut Sink<'_>,
        deadline: Deadline,
    ) -> Result<Completion, Failed> {
        let (mut response, url) = self.open(body, deadline, true).await?;
        let mut state = StreamState::default();
        let mut decoder = SseDecoder::default();
        let idle = self.http.settings.idle_timeout;
        let fail = |error, state: &StreamState| Failed {
            error,
            output_started: !state.completion.text.is_empty(),
        };
        loop {
            let chunk = match next_chunk(&mut response, &url, idle, deadline).await {
                Ok(chunk) => chunk,
                Err(error) => return Err(fail(error, &state)),
            };
            let events = match &chunk {
                Some(bytes) => decoder.feed(bytes),
                None => decoder.finish(),
            };
            for data in events {
                if let Err(error) = state.take(&data, &url, sink) {
                    return Err(fail(error, &state));
                }
            }
            if state.done || chunk.is_none() {
                break;
            }
        }
        finish_body(response).await;
        if !decoder.saw_data {
            return Err(fail(ProviderError::EmptyStream { url }, &state));
        }
        if !state.done && !state.finished {
            let error = ProviderError::Interrupted {
                url,
                message: "the stream ended before the reply was complete".into(),
            };
            return Err(fail(error, &state));
        }
        Ok(state.finish())
    }

    async fn whole_once(
        &self,
        body: &Value,
        sink: &mut Sink<'_>,
        deadline: Deadline,
    ) -> Result<Completion, Failed> {
        let (response, url) = self.open(body, deadline, false).await?;
        let failed = |error| Failed {
            error,
            output_started: false,
        };
        let text = read_body(response, &url, deadline).await.map_err(failed)?;
        let value: Value =
            serde_json::from_str(&text).map_err(|_| failed(not_json(&url, &text)))?;
        if let Some(error) = in_band_error(&value, &url) {
            return Err(failed(error));
        }
        let message = value.pointer("/choices/0/message").ok_or_else(|| {
            failed(ProviderError::BadResponse {
                url: url.clone(),
                message: format!("no choices[0].message in {}", shorten(&text, 200)),
            })
        })?;
        let content = message
            .get("content")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        if !content.is_empty() {
            sink(ProviderEvent::Text(&content));
        }
        let tool_calls = message
            .get("tool_calls")
            .and_then(Value::as_array)
            .map(|calls| calls.iter().enumerate().map(whole_tool_call).collect())
            .unwrap_or_default();
        Ok(Completion {
            text: content,
            tool_calls,
            usage: value.get("usage").and_then(parse_usage),
        })
    }
}

impl Provider for OpenAiProvider {
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
                self.model = first_model(self.served_models().await?, &self.url("models"))?;
            }
            Ok(())
        })
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<String>, ProviderError>> {
        Box::pin(self.served_models())
    }

    fn complete<'a>(
        &'a self,
        request: ChatRequest<'a>,
        sink: &'a mut Sink<'_>,
    ) -> BoxFuture<'a, Result<Completion, ProviderError>> {
        Box::pin(self.complete_inner(request, sink))
    }
}

/// What a stream has delivered so far.
#[derive(Default)]
pub(super) struct StreamState {
    completion: Completion,
    calls: ToolCallAssembler,
    /// `[DONE]` arrived.
    done: bool,
    /// A `finish_reason` arrived: enough for servers that close without `[DONE]`.
    finished: bool,
}

impl StreamState {
    pub(super) fn take(
        &mut self,
        data: &str,
        url: &str,
        sink: &mut Sink<'_>,
    ) -> Result<(), ProviderError> {
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let chunk: Value = serde_json::from_str(data).map_err(|_| ProviderError::BadResponse {
            url: url.to_string(),
            message: format!("a stream chunk is not JSON: {}", shorten(data, 120)),
        })?;
        if let Some(error) = in_band_error(&chunk, url) {
            return Err(error);
        }
        if let Some(usage) = chunk.get("usage").and_then(parse_usage) {
            self.completion.usage = Some(usage);
        }
        let Some(choice) = chunk.pointer("/choices/0") else {
            return Ok(());
        };
        if let Some(text) = choice.pointer("/delta/content").and_then(Value::as_str)
            && !text.is_empty()
        {
            self.completion.text.push_str(text);
            sink(ProviderEvent::Text(text));
        }
        if let Some(deltas) = choice
            .pointer("/delta/tool_calls")
            .and_then(Value::as_array)
        {
            for delta in deltas {
                self.calls.push(delta);
            }
        }
        // Some servers end with a finish_reason and close without `[DONE]`.
        if choice
            .get("finish_reason")
            .is_some_and(|reason| !reason.is_null())
        {
            self.finished = true;
        }
        Ok(())
    }

    pub(super) fn finish(mut self) -> Completion {
        if !self.calls.is_empty() {
            self.completion.tool_calls = self.calls.finish();
        }
        self.completion
    }
}

fn request_body(model: &str, request: ChatRequest<'_>, stream: bool, include_usage: bool) -> Value {
    let mut body = json!({
        "model": model,
        "messages": request.messages.iter().map(wire_message).collect::<Vec<_>>(),
        "stream": stream,
    });
    if include_usage {
        body["stream_options"] = json!({"include_usage": true});
    }
    if let Some(schema) = request.response_format {
        // llama.cpp and llama-cpp-python read a schema next to `json_object`.
        body["response_format"] = json!({"type": "json_object", "schema": schema});
    }
    if let Some(schema) = request.output_schema {
        body["response_format"] =
            json!({"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}});
    }
    if !request.tools.is_empty() {
        body["tools"] = request.tools.iter().map(wire_tool).collect();
        match request.tool_choice {
            ToolChoice::Auto => {}
            ToolChoice::Required => body["tool_choice"] = json!("required"),
            ToolChoice::None => body["tool_choice"] = json!("none"),
            ToolChoice::Named(name) => {
                body["tool_choice"] = json!({"type": "function", "function": {"name": name}});
            }
        }
    }
    body
}

fn wire_message(message: &Message) -> Value {
    match message {
        Message::System { content } => json!({"role": "system", "content": content}),
        Message::User { content } => json!({"role": "user", "content": content}),
        Message::Assistant {
            content,
            tool_calls,
        } => {
            // `content: ""`, never null: llama-cpp-python rejects null next to tool_calls.
            let mut wire = json!({"role": "assistant", "content": content});
            if !tool_calls.is_empty() {
                wire["tool_calls"] = tool_calls.iter().map(wire_tool_call).collect();
            }
            wire
        }
        Message::Tool {
            tool_call_id,
            content,
            ..
        } => json!({"role": "tool", "tool_call_id": tool_call_id, "content": content}),
    }
}

fn wire_tool_call(call: &ToolCall) -> Value {
    let arguments = match &call.arguments {
        Value::String(raw) => raw.clone(),
        other => other.to_string(),
    };
    json!({"id": call.id, "type": "function",
           "function": {"name": call.name, "arguments": arguments}})
}

fn wire_tool(tool: &ToolSpec) -> Value {
    json!({"type": "function", "function": {
        "name": tool.name, "description": tool.description, "parameters": tool.parameters}})
}

fn whole_tool_call((n, call): (usize, &Value)) -> ToolCall {
    let function = call.get("function");
    let arguments = match function.and_then(|f| f.get("arguments")) {
        Some(Value::String(text)) => parse_arguments(text),
        Some(other) => other.clone(),
        None => Value::Object(Default::default()),
    };
    ToolCall {
        id: call
            .get("id")
            .and_then(Value::as_str)
            .map_or_else(|| format!("call_{n}"), String::from),
        name: function
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        arguments,
    }
}

fn parse_usage(usage: &Value) -> Option<Usage> {
    let count = |key| usage.get(key).and_then(Value::as_u64);
    Some(Usage {
        input_tokens: count("prompt_tokens")?,
        output_tokens: count("completion_tokens").unwrap_or(0),
        cached_input_tokens: usage
            .pointer("/prompt_tokens_details/cached_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(0),
    })
}

/// An error object sent with a 200 status, in a chunk or a whole body.
fn in_band_error(value: &Value, url: &str) -> Option<ProviderError> {
    let error = value.get("error").filter(|e| !e.is_null())?;
    Some(ProviderError::Server {
        url: url.to_string(),
        status: 200,
        message: server_message(&error.to_string()),
    })
}

fn not_json(url: &str, body: &str) -> ProviderError {
    ProviderError::BadResponse {
        url: url.to_string(),
        message: format!("the body is not JSON: {}", shorten(body.trim(), 200)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assistant_tool_calls_go_out_with_empty_content_and_string_arguments() {
        let message = Message::Assistant {
            content: String::new(),
            tool_calls: vec![ToolCall {
                id: "c1".into(),
                name: "filesystem".into(),
                arguments: json!({"operation": "read", "path": "Cargo.toml"}),
            }],
        };
        let wire = wire_message(&message);
        assert_eq!(wire["content"], json!(""));
        assert_eq!(
            wire["tool_calls"][0]["function"]["arguments"],
            json!(r#"{"operation":"read","path":"Cargo.toml"}"#)
        );
    }

    #[test]
    fn tool_choice_is_sent_only_with_tools() {
        let tools = [ToolSpec {
            name: "filesystem".into(),
            description: "d".into(),
            parameters: json!({"type": "object"}),
        }];
        let choice = ToolChoice::Named("filesystem".into());
        let req = ChatRequest {
            messages: &[],
            tools: &tools,
            tool_choice: &choice,
            stream: true,
            response_format: None,
            output_schema: None,
        };
        let body = request_body("m", req, true, true);
        assert_eq!(body["tool_choice"]["function"]["name"], json!("filesystem"));
        assert_eq!(body["stream_options"]["include_usage"], json!(true));
        let req = ChatRequest { tools: &[], ..req };
        assert!(
            request_body("m", req, false, false)
                .get("tool_choice")
                .is_none()
        );
    }

    #[test]
    fn a_recorded_llama_cpp_python_stream_assembles_into_one_call() {
        let recorded = include_str!("../../tests/fixtures/pyserver-tool-forced-stream.sse");
        let mut decoder = SseDecoder::default();
        let mut state = StreamState::default();
        let mut texts = Vec::new();
        let mut sink = |e: ProviderEvent<'_>| {
            if let ProviderEvent::Text(t) = e {
                texts.push(t.to_string());
            }
        };
        for data in decoder
            .feed(recorded.as_bytes())
            .into_iter()
            .chain(decoder.finish())
        {
            assert!(state.take(&data, "u", &mut sink).is_ok());
        }
        assert!(state.done);
        let completion = state.finish();
        assert_eq!(completion.tool_calls.len(), 1);
        assert_eq!(completion.tool_calls[0].name, "get_weather");
        assert!(completion.tool_calls[0].arguments.is_object());
        assert!(
            completion.tool_calls[0]
                .id
                .starts_with("call__0_get_weather")
        );
    }
}
