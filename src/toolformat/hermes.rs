//! Hermes 2 Pro / Hermes 3: signatures in `<tools>`, calls as
//! `<tool_call>{"name": N, "arguments": A}</tool_call>` (often single-quoted dicts), results in
//! `<tool_response>` blocks.

use super::region::{self, Item};
use super::{Answered, Family, Format, signatures, tool_responses};
use crate::protocol::{Message, ToolSpec};

pub struct Hermes;

pub const OPENS: &[&str] = &["<tool_call>", "<TOOL_CALL>"];
pub const CLOSES: &[&str] = &["</tool_call>", "</TOOL_CALL>"];

impl Format for Hermes {
    fn family(&self) -> Family {
        Family::Hermes
    }

    fn open_markers(&self) -> &'static [&'static str] {
        OPENS
    }

    fn parse_region(&self, text: &str) -> Vec<Item> {
        region::scan(text, OPENS, |_, after| {
            region::json_block(after, CLOSES, OPENS)
        })
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
