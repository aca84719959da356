//! Types the values of families that carry them untyped (Qwen3-Coder XML parameters are raw
//! text; pythonic and Gemma literals say `77004` where the tool wants a string) from the tool's
//! own JSON Schema, so a value the schema calls a string stays a string and a number the model
//! quoted becomes a number. With no schema for a value, JSON-looking text is read as JSON.

use serde_json::{Map, Value};

use super::lenient;
use crate::protocol::ToolSpec;

/// The schema of `key` in the parameters of `tool`, when the tool is known.
pub(crate) fn property<'t>(tools: &'t [ToolSpec], tool: &str, key: &str) -> Option<&'t Value> {
    tools
        .iter()
        .find(|t| t.name == tool)?
        .parameters
        .get("properties")?
        .get(key)
}

/// The JSON types a schema admits (`type`, a list of types, `anyOf`/`oneOf` members, or the
/// types of an `enum`/`const`); empty when it says nothing.
fn kinds(schema: &Value) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    match schema.get("type") {
        Some(Value::String(kind)) => out.push(kind),
        Some(Value::Array(list)) => out.extend(list.iter().filter_map(Value::as_str)),
        _ => {}
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(members)) = schema.get(key) {
            for member in members {
                out.extend(kinds(member));
            }
        }
    }
    let listed = schema
        .get("enum")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .chain(schema.get("const"));
    if out.is_empty() {
        for value in listed {
            out.push(kind_of(value));
        }
    }
    out
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A raw text value typed by `schema`. A value that fits none of the schema's types stays text
/// (argument validation then tells the model), never a guess.
pub(crate) fn from_text(raw: &str, schema: Option<&Value>) -> Value {
    let kinds = schema.map(kinds).unwrap_or_default();
    if kinds.is_empty() {
        return match lenient::parse(raw.trim()) {
            Ok(value) => value,
            Err(_) => Value::String(raw.to_string()),
        };
    }
    let trimmed = raw.trim();
    if kinds.contains(&"null") && matches!(trimmed, "null" | "None") {
        return Value::Null;
    }
    for kind in ["integer", "number", "boolean", "object", "array"] {
        if kinds.contains(&kind)
            && let Some(value) = convert(trimmed, kind)
        {
            return value;
        }
    }
    Value::String(raw.to_string())
}

fn convert(text: &str, kind: &str) -> Option<Value> {
    match kind {
        "integer" => {
            if let Ok(int) = text.parse::<i64>() {
                return Some(int.into());
            }
            let float = text.parse::<f64>().ok()?;
            (float.fract() == 0.0 && float.abs() < 9.0e15).then(|| (float as i64).into())
        }
        "number" => match text.parse::<i64>() {
            Ok(int) => Some(int.into()),
            Err(_) => serde_json::Number::from_f64(text.parse().ok()?).map(Value::Number),
        },
        "boolean" => match text.to_ascii_lowercase().as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        "object" => lenient::parse(text).ok().filter(Value::is_object),
        "array" => lenient::parse(text).ok().filter(Value::is_array),
        _ => None,
    }
}

/// A literal the model wrote (pythonic, Gemma) brought to the schema's type where it plainly
/// says something else: `77004` for a string is `"77004"`, `"3"` for an integer is `3`.
pub(crate) fn literal(value: Value, schema: Option<&Value>) -> Value {
    let kinds = schema.map(kinds).unwrap_or_default();
    let actual = kind_of(&value);
    let fits = kinds.is_empty()
        || kinds.contains(&actual)
        || (actual == "integer" && kinds.contains(&"number"));
    if fits {
        return value;
    }
    match value {
        Value::Number(_) | Value::Bool(_) if kinds.contains(&"string") => {
            Value::String(value.to_string())
        }
        Value::String(text) => match schema {
            Some(schema) => from_text(&text, Some(schema)),
            None => Value::String(text),
        },
        other => other,
    }
}

/// Every argument of a call to `tool` brought to its schema with `literal`.
pub(crate) fn type_arguments(
    tools: &[ToolSpec],
    tool: &str,
    arguments: Map<String, Value>,
) -> Value {
    Value::Object(
        arguments
            .into_iter()
            .map(|(key, value)| {
                let typed = literal(value, property(tools, tool, &key));
                (key, typed)
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn raw_text_is_typed_by_each_kind_of_schema() {
        let cases = [
            (json!({"type": "string"}), "77004", json!("77004")),
            (json!({"type": "string"}), " true ", json!(" true ")),
            (json!({"type": "integer"}), "5", json!(5)),
            (json!({"type": "integer"}), "5.0", json!(5)),
            (json!({"type": "integer"}), "five", json!("five")),
            (json!({"type": "number"}), "2.5", json!(2.5)),
            (json!({"type": "boolean"}), "True", json!(true)),
            (json!({"type": "object"}), "{'a': 1}", json!({"a": 1})),
            (json!({"type": "array"}), "[1, 2]", json!([1, 2])),
            (json!({"type": ["integer", "null"]}), "null", Value::Null),
            (json!({"type": ["string", "null"]}), "None", Value::Null),
            (json!({"enum": ["a", "b"]}), "b", json!("b")),
            (json!({"enum": [1, 2]}), "2", json!(2)),
            (
                json!({"anyOf": [{"type": "integer"}, {"type": "string"}]}),
                "12",
                json!(12),
            ),
            (
                json!({"anyOf": [{"type": "integer"}, {"type": "string"}]}),
                "x12",
                json!("x12"),
            ),
            (json!({}), "12", json!(12)),
            (json!({}), "hello", json!("hello")),
        ];
        for (schema, raw, want) in cases {
            assert_eq!(from_text(raw, Some(&schema)), want, "{schema} {raw:?}");
        }
        assert_eq!(from_text("[1]", None), json!([1]));
    }

    #[test]
    fn literals_follow_the_schema_only_where_it_disagrees() {
        let string = json!({"type": "string"});
        let integer = json!({"type": "integer"});
        assert_eq!(literal(json!(77004), Some(&string)), json!("77004"));
        assert_eq!(literal(json!(true), Some(&string)), json!("true"));
        assert_eq!(literal(json!("3"), Some(&integer)), json!(3));
        assert_eq!(literal(json!("x"), Some(&integer)), json!("x"));
        assert_eq!(
            literal(json!(3), Some(&json!({"type": "number"}))),
            json!(3)
        );
        assert_eq!(literal(json!([1]), Some(&string)), json!([1]));
        assert_eq!(literal(json!(7), None), json!(7));
    }
}
