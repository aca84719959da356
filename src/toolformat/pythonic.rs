//! The pythonic call list of Llama 3.2/4 and LFM2, `[f(a=1, b="x"), g()]`: keyword arguments
//! whose values are Python literals, typed by the tool's schema. Each element stands alone: a
//! bad one is a diagnostic and the others are kept.

use serde_json::{Map, Value};

use super::ParsedCall;
use super::lenient::{self, JsonError};
use super::region::{CUT_OFF, Item, short};
use super::schema;
use crate::protocol::ToolSpec;

/// A bracket scan over `(`, `[` and `{` that skips quoted strings and can stop at the end of
/// what has arrived and go on from there when more comes (so a long call streamed in small
/// pieces is scanned once).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Balance {
    pos: usize,
    depth: usize,
    quote: Option<u8>,
    escaped: bool,
}

impl Balance {
    /// A scan from the bracket at `open`.
    pub(crate) fn new(open: usize) -> Self {
        Balance {
            pos: open,
            ..Balance::default()
        }
    }

    /// Scans on to the end of `text`: the byte just past the matching close bracket, or `None`
    /// (the scan can go on when `text` has grown).
    pub(crate) fn run(&mut self, text: &str) -> Option<usize> {
        let bytes = text.as_bytes();
        while let Some(&b) = bytes.get(self.pos) {
            self.pos += 1;
            if self.escaped {
                self.escaped = false;
                continue;
            }
            match self.quote {
                Some(_) if b == b'\\' => self.escaped = true,
                Some(q) if b == q => self.quote = None,
                Some(_) => {}
                None => match b {
                    b'"' | b'\'' => self.quote = Some(b),
                    b'(' | b'[' | b'{' => self.depth += 1,
                    b')' | b']' | b'}' => {
                        self.depth = self.depth.saturating_sub(1);
                        if self.depth == 0 {
                            return Some(self.pos);
                        }
                    }
                    _ => {}
                },
            }
        }
        None
    }
}

/// The byte just past the bracket closing the one at `open`, skipping quoted strings; `None`
/// when the text ends first.
pub(crate) fn balanced_end(text: &str, open: usize) -> Option<usize> {
    Balance::new(open).run(text)
}

fn skip_ws(text: &str, pos: usize) -> usize {
    pos + text[pos..].len() - text[pos..].trim_start().len()
}

fn name_len(text: &str) -> usize {
    let first_ok = text.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
    if !first_ok {
        return 0;
    }
    text.find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
        .unwrap_or(text.len())
}

/// Whether `text` (after whitespace) could start a call list: `[name(` or `name(`, or the text
/// ends before that can be told (`None`).
pub(crate) fn could_open(text: &str) -> Option<bool> {
    let text = text.trim_start();
    let text = text.strip_prefix('[').map_or(text, str::trim_start);
    let len = name_len(text);
    if len == text.len() {
        return None;
    }
    Some(len > 0 && text[len..].starts_with('('))
}

/// The call list at the start of `text` (after whitespace), bracketed or a single bare call.
/// `None` if `text` does not start with one.
pub(crate) fn list(text: &str, tools: &[ToolSpec]) -> Option<(Vec<Item>, usize)> {
    let mut pos = skip_ws(text, 0);
    let bracketed = text[pos..].starts_with('[');
    if bracketed {
        pos = skip_ws(text, pos + 1);
    }
    let mut items = Vec::new();
    loop {
        let len = name_len(&text[pos..]);
        let paren = pos + len;
        if len == 0 || !text[paren..].starts_with('(') {
            if items.is_empty() {
                return None;
            }
            // `[f(a=1), 42]`: the list goes on with something that is not a call.
            let end = balanced_end(text, skip_ws(text, 0)).unwrap_or(text.len());
            let problem = format!("not a call in a call list: {}", short(&text[pos..end]));
            items.push(Item::Call(Err(problem)));
            return Some((items, end));
        }
        let name = text[pos..paren].trim_end_matches(".call");
        let Some(end) = balanced_end(text, paren) else {
            items.push(Item::Call(Err(CUT_OFF.into())));
            return Some((items, text.len()));
        };
        let call = arguments(&text[paren + 1..end - 1])
            .map(|arguments| ParsedCall {
                name: name.to_string(),
                arguments: schema::type_arguments(tools, name, arguments),
                id: None,
            })
            .map_err(|problem| format!("`{name}`: {problem}; write {name}(key=value, ...)"));
        items.push(Item::Call(call));
        pos = skip_ws(text, end);
        match text[pos..].chars().next() {
            Some(',') if bracketed => pos = skip_ws(text, pos + 1),
            Some(']') if bracketed => return Some((items, pos + 1)),
            // A missing `]`, or a bare call: the list ends here.
            _ => return Some((items, end)),
        }
    }
}

/// `a=1, b="x"` as a map.
fn arguments(text: &str) -> Result<Map<String, Value>, String> {
    let mut map = Map::new();
    let mut pos = skip_ws(text, 0);
    while pos < text.len() {
        let key_len = text[pos..]
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(text.len() - pos);
        let key = &text[pos..pos + key_len];
        pos = skip_ws(text, pos + key_len);
        if key.is_empty() || !text[pos..].starts_with('=') {
            return Err(format!(
                "an argument without a name: {}",
                short(text[pos.saturating_sub(key_len)..].trim())
            ));
        }
        pos = skip_ws(text, pos + 1);
        let (value, used) = match lenient::read_value(&text[pos..]) {
            Ok(read) => read,
            Err(JsonError::Truncated) => return Err(format!("`{key}` has no value")),
            Err(JsonError::Invalid(_)) => {
                return Err(format!(
                    "the value of `{key}` is not a literal: {}",
                    short(&text[pos..])
                ));
            }
        };
        map.insert(key.to_string(), value);
        pos = skip_ws(text, pos + used);
        match text[pos..].chars().next() {
            None => break,
            Some(',') => pos = skip_ws(text, pos + 1),
            Some(_) => {
                return Err(format!(
                    "unexpected text after `{key}`: {}",
                    short(&text[pos..])
                ));
            }
        }
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    type Found = Vec<Result<(String, Value), String>>;

    fn parse(text: &str) -> Option<(Found, usize)> {
        let tools = [ToolSpec {
            name: "weather".into(),
            description: String::new(),
            parameters: json!({"properties": {"zip": {"type": "string"}, "days": {"type": "integer"}}}),
        }];
        list(text, &tools).map(|(items, used)| {
            let calls = items
                .into_iter()
                .filter_map(|i| match i {
                    Item::Call(call) => Some(call.map(|c| (c.name, c.arguments))),
                    Item::Content(_) => None,
                })
                .collect();
            (calls, used)
        })
    }

    #[test]
    fn lists_parse_with_python_literals_and_schema_types() {
        let text =
            r#"[weather(zip=77004, days="3"), ping(), f(x=[1, 2], y={'a': True}, s="a, b)")] tail"#;
        let (calls, used) = parse(text).unwrap_or_default();
        assert_eq!(
            calls,
            vec![
                Ok(("weather".into(), json!({"zip": "77004", "days": 3}))),
                Ok(("ping".into(), json!({}))),
                Ok((
                    "f".into(),
                    json!({"x": [1, 2], "y": {"a": true}, "s": "a, b)"})
                )),
            ]
        );
        assert_eq!(&text[used..], " tail");
    }

    #[test]
    fn one_bad_element_is_reported_and_the_others_kept() {
        for text in [
            "[f(a=1), g(b=nope), h()]",
            "[f(a=1), g(\"positional\"), h()]",
            "[f(a=1), g(b=1 2), h()]",
            "[f(a=1), g(b=), h()]",
        ] {
            let (calls, _) = parse(text).unwrap_or_default();
            assert_eq!(calls.len(), 3, "{text}");
            assert!(
                calls[0].is_ok() && calls[1].is_err() && calls[2].is_ok(),
                "{text}"
            );
        }
    }

    #[test]
    fn not_lists_and_cut_off_lists() {
        for text in ["[special delivery]", "[1, 2, 3]", "(a=1)", "[]"] {
            assert!(parse(text).is_none(), "{text}");
        }
        for text in [r#"[f(a="unfinished"#, "[f(a=1", "[f(a=1), g(b"] {
            let (calls, _) = parse(text).unwrap_or_default();
            assert!(calls.last().is_some_and(Result::is_err), "{text}");
        }
        assert_eq!(could_open("[get_wea"), None);
        assert_eq!(could_open("[get_weather("), Some(true));
        assert_eq!(could_open("[see above]"), Some(false));
    }
}
