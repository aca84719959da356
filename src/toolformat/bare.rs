//! Calls written with no marker, wherever they are in a reply: a call-shaped JSON object or
//! array (`{"name": N, "arguments": A}`, as Llama 3 and models under Hermes/Qwen templates write
//! them after a sentence), and for the pythonic families a call list (`Here: [f(a=1)]`). Only
//! objects that name their arguments count, so JSON quoted in an answer stays text.

use super::pythonic;
use super::region::{self, Item};
use super::shape::{Need, calls_in};
use super::{Format, lenient};

/// Keys a call object may open with.
const CALL_KEYS: &[&str] = &[
    "name",
    "arguments",
    "parameters",
    "args",
    "tool",
    "function",
    "type",
    "id",
    "tool_call",
    "tool_calls",
    "function_call",
];

/// What the text at a `{` or `[` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Candidate {
    /// Too little has arrived to tell.
    Wait,
    /// Not a call.
    No,
    /// Possibly calls, this many bytes long.
    Span(usize),
    /// Possibly calls, not closed before the end of the text.
    Unclosed,
}

/// Whether `text` (starting with `{` or `[`) may hold calls.
pub(crate) fn candidate(text: &str, format: &dyn Format, eof: bool) -> Candidate {
    match opens(text, format) {
        None if eof => Candidate::No,
        None => Candidate::Wait,
        Some(false) => Candidate::No,
        Some(true) => match pythonic::balanced_end(text, 0) {
            Some(end) => Candidate::Span(end),
            None if eof => Candidate::Unclosed,
            None => Candidate::Wait,
        },
    }
}

/// Whether `text` (starting with `{` or `[`) opens like calls: `None` while too little has
/// arrived to tell.
pub(crate) fn opens(text: &str, format: &dyn Format) -> Option<bool> {
    match text.as_bytes().first() {
        Some(b'{') => object_opens(text),
        Some(b'[') => {
            let inner = text[1..].trim_start();
            if inner.starts_with('{') {
                object_opens(inner)
            } else if inner.is_empty() {
                None
            } else if format.pythonic() {
                pythonic::could_open(text)
            } else {
                Some(false)
            }
        }
        _ => Some(false),
    }
}

/// `{"name"`, `{'name'`, `{name` (any call key): `None` while the key is still arriving.
fn object_opens(text: &str) -> Option<bool> {
    let inner = text[1..].trim_start();
    let quote = inner.chars().next()?;
    let key = if quote == '"' || quote == '\'' {
        &inner[1..]
    } else {
        inner
    };
    let len = key
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(key.len());
    if len == key.len() {
        // The key runs to the end of what has arrived.
        return if CALL_KEYS.iter().any(|k| k.starts_with(key)) {
            None
        } else {
            Some(false)
        };
    }
    Some(CALL_KEYS.contains(&&key[..len]))
}

/// The calls in a closed candidate; `None` when it is not calls.
pub(crate) fn calls(text: &str, format: &dyn Format) -> Option<Vec<Item>> {
    match lenient::parse(text) {
        Ok(value) => {
            return calls_in(&value, Need::NameAndArguments)
                .map(|calls| calls.into_iter().map(Item::Call).collect());
        }
        Err(_)
            if region::names_a_call(text)
                && text.trim_start_matches('[').trim_start().starts_with('{') =>
        {
            return Some(vec![Item::Call(Err(region::malformed(text)))]);
        }
        Err(_) => {}
    }
    if !format.pythonic() {
        return None;
    }
    let (items, used) = pythonic::list(text, format.tools())?;
    let any_call = items.iter().any(|i| matches!(i, Item::Call(Ok(_))));
    (any_call && text[used..].trim().is_empty()).then_some(items)
}

/// The calls in a candidate the text ended inside (a cut-off call is a diagnostic), then the
/// rest as content; `None` when it is not calls.
pub(crate) fn unclosed(text: &str, format: &dyn Format) -> Option<Vec<Item>> {
    if let Some(items) = region::bare_json(text) {
        return Some(items);
    }
    if !format.pythonic() {
        return None;
    }
    let (mut items, used) = pythonic::list(text, format.tools())?;
    region::push_content(&mut items, &text[used..]);
    Some(items)
}

/// Finds the marker-less calls in a piece of content already cut out (the text around calls in
/// a region), skipping inline code and fenced blocks.
pub(crate) fn split(text: &str, format: &dyn Format) -> Vec<Item> {
    let mut items = Vec::new();
    let mut cursor = 0;
    let mut scan = 0;
    let mut in_code = false;
    while let Some(offset) = text[scan..].find(['{', '[', '`']) {
        let at = scan + offset;
        scan = at + 1;
        if text[at..].starts_with('`') {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let found = match candidate(&text[at..], format, true) {
            Candidate::Span(len) => calls(&text[at..at + len], format).map(|c| (c, at + len)),
            Candidate::Unclosed => unclosed(&text[at..], format).map(|c| (c, text.len())),
            Candidate::Wait | Candidate::No => None,
        };
        if let Some((found, end)) = found {
            region::push_content(&mut items, &text[cursor..at]);
            items.extend(found);
            cursor = end;
            scan = end;
        }
    }
    region::push_content(&mut items, &text[cursor..]);
    items
}
