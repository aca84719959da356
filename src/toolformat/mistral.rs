//! Mistral: `[TOOL_CALLS] [{"name": N, "arguments": A}]` (older tokenizers), `[TOOL_CALLS]N{A}`
//! (v11), `[TOOL_CALLS]N[ARGS]{A}` (newest), or a bare array when the server dropped the special
//! token; results go back as `[TOOL_RESULTS] {...}[/TOOL_RESULTS]`.

use serde_json::json;

use super::region::{self, Item};
use super::{Answered, Family, Format, hermes, signatures};
use crate::protocol::{Message, ToolSpec};

pub(crate) struct Mistral;

const OPENS: &[&str] = &["[TOOL_CALLS]"];

impl Format for Mistral {
    fn family(&self) -> Family {
        Family::Mistral
    }

    fn open_markers(&self) -> &'static [&'static str] {
        OPENS
    }

    fn parse_region(&self, text: &str) -> Vec<Item> {
        region::scan(text, OPENS, |_, after| {
            let (items, used) = block(after)?;
            Some((
                items,
                used + hermes::close(&after[used..], &["[/TOOL_CALLS]"]),
            ))
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
                .map(|p| format!("[TOOL_RESULTS] {}[/TOOL_RESULTS]", json!({"content": super::parse_error(p, "[TOOL_CALLS] [{\"name\": \"tool_name\", \"arguments\": {\"key\": \"value\"}}]")})))
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}

/// One call block after `[TOOL_CALLS]`: a JSON array or object, `name{...}`, `name[ARGS]{...}`,
/// or a JSON call after some junk on the marker's line.
fn block(after: &str) -> Option<(Vec<Item>, usize)> {
    let lead = after.len() - after.trim_start().len();
    let body = &after[lead..];
    if body.starts_with('{') || body.starts_with('[') {
        let (items, used) = region::json_block(body, &[], OPENS)?;
        return Some((items, lead + used));
    }
    let name_len = body
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'))
        .unwrap_or(body.len());
    let name = &body[..name_len];
    let mut rest = &body[name_len..];
    let mut used = lead + name_len;
    if let Some(stripped) = rest.strip_prefix("[ARGS]") {
        rest = stripped;
        used += "[ARGS]".len();
    }
    if name_len > 0 && rest.starts_with('{') {
        let (items, consumed) = region::named_args(name, rest);
        return Some((items, used + consumed));
    }
    // `[TOOL_CALLS]  junk [{...}]`: the first call-shaped JSON after the junk.
    let line_end = body.find('\n').unwrap_or(body.len());
    let start = body[..line_end].find(['[', '{'])?;
    let (items, used) = region::json_block(&body[start..], &[], OPENS)?;
    let any_call = items.iter().any(|i| matches!(i, Item::Call(Ok(_))));
    any_call.then_some((items, lead + start + used))
}
