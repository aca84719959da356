//! IBM Granite 4: tools in `<tools>`, calls as `<tool_call>{"name": N, "arguments": A}
//! </tool_call>` (Granite 3's `<|tool_call|>[...]` too, and every wrapper Hermes reads),
//! results in `<tool_response>` blocks.

use super::hermes::{self, OPENS};
use super::region::Item;
use super::{Answered, Family, Format, signatures, tool_responses};
use crate::protocol::{Message, ToolSpec};

pub(crate) struct Granite {
    pub(crate) tools: Vec<ToolSpec>,
}

impl Format for Granite {
    fn family(&self) -> Family {
        Family::Granite
    }

    fn open_markers(&self) -> &'static [&'static str] {
        OPENS
    }

    fn tools(&self) -> &[ToolSpec] {
        &self.tools
    }

    fn parse_region(&self, text: &str) -> Vec<Item> {
        hermes::region(text, OPENS, &self.tools)
    }

    fn system_section(&self, tools: &[ToolSpec]) -> String {
        let example = super::examples(tools, &[("filesystem", super::LIST_CWD)], 1)
            .into_iter()
            .map(|(name, args)| super::example_object(&name, "arguments", args))
            .collect::<String>();
        format!(
            "You are a helpful assistant with access to the following tools. You may call one or \
             more tools to assist with the user query.\n\nYou are provided with function \
             signatures within <tools></tools> XML tags:\n<tools>\n{}\n</tools>\n\nFor each tool \
             call, return a json object with function name and arguments within \
             <tool_call></tool_call> XML tags:\n<tool_call>\n{}\n</tool_call>\nThe results come \
             back in <tool_response></tool_response> tags; never write them yourself.",
            signatures(tools),
            example
        )
    }

    fn render_results(&self, answered: &[Answered<'_>]) -> Vec<Message> {
        vec![tool_responses(answered)]
    }

    fn render_problems(&self, problems: &[String]) -> Message {
        super::problem_responses(problems)
    }
}
