//! Hermes 2 Pro / Hermes 3: signatures in `<tools>`, calls as
//! `<tool_call>{"name": N, "arguments": A}</tool_call>` (often single-quoted dicts), results in
//! `<tool_response>` blocks; and the other wrappers models write under Hermes-style templates
//! (`<function=N>`, `<function_call>`, `<function>`, `<tools>`, `<tool>`, `<tool_use>`,
//! `<tool_code>`, `<response>`, `<json>`, `<xml>`, as llama.cpp's Hermes parser lists them), read by every family
//! that uses `<tool_call>` tags.

use super::region::{self, Block, Item};
use super::shape::Need;
use super::{Answered, Family, Format, signatures, tool_responses, xml};
use crate::protocol::{Message, ToolSpec};

pub(crate) struct Hermes {
    pub(crate) tools: Vec<ToolSpec>,
}

pub(crate) const OPENS: &[&str] = &[
    "<tool_call>",
    "<TOOL_CALL>",
    // Granite 3's special token before a JSON array.
    "<|tool_call|>",
    "<function=",
    "<function name=",
    "<function_call>",
    "<function>",
    "<tools>",
    "<tool>",
    "<tool_use>",
    "<tool_code>",
    "<response>",
    "<json>",
    "<JSON>",
    "<xml>",
];
pub(crate) const CLOSES: &[&str] = &["</tool_call>", "</TOOL_CALL>"];

/// The close tag of each loose wrapper, which holds a call only when it names its arguments.
const LOOSE: &[(&str, &str)] = &[
    ("<function_call>", "</function_call>"),
    ("<function>", "</function>"),
    ("<tools>", "</tools>"),
    ("<tool>", "</tool>"),
    ("<tool_use>", "</tool_use>"),
    ("<tool_code>", "</tool_code>"),
    ("<response>", "</response>"),
    ("<json>", "</json>"),
    ("<JSON>", "</JSON>"),
    ("<xml>", "</xml>"),
];

/// The calls in a region of a `<tool_call>` family, opened by any of `opens`.
pub(crate) fn region(text: &str, opens: &[&str], tools: &[ToolSpec]) -> Vec<Item> {
    region::scan(text, opens, |marker, after| {
        block(marker, after, opens, tools)
    })
}

fn block(marker: &str, after: &str, opens: &[&str], tools: &[ToolSpec]) -> Block {
    if marker == "<function=" || marker == "<function name=" {
        let whole = format!("{marker}{after}");
        let (items, used) = xml::function(&whole, tools)?;
        let used = used - marker.len();
        // Qwen3-Coder with only the closing `</tool_call>`.
        return Some((items, used + close(&after[used..], CLOSES)));
    }
    if let Some((_, end)) = LOOSE.iter().find(|(open, _)| *open == marker) {
        return region::json_block_with(after, &[end], opens, Need::NameAndArguments);
    }
    if xml::opens(after) {
        let (items, used) = xml::function(after, tools)?;
        return Some((items, used + close(&after[used..], CLOSES)));
    }
    region::json_block(after, CLOSES, opens)
}

/// Bytes of an optional close tag (after whitespace) at the start of `rest`.
pub(crate) fn close(rest: &str, closes: &[&str]) -> usize {
    let lead = rest.len() - rest.trim_start().len();
    closes
        .iter()
        .find(|c| rest[lead..].starts_with(**c))
        .map_or(0, |c| lead + c.len())
}

impl Format for Hermes {
    fn family(&self) -> Family {
        Family::Hermes
    }

    fn open_markers(&self) -> &'static [&'static str] {
        OPENS
    }

    fn parse_region(&self, text: &str) -> Vec<Item> {
        region(text, OPENS, &self.tools)
    }

    fn tools(&self) -> &[ToolSpec] {
        &self.tools
    }

    fn system_section(&self, tools: &[ToolSpec]) -> String {
        let examples: Vec<String> = super::examples(
            tools,
            &[
                ("filesystem", super::LIST_CWD),
                ("execute_command", r#"{"command": "cargo test"}"#),
            ],
            2,
        )
        .into_iter()
        .map(|(name, args)| {
            format!(
                "<tool_call>\n{}\n</tool_call>",
                super::example_object(&name, "arguments", args)
            )
        })
        .collect();
        format!(
            "You are a function calling AI model. You are provided with function signatures within \
             <tools></tools> XML tags. You may call one or more functions to assist with the user \
             query. Don't make assumptions about what values to plug into functions.\n<tools>\n{}\n</tools>\n\
             For each function call return a json object with function name and arguments within \
             <tool_call></tool_call> XML tags as follows:\n<tool_call>\n{{\"name\": <function-name>, \
             \"arguments\": <args-dict>}}\n</tool_call>\n\nExamples:\n{}\n\
             Results come back in <tool_response></tool_response> tags; never write them yourself.",
            signatures(tools),
            examples.join("\n")
        )
    }

    fn render_results(&self, answered: &[Answered<'_>]) -> Vec<Message> {
        vec![tool_responses(answered)]
    }

    fn render_problems(&self, problems: &[String]) -> Message {
        super::problem_responses(problems)
    }
}
