//! Qwen 2.5 / 3 (Hermes-style `<tool_call>` JSON, results in `<tool_response>` inside a user turn)
//! and Qwen3-Coder's XML-ish `<function=N><parameter=K>v</parameter></function>`, typed by schema.

use super::hermes::{self, OPENS};
use super::region::Item;
use super::{Answered, Family, Format, signatures, tool_responses};
use crate::protocol::{Message, ToolSpec};

pub(crate) struct Qwen {
    pub(crate) tools: Vec<ToolSpec>,
}

impl Format for Qwen {
    fn family(&self) -> Family {
        Family::Qwen
    }

    fn open_markers(&self) -> &'static [&'static str] {
        OPENS
    }

    fn parse_region(&self, text: &str) -> Vec<Item> {
        hermes::region(text, OPENS, &self.tools)
    }

    fn tools(&self) -> &[ToolSpec] {
        &self.tools
    }

    fn system_section(&self, tools: &[ToolSpec]) -> String {
        let example = super::examples(
            tools,
            &[(
                "filesystem",
                r#"{"operation": "read", "path": "README.md"}"#,
            )],
            1,
        )
        .into_iter()
        .map(|(name, args)| super::example_object(&name, "arguments", args))
        .collect::<String>();
        format!(
            "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n\
             You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n{}\n</tools>\n\n\
             For each function call, return a json object with function name and arguments within \
             <tool_call></tool_call> XML tags:\n<tool_call>\n{{\"name\": <function-name>, \"arguments\": \
             <args-json-object>}}\n</tool_call>\n\nFor example:\n<tool_call>\n{}\n</tool_call>\n\
             The results come back in <tool_response></tool_response> tags; never write them yourself.",
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
