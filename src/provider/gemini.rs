//! Google Gemini (AI Studio): `streamGenerateContent?alt=sse`, `functionDeclarations` with schemas
//! cut down to Gemini's subset, `functionCall` / `functionResponse` parts, `systemInstruction`,
//! and safety-blocked answers reported as such.

use serde_json::{Map, Value, json};

use super::anthropic::ids;
use super::http::{Deadline, HttpClient, first_model, next_chunk, shorten, with_retries};
use super::sse::SseDecoder;
use super::{
    BoxFuture, ChatRequest, Completion, Endpoint, Provider, ProviderError, ProviderEvent, Sink,
};
use crate::protocol::{Message, ToolCall, ToolChoice, Usage};

pub(crate) struct GeminiProvider {
    endpoint: Endpoint,
    http: HttpClient,
    model: String,
}

impl GeminiProvider {
    pub(crate) fn new(endpoint: Endpoint, http: HttpClient) -> Self {
        let model = endpoint.model.clone().unwrap_or_default();
        GeminiProvider {
            endpoint,
            http,
            model,
        }
    }

    fn keyed(&self, builder: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.endpoint.api_key {
            Some(key) => builder.header("x-goog-api-key", key.expose()),
            None => builder,
        }
    }

    async fn list(&self) -> Result<Vec<String>, ProviderError> {
        let url = format!("{}/v1beta/models", self.endpoint.base_url);
        let value = self
            .http
            .json(self.keyed(self.http.get(&url, None)), &url)
            .await?;
        Ok(ids(&value, "/models", "name")
            .into_iter()
            .map(|n| n.trim_start_matches("models/").to_string())
            .collect())
    }

    async fn complete_inner(
        &self,
        request: ChatRequest<'_>,
        sink: &mut Sink<'_>,
    ) -> Result<Completion, ProviderError> {
        let url = format!(
            "{}/v1beta/models/{}:streamGenerateContent?alt=sse",
            self.endpoint.base_url, self.model
        );
        let body = request_body(request);
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
                self.keyed(self.http.post(url, None, body)),
                url,
                &self.model,
                deadline,
                true,
            )
            .await?;
        let mut decoder = SseDecoder::default();
        let mut completion = Completion::default();
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
                take_event(&data, url, &mut completion, sink, started)?;
            }
            if chunk.is_none() {
                break;
            }
        }
        if !decoder.saw_data {
            return Err(ProviderError::bad_response(url, "the reply was empty"));
        }
        Ok(completion)
    }
}

impl Provider for GeminiProvider {
    /// Gemini 2.5 and earlier refuse a response schema next to function declarations.
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

fn take_event(
    data: &str,
    url: &str,
    completion: &mut Completion,
    sink: &mut Sink<'_>,
    started: &mut bool,
) -> Result<(), ProviderError> {
    let value: Value = serde_json::from_str(data).map_err(|_| {
        ProviderError::bad_response(
            url,
            format!("a stream chunk is not JSON: {}", shorten(data, 120)),
        )
    })?;
    if let Some(reason) = value
        .pointer("/promptFeedback/blockReason")
        .and_then(Value::as_str)
    {
        return Err(blocked(url, reason));
    }
    if let Some(usage) = value.get("usageMetadata") {
        completion.usage = Some(Usage {
            input_tokens: usage
                .get("promptTokenCount")
                .and_then(Value::as_u64)
                .unwrap_or(0),
            output_tokens: usage
                .get("candidatesTokenCount")
                .and_then(Value::as_u64)
                .unwrap_or(0),
            cached_input_tokens: usage
                .get("cachedContentTokenCount")
                .and_then(Value::as_u64)
                .unwrap_or(0),
        });
    }
    let Some(candidate) = value.pointer("/candidates/0") else {
        return Ok(());
    };
    for part in candidate
        .pointer("/content/parts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if part.get("thought").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        if let Some(text) = part.get("text").and_then(Value::as_str)
            && !text.is_empty()
        {
            *started = true;
            completion.text.push_str(text);
            sink(ProviderEvent::Text(text));
        }
        if let Some(call) = part.get("functionCall") {
            let n = completion.tool_calls.len();
            completion.tool_calls.push(ToolCall {
                id: call
                    .get("id")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("call_{n}"), String::from),
                name: call
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                arguments: call.get("args").cloned().unwrap_or_else(|| json!({})),
            });
        }
    }
    match candidate.get("finishReason").and_then(Value::as_str) {
        Some(reason @ ("SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII"))
            if completion.text.is_empty() && completion.tool_calls.is_empty() =>
        {
            Err(blocked(url, reason))
        }
        _ => Ok(()),
    }
}

fn blocked(url: &str, reason: &str) -> ProviderError {
    ProviderError::BadRequest {
        url: url.to_string(),
        status: 200,
        message: format!("Gemini blocked the answer ({reason}); rephrase the request"),
    }
}

fn request_body(request: ChatRequest<'_>) -> Value {
    let mut system = Vec::new();
    let mut contents: Vec<(String, Vec<Value>)> = Vec::new();
    for message in request.messages {
        let (role, parts) = match message {
            Message::System { content } => {
                system.push(content.as_str());
                continue;
            }
            Message::User { content } => ("user", vec![json!({"text": content})]),
            Message::Assistant {
                content,
                tool_calls,
            } => {
                let mut parts = Vec::new();
                if !content.is_empty() {
                    parts.push(json!({"text": content}));
                }
                parts.extend(
                    tool_calls
                        .iter()
                        .map(|c| json!({"functionCall": {"name": c.name, "args": c.arguments}})),
                );
                ("model", parts)
            }
            Message::Tool { name, content, .. } => {
                let response = serde_json::from_str::<Value>(content)
                    .ok()
                    .filter(Value::is_object)
                    .unwrap_or_else(|| json!({"content": content}));
                (
                    "user",
                    vec![json!({"functionResponse": {"name": name, "response": response}})],
                )
            }
        };
        if parts.is_empty() {
            continue;
        }
        match contents.last_mut() {
            Some((last, existing)) if last == role => existing.extend(parts),
            _ => contents.push((role.to_string(), parts)),
        }
    }
    let mut body = json!({
        "contents": contents.into_iter().map(|(role, parts)| json!({"role": role, "parts": parts})).collect::<Vec<_>>(),
    });
    if !system.is_empty() {
        body["systemInstruction"] = json!({"parts": [{"text": system.join("\n\n")}]});
    }
    if !request.tools.is_empty() {
        let declarations: Vec<Value> = request
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "parameters": gemini_schema(&t.parameters)}))
            .collect();
        body["tools"] = json!([{"functionDeclarations": declarations}]);
        let config = match request.tool_choice {
            ToolChoice::Auto => json!({"mode": "AUTO"}),
            ToolChoice::Required => json!({"mode": "ANY"}),
            ToolChoice::None => json!({"mode": "NONE"}),
            ToolChoice::Named(name) => json!({"mode": "ANY", "allowedFunctionNames": [name]}),
        };
        body["toolConfig"] = json!({"functionCallingConfig": config});
    }
    if let Some(schema) = request.response_format.or(request.output_schema) {
        body["generationConfig"] = json!({"responseMimeType": "application/json", "responseSchema": gemini_schema(schema)});
    }
    body
}

/// A JSON Schema cut down to what Gemini accepts: `$ref`s inlined, unknown keywords dropped,
/// `["T", "null"]` types made `nullable`, `oneOf` of constants made an `enum`.
pub(crate) fn gemini_schema(schema: &Value) -> Value {
    let defs = schema
        .get("$defs")
        .or_else(|| schema.get("definitions"))
        .cloned()
        .unwrap_or_default();
    convert(schema, &defs, 0)
}

fn convert(schema: &Value, defs: &Value, depth: usize) -> Value {
    let Some(object) = schema.as_object() else {
        return schema.clone();
    };
    if depth > 32 {
        return json!({"type": "object"});
    }
    if let Some(target) = object.get("$ref").and_then(Value::as_str) {
        let name = target.rsplit('/').next().unwrap_or_default();
        return defs.get(name).map_or_else(
            || json!({"type": "string"}),
            |d| convert(d, defs, depth + 1),
        );
    }
    // `oneOf: [{const, description}, ...]` (how enums with documented variants come out)
    if let Some(variants) = object.get("oneOf").and_then(Value::as_array)
        && variants.iter().all(|v| v.get("const").is_some())
    {
        let values: Vec<Value> = variants
            .iter()
            .filter_map(|v| v.get("const").cloned())
            .collect();
        return json!({"type": "string", "enum": values});
    }
    let mut out = Map::new();
    for (key, value) in object {
        match key.as_str() {
            "type" => match value {
                Value::Array(types) => {
                    let real: Vec<&Value> = types
                        .iter()
                        .filter(|t| t.as_str() != Some("null"))
                        .collect();
                    out.insert(
                        "type".into(),
                        real.first().map_or(json!("string"), |t| (*t).clone()),
                    );
                    if real.len() < types.len() {
                        out.insert("nullable".into(), json!(true));
                    }
                }
                other => {
                    out.insert("type".into(), other.clone());
                }
            },
            "properties" => {
                let props: Map<String, Value> = value
                    .as_object()
                    .map(|p| {
                        p.iter()
                            .map(|(k, v)| (k.clone(), convert(v, defs, depth + 1)))
                            .collect()
                    })
                    .unwrap_or_default();
                out.insert(key.clone(), Value::Object(props));
            }
            "items" => {
                out.insert(key.clone(), convert(value, defs, depth + 1));
            }
            "anyOf" => {
                let options: Vec<Value> = value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|v| convert(v, defs, depth + 1))
                    .collect();
                out.insert(key.clone(), Value::Array(options));
            }
            "description" | "enum" | "required" | "nullable" | "minimum" | "maximum"
            | "minItems" | "maxItems" => {
                out.insert(key.clone(), value.clone());
            }
            "format"
                if matches!(
                    value.as_str(),
                    Some("int32" | "int64" | "float" | "double" | "enum" | "date-time")
                ) =>
            {
                out.insert(key.clone(), value.clone());
            }
            _ => {}
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_lose_what_gemini_rejects() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "operation": {"$ref": "#/$defs/Operation"},
                "limit": {"type": ["integer", "null"], "format": "uint64", "minimum": 0},
            },
            "required": ["operation"],
            "$defs": {"Operation": {"oneOf": [{"const": "read", "description": "r"}, {"const": "list"}]}}
        });
        assert_eq!(
            gemini_schema(&schema),
            json!({"type": "object", "required": ["operation"], "properties": {
                "operation": {"type": "string", "enum": ["read", "list"]},
                "limit": {"type": "integer", "nullable": true, "minimum": 0}}})
        );
    }
}
