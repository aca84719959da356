//! Pieces the family parsers share: walking a call region block by block and reading a JSON
//! call after a tag, each failure isolated to its own block.

use serde_json::Value;

use super::ParsedCall;
use super::lenient::{self, JsonError};
use super::shape::{Need, calls_in};

/// One piece of a region, in order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Item {
    Content(String),
    Call(Result<ParsedCall, String>),
}

/// How one block after a marker went: its items and how many bytes it used; `None` when what
/// follows the marker is not a call (the marker is then plain text).
pub(crate) type Block = Option<(Vec<Item>, usize)>;

/// Walks `region`, handing the text after each opening marker to `block`.
pub(crate) fn scan(
    region: &str,
    opens: &[&str],
    mut block: impl FnMut(&str, &str) -> Block,
) -> Vec<Item> {
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

pub(crate) fn push_content(items: &mut Vec<Item>, text: &str) {
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

pub(crate) const CUT_OFF: &str = "a tool call was cut off before its end, so it was not run";

/// A JSON call (or array of calls) right after a tag, optionally fenced, then an optional close
/// tag. Malformed: a diagnostic, and the block ends at its close tag (or the next opening tag).
pub(crate) fn json_block(after: &str, closes: &[&str], opens: &[&str]) -> Block {
    json_block_with(after, closes, opens, Need::NameOnly)
}

/// `json_block` with the strictness of the wrapper: loose wrappers (`<response>`, `<json>`)
/// hold a call only when it names its arguments.
pub(crate) fn json_block_with(after: &str, closes: &[&str], opens: &[&str], need: Need) -> Block {
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
        return junk_then_call(body, closes, need).map(|(items, skip)| (items, used + skip));
    }
    match lenient::read_value(body) {
        Ok((value, end)) => {
            used += end;
            let items = match calls_in(&value, need) {
                Some(calls) => calls_to_items(calls),
                None if need == Need::NameAndArguments => return None,
                None => vec![Item::Call(Err(format!(
                    "not a tool call: {}",
                    short(&body[..end])
                )))],
            };
            used += close_after(&after[used..], closes, fenced);
            Some((items, used))
        }
        Err(_) if need == Need::NameAndArguments && !looks_like_call_start(body) => None,
        Err(JsonError::Truncated) => Some((vec![Item::Call(Err(CUT_OFF.into()))], after.len())),
        Err(JsonError::Invalid(at)) => {
            let message = malformed(body);
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

/// `<tool_call>junk {"name": ...}</tool_call>`: a call-shaped object after text inside a tag is
/// the call (the junk is dropped); anything else is not a block.
fn junk_then_call(body: &str, closes: &[&str], need: Need) -> Block {
    if need != Need::NameOnly {
        return None;
    }
    let end = closes
        .iter()
        .filter_map(|c| body.find(c))
        .min()
        .unwrap_or(body.len());
    let start = body[..end].find('{')?;
    let (value, len) = lenient::read_value(&body[start..]).ok()?;
    let calls = calls_in(&value, Need::NameAndArguments)?;
    let used = start + len;
    Some((
        calls_to_items(calls),
        used + close_after(&body[used..], closes, false),
    ))
}

/// Bytes of an optional closing fence and close tag after a call (stray close brackets before
/// the tag belong to the call).
fn close_after(rest: &str, closes: &[&str], fenced: bool) -> usize {
    let mut used = rest.len() - rest.trim_start().len();
    if fenced && rest[used..].starts_with("```") {
        used += 3;
        used += rest[used..].len() - rest[used..].trim_start().len();
    }
    let stray = rest[used..]
        .bytes()
        .take_while(|b| matches!(b, b']' | b'}'))
        .count();
    let tail = rest[used + stray..].trim_start();
    let stray_taken = stray > 0 && (tail.is_empty() || closes.iter().any(|c| tail.starts_with(c)));
    if stray_taken {
        used += stray;
    }
    let after_ws = rest[used..].len() - rest[used..].trim_start().len();
    match closes
        .iter()
        .find(|c| rest[used + after_ws..].starts_with(**c))
    {
        Some(close) => used + after_ws + close.len(),
        None if fenced || stray_taken => used,
        None => 0,
    }
}

/// A call whose name came before its arguments (`[TOOL_CALLS]name{...}`, `<function=name>{...}`):
/// reads the arguments object at the start of `text`.
pub(crate) fn named_args(name: &str, text: &str) -> (Vec<Item>, usize) {
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

pub(crate) fn short(text: &str) -> String {
    let line: String = text.chars().take(80).collect();
    if line.len() < text.len() {
        format!("{line}…")
    } else {
        line
    }
}

/// JSON values at the start of a reply with no marker (`{...}`, `[...]`, or several separated by
/// `;` or newlines). Returns `None` when the first one is not call-shaped: then it is text.
pub(crate) fn bare_json(region: &str) -> Option<Vec<Item>> {
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
            Err(JsonError::Invalid(_)) if items.is_empty() && names_a_call(body) => {
                items.push(Item::Call(Err(malformed(body))));
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

/// JSON that is broken but plainly meant as a call: it names a tool and its arguments.
pub(crate) fn names_a_call(body: &str) -> bool {
    let has = |keys: &[&str]| {
        keys.iter()
            .any(|k| body.contains(&format!("\"{k}\"")) || body.contains(&format!("'{k}'")))
    };
    has(&["name", "tool", "function"]) && has(&["arguments", "parameters", "args"])
}

pub(crate) fn malformed(body: &str) -> String {
    format!(
        "a malformed tool call: {}; expected {{\"name\": ..., \"arguments\": {{...}}}}",
        short(body)
    )
}

/// A cut-off bare object counts as a call only if it already names one.
fn looks_like_call_start(body: &str) -> bool {
    let head: String = body.chars().take(64).collect();
    ["\"name\"", "'name'", "\"tool\"", "\"function\""]
        .iter()
        .any(|k| head.contains(k))
}
