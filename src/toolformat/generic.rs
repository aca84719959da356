//! The generic protocol of the seeds, for models with no format of their own:
//! `<TOOL_CALL>{"tool": N, "args": A}</TOOL_CALL>`, results `TOOL_RESULT: {...}`, errors
//! `TOOL_ERROR: ...`.

use super::hermes::{self, OPENS};
use super::region::Item;
use super::{Answered, Family, Format, signatures};
use crate::protocol::{Message, ToolSpec};

pub(crate) struct Generic {
    pub(crate) tools: Vec<ToolSpec>,
}

impl Format for Generic {
    fn family(&self) -> Family {
        Family::Generic
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
        let examples: Vec<String> = super::examples(
            tools,
            &[
                ("filesystem", super::READ_CARGO),
                ("execute_command", super::RUN_STATUS),
            ],
            2,
        )
        .into_iter()
        .map(|(name, args)| {
            format!("<TOOL_CALL>{{\"tool\": \"{name}\", \"args\": {args}}}</TOOL_CALL>")
        })
        .collect();
        format!(
            "You can use tools. Available tools (JSON signatures):\n{}\n\n\
             To call a tool, reply with the call alone, in exactly this form:\n\
             <TOOL_CALL>{{\"tool\": \"tool_name\", \"args\": {{\"param\": \"value\"}}}}</TOOL_CALL>\n\
             You may make several calls, one <TOOL_CALL> block each. Then stop and wait: the \
             result comes back as TOOL_RESULT: {{...}} or TOOL_ERROR: ... Never write results \
             yourself. When you have what you need, answer in plain text with no tags.\n\n\
             Examples:\n{}",
            signatures(tools),
            examples.join("\n")
        )
    }

    fn render_results(&self, answered: &[Answered<'_>]) -> Vec<Message> {
        let lines: Vec<String> = answered
            .iter()
            .map(|a| match (&a.result.success, &a.result.error) {
                (false, Some(error)) => format!("TOOL_ERROR: {} ({}): {error}", a.name, a.id),
                _ => format!("TOOL_RESULT: {}", a.result.to_model_text()),
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
                .map(|p| format!("TOOL_ERROR: {}", super::parse_error(p, "<TOOL_CALL>{\"tool\": \"tool_name\", \"args\": {\"key\": \"value\"}}</TOOL_CALL>")))
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}
