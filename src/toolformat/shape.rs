//! Recognises call-shaped JSON: `{"name"|"tool"|"function": N, "arguments"|"args"|"parameters": A}`,
//! OpenAI-style `{"type": "function", "function": {...}}`, `{"tool_call": ...}`, `{"tool_calls": [...]}`
//! and arrays of calls. Tool definitions and schemas are not calls.

use serde_json::{Map, Value};

use super::{ParsedCall, lenient};

const NAME_KEYS: [&str; 3] = ["name", "tool", "function"];
const ARG_KEYS: [&str; 4] = ["arguments", "args", "parameters", "input"];

/// How strict to be about a missing arguments key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Need {
    /// Inside a call marker: a bare `{"name": "f"}` is a call with no arguments.
    NameOnly,
    /// Bare JSON with no marker: only an object with an explicit arguments key is a call (so a
    /// `package.json` with a `name` is not).
    NameAndArguments,
}

/// The calls in `value`, or `None` when it is not call-shaped. `Err` for a call-shaped object
/// whose arguments are unusable (a diagnostic, not a loss of the other calls).
pub(crate) fn calls_in(value: &Value, need: Need) -> Option<Vec<Result<ParsedCall, String>>> {
    match value {
        Value::Array(items) if !items.is_empty() => {
            let mut calls = Vec::new();
            for item in items {
                calls.extend(calls_in(item, need)?);
            }
            Some(calls)
        }
        Value::Object(map) => {
            if let Some(inner) = map.get("tool_calls").filter(|_| map.len() <= 2) {
                return calls_in(inner, Need::NameOnly);
            }
            for wrapper in ["tool_call", "function_call"] {
                if let Some(inner) = map.get(wrapper).filter(|_| map.len() == 1) {
                    return calls_in(inner, Need::NameOnly);
                }
            }
            one_call(map, need).map(|call| vec![call])
        }
        _ => None,
    }
}

fn one_call(map: &Map<String, Value>, need: Need) -> Option<Result<ParsedCall, String>> {
    // `{"type": "function", "function": {"name": ..., "arguments": ...}}`
    if let Some(Value::Object(inner)) = map.get("function") {
        return one_call(inner, Need::NameOnly);
    }
    // Tool definitions and JSON Schemas describe tools; they do not call them.
    if map.contains_key("description")
        || map.contains_key("properties")
        || map.contains_key("$schema")
    {
        return None;
    }
    let name = NAME_KEYS
        .iter()
        .find_map(|k| map.get(*k))?
        .as_str()?
        .trim()
        .to_string();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return None;
    }
    let args = ARG_KEYS.iter().find_map(|k| map.get(*k));
    if args.is_none() && need == Need::NameAndArguments {
        return None;
    }
    let known_keys = map.keys().all(|k| {
        NAME_KEYS.contains(&k.as_str())
            || ARG_KEYS.contains(&k.as_str())
            || matches!(k.as_str(), "id" | "type" | "reasoning" | "call_id")
    });
    if !known_keys && need == Need::NameAndArguments {
        return None;
    }
    let id = map.get("id").and_then(Value::as_str).map(String::from);
    let arguments = match args {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(Value::Object(obj)) => Value::Object(obj.clone()),
        // Arguments given as a JSON string: decoded once.
        Some(Value::String(text)) if text.trim().is_empty() => Value::Object(Map::new()),
        Some(Value::String(text)) => match lenient::parse(text) {
            Ok(Value::Object(obj)) => Value::Object(obj),
            _ => {
                return Some(Err(format!(
                    "the arguments of `{name}` are not a JSON object: {text}"
                )));
            }
        },
        Some(other) => {
            return Some(Err(format!(
                "the arguments of `{name}` must be an object, not {other}"
            )));
        }
    };
    Some(Ok(ParsedCall {
        name,
        arguments,
        id,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(value: Value, need: Need) -> Option<Vec<String>> {
        calls_in(&value, need).map(|calls| {
            calls
                .into_iter()
                .filter_map(Result::ok)
                .map(|c| c.name)
                .collect()
        })
    }

    #[test]
    fn the_common_shapes_are_calls() {
        assert_eq!(
            names(
                json!({"name": "f", "arguments": {}}),
                Need::NameAndArguments
            ),
            Some(vec!["f".into()])
        );
        assert_eq!(
            names(
                json!({"tool": "f", "args": {"a": 1}}),
                Need::NameAndArguments
            ),
            Some(vec!["f".into()])
        );
        assert_eq!(
            names(
                json!({"function": "f", "parameters": {}}),
                Need::NameAndArguments
            ),
            Some(vec!["f".into()])
        );
        assert_eq!(
            names(
                json!({"type": "function", "function": {"name": "f", "arguments": "{}"}}),
                Need::NameAndArguments
            ),
            Some(vec!["f".into()])
        );
        assert_eq!(
            names(
                json!({"tool_calls": [{"name": "f"}, {"name": "g"}]}),
                Need::NameAndArguments
            ),
            Some(vec!["f".into(), "g".into()])
        );
        assert_eq!(
            names(
                json!([{"name": "f", "arguments": {}}, {"name": "g", "arguments": {}}]),
                Need::NameAndArguments
            ),
            Some(vec!["f".into(), "g".into()])
        );
        assert_eq!(
            names(json!({"name": "f"}), Need::NameOnly),
            Some(vec!["f".into()])
        );
    }

    #[test]
    fn things_that_only_look_like_calls_are_not() {
        assert_eq!(
            names(
                json!({"name": "demo", "version": "1.0.0"}),
                Need::NameAndArguments
            ),
            None
        );
        assert_eq!(
            names(
                json!({"name": "f", "description": "d", "parameters": {}}),
                Need::NameAndArguments
            ),
            None
        );
        assert_eq!(
            names(
                json!({"type": "object", "properties": {}}),
                Need::NameAndArguments
            ),
            None
        );
        assert_eq!(names(json!({"name": "f"}), Need::NameAndArguments), None);
        assert_eq!(names(json!([]), Need::NameOnly), None);
        assert_eq!(
            names(json!({"name": 3, "arguments": {}}), Need::NameOnly),
            None
        );
    }

    #[test]
    fn string_arguments_are_decoded_once_and_bad_ones_are_diagnosed() {
        let calls = calls_in(
            &json!({"name": "f", "arguments": "{\"x\": 1}"}),
            Need::NameOnly,
        )
        .unwrap_or_default();
        assert_eq!(
            calls[0].as_ref().map(|c| c.arguments.clone()),
            Ok(json!({"x": 1}))
        );
        let bad = calls_in(
            &json!({"name": "f", "arguments": "not json"}),
            Need::NameOnly,
        )
        .unwrap_or_default();
        assert!(bad[0].is_err());
    }
}
