//! Llama 3.x: a bare `{"name": N, "parameters": A}` (or after `<|python_tag|>`), the pythonic list
//! `[f(a=1)]` of Llama 3.2/4 (also inside `<|python_start|>...<|python_end|>`), and Meta's
//! `<function=N>{A}</function>`; results go back in the ipython (tool) role.

use serde_json::json;

use super::region::{self, Item};
use super::{Answered, Family, Format, signatures};
use crate::protocol::{Message, ToolSpec};

pub struct Llama3;

const OPENS: &[&str] = &["<|python_tag|>", "<|python_start|>", "<function="];
const ENDS: &[&str] = &["<|eom_id|>", "<|eot_id|>", "<|python_end|>", "</function>"];

impl Format for Llama3 {
    fn family(&self) -> Family {
        Family::Llama3
    }

    fn open_markers(&self) -> &'static [&'static str] {
        OPENS
    }

    fn bare_at_start(&self) -> bool {
        true
    }

    fn parse_region(&self, text: &str) -> Vec<Item> {
        let trimmed = text.trim_start();
        if trimmed.starts_with('[')
            && let Some((mut items, used)) = region::pythonic(trimmed)
        {
            region::push_content(&mut items, &trimmed[used..]);
            return items;
        }
        if trimmed.starts_with('{') || trimmed.starts_with('[') {
            return region::bare_json(text)
                .unwrap_or_else(|| vec![Item::Content(text.to_string())]);
        }
        region::scan(text, OPENS, |marker, after| {
            if marker == "<function=" {
                let name_end = after.find('>')?;
                let body = &after[name_end + 1..];
                let lead = body.len() - body.trim_start().len();
                let (items, used) = region::named_args(after[..name_end].trim(), &body[lead..]);
                let rest = &body[lead + used..];
                let close = rest
                    .trim_start()
                    .strip_prefix("</function>")
                    .map_or(0, |_| {
                        rest.len() - rest.trim_start().len() + "</function>".len()
                    });
                return Some((items, name_end + 1 + lead + used + close));
            }
            let lead = after.len() - after.trim_start().len();
            let body = &after[lead..];
            let (items, used) = if body.starts_with('{') {
                let (mut items, mut used) = region::json_block(body, ENDS, &[])?;
                // `{…}; {…}`: more calls after a semicolon.
                while body[used..].trim_start().starts_with(';') {
                    let skip = body[used..].find(';').map_or(0, |n| n + 1);
                    match region::json_block(&body[used + skip..], ENDS, &[]) {
                        Some((more, more_used)) => {
                            items.extend(more);
                            used += skip + more_used;
                        }
                        None => break,
                    }
                }
                (items, used)
            } else {
                let (items, used) = region::pythonic(body)?;
                let rest = &body[used..];
                let end = ENDS
                    .iter()
                    .find(|e| rest.trim_start().starts_with(**e))
                    .map_or(0, |e| rest.len() - rest.trim_start().len() + e.len());
                (items, used + end)
            };
            Some((items, lead + used))
        })
    }

    fn system_section(&self, tools: &[ToolSpec]) -> String {
        let example = super::examples(tools, &[("filesystem", super::READ_CARGO)], 1)
            .into_iter()
            .map(|(name, args)| super::example_object(&name, "parameters", args))
            .collect::<String>();
        format!(
            "Given the following functions, please respond with a JSON for a function call with its \
             proper arguments that best answers the given prompt.\n\nRespond in the format \
             {{\"name\": function name, \"parameters\": dictionary of argument name and its value}}. \
             Do not use variables.\n\n{}\n\nFor example: {}\nWhen you have the answer, reply \
             in plain text, with no JSON.",
            signatures(tools),
            example
        )
    }

    fn render_results(&self, answered: &[Answered<'_>]) -> Vec<Message> {
        // Llama 3 chat templates render the `tool` role as `ipython`.
        answered
            .iter()
            .map(|a| Message::Tool {
                tool_call_id: a.id.to_string(),
                name: a.name.to_string(),
                content: json!({"output": a.result}).to_string(),
            })
            .collect()
    }

    fn render_problems(&self, problems: &[String]) -> Message {
        Message::User {
            content: problems
                .iter()
                .map(|p| format!("Error: {p}. Please respond with a valid JSON function call."))
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}
