//! LFM2 (Liquid): `<|tool_call_start|>[f(a=1, b="x")]<|tool_call_end|>`, a pythonic list between
//! special tokens (JSON when asked for it), tools listed between `<|tool_list_start|>` and
//! `<|tool_list_end|>`; results go back in the tool role.

use serde_json::json;

use super::region::{self, Item};
use super::{Answered, Family, Format, hermes, pythonic};
use crate::protocol::{Message, ToolSpec};

pub(crate) struct Lfm2 {
    pub(crate) tools: Vec<ToolSpec>,
}

const OPENS: &[&str] = &["<|tool_call_start|>"];
const CLOSES: &[&str] = &["<|tool_call_end|>"];

impl Format for Lfm2 {
    fn family(&self) -> Family {
        Family::Lfm2
    }

    fn open_markers(&self) -> &'static [&'static str] {
        OPENS
    }

    fn pythonic(&self) -> bool {
        true
    }

    fn tools(&self) -> &[ToolSpec] {
        &self.tools
    }

    fn parse_region(&self, text: &str) -> Vec<Item> {
        region::scan(text, OPENS, |_, after| {
            let lead = after.len() - after.trim_start().len();
            let body = &after[lead..];
            let json =
                body.starts_with('{') || body.trim_start_matches('[').trim_start().starts_with('{');
            let found = if json {
                region::json_block(body, CLOSES, OPENS)
            } else {
                pythonic::list(body, &self.tools)
                    .map(|(items, used)| (items, used + hermes::close(&body[used..], CLOSES)))
            };
            // Between the special tokens and not a call: broken, up to the close token.
            let (items, used) = found.or_else(|| {
                let end = body.find(CLOSES[0])? + CLOSES[0].len();
                let problem = format!(
                    "not a call list: {}; expected [tool_name(key=\"value\")]",
                    region::short(&body[..end - CLOSES[0].len()])
                );
                Some((vec![Item::Call(Err(problem))], end))
            })?;
            Some((items, lead + used))
        })
    }

    fn system_section(&self, tools: &[ToolSpec]) -> String {
        let list: Vec<serde_json::Value> = tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "parameters": t.parameters}))
            .collect();
        let example = super::examples(tools, &[("filesystem", super::READ_CARGO)], 1)
            .into_iter()
            .map(|(name, args)| {
                format!(
                    "<|tool_call_start|>[{name}({})]<|tool_call_end|>",
                    python_args(args)
                )
            })
            .collect::<String>();
        format!(
            "List of tools: <|tool_list_start|>{}<|tool_list_end|>\n\nTo call tools, write a \
             Python list of calls with keyword arguments between <|tool_call_start|> and \
             <|tool_call_end|>, for example:\n{}\nThe results come back in the next message; \
             never write them yourself. When you have the answer, reply in plain text.",
            serde_json::Value::Array(list),
            example
        )
    }

    fn render_results(&self, answered: &[Answered<'_>]) -> Vec<Message> {
        answered
            .iter()
            .map(|a| Message::Tool {
                tool_call_id: a.id.to_string(),
                name: a.name.to_string(),
                content: a.result.to_model_text(),
            })
            .collect()
    }

    fn render_problems(&self, problems: &[String]) -> Message {
        Message::User {
            content: problems
                .iter()
                .map(|p| {
                    super::parse_error(
                        p,
                        "<|tool_call_start|>[tool_name(key=\"value\")]<|tool_call_end|>",
                    )
                })
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}

/// `{"a": "x", "n": 1}` (an example's JSON) as `a="x", n=1`.
fn python_args(json: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(json) {
        Ok(serde_json::Value::Object(map)) => map
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", "),
        _ => String::new(),
    }
}
