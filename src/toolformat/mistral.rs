//! Mistral: `[TOOL_CALLS] [{"name": N, "arguments": A}]` (older tokenizers), `[TOOL_CALLS]N{A}`
//! (v11), `[TOOL_CALLS]N[ARGS]{A}` (newest), or a bare array when the server dropped the special
//! token; results go back as `[TOOL_RESULTS] {...}[/TOOL_RESULTS]`.

use serde_json::json;

use super::region::{self, Item};
use super::{Answered, Family, Format, signatures};
use crate::protocol::{Message, ToolSpec};

pub struct Mistral;

const OPENS: &[&str] = &["[TOOL_CALLS]"];

impl Format for Mistral {
    fn family(&self) -> Family {
        Family::Mistral
    }

    fn open_markers(&self) -> &'static [&'static str] {
        OPENS
    }

    fn bare_at_start(&self) -> bool {
        true
    }

    fn parse_region(&self, text: &str) -> Vec<Item> {
        let trimmed = text.trim_start();
        if !trimmed.starts_with("[TOOL_CALLS]") {
            return region::bare_json(text)
                .unwrap_or_else(|| vec![Item::Content(text.to_string())]);
        }
        region::scan(text, OPENS, |_, after| {
            let lead = after.len() - after.trim_start().len();
            let body = &after[lead..];
            if body.starts_with('{') || body.starts_with('[') {
                let (items, used) = region::json_block(body, &[], OPENS)?;
                return Some((items, lead + used));
            }
            // `name{...}` or `name[ARGS]{...}`
            let name_len = body
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'))?;
            let name = &body[..name_len];
            let mut rest = &body[name_len..];
            let mut used = lead + name_len;
            if let Some(stripped) = rest.strip_prefix("[ARGS]") {
                rest = stripped;
                used += "[ARGS]".len();
            }
            if !rest.starts_with('{') {
                return None;
            }
            let (items, consumed) = region::named_args(name, rest);
            Some((items, used + consumed))
        })
    }

    fn system_section(&self, tools: &[ToolSpec]) -> String {
        let example = super::examples(tools, &[("filesystem", super::READ_CARGO)], 1)
            .into_iter()
            .map(|(name, args)| super::example_object(&name, "arguments", args))
            .collect::<String>();
        format!(
            "[AVAILABLE_TOOLS] [{}] [/AVAILABLE_TOOLS]\nTo call tools, reply with only \
             [TOOL_CALLS] followed by a JSON array of calls, for example:\n[TOOL_CALLS] \
             [{}]\n\
             Results come back as [TOOL_RESULTS] ... [/TOOL_RESULTS]; never write them yourself. \
             When you have the answer, reply in plain text.",
            signatures(tools).replace('\n', ", "),
            example
        )
    }

    fn render_results(&self, answered: &[Answered<'_>]) -> Vec<Message> {
        let blocks: Vec<String> = answered
            .iter()
            .map(|a| {
                format!(
                    "[TOOL_RESULTS] {}[/TOOL_RESULTS]",
                    json!({"content": a.result, "call_id": a.id})
                )
            })
            .collect();
        vec![Message::User {
            content: blocks.join("\n"),
        }]
    }

    fn render_problems(&self, problems: &[String]) -> Message {
        Message::User {
            content: problems
                .iter()
                .map(|p| format!("[TOOL_RESULTS] {}[/TOOL_RESULTS]", json!({"content": format!("error: {p}. Please try again with correct format.")})))
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}
