//! Pieces the family parsers share: walking a call region block by block, reading a JSON call
//! after a tag, the pythonic call list of Llama 3.2/4, and the XML-ish `<function=...>` form of
//! Qwen3-Coder, each failure isolated to its own block.

use serde_json::{Map, Value};

use super::ParsedCall;
use super::lenient::{self, JsonError};
use super::shape::{Need, calls_in};
use crate::protocol::ToolSpec;

/// One piece of a region, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Content(String),
    Call(Result<ParsedCall, String>),
}

/// How one block after a marker went: its items and how many bytes it used; `None` when what
/// follows the marker is not a call (the marker is then plain text).
pub type Block = Option<(Vec<Item>, usize)>;

/// Walks `region`, handing the text after each opening marker to `block`.
pub fn scan(region: &str, opens: &[&str], mut block: impl FnMut(&str, &str) -> Block) -> Vec<Item> {
    let mut items = Vec::new();
    let mut cursor = 0;
    let mut search = 0;
    while let Some((at, marker)) = find_first(region, search, opens) {
        let after_marker = at + marker.len();
        match block(marker, &region[after_marker..]) {
            Some((found, used)) => {
                push_content(&mut items, &region[cursor..at]);
                items.extend(found);
                cursor = after_marker + used;
                search = cursor;
            }
            None => search = after_marker,
        }
    }
    push_content(&mut items, &region[cursor..]);
    items
}

fn find_first<'m>(text: &str, from: usize, markers: &[&'m str]) -> Option<(usize, &'m str)> {
    markers
        .iter()
        .filter_map(|m| text[from..].find(m).map(|at| (from + at, *m)))
        .min_by_key(|(at, m)| (*at, usize::MAX - m.len()))
}

pub fn push_content(items: &mut Vec<Item>, text: &str) {
    if text.is_empty() {
        return;
    }
    match items.last_mut() {
        Some(Item::Content(existing)) => existing.push_str(text),
        _ => items.push(Item::Content(text.to_string())),
    }
}

fn calls_to_items(calls: Vec<Result<ParsedCall, String>>) -> Vec<Item> {
    calls.into_iter().map(Item::Call).collect()
}

const CUT_OFF: &str = "a tool call was cut off before its end, so it was not run";

/// A JSON call (or array of calls) right after a tag, optionally fenced, then an optional close
/// tag. Malformed: a diagnostic, and the block ends at its close tag (or the next opening tag).
pub fn json_block(after: &str, closes: &[&str], opens: &[&str]) -> Block {
    let lead = after.len() - after.trim_start().len();
    let mut body = &after[lead..];
    let mut used = lead;
    let fenced = body.starts_with("```");
    if fenced {
        let line = body.find('\n').map_or(body.len(), |n| n + 1);
        used += line;
        body = &body[line..];
        let inner_lead = body.len() - body.trim_start().len();
        used += inner_lead;
        body = &body[inner_lead..];
    }
    if !(body.starts_with('{') || body.starts_with('[')) {
        return None;
    }
    match lenient::read_value(body) {
        Ok((value, end)) => {
            used += end;
            let items = match calls_in(&value, Need::NameOnly) {
                Some(calls) => calls_to_items(calls),
                None => vec![Item::Call(Err(format!(
                    "not a tool call: {}",
                    short(&body[..end])
                )))],
            };
            used += close_after(&after[used..], closes, fenced);
            Some((items, used))
        }
        Err(JsonError::Truncated) => Some((vec![Item::Call(Err(CUT_OFF.into()))], after.len())),
        Err(JsonError::Invalid(at)) => {
            let message = format!("a malformed tool call: {}", short(body));
            let rest = &after[used..];
            let skip = closes
                .iter()
                .filter_map(|c| rest.find(c).map(|i| i + c.len()))
                .min()
                .or_else(|| {
                    opens
                        .iter()
                        .filter_map(|o| rest[at.min(rest.len())..].find(o).map(|i| i + at))
                        .min()
                })
                .unwrap_or(rest.len());
            Some((vec![Item::Call(Err(message))], used + skip))
        }
    }
}

/// Bytes of an optional closing fence and close tag after a call.
fn close_after(rest: &str, closes: &[&str], fenced: bool) -> usize {
    let mut used = rest.len() - rest.trim_start().len();
    if fenced && rest[used..].starts_with("```") {
        used += 3;
        used += rest[used..].len() - rest[used..].trim_start().len();
    }
    let after_ws = rest[used..].len() - rest[used..].trim_start().len();
    match closes
        .iter()
        .find(|c| rest[used + after_ws..].starts_with(**c))
    {
        Some(close) => used + after_ws + close.len(),
        None if fenced => used,
        None => 0,
    }
}

/// A call whose name came before its arguments (`[TOOL_CALLS]name{...}`, `<function=name>{...}`):
/// reads the arguments object at the start of `text`.
pub fn named_args(name: &str, text: &str) -> (Vec<Item>, usize) {
    match lenient::read_value(text) {
        Ok((Value::Object(arguments), end)) => {
            let call = ParsedCall {
                name: name.to_string(),
                arguments: Value::Object(arguments),
                id: None,
            };
            (vec![Item::Call(Ok(call))], end)
        }
        Ok((_, end)) => (
            vec![Item::Call(Err(format!(
                "the arguments of `{name}` must be an object"
            )))],
            end,
        ),
        Err(JsonError::Truncated) => (vec![Item::Call(Err(CUT_OFF.into()))], text.len()),
        Err(JsonError::Invalid(at)) => (
            vec![Item::Call(Err(format!(
                "malformed arguments for `{name}`: {}",
                short(text)
            )))],
            at.max(text.char_indices().nth(1).map_or(text.len(), |(i, _)| i)),
        ),
    }
}

pub fn short(text: &str) -> String {
    let line: String = text.chars().take(80).collect();
    if line.len() < text.len() {
        format!("{line}…")
    } else {
        line
    }
}

/// JSON values at the start of a reply with no marker (`{...}`, `[...]`, or several separated by
/// `;` or newlines). Returns `None` when the first one is not call-shaped: then it is text.
pub fn bare_json(region: &str) -> Option<Vec<Item>> {
    let mut items = Vec::new();
    let mut cursor = 0;
    loop {
        let rest = &region[cursor..];
        let lead = rest.len()
            - rest
                .trim_start_matches(|c: char| c.is_whitespace() || c == ';')
                .len();
        let body = &rest[lead..];
        if !(body.starts_with('{') || body.starts_with('[')) {
            break;
        }
        match lenient::read_value(body) {
            Ok((value, end)) => match calls_in(&value, Need::NameAndArguments) {
                Some(calls) => {
                    items.extend(calls_to_items(calls));
                    cursor += lead + end;
                }
                None if items.is_empty() => return None,
                None => break,
            },
            Err(JsonError::Truncated) => {
                if items.is_empty() && !looks_like_call_start(body) {
                    return None;
                }
                items.push(Item::Call(Err(CUT_OFF.into())));
                cursor = region.len();
                break;
            }
            Err(JsonError::Invalid(_)) if items.is_empty() => return None,
            Err(JsonError::Invalid(_)) => break,
        }
    }
    push_content(&mut items, &region[cursor..]);
    Some(items)
}

/// A cut-off bare object counts as a call only if it already names one.
fn looks_like_call_start(body: &str) -> bool {
    let head: String = body.chars().take(64).collect();
    ["\"name\"", "'name'", "\"tool\"", "\"function\""]
        .iter()
        .any(|k| head.contains(k))
}

/// The pythonic list `[f(a=1, b="x"), g()]` (Llama 3.2/4). `None` if `text` is not one.
pub fn pythonic(text: &str) -> Option<(Vec<Item>, usize)> {
    let bytes = text.as_bytes();
    let mut pos = skip_ws(text, 0);
    let bracketed = bytes.get(pos) == Some(&b'[');
    if bracketed {
        pos = skip_ws(text, pos + 1);
    }
    let mut items = Vec::new();
    loop {
        let name_start = pos;
        while pos < bytes.len()
            && (bytes[pos].is_ascii_alphanumeric() || matches!(bytes[pos], b'_' | b'.' | b'-'))
        {
            pos += 1;
        }
        if pos == name_start || bytes.get(pos) != Some(&b'(') {
            return None;
        }
        let name = text[name_start..pos].trim_end_matches(".call").to_string();
        pos += 1;
        let mut arguments = Map::new();
        loop {
            pos = skip_ws(text, pos);
            match bytes.get(pos) {
                None => {
                    items.push(Item::Call(Err(CUT_OFF.into())));
                    return Some((items, text.len()));
                }
                Some(b')') => {
                    pos += 1;
                    break;
                }
                Some(b',') => {
                    pos += 1;
                    continue;
                }
                _ => {}
            }
            let key_start = pos;
            while pos < bytes.len() && (bytes[pos].is_ascii_alphanumeric() || bytes[pos] == b'_') {
                pos += 1;
            }
            let key = text[key_start..pos].to_string();
            pos = skip_ws(text, pos);
            if key.is_empty() || bytes.get(pos) != Some(&b'=') {
                return if pos >= bytes.len() {
                    Some((vec![Item::Call(Err(CUT_OFF.into()))], text.len()))
                } else {
                    None
                };
            }
            pos = skip_ws(text, pos + 1);
            match lenient::read_value(&text[pos..]) {
                Ok((value, end)) => {
                    arguments.insert(key, value);
                    pos += end;
                }
                Err(JsonError::Truncated) => {
                    items.push(Item::Call(Err(CUT_OFF.into())));
                    return Some((items, text.len()));
                }
                Err(JsonError::Invalid(_)) => return None,
            }
        }
        items.push(Item::Call(Ok(ParsedCall {
            name,
            arguments: Value::Object(arguments),
            id: None,
        })));
        pos = skip_ws(text, pos);
        match bytes.get(pos) {
            Some(b',') if bracketed => pos = skip_ws(text, pos + 1),
            Some(b']') if bracketed => return Some((items, pos + 1)),
            // A missing `]` at the very end.
            None => return Some((items, pos)),
            _ if !bracketed => return Some((items, pos)),
            _ => return Some((items, pos)),
        }
    }
}

fn skip_ws(text: &str, mut pos: usize) -> usize {
    let bytes = text.as_bytes();
    while pos < bytes.len() && bytes[pos].is_ascii_whitespace() {
        pos += 1;
    }
    pos
}

/// Qwen3-Coder's `<function=N><parameter=K>value</parameter>...</function>`, values typed by the
/// tool's schema (strings stay raw text).
pub fn xml_function(text: &str, tools: &[ToolSpec]) -> Option<(Vec<Item>, usize)> {
    let start = text.find("<function=")?;
    if !text[..start].trim().is_empty() {
        return None;
    }
    let name_start = start + "<function=".len();
    let name_end = name_start + text[name_start..].find('>')?;
    let name = text[name_start..name_end].trim().to_string();
    let Some(body_len) = text[name_end..].find("</function>") else {
        return Some((vec![Item::Call(Err(CUT_OFF.into()))], text.len()));
    };
    let body = &text[name_end + 1..name_end + body_len];
    let schema = tools.iter().find(|t| t.name == name).map(|t| &t.parameters);
    let mut arguments = Map::new();
    let mut rest = body;
    while let Some(open) = rest.find("<parameter=") {
        let key_start = open + "<parameter=".len();
        let Some(key_len) = rest[key_start..].find('>') else {
            break;
        };
        let key = rest[key_start..key_start + key_len].trim().to_string();
        let value_start = key_start + key_len + 1;
        let value_len = rest[value_start..]
            .find("</parameter>")
            .unwrap_or(rest.len() - value_start);
        let raw = &rest[value_start..value_start + value_len];
        let raw = raw.strip_prefix('\n').unwrap_or(raw);
        let raw = raw.strip_suffix('\n').unwrap_or(raw);
        let kind = schema
            .and_then(|s| s.pointer(&format!("/properties/{key}/type")))
            .and_then(Value::as_str);
        arguments.insert(key, typed(raw, kind));
        rest = &rest[(value_start + value_len + "</parameter>".len()).min(rest.len())..];
    }
    let call = ParsedCall {
        name,
        arguments: Value::Object(arguments),
        id: None,
    };
    Some((
        vec![Item::Call(Ok(call))],
        name_end + body_len + "</function>".len(),
    ))
}

fn typed(raw: &str, kind: Option<&str>) -> Value {
    match kind {
        Some("string") => Value::String(raw.to_string()),
        Some(_) | None => match lenient::parse(raw.trim()) {
            Ok(value) => value,
            Err(_) => Value::String(raw.to_string()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ok_calls(items: &[Item]) -> Vec<(String, Value)> {
        items
            .iter()
            .filter_map(|i| match i {
                Item::Call(Ok(c)) => Some((c.name.clone(), c.arguments.clone())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn pythonic_lists_parse_with_python_literals() {
        let (items, used) = pythonic(
            r#"[get_weather(city="SF", days=3), ping(), f(x=[1, 2], y={'a': True})] tail"#,
        )
        .unwrap_or_default();
        assert_eq!(
            ok_calls(&items),
            vec![
                ("get_weather".into(), json!({"city": "SF", "days": 3})),
                ("ping".into(), json!({})),
                ("f".into(), json!({"x": [1, 2], "y": {"a": true}})),
            ]
        );
        assert_eq!(
            &r#"[get_weather(city="SF", days=3), ping(), f(x=[1, 2], y={'a': True})] tail"#[used..],
            " tail"
        );
        assert!(pythonic("[special delivery]").is_none());
        assert!(pythonic("[1, 2, 3]").is_none());
        let (cut, _) = pythonic(r#"[f(a="unfinished"#).unwrap_or_default();
        assert!(matches!(cut[0], Item::Call(Err(_))));
    }

    #[test]
    fn qwen_coder_xml_is_typed_by_the_schema() {
        let tools = [ToolSpec {
            name: "run".into(),
            description: String::new(),
            parameters: json!({"type": "object", "properties": {"command": {"type": "string"}, "timeout": {"type": "integer"}}}),
        }];
        let text = "<function=run>\n<parameter=command>\necho 42\n</parameter>\n<parameter=timeout>\n5\n</parameter>\n</function>";
        let (items, _) = xml_function(text, &tools).unwrap_or_default();
        assert_eq!(
            ok_calls(&items),
            vec![("run".into(), json!({"command": "echo 42", "timeout": 5}))]
        );
    }
}
