//! The plain JSON family: a bare `{"name": N, "arguments": A}` as the whole reply, or one in a
//! fenced `json` block; for models that follow instructions but know no tool format.

use super::region::Item;
use super::{Answered, Family, Format, signatures};
use crate::protocol::{Message, ToolSpec};

pub(crate) struct Json;

impl Format for Json {
    fn family(&self) -> Family {
        Family::Json
    }

    fn open_markers(&self) -> &'static [&'static str] {
        &[]
    }

    fn parse_region(&self, text: &str) -> Vec<Item> {
        vec![Item::Content(text.to_string())]
    }

    fn system_section(&self, tools: &[ToolSpec]) -> String {
        let example = super::examples(tools, &[("filesystem", super::LIST_CWD)], 1)
            .into_iter()
            .map(|(name, args)| super::example_object(&name, "arguments", args))
            .collect::<String>();
        format!(
            "You can call these tools (JSON signatures):\n{}\n\nTo call one, reply with only a JSON \
             object and nothing else:\n{{\"name\": \"tool_name\", \"arguments\": {{...}}}}\nFor example:\n{}\n\
             The result comes back in the next message. When you have the answer, reply in plain \
             text, not JSON.",
            signatures(tools),
            example
        )
    }

    fn render_results(&self, answered: &[Answered<'_>]) -> Vec<Message> {
        let lines: Vec<String> = answered
            .iter()
            .map(|a| {
                format!(
                    "Result of {} ({}): {}",
                    a.name,
                    a.id,
                    a.result.to_model_text()
                )
            })
            .collect();
        vec![Message::User {
            content: lines.join("\n"),
        }]
    }

    fn render_problems(&self, problems: &[String]) -> Message {
        Message::User {
            content: problems
                .iter()
                .map(|p| super::parse_error(p, "only a JSON object {\"name\": \"tool_name\", \"arguments\": {\"key\": \"value\"}}"))
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}
