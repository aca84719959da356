//! Gemma 4: `<|tool_call>call:NAME{key:<|"|>text<|"|>,n:3}<tool_call|>` (bare keys, strings
//! between `<|"|>` tokens, no escapes), and FunctionGemma's `<start_function_call>call:NAME{
//! key:<escape>text<escape>}<end_function_call>`; results go back as `<|tool_response>`.

use super::lenient::{self, JsonError};
use super::region::{self, CUT_OFF, Item, short};
use super::{Answered, Family, Format, ParsedCall, hermes, schema, signatures};
use crate::protocol::{Message, ToolSpec};

pub(crate) struct Gemma {
    pub(crate) tools: Vec<ToolSpec>,
}

const OPENS: &[&str] = &["<|tool_call>", "<start_function_call>"];
const CLOSES: &[&str] = &["<tool_call|>", "<end_function_call>"];
/// The tokens Gemma quotes strings with.
const QUOTES: &[&str] = &["<|\"|>", "<escape>"];

impl Format for Gemma {
    fn family(&self) -> Family {
        Family::Gemma
    }

    fn open_markers(&self) -> &'static [&'static str] {
        OPENS
    }

    fn tools(&self) -> &[ToolSpec] {
        &self.tools
    }

    fn parse_region(&self, text: &str) -> Vec<Item> {
        region::scan(text, OPENS, |_, after| {
            let lead = after.len() - after.trim_start().len();
            let body = &after[lead..];
            // `call:NAME{...}`; models also leave out `call:`, or write JSON.
            let prefix = if body.starts_with("call:") {
                "call:".len()
            } else {
                0
            };
            let (items, used) = match call_body(&body[prefix..], &self.tools) {
                Some((item, used)) => (vec![Item::Call(item)], prefix + used),
                None => region::json_block(body, CLOSES, OPENS)?,
            };
            let used = lead + used;
            Some((items, used + hermes::close(&after[used..], CLOSES)))
        })
    }

    fn system_section(&self, tools: &[ToolSpec]) -> String {
        let example = super::examples(tools, &[("filesystem", super::READ_CARGO)], 1)
            .into_iter()
            .map(|(name, args)| format!("<|tool_call>call:{name}{}<tool_call|>", gemma_args(args)))
            .collect::<String>();
        format!(
            "You can call these tools (JSON signatures):\n{}\n\nTo call one, write \
             <|tool_call>call:NAME{{key:value,...}}<tool_call|> with keys bare and every text \
             value between <|\"|> tokens, for example:\n{}\nThe result comes back as \
             <|tool_response>...<tool_response|>; never write it yourself. When you have the \
             answer, reply in plain text.",
            signatures(tools),
            example
        )
    }

    fn render_results(&self, answered: &[Answered<'_>]) -> Vec<Message> {
        let blocks: Vec<String> = answered
            .iter()
            .map(|a| {
                format!(
                    "<|tool_response>response:{}{}<tool_response|>",
                    a.name,
                    a.result.to_model_text()
                )
            })
            .collect();
        vec![Message::User {
            content: blocks.join("\n"),
        }]
    }

    fn render_problems(&self, problems: &[String]) -> Message {
        Message::User {
            content: problems
                .iter()
                .map(|p| {
                    let error = super::parse_error(
                        p,
                        "<|tool_call>call:tool_name{key:<|\"|>text<|\"|>,n:1}<tool_call|>",
                    );
                    format!("<|tool_response>response:error{{message:<|\"|>{error}<|\"|>}}<tool_response|>")
                })
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}

/// `{"a": "x"}` (an example's JSON) in Gemma's spelling.
fn gemma_args(json: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(json) {
        Ok(serde_json::Value::Object(map)) => {
            let pairs: Vec<String> = map
                .iter()
                .map(|(k, v)| match v {
                    serde_json::Value::String(s) => format!("{k}:<|\"|>{s}<|\"|>"),
                    other => format!("{k}:{other}"),
                })
                .collect();
            format!("{{{}}}", pairs.join(","))
        }
        _ => "{}".into(),
    }
}

/// `NAME{...}` after `call:`: the call (or why it is not one) and the bytes used.
fn call_body(text: &str, tools: &[ToolSpec]) -> Option<(Result<ParsedCall, String>, usize)> {
    let name_len = text
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .unwrap_or(text.len());
    let name = &text[..name_len];
    if name.is_empty() {
        return None;
    }
    if name_len == text.len() {
        return Some((Err(CUT_OFF.into()), text.len()));
    }
    if !text[name_len..].starts_with('{') {
        // The block is broken as a whole: it ends at its close tag.
        let problem = format!("`{name}`: expected call:{name}{{key:value,...}}");
        let end = CLOSES.iter().filter_map(|c| text.find(c)).min();
        return Some((Err(problem), end.unwrap_or(text.len())));
    }
    let Some((json, used)) = to_json(&text[name_len..]) else {
        return Some((Err(CUT_OFF.into()), text.len()));
    };
    let call = match lenient::parse(&json) {
        Ok(serde_json::Value::Object(arguments)) => Ok(ParsedCall {
            name: name.to_string(),
            arguments: schema::type_arguments(tools, name, arguments),
            id: None,
        }),
        Ok(_) | Err(JsonError::Invalid(_)) | Err(JsonError::Truncated) => Err(format!(
            "malformed arguments for `{name}`: {}; text values go between <|\"|> tokens",
            short(&text[name_len..name_len + used])
        )),
    };
    Some((call, name_len + used))
}

/// The arguments object at the start of `text` rewritten as JSON (quoted strings), and its
/// length in `text`; `None` when the text ends inside it.
fn to_json(text: &str) -> Option<(String, usize)> {
    let mut out = String::new();
    let mut depth = 0usize;
    let mut pos = 0;
    while pos < text.len() {
        let rest = &text[pos..];
        if let Some(quote) = QUOTES.iter().find(|q| rest.starts_with(**q)) {
            let inner = &rest[quote.len()..];
            let end = inner.find(quote)?;
            out.push_str(&serde_json::Value::String(inner[..end].to_string()).to_string());
            pos += quote.len() * 2 + end;
            continue;
        }
        let c = rest.chars().next()?;
        if c == '"' {
            let end = pythonic_string_end(rest)?;
            out.push_str(&rest[..end]);
            pos += end;
            continue;
        }
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        out.push(c);
        pos += c.len_utf8();
        if depth == 0 {
            return Some((out, pos));
        }
    }
    None
}

/// The end of a `"..."` string at the start of `text` (escapes skipped).
fn pythonic_string_end(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}
