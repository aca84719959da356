//! Prompt-based tool calling for models without native tools: per family, a formatter (the
//! system-prompt section and how results go back) and a parser (text in; content, calls and
//! diagnostics out), plus a streaming parser that shows text as it arrives and ends with exactly
//! the whole-text result for every chunking.

mod bare;
pub mod bench;
mod gemma;
mod generic;
mod granite;
mod hermes;
mod json;
pub(crate) mod lenient;
mod lfm2;
mod llama3;
mod mistral;
mod pythonic;
mod qwen;
mod region;
mod scan;
mod schema;
mod shape;
mod xml;

use serde::Serialize;
use serde_json::Value;

use crate::protocol::{Message, ToolResult, ToolSpec};
use region::Item;
use scan::{Segment, Segmenter};

/// The prompt-based families (DESIGN §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    Generic,
    Hermes,
    Qwen,
    Llama3,
    Mistral,
    Json,
    /// Gemma 4: `<|tool_call>call:NAME{key:<|"|>v<|"|>}<tool_call|>`.
    Gemma,
    /// LFM2: `<|tool_call_start|>[f(a=1)]<|tool_call_end|>`.
    Lfm2,
    /// Granite 4: `<tool_call>` JSON as Hermes, Granite 3's `<|tool_call|>[...]` too.
    Granite,
}

impl Family {
    /// Every family, in the order help texts list them.
    pub(crate) const ALL: [Family; 9] = [
        Family::Generic,
        Family::Hermes,
        Family::Qwen,
        Family::Llama3,
        Family::Mistral,
        Family::Json,
        Family::Gemma,
        Family::Lfm2,
        Family::Granite,
    ];

    pub(crate) fn parse(name: &str) -> Option<Self> {
        Some(match name.to_ascii_lowercase().as_str() {
            "generic" => Family::Generic,
            "hermes" => Family::Hermes,
            "qwen" => Family::Qwen,
            "llama3" => Family::Llama3,
            "mistral" => Family::Mistral,
            "json" => Family::Json,
            "gemma" | "gemma4" => Family::Gemma,
            "lfm2" | "lfm" => Family::Lfm2,
            "granite" => Family::Granite,
            _ => return None,
        })
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Family::Generic => "generic",
            Family::Hermes => "hermes",
            Family::Qwen => "qwen",
            Family::Llama3 => "llama3",
            Family::Mistral => "mistral",
            Family::Json => "json",
            Family::Gemma => "gemma",
            Family::Lfm2 => "lfm2",
            Family::Granite => "granite",
        }
    }

    /// The family a model name suggests; `generic` when none does.
    pub(crate) fn detect(model: &str) -> Self {
        let model = model.to_ascii_lowercase();
        let has = |words: &[&str]| words.iter().any(|w| model.contains(w));
        if has(&["qwen"]) {
            Family::Qwen
        } else if has(&["gemma-4", "gemma4", "gemma_4", "gemma-n4", "functiongemma"]) {
            Family::Gemma
        } else if has(&["lfm2", "lfm-2", "lfm_2", "liquid"]) {
            Family::Lfm2
        } else if has(&["granite"]) {
            Family::Granite
        } else if has(&["hermes", "nous"]) {
            Family::Hermes
        } else if has(&["llama-3", "llama3", "llama_3", "llama-4", "llama4"]) {
            Family::Llama3
        } else if has(&[
            "mistral",
            "mixtral",
            "ministral",
            "codestral",
            "devstral",
            "magistral",
        ]) {
            Family::Mistral
        } else {
            Family::Generic
        }
    }
}

/// One call found in the text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ParsedCall {
    pub(crate) name: String,
    pub(crate) arguments: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) id: Option<String>,
}

/// What the parser found in a whole reply.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct Parsed {
    pub(crate) calls: Vec<ParsedCall>,
    pub(crate) content: String,
    #[serde(skip)]
    pub(crate) reasoning: String,
    pub(crate) diagnostics: Vec<String>,
}

/// A call with its id and the result it got, for rendering back to the model.
pub(crate) struct Answered<'a> {
    pub(crate) id: &'a str,
    pub(crate) name: &'a str,
    pub(crate) result: &'a ToolResult,
}

/// One prompt-based family.
pub(crate) trait Format {
    fn family(&self) -> Family;
    /// Strings that open a call.
    fn open_markers(&self) -> &'static [&'static str];
    /// A bracketed list of `name(key=value)` anywhere is a call list (Llama 3.2/4, LFM2).
    fn pythonic(&self) -> bool {
        false
    }
    /// The tools on offer, whose schemas type untyped values.
    fn tools(&self) -> &[ToolSpec] {
        &[]
    }
    /// Parses the call region: from the first marker (or the bare opening) to the end.
    fn parse_region(&self, region: &str) -> Vec<Item>;
    /// The calls in a fenced block, or `None` when it is code, not calls.
    fn fence_calls(&self, lang: &str, body: &str) -> Option<Vec<Result<ParsedCall, String>>> {
        default_fence_calls(self, lang, body)
    }
    /// The system-prompt section that advertises the tools in this family's style.
    fn system_section(&self, tools: &[ToolSpec]) -> String;
    /// The messages that carry results back, in order.
    fn render_results(&self, answered: &[Answered<'_>]) -> Vec<Message>;
    /// The message that tells the model its calls could not be understood.
    fn render_problems(&self, problems: &[String]) -> Message;
}

/// The family's format; `tools` type the values of formats that carry raw text.
pub(crate) fn format_for(family: Family, tools: &[ToolSpec]) -> Box<dyn Format> {
    let tools = tools.to_vec();
    match family {
        Family::Generic => Box::new(generic::Generic { tools }),
        Family::Hermes => Box::new(hermes::Hermes { tools }),
        Family::Qwen => Box::new(qwen::Qwen { tools }),
        Family::Llama3 => Box::new(llama3::Llama3 { tools }),
        Family::Mistral => Box::new(mistral::Mistral),
        Family::Json => Box::new(json::Json),
        Family::Gemma => Box::new(gemma::Gemma { tools }),
        Family::Lfm2 => Box::new(lfm2::Lfm2 { tools }),
        Family::Granite => Box::new(granite::Granite { tools }),
    }
}

fn default_fence_calls<F: Format + ?Sized>(
    format: &F,
    lang: &str,
    body: &str,
) -> Option<Vec<Result<ParsedCall, String>>> {
    if !matches!(
        lang,
        "" | "json" | "json5" | "tool_call" | "tool" | "xml" | "tool_code"
    ) {
        return None;
    }
    let body = body.trim();
    let calls: Vec<Result<ParsedCall, String>> =
        if format.open_markers().iter().any(|m| body.starts_with(m)) {
            let items = format.parse_region(body);
            if items
                .iter()
                .any(|i| matches!(i, Item::Content(text) if !text.trim().is_empty()))
            {
                return None;
            }
            items
                .into_iter()
                .filter_map(|i| match i {
                    Item::Call(call) => Some(call),
                    Item::Content(_) => None,
                })
                .collect()
        } else if body.starts_with('{') || body.starts_with('[') {
            match lenient::parse(body) {
                Ok(value) => shape::calls_in(&value, shape::Need::NameAndArguments)?,
                // A call in a fence cut off or broken: a diagnostic, not a code block.
                Err(_) => match region::bare_json(body)? {
                    items if items.iter().any(|i| matches!(i, Item::Call(_))) => items
                        .into_iter()
                        .filter_map(|i| match i {
                            Item::Call(call) => Some(call),
                            Item::Content(_) => None,
                        })
                        .collect(),
                    _ => return None,
                },
            }
        } else {
            return None;
        };
    (!calls.is_empty()).then_some(calls)
}

/// The tools as one JSON signature per line, as Hermes and Qwen templates list them.
/// Example arguments of the built-in tools, for the examples of a format's section.
const READ_CARGO: &str = r#"{"operation": "read", "path": "Cargo.toml"}"#;
const LIST_CWD: &str = r#"{"operation": "list", "path": "."}"#;
const RUN_STATUS: &str = r#"{"command": "git status"}"#;
const SEARCH: &str = r#"{"query": "rust error E0502"}"#;

/// The example calls a section shows: the format's preferred ones whose tools are on offer (a
/// model shown a call of a tool it cannot use will make it), then any other built-in tool on
/// offer, else the first tool with no arguments. `(name, arguments as JSON text)`.
fn examples(
    tools: &[ToolSpec],
    preferred: &[(&str, &'static str)],
    at_most: usize,
) -> Vec<(String, &'static str)> {
    let fallbacks = [
        ("filesystem", READ_CARGO),
        ("execute_command", RUN_STATUS),
        ("web_search", SEARCH),
    ];
    let mut chosen: Vec<(String, &'static str)> = Vec::new();
    for (name, arguments) in preferred.iter().chain(fallbacks.iter()) {
        let offered = tools.iter().any(|t| t.name == *name);
        if offered && chosen.len() < at_most && !chosen.iter().any(|(n, _)| n == name) {
            chosen.push(((*name).to_string(), arguments));
        }
    }
    if chosen.is_empty()
        && let Some(first) = tools.first()
    {
        chosen.push((first.name.clone(), "{}"));
    }
    chosen
}

/// `{"name": "N", "<key>": ARGS}`: one example call in the JSON most formats use.
fn example_object(name: &str, key: &str, arguments: &str) -> String {
    format!("{{\"name\": \"{name}\", \"{key}\": {arguments}}}")
}

fn signatures(tools: &[ToolSpec]) -> String {
    tools
        .iter()
        .map(|t| {
            serde_json::json!({"type": "function", "function": {
                "name": t.name, "description": t.description, "parameters": t.parameters}})
            .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Results as `<tool_response>` blocks in one user turn (Hermes, Qwen).
fn tool_responses(answered: &[Answered<'_>]) -> Message {
    let blocks: Vec<String> = answered
        .iter()
        .map(|a| {
            format!(
                "<tool_response>\n{}\n</tool_response>",
                serde_json::json!({"name": a.name, "content": a.result})
            )
        })
        .collect();
    Message::User {
        content: blocks.join("\n"),
    }
}

/// A `PARSE_ERROR` the model can act on: what was wrong, that nothing ran, the shape expected.
fn parse_error(problem: &str, expected: &str) -> String {
    format!("PARSE_ERROR: {problem}. Nothing was run. Write the call again as {expected}")
}

/// The `<tool_call>` families' expected shape.
const TOOL_CALL_SHAPE: &str =
    "<tool_call>{\"name\": \"tool_name\", \"arguments\": {\"key\": \"value\"}}</tool_call>";

fn problem_responses(problems: &[String]) -> Message {
    let blocks: Vec<String> = problems
        .iter()
        .map(|p| {
            format!(
                "<tool_response>\n{}\n</tool_response>",
                serde_json::json!({"error": parse_error(p, TOOL_CALL_SHAPE)})
            )
        })
        .collect();
    Message::User {
        content: blocks.join("\n"),
    }
}

/// Text that imitates a tool result after a call: the model inventing what the tool said.
const RESULT_MARKERS: &[&str] = &[
    "TOOL_RESULT",
    "TOOL_ERROR",
    "<tool_response>",
    "[TOOL_RESULTS]",
    "<|start_header_id|>ipython",
];
/// End-of-turn tokens some servers leave in the text.
const END_TOKENS: &[&str] = &[
    "<|eot_id|>",
    "<|eom_id|>",
    "<|im_end|>",
    "<|end|>",
    "</s>",
    "<|endoftext|>",
];

/// Close tags a model leaves behind a call (doubled, or after a call it wrote without the
/// opening tag): markup, never part of an answer that made calls.
const STRAY_CLOSES: &[&str] = &[
    "[/TOOL_CALLS]",
    "</tool_call>",
    "</TOOL_CALL>",
    "</function>",
    "</function_call>",
    "</tool_code>",
    "</tool_use>",
    "<tool_call|>",
    "<|tool_call_end|>",
    "<|python_end|>",
    "<end_function_call>",
];

/// Parses a whole reply.
pub(crate) fn parse(format: &dyn Format, text: &str) -> Parsed {
    let mut segmenter = Segmenter::new();
    segmenter.advance(text, true, format);
    assemble(format, segmenter.segments)
}

fn assemble(format: &dyn Format, segments: Vec<Segment>) -> Parsed {
    let mut items: Vec<Item> = Vec::new();
    let mut reasoning = String::new();
    for segment in segments {
        match segment {
            Segment::Text(text) => region::push_content(&mut items, &text),
            Segment::Reasoning(text) => reasoning.push_str(&text),
            Segment::FenceCalls(calls) => items.extend(calls.into_iter().map(Item::Call)),
            Segment::Region(text) => {
                for item in format.parse_region(&text) {
                    match item {
                        Item::Content(text) => {
                            for found in bare::split(&text, format) {
                                match found {
                                    Item::Content(text) => region::push_content(&mut items, &text),
                                    call => items.push(call),
                                }
                            }
                        }
                        call => items.push(call),
                    }
                }
            }
        }
    }
    let last_call = items.iter().rposition(|i| matches!(i, Item::Call(_)));
    let mut parsed = Parsed {
        reasoning,
        ..Parsed::default()
    };
    for (index, item) in items.into_iter().enumerate() {
        match item {
            Item::Call(Ok(call)) => parsed.calls.push(call),
            Item::Call(Err(problem)) => parsed.diagnostics.push(problem),
            Item::Content(mut text) => {
                if last_call.is_some_and(|last| index > last)
                    && let Some(cut) = RESULT_MARKERS.iter().filter_map(|m| text.find(m)).min()
                {
                    text.truncate(cut);
                }
                parsed.content.push_str(&text);
            }
        }
    }
    let stray: &[&str] = if parsed.calls.is_empty() && parsed.diagnostics.is_empty() {
        &[]
    } else {
        STRAY_CLOSES
    };
    for token in END_TOKENS.iter().chain(stray) {
        if parsed.content.contains(token) {
            parsed.content = parsed.content.replace(token, "");
        }
    }
    parsed
}

/// Reads a reply constrained to `{"tool_call": {...}}` or `{"response": "..."}` (llama.cpp's
/// generic shapes); anything else is taken as the answer itself.
pub(crate) fn constrained_reply(text: &str) -> Parsed {
    let mut parsed = Parsed::default();
    let Ok(value) = lenient::parse(text) else {
        parsed.content = text.to_string();
        return parsed;
    };
    if let Some(answer) = value.get("response").and_then(Value::as_str) {
        parsed.content = answer.to_string();
        return parsed;
    }
    match shape::calls_in(&value, shape::Need::NameOnly) {
        Some(calls) => {
            for call in calls {
                match call {
                    Ok(call) => parsed.calls.push(call),
                    Err(problem) => parsed.diagnostics.push(problem),
                }
            }
        }
        None => parsed.content = text.to_string(),
    }
    parsed
}

/// What the streaming parser reports as text arrives.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum StreamEvent {
    /// Text that is certainly content (not a call, not reasoning).
    Text(String),
    /// A call in a fenced block, complete.
    Call(ParsedCall),
    /// A reasoning block, complete (never part of the answer).
    Reasoning(String),
}

/// Parses a reply as it streams; `finish` returns exactly what `parse` would of the whole text.
pub(crate) struct StreamParser<'f> {
    format: &'f dyn Format,
    buffer: String,
    segmenter: Segmenter,
    /// Segments already reported.
    seen: usize,
    /// Bytes of the segmenter's text log already reported.
    shown: usize,
}

impl<'f> StreamParser<'f> {
    pub(crate) fn new(format: &'f dyn Format) -> Self {
        StreamParser {
            format,
            buffer: String::new(),
            segmenter: Segmenter::new(),
            seen: 0,
            shown: 0,
        }
    }

    pub(crate) fn feed(&mut self, chunk: &str) -> Vec<StreamEvent> {
        self.buffer.push_str(chunk);
        self.segmenter.advance(&self.buffer, false, self.format);
        self.new_events()
    }

    /// The text held back at the end (a possible marker, a call) is decided now.
    pub(crate) fn finish(mut self) -> (Vec<StreamEvent>, Parsed) {
        self.segmenter.advance(&self.buffer, true, self.format);
        let mut events = self.new_events();
        let shown = std::mem::take(&mut self.segmenter.text_log);
        let parsed = assemble(self.format, self.segmenter.segments);
        // Text between and after calls is only known now; show it if it extends what was shown.
        if let Some(rest) = parsed.content.strip_prefix(shown.as_str())
            && !rest.is_empty()
        {
            events.push(StreamEvent::Text(rest.to_string()));
        }
        (events, parsed)
    }

    fn new_events(&mut self) -> Vec<StreamEvent> {
        let mut events = Vec::new();
        let log = &self.segmenter.text_log;
        if log.len() > self.shown {
            events.push(StreamEvent::Text(log[self.shown..].to_string()));
            self.shown = log.len();
        }
        let segments = &self.segmenter.segments;
        while self.seen < segments.len() {
            match &segments[self.seen] {
                Segment::FenceCalls(calls) => {
                    events.extend(
                        calls
                            .iter()
                            .filter_map(|c| c.clone().ok())
                            .map(StreamEvent::Call),
                    );
                }
                Segment::Reasoning(text) if !text.trim().is_empty() => {
                    events.push(StreamEvent::Reasoning(text.clone()));
                }
                Segment::Text(_) | Segment::Reasoning(_) | Segment::Region(_) => {}
            }
            self.seen += 1;
        }
        events
    }
}

#[cfg(test)]
mod damage_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod section_tests {
    use super::{Family, format_for};
    use crate::protocol::ToolSpec;

    fn tools(names: &[&str]) -> Vec<ToolSpec> {
        names
            .iter()
            .map(|n| ToolSpec {
                name: (*n).into(),
                description: "d".into(),
                parameters: serde_json::json!({}),
            })
            .collect()
    }

    /// A model shown an example call of a tool it cannot use makes that call: every family's
    /// section names only the tools on offer (after `/tools disable`, or with MCP tools only).
    #[test]
    fn a_section_never_names_a_tool_that_is_not_on_offer() {
        let all = ["filesystem", "execute_command", "web_search", "mcp_lookup"];
        let offers: [&[&str]; 5] = [
            &["filesystem"],
            &["execute_command"],
            &["web_search"],
            &["mcp_lookup"],
            &["filesystem", "web_search"],
        ];
        for family in Family::ALL {
            for offer in offers {
                let offered = tools(offer);
                let section = format_for(family, &offered).system_section(&offered);
                for name in all {
                    assert_eq!(
                        section.contains(&format!("\"{name}\"")),
                        offer.contains(&name),
                        "{} offering {offer:?} and {name}:\n{section}",
                        family.name()
                    );
                }
            }
        }
    }

    /// A call that could not be understood is answered with a PARSE_ERROR saying what was wrong
    /// and the shape the family expects, in every family.
    #[test]
    fn every_family_answers_a_damaged_call_with_a_parse_error_and_the_expected_shape() {
        let offered = tools(&["filesystem"]);
        for family in Family::ALL {
            let message = format_for(family, &offered).render_problems(&["a cut-off call".into()]);
            let text = serde_json::to_string(&message).unwrap_or_default();
            assert!(
                text.contains("PARSE_ERROR: a cut-off call") && text.contains("tool_name"),
                "{}: {text}",
                family.name()
            );
        }
    }

    #[test]
    fn the_model_name_picks_the_family() {
        let cases = [
            ("Qwen3-Coder-30B-A3B-Instruct", Family::Qwen),
            ("qwen3.5-4b", Family::Qwen),
            ("gemma-4-e2b-it", Family::Gemma),
            ("google/functiongemma-270m-it", Family::Gemma),
            ("LiquidAI/LFM2-1.2B-Tool", Family::Lfm2),
            ("lfm2-350m", Family::Lfm2),
            ("ibm-granite/granite-4.0-h-micro", Family::Granite),
            ("granite4:tiny-h", Family::Granite),
            ("Hermes-3-Llama-3.1-8B", Family::Hermes),
            ("llama3.2:3b", Family::Llama3),
            ("mistral-small", Family::Mistral),
            ("gemma-3-1b-it", Family::Generic),
            ("smollm2-135m", Family::Generic),
        ];
        for (model, family) in cases {
            assert_eq!(Family::detect(model), family, "{model}");
        }
        for family in Family::ALL {
            assert_eq!(Family::parse(family.name()), Some(family));
        }
    }
}
