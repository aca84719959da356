//! Llama 3.x: a bare `{"name": N, "parameters": A}` (or after `<|python_tag|>`), the pythonic list
//! `[f(a=1)]` of Llama 3.2/4 (also inside `<|python_start|>...<|python_end|>`), and Meta's
//! `<function=N>{A}</function>`; results go back in the ipython (tool) role.

use serde_json::json;

use super::region::{self, Item};
use super::{Answered, Family, Format, ParsedCall, hermes, pythonic, signatures, xml};
use crate::protocol::{Message, ToolSpec};

pub(crate) struct Llama3 {
    pub(crate) tools: Vec<ToolSpec>,
}

const OPENS: &[&str] = &["<|python_tag|>", "<|python_start|>", "<function="];
const ENDS: &[&str] = &["<|eom_id|>", "<|eot_id|>", "<|python_end|>", "</function>"];

impl Format for Llama3 {
    fn family(&self) -> Family {
        Family::Llama3
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
        region::scan(text, OPENS, |marker, after| {
            if marker == "<function=" {
                let whole = format!("{marker}{after}");
                let (items, used) = xml::function(&whole, &self.tools)?;
                return Some((items, used - marker.len()));
            }
            let lead = after.len() - after.trim_start().len();
            let body = &after[lead..];
            let (items, used) = if body.starts_with('{') {
                json_calls(body)?
            } else if let Some((items, used)) = pythonic::list(body, &self.tools) {
                (items, used + hermes::close(&body[used..], ENDS))
            } else if marker == "<|python_tag|>" {
                code_call(body)
            } else {
                return None;
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
                .map(|p| super::parse_error(p, "{\"name\": \"tool_name\", \"parameters\": {\"key\": \"value\"}} or [tool_name(key=\"value\")]"))
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}

/// `<|python_tag|>` before code: Llama 3.1's built-in code interpreter, a call of `python` with
/// the code (as llama.cpp reads it); nothing after the tag is no call at all.
fn code_call(body: &str) -> (Vec<Item>, usize) {
    let end = ENDS
        .iter()
        .filter_map(|e| body.find(e).map(|at| (at, at + e.len())))
        .min()
        .unwrap_or((body.len(), body.len()));
    let code = body[..end.0].trim();
    if code.is_empty() {
        return (Vec::new(), end.1);
    }
    let call = ParsedCall {
        name: "python".into(),
        arguments: json!({"code": code}),
        id: None,
    };
    (vec![Item::Call(Ok(call))], end.1)
}

/// `{…}` after `<|python_tag|>`, and more after `;`.
fn json_calls(body: &str) -> Option<(Vec<Item>, usize)> {
    let (mut items, mut used) = region::json_block(body, ENDS, &[])?;
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
    Some((items, used))
}
