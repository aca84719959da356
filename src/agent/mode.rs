//! How tool calls travel in a run: natively (the provider's `tools`), or prompt-based in a model
//! family's text format (`toolformat`), optionally with schema-constrained output. Reads replies
//! as they stream and renders results back in the mode's own form.

use serde_json::{Value, json};

use crate::config::ToolFormat;
use crate::protocol::{Event, Message, ToolCall, ToolChoice, ToolResult, ToolSpec};
use crate::provider::{Completion, ProviderError};
use crate::toolformat::{
    self, Answered, Family, Format, Parsed, StreamEvent, StreamParser, format_for,
};

pub(crate) enum ToolMode {
    /// The provider's native tools. `leak` reads calls a server left in the text; `fallback`
    /// switches to prompt-based calling if the server rejects native tools.
    Native {
        leak: Box<dyn Format>,
        fallback: bool,
    },
    /// Tools described in the system prompt and calls parsed from the text.
    Prompt {
        format: Box<dyn Format>,
        constrain: bool,
    },
}

/// What one reply asks for.
#[derive(Debug, Default)]
pub(crate) struct Reply {
    pub(crate) calls: Vec<ToolCall>,
    /// Calls that could not be understood, told back to the model.
    pub(crate) problems: Vec<String>,
}

impl ToolMode {
    pub(crate) fn from_settings(
        format: ToolFormat,
        model: &str,
        tools: &[ToolSpec],
        constrain: bool,
    ) -> Self {
        let family = match format {
            ToolFormat::Auto | ToolFormat::Native => {
                return ToolMode::Native {
                    leak: format_for(Family::detect(model), tools),
                    fallback: format == ToolFormat::Auto,
                };
            }
            ToolFormat::Generic => Family::Generic,
            ToolFormat::Hermes => Family::Hermes,
            ToolFormat::Qwen => Family::Qwen,
            ToolFormat::Llama3 => Family::Llama3,
            ToolFormat::Mistral => Family::Mistral,
            ToolFormat::Json => Family::Json,
            ToolFormat::Gemma => Family::Gemma,
            ToolFormat::Lfm2 => Family::Lfm2,
            ToolFormat::Granite => Family::Granite,
        };
        ToolMode::Prompt {
            format: format_for(family, tools),
            constrain,
        }
    }

    /// For an engine with no native tools whose output can be constrained (the embedded one):
    /// prompt-based, with the grammar on; the generic family unless one is named.
    pub(crate) fn for_engine(format: ToolFormat, tools: &[ToolSpec]) -> Self {
        let family = match format {
            ToolFormat::Hermes => Family::Hermes,
            ToolFormat::Qwen => Family::Qwen,
            ToolFormat::Llama3 => Family::Llama3,
            ToolFormat::Mistral => Family::Mistral,
            ToolFormat::Json => Family::Json,
            ToolFormat::Gemma => Family::Gemma,
            ToolFormat::Lfm2 => Family::Lfm2,
            ToolFormat::Granite => Family::Granite,
            _ => Family::Generic,
        };
        ToolMode::Prompt {
            format: format_for(family, tools),
            constrain: true,
        }
    }

    /// Prompt-based calling in the family the model name suggests.
    pub(crate) fn prompt_for(model: &str, tools: &[ToolSpec], constrain: bool) -> Self {
        ToolMode::Prompt {
            format: format_for(Family::detect(model), tools),
            constrain,
        }
    }

    /// The same mode for another set of tools (a format may keep the tools it parses for).
    pub(crate) fn retarget(&mut self, tools: &[ToolSpec]) {
        match self {
            ToolMode::Native { leak, .. } => *leak = format_for(leak.family(), tools),
            ToolMode::Prompt { format, .. } => *format = format_for(format.family(), tools),
        }
    }

    pub(crate) fn is_native(&self) -> bool {
        matches!(self, ToolMode::Native { .. })
    }

    /// `native` or the family's name (the `tool_format` of `--json`).
    pub(crate) fn name(&self) -> &'static str {
        match self {
            ToolMode::Native { .. } => "native",
            ToolMode::Prompt { format, .. } => format.family().name(),
        }
    }

    /// The system-prompt section that advertises the tools (empty for native calling).
    pub(crate) fn system_section(&self, tools: &[ToolSpec]) -> String {
        match self {
            ToolMode::Prompt { format, .. } if !tools.is_empty() => format.system_section(tools),
            _ => String::new(),
        }
    }

    /// Whether replies are constrained to a call or a `{"response": ...}` final answer.
    pub(crate) fn is_constrained(&self) -> bool {
        matches!(
            self,
            ToolMode::Prompt {
                constrain: true,
                ..
            }
        )
    }

    /// The schema a constrained reply must follow: a call of a listed tool, or a final answer
    /// (text, or a value of the `answer` schema of `--output-schema`); only a call (of the named
    /// tool) when the tool choice demands one.
    pub(crate) fn response_format(
        &self,
        tools: &[ToolSpec],
        choice: &ToolChoice,
        answer: Option<&Value>,
    ) -> Option<Value> {
        if !self.is_constrained() {
            return None;
        }
        let response = answer.cloned().unwrap_or_else(|| json!({"type": "string"}));
        let final_answer = json!({"type": "object", "properties": {"response": response},
            "required": ["response"]});
        if *choice == ToolChoice::None && !tools.is_empty() {
            // Tools are offered but may not be called now: only the answer is left.
            return Some(final_answer);
        }
        if tools.is_empty() {
            return answer.map(|_| final_answer);
        }
        // One alternative per allowed tool, its arguments constrained by the tool's own schema.
        let calls: Vec<Value> = tools
            .iter()
            .filter(|t| !matches!(choice, ToolChoice::Named(name) if *name != t.name))
            .map(|t| {
                json!({"type": "object", "properties": {"tool_call": {"type": "object", "properties": {
                    "name": {"type": "string", "enum": [t.name]},
                    "arguments": t.parameters}, "required": ["name", "arguments"]}},
                    "required": ["tool_call"]})
            })
            .collect();
        let call = if calls.len() == 1 {
            calls[0].clone()
        } else {
            json!({"oneOf": calls})
        };
        Some(match choice {
            ToolChoice::Auto => json!({"oneOf": [call, final_answer]}),
            _ => call,
        })
    }

    /// Whether `err` is a server refusing native tools (an HTTP 400 about tools or functions)
    /// and the run may switch to prompt-based calling.
    pub(crate) fn rejects_native(&self, err: &ProviderError, tools: &[ToolSpec]) -> bool {
        let ToolMode::Native { fallback: true, .. } = self else {
            return false;
        };
        match err {
            ProviderError::BadRequest {
                status: 400,
                message,
                ..
            } if !tools.is_empty() => {
                let message = message.to_ascii_lowercase();
                message.contains("tool") || message.contains("function")
            }
            _ => false,
        }
    }

    /// The reader of one reply; `constrained` when the request carried a schema (the reply is
    /// then JSON, read whole).
    pub(crate) fn reader(&self, constrained: bool) -> Reader<'_> {
        match self {
            ToolMode::Prompt { .. } if constrained => Reader::Constrained,
            ToolMode::Prompt { format, .. } => Reader::Stream(StreamParser::new(format.as_ref())),
            ToolMode::Native { .. } => Reader::Plain,
        }
    }

    /// The messages that carry a reply's results back to the model.
    pub(crate) fn render(&self, reply: &Reply, results: &[ToolResult]) -> Vec<Message> {
        match self {
            ToolMode::Native { .. } => reply
                .calls
                .iter()
                .zip(results)
                .map(|(call, result)| Message::Tool {
                    tool_call_id: call.id.clone(),
                    name: call.name.clone(),
                    content: result.to_model_text(),
                })
                .collect(),
            ToolMode::Prompt { format, .. } => {
                let answered: Vec<Answered<'_>> = reply
                    .calls
                    .iter()
                    .zip(results)
                    .map(|(call, result)| Answered {
                        id: &call.id,
                        name: &call.name,
                        result,
                    })
                    .collect();
                let mut messages = if answered.is_empty() {
                    Vec::new()
                } else {
                    format.render_results(&answered)
                };
                if !reply.problems.is_empty() {
                    messages.push(format.render_problems(&reply.problems));
                }
                messages
            }
        }
    }
}

/// Reads one reply as it streams.
pub(crate) enum Reader<'m> {
    /// Native: text is shown as it comes.
    Plain,
    /// Prompt-based: text is shown except what may still become a call.
    Stream(StreamParser<'m>),
    /// Constrained: the reply is JSON, read whole at the end.
    Constrained,
}

impl Reader<'_> {
    pub(crate) fn text(&mut self, text: &str, emit: &mut dyn FnMut(&Event)) {
        match self {
            Reader::Plain => emit(&Event::MessageDelta {
                text: text.to_string(),
            }),
            Reader::Stream(parser) => show(parser.feed(text), emit),
            Reader::Constrained => {}
        }
    }

    /// The calls of the finished reply; `iteration` numbers the ids the model did not give.
    pub(crate) fn finish(
        self,
        completion: &Completion,
        mode: &ToolMode,
        iteration: u32,
        known: &[&str],
        emit: &mut dyn FnMut(&Event),
    ) -> Reply {
        match self {
            Reader::Plain => {
                let mut calls = completion.tool_calls.clone();
                if calls.is_empty()
                    && let ToolMode::Native { leak, .. } = mode
                    && !known.is_empty()
                {
                    // Some servers leave a call in the text. It runs only when the whole reply is
                    // that one well-formed call of a listed tool: a call quoted in prose, in an
                    // explanation's code block or next to other text is text, not a request.
                    let leaked = toolformat::parse(leak.as_ref(), &completion.text);
                    let whole_reply = leaked.calls.len() == 1
                        && leaked.content.trim().is_empty()
                        && leaked.diagnostics.is_empty();
                    if whole_reply {
                        calls = numbered(
                            leaked
                                .calls
                                .into_iter()
                                .filter(|c| known.contains(&c.name.as_str())),
                            iteration,
                        );
                    }
                }
                Reply {
                    calls,
                    problems: Vec::new(),
                }
            }
            Reader::Stream(parser) => {
                let (events, parsed) = parser.finish();
                show(events, emit);
                from_parsed(parsed, iteration)
            }
            Reader::Constrained => {
                let parsed = toolformat::constrained_reply(&completion.text);
                if !parsed.content.is_empty() {
                    emit(&Event::MessageDelta {
                        text: parsed.content.clone(),
                    });
                }
                from_parsed(parsed, iteration)
            }
        }
    }
}

fn show(events: Vec<StreamEvent>, emit: &mut dyn FnMut(&Event)) {
    for event in events {
        match event {
            StreamEvent::Text(text) if !text.is_empty() => emit(&Event::MessageDelta { text }),
            StreamEvent::Reasoning(text) => emit(&Event::ReasoningDelta { text }),
            _ => {}
        }
    }
}

fn from_parsed(parsed: Parsed, iteration: u32) -> Reply {
    Reply {
        calls: numbered(parsed.calls.into_iter(), iteration),
        problems: parsed.diagnostics,
    }
}

fn numbered(calls: impl Iterator<Item = toolformat::ParsedCall>, iteration: u32) -> Vec<ToolCall> {
    calls
        .enumerate()
        .map(|(n, call)| ToolCall {
            id: call.id.unwrap_or_else(|| format!("call_{iteration}_{n}")),
            name: call.name,
            arguments: call.arguments,
        })
        .collect()
}
