//! Assembles streamed tool-call deltas into whole calls. Deltas are keyed by index; the id and name
//! are taken once (some servers repeat them in every chunk) and only the arguments concatenate.

use serde_json::Value;

use crate::protocol::ToolCall;

#[derive(Debug, Default)]
struct Partial {
    index: u64,
    id: String,
    name: String,
    arguments: String,
}

#[derive(Debug, Default)]
pub(crate) struct ToolCallAssembler {
    calls: Vec<Partial>,
}

impl ToolCallAssembler {
    /// Takes one element of a chunk's `delta.tool_calls` array.
    pub(crate) fn push(&mut self, delta: &Value) {
        let index = delta
            .get("index")
            .and_then(Value::as_u64)
            .unwrap_or_else(|| self.calls.last().map_or(0, |c| c.index));
        let slot = match self.calls.iter().position(|c| c.index == index) {
            Some(pos) => &mut self.calls[pos],
            None => {
                self.calls.push(Partial {
                    index,
                    ..Partial::default()
                });
                let last = self.calls.len() - 1;
                &mut self.calls[last]
            }
        };
        if slot.id.is_empty()
            && let Some(id) = delta.get("id").and_then(Value::as_str)
        {
            slot.id = id.to_string();
        }
        let function = delta.get("function");
        if slot.name.is_empty()
            && let Some(name) = function.and_then(|f| f.get("name")).and_then(Value::as_str)
        {
            slot.name = name.to_string();
        }
        match function.and_then(|f| f.get("arguments")) {
            Some(Value::String(piece)) => slot.arguments.push_str(piece),
            // Some servers send the arguments as an object in one piece.
            Some(object @ Value::Object(_)) => slot.arguments = object.to_string(),
            _ => {}
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// The finished calls, in index order. Arguments that are not valid JSON are kept as a string
    /// so the agent can answer the model with a parse error instead of losing the call.
    pub(crate) fn finish(mut self) -> Vec<ToolCall> {
        self.calls.sort_by_key(|c| c.index);
        self.calls
            .into_iter()
            .enumerate()
            .map(|(n, call)| ToolCall {
                id: if call.id.is_empty() {
                    format!("call_{n}")
                } else {
                    call.id
                },
                name: call.name,
                arguments: parse_arguments(&call.arguments),
            })
            .collect()
    }
}

/// Arguments as the model sent them: a JSON text (empty means none), parsed when possible.
pub(crate) fn parse_arguments(text: &str) -> Value {
    if text.trim().is_empty() {
        return Value::Object(Default::default());
    }
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn id_and_name_repeated_in_every_chunk_are_taken_once() {
        let mut a = ToolCallAssembler::default();
        for piece in ["{\"", "path", "\":", "\"Cargo.toml\"}"] {
            a.push(&json!({"index": 0, "id": "call_x", "type": "function",
                "function": {"name": "filesystem", "arguments": piece}}));
        }
        let calls = a.finish();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].id, "call_x");
        assert_eq!(calls[0].name, "filesystem");
        assert_eq!(calls[0].arguments, json!({"path": "Cargo.toml"}));
    }

    #[test]
    fn interleaved_parallel_calls_are_kept_apart_and_ordered() {
        let mut a = ToolCallAssembler::default();
        a.push(&json!({"index": 1, "id": "b", "function": {"name": "two", "arguments": "{\"x\""}}));
        a.push(&json!({"index": 0, "id": "a", "function": {"name": "one", "arguments": ""}}));
        a.push(&json!({"index": 1, "function": {"arguments": ":1}"}}));
        a.push(&json!({"index": 0, "function": {"arguments": "{}"}}));
        let calls = a.finish();
        let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["one", "two"]);
        assert_eq!(calls[1].arguments, json!({"x": 1}));
    }

    #[test]
    fn broken_arguments_are_kept_as_text_and_missing_ids_are_made_up() {
        let mut a = ToolCallAssembler::default();
        a.push(&json!({"index": 0, "function": {"name": "f", "arguments": "{\"cut"}}));
        let calls = a.finish();
        assert_eq!(calls[0].id, "call_0");
        assert_eq!(calls[0].arguments, json!("{\"cut"));
    }
}
