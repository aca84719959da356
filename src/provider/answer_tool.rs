//! The final answer as a forced tool call, for APIs whose structured output is a tool's input
//! (Anthropic): the answer's schema becomes one more tool, the model must call a tool on every
//! request, and a call of this one is read back as the answer's text. A schema that is not an
//! object is wrapped in `{"value": ...}`, since a tool's input is always an object.

use serde_json::{Value, json};

use super::Completion;
use crate::protocol::ToolChoice;

/// The tool's name (the model sees it beside the real tools).
pub(crate) const ANSWER_TOOL: &str = "final_answer";

fn is_object_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// The tool whose input is the answer, as Anthropic declares tools.
pub(crate) fn answer_tool(schema: &Value) -> Value {
    let input = if is_object_schema(schema) {
        schema.clone()
    } else {
        json!({"type": "object", "properties": {"value": schema}, "required": ["value"]})
    };
    json!({
        "name": ANSWER_TOOL,
        "description": "Give your final answer: call this once you have everything you need; its input is the answer.",
        "input_schema": input,
    })
}

/// The tool choice that makes a tool call (the answer or a real tool) the only way to reply.
pub(crate) fn forced_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Named(name) => json!({"type": "tool", "name": name}),
        ToolChoice::None => json!({"type": "tool", "name": ANSWER_TOOL}),
        ToolChoice::Auto | ToolChoice::Required => json!({"type": "any"}),
    }
}

/// A call of the answer tool becomes the reply's text (the answer as JSON); other calls stay.
pub(crate) fn take_answer(completion: &mut Completion, schema: &Value) {
    let Some(at) = completion
        .tool_calls
        .iter()
        .position(|call| call.name == ANSWER_TOOL)
    else {
        return;
    };
    let call = completion.tool_calls.remove(at);
    let answer = if is_object_schema(schema) {
        call.arguments
    } else {
        call.arguments
            .get("value")
            .cloned()
            .unwrap_or(call.arguments)
    };
    completion.text = answer.to_string();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ToolCall;

    fn call(name: &str, arguments: Value) -> ToolCall {
        ToolCall {
            id: "t1".into(),
            name: name.into(),
            arguments,
        }
    }

    #[test]
    fn the_answer_call_becomes_the_text_and_other_calls_stay() {
        let schema = json!({"type": "object"});
        let mut completion = Completion {
            text: "Here it is.".into(),
            tool_calls: vec![
                call("filesystem", json!({})),
                call(ANSWER_TOOL, json!({"ok": true})),
            ],
            usage: None,
        };
        take_answer(&mut completion, &schema);
        assert_eq!(completion.text, r#"{"ok":true}"#);
        assert_eq!(completion.tool_calls.len(), 1);
    }

    #[test]
    fn a_schema_that_is_no_object_is_wrapped_and_unwrapped() {
        let schema = json!({"type": "array", "items": {"type": "string"}});
        assert_eq!(
            answer_tool(&schema)["input_schema"]["properties"]["value"],
            schema
        );
        let mut completion = Completion {
            tool_calls: vec![call(ANSWER_TOOL, json!({"value": ["a"]}))],
            ..Completion::default()
        };
        take_answer(&mut completion, &schema);
        assert_eq!(completion.text, r#"["a"]"#);
    }
}
