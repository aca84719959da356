//! A lenient reader of the JSON models write: strict JSON, plus single-quoted strings, Python
//! literals (`True`, `False`, `None`), bare keys, trailing commas, raw newlines in strings, and
//! missing closing brackets at the very end. A value cut off inside a string, a number or after a
//! `:` or `,` is reported as truncated, never guessed.

use serde_json::{Map, Number, Value};

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum JsonError {
    /// The text ends inside a value: a cut-off call, never to be executed.
    Truncated,
    /// Not JSON at this byte offset.
    Invalid(usize),
}

/// Reads one value at the start of `text` (after whitespace); returns it and the byte offset just
/// past it. Missing closing brackets at the end of `text` are added when nothing else is missing.
pub(crate) fn read_value(text: &str) -> Result<(Value, usize), JsonError> {
    let mut reader = Reader {
        bytes: text.as_bytes(),
        text,
        pos: 0,
        depth: 0,
    };
    reader.skip_ws();
    let value = reader.value()?;
    Ok((value, reader.pos))
}

/// Reads `text` as exactly one value (whitespace around it allowed).
pub(crate) fn parse(text: &str) -> Result<Value, JsonError> {
    let (value, end) = read_value(text)?;
    if text[end..].trim().is_empty() {
        Ok(value)
    } else {
        Err(JsonError::Invalid(end))
    }
}

/// Values nest at most this deep (a guard against pathological input).
const MAX_DEPTH: usize = 128;

struct Reader<'a> {
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
    depth: usize,
}

/// What ends a container: its close bracket, or the end of the text right after a whole value.
enum Close {
    Bracket,
    EndOfText,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b) = self.peek() {
            if b.is_ascii_whitespace() {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn value(&mut self) -> Result<Value, JsonError> {
        match self.peek() {
            None => Err(JsonError::Truncated),
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(q @ (b'"' | b'\'')) => self.string(q).map(Value::String),
            Some(b'-' | b'+' | b'0'..=b'9' | b'.') => self.number(),
            Some(b) if b.is_ascii_alphabetic() => self.word(),
            Some(_) => Err(JsonError::Invalid(self.pos)),
        }
    }

    /// After a member or element: a comma, the close bracket, or the end of the text.
    fn after_item(&mut self, close: u8) -> Result<Option<Close>, JsonError> {
        self.skip_ws();
        match self.peek() {
            None => Ok(Some(Close::EndOfText)),
            Some(b',') => {
                self.pos += 1;
                self.skip_ws();
                match self.peek() {
                    // A trailing comma before the close bracket.
                    Some(b) if b == close => {
                        self.pos += 1;
                        Ok(Some(Close::Bracket))
                    }
                    None => Err(JsonError::Truncated),
                    _ => Ok(None),
                }
            }
            Some(b) if b == close => {
                self.pos += 1;
                Ok(Some(Close::Bracket))
            }
            Some(_) => Err(JsonError::Invalid(self.pos)),
        }
    }

    fn enter(&mut self) -> Result<(), JsonError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(JsonError::Invalid(self.pos));
        }
        self.pos += 1;
        self.skip_ws();
        Ok(())
    }

    fn object(&mut self) -> Result<Value, JsonError> {
        self.enter()?;
        let mut map = Map::new();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(Value::Object(map));
        }
        if self.peek().is_none() {
            return Err(JsonError::Truncated);
        }
        loop {
            let key = match self.peek() {
                Some(q @ (b'"' | b'\'')) => self.string(q)?,
                Some(b) if b.is_ascii_alphabetic() || b == b'_' => self.bare_key(),
                None => return Err(JsonError::Truncated),
                Some(_) => return Err(JsonError::Invalid(self.pos)),
            };
            self.skip_ws();
            match self.peek() {
                Some(b':') => self.pos += 1,
                None => return Err(JsonError::Truncated),
                Some(_) => return Err(JsonError::Invalid(self.pos)),
            }
            self.skip_ws();
            let value = self.value()?;
            map.insert(key, value);
            match self.after_item(b'}')? {
                Some(_) => break,
                None => continue,
            }
        }
        self.depth -= 1;
        Ok(Value::Object(map))
    }

    fn array(&mut self) -> Result<Value, JsonError> {
        self.enter()?;
        let mut items = Vec::new();
        if self.peek() == Some(b']') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(Value::Array(items));
        }
        if self.peek().is_none() {
            return Err(JsonError::Truncated);
        }
        loop {
            items.push(self.value()?);
            match self.after_item(b']')? {
                Some(_) => break,
                None => continue,
            }
        }
        self.depth -= 1;
        Ok(Value::Array(items))
    }

    fn bare_key(&mut self) -> String {
        let start = self.pos;
        while let Some(b) = self.peek() {
            if b.is_ascii_alphanumeric() || b == b'_' || b == b'-' {
                self.pos += 1;
            } else {
                break;
            }
        }
        self.text[start..self.pos].to_string()
    }

    fn string(&mut self, quote: u8) -> Result<String, JsonError> {
        self.pos += 1;
        let mut out = String::new();
        loop {
            let rest = &self.text[self.pos..];
            let Some(offset) = rest.find([quote as char, '\\']) else {
                return Err(JsonError::Truncated);
            };
            out.push_str(&rest[..offset]);
            self.pos += offset;
            if self.bytes[self.pos] == quote {
                self.pos += 1;
                return Ok(out);
            }
            // An escape.
            let Some(&escaped) = self.bytes.get(self.pos + 1) else {
                return Err(JsonError::Truncated);
            };
            self.pos += 2;
            match escaped {
                b'n' => out.push('\n'),
                b't' => out.push('\t'),
                b'r' => out.push('\r'),
                b'b' => out.push('\u{8}'),
                b'f' => out.push('\u{c}'),
                b'0' => out.push('\0'),
                b'u' => out.push(self.unicode_escape()?),
                other if other.is_ascii() => out.push(other as char),
                _ => {
                    // A backslash before a multi-byte character: keep both.
                    self.pos -= 1;
                    out.push('\\');
                }
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let Some(hex) = self.text.get(self.pos..self.pos + 4) else {
            return Err(JsonError::Truncated);
        };
        let code = u32::from_str_radix(hex, 16).map_err(|_| JsonError::Invalid(self.pos))?;
        self.pos += 4;
        Ok(code)
    }

    fn unicode_escape(&mut self) -> Result<char, JsonError> {
        let first = self.hex4()?;
        if (0xD800..0xDC00).contains(&first) && self.text[self.pos..].starts_with("\\u") {
            self.pos += 2;
            let second = self.hex4()?;
            let code = 0x10000 + ((first - 0xD800) << 10) + (second.wrapping_sub(0xDC00) & 0x3FF);
            return Ok(char::from_u32(code).unwrap_or('\u{FFFD}'));
        }
        Ok(char::from_u32(first).unwrap_or('\u{FFFD}'))
    }

    fn number(&mut self) -> Result<Value, JsonError> {
        let start = self.pos;
        while let Some(b) = self.peek() {
            if b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'_') {
                self.pos += 1;
            } else {
                break;
            }
        }
        if self.pos == self.bytes.len() && self.depth > 0 {
            // Inside a container, a number at the very end may go on: it is cut off.
            return Err(JsonError::Truncated);
        }
        let text: String = self.text[start..self.pos]
            .chars()
            .filter(|c| *c != '_')
            .collect();
        let text = text.trim_start_matches('+');
        if let Ok(int) = text.parse::<i64>() {
            return Ok(Value::Number(int.into()));
        }
        // Above i64::MAX (ids, hashes) a u64 is still exact; f64 would round it.
        if let Ok(int) = text.parse::<u64>() {
            return Ok(Value::Number(int.into()));
        }
        text.parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map(Value::Number)
            .ok_or(JsonError::Invalid(start))
    }

    fn word(&mut self) -> Result<Value, JsonError> {
        let start = self.pos;
        while let Some(b) = self.peek() {
            if b.is_ascii_alphanumeric() || b == b'_' {
                self.pos += 1;
            } else {
                break;
            }
        }
        let word = &self.text[start..self.pos];
        let value = match word {
            "true" | "True" => Value::Bool(true),
            "false" | "False" => Value::Bool(false),
            "null" | "None" => Value::Null,
            _ if self.pos == self.bytes.len()
                && self.depth > 0
                && ["true", "True", "false", "False", "null", "None"]
                    .iter()
                    .any(|w| w.starts_with(word)) =>
            {
                return Err(JsonError::Truncated);
            }
            _ => return Err(JsonError::Invalid(start)),
        };
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strict_json_reads_as_json() {
        let text =
            r#"{"a": [1, 2.5, -3e2, true, false, null], "b": {"c": "d\n\u00e9\ud83d\ude00"}}"#;
        assert_eq!(
            parse(text),
            Ok(json!({"a": [1, 2.5, -300.0, true, false, null], "b": {"c": "d\né😀"}}))
        );
    }

    #[test]
    fn python_dicts_trailing_commas_and_bare_keys_are_accepted() {
        assert_eq!(
            parse("{'name': 'f', 'arguments': {'x': True, 'y': None, 'z': [1, 2,],},}"),
            Ok(json!({"name": "f", "arguments": {"x": true, "y": null, "z": [1, 2]}}))
        );
        assert_eq!(parse("{name: \"f\"}"), Ok(json!({"name": "f"})));
        assert_eq!(parse("{'s': 'it\\'s'}"), Ok(json!({"s": "it's"})));
    }

    #[test]
    fn missing_closing_brackets_at_the_end_are_added() {
        assert_eq!(
            parse(r#"{"name": "f", "arguments": {"x": 1}"#),
            Ok(json!({"name": "f", "arguments": {"x": 1}}))
        );
        assert_eq!(parse(r#"[{"a": "b"}"#), Ok(json!([{"a": "b"}])));
    }

    #[test]
    fn values_cut_off_are_truncated_not_guessed() {
        for cut in [
            r#"{"a": "unfinished"#,
            r#"{"a": 12"#,
            r#"{"a": "#,
            r#"{"a""#,
            r#"{"a": 1,"#,
            r#"{"a": tr"#,
            "{",
            "[",
        ] {
            assert_eq!(parse(cut), Err(JsonError::Truncated), "{cut}");
        }
    }

    #[test]
    fn garbage_is_invalid_not_a_panic() {
        for bad in ["{]", "{\"a\" 1}", "@", "{\"a\": nope}", "[1 2]"] {
            assert!(matches!(parse(bad), Err(JsonError::Invalid(_))), "{bad}");
        }
        let deep = "[".repeat(10_000);
        assert!(parse(&deep).is_err());
    }

    #[test]
    fn read_value_stops_after_one_value() {
        let (value, end) = read_value(r#"  {"a": "}"} and more"#).unwrap_or((Value::Null, 0));
        assert_eq!(value, json!({"a": "}"}));
        assert_eq!(&r#"  {"a": "}"} and more"#[end..], " and more");
    }
}
