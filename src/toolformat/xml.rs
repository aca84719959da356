//! The XML-ish calls of Qwen3-Coder and Qwen3.5 (`<function=N><parameter=K>v</parameter>
//! </function>`, also `<function name="N">`, or a JSON body), read strictly: a parameter whose
//! end cannot be told for sure is a diagnostic, never a value that swallowed its neighbours.
//! Values are raw text typed by the tool's schema.

use serde_json::Map;

use super::ParsedCall;
use super::region::{self, CUT_OFF, Item};
use super::schema;
use crate::protocol::ToolSpec;

const PARAM: &str = "<parameter=";
const PARAM_END: &str = "</parameter>";
const END: &str = "</function>";
/// Tags that can never be part of a parameter's value.
const STRUCTURE: &[&str] = &[PARAM, END, "<function=", "<tool_call>", "</tool_call>"];

/// Whether `text` (after whitespace) opens an XML function call.
pub(crate) fn opens(text: &str) -> bool {
    let text = text.trim_start();
    text.starts_with("<function=") || text.starts_with("<function name=")
}

/// One call at the start of `text` (after whitespace): its items and the bytes used. `None`
/// when what follows `<function` is not a call.
pub(crate) fn function(text: &str, tools: &[ToolSpec]) -> Option<(Vec<Item>, usize)> {
    let lead = text.len() - text.trim_start().len();
    let (name, body_at) = match opener(&text[lead..]) {
        Opener::Call(name, used) => (name, lead + used),
        Opener::CutOff => return Some((vec![Item::Call(Err(CUT_OFF.into()))], text.len())),
        Opener::NotACall => return None,
    };
    let body = &text[body_at..];
    let body_lead = body.len() - body.trim_start().len();
    if body[body_lead..].starts_with('{') {
        let (items, used) = region::named_args(&name, &body[body_lead..]);
        let after = body_lead + used;
        return Some((items, body_at + after + close_len(&body[after..])));
    }
    let (item, used) = parameters(&name, body, tools);
    Some((vec![Item::Call(item)], body_at + used))
}

enum Opener {
    Call(String, usize),
    CutOff,
    NotACall,
}

/// `<function=N>` or `<function name="N">`: the name and the bytes up to the body.
fn opener(text: &str) -> Opener {
    let after = match text.strip_prefix("<function=") {
        Some(after) => after,
        None => match text.strip_prefix("<function name=") {
            Some(after) => after,
            None => return Opener::NotACall,
        },
    };
    let Some(close) = after.find('>') else {
        let plausible = after
            .chars()
            .all(|c| is_name_char(c) || c == '"' || c == '\'');
        return if plausible {
            Opener::CutOff
        } else {
            Opener::NotACall
        };
    };
    let name = after[..close].trim().trim_matches(['"', '\'']);
    if name.is_empty() || !name.chars().all(is_name_char) {
        return Opener::NotACall;
    }
    Opener::Call(name.to_string(), text.len() - after.len() + close + 1)
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':')
}

/// Bytes of an optional `</function>` (after whitespace) at the start of `rest`.
fn close_len(rest: &str) -> usize {
    let lead = rest.len() - rest.trim_start().len();
    if rest[lead..].starts_with(END) {
        lead + END.len()
    } else {
        0
    }
}

/// The `<parameter=K>v</parameter>` list of a call and the bytes used, up to and including
/// `</function>` when it is there.
fn parameters(name: &str, body: &str, tools: &[ToolSpec]) -> (Result<ParsedCall, String>, usize) {
    let mut arguments = Map::new();
    let mut pos = 0;
    loop {
        pos += body[pos..].len() - body[pos..].trim_start().len();
        let rest = &body[pos..];
        if rest.starts_with(END) {
            pos += END.len();
            break;
        }
        // `</function>` missing at the very end (or cut inside it): nothing is ambiguous.
        if rest.is_empty() || END.starts_with(rest) {
            pos = body.len();
            break;
        }
        if !rest.starts_with(PARAM) {
            let inside = body[pos..]
                .find(END)
                .filter(|end| !STRUCTURE[2..].iter().any(|t| rest[..*end].contains(t)));
            match inside {
                // Text inside the call that is not a parameter: what was meant is unclear.
                Some(end) => {
                    let problem = format!(
                        "`{name}`: expected <parameter=NAME>value</parameter>, found {}",
                        region::short(rest)
                    );
                    return (Err(problem), pos + end + END.len());
                }
                // `</function>` left out, and the reply goes on: the call ended here.
                None => break,
            }
        }
        match parameter(name, rest, tools) {
            Ok((key, value, used)) => {
                arguments.insert(key, value);
                pos += used;
            }
            Err((problem, cut)) => {
                let skip = if cut {
                    body.len()
                } else {
                    body.find(END).map_or(body.len(), |end| end + END.len())
                };
                return (Err(problem), skip);
            }
        }
    }
    let call = ParsedCall {
        name: name.to_string(),
        arguments: serde_json::Value::Object(arguments),
        id: None,
    };
    (Ok(call), pos)
}

type Parameter = (String, serde_json::Value, usize);

/// One `<parameter=K>v</parameter>` at the start of `text`. `Err((problem, cut_off))`.
fn parameter(name: &str, text: &str, tools: &[ToolSpec]) -> Result<Parameter, (String, bool)> {
    let key_at = PARAM.len();
    let Some(key_len) = text[key_at..].find('>') else {
        return Err((CUT_OFF.into(), true));
    };
    let key = text[key_at..key_at + key_len]
        .trim()
        .trim_matches(['"', '\'']);
    if key.is_empty() || !key.chars().all(is_name_char) {
        return Err((
            format!(
                "`{name}`: a parameter name is malformed: {}",
                region::short(text)
            ),
            false,
        ));
    }
    let value_at = key_at + key_len + 1;
    let value = &text[value_at..];
    let close = value.find(PARAM_END);
    let structure = STRUCTURE
        .iter()
        .filter_map(|t| value.find(t).map(|at| (at, *t)))
        .min();
    let end = match (close, structure) {
        (Some(close), None) => close,
        (Some(close), Some((at, _))) if close < at => close,
        (None, None) => return Err((CUT_OFF.into(), true)),
        (_, Some(_)) => {
            let problem = format!(
                "`{name}`: the value of `{key}` has no </parameter>, so where it ends is unclear; \
                 write <parameter={key}>value</parameter>"
            );
            return Err((problem, false));
        }
    };
    let raw = &value[..end];
    let raw = raw.strip_prefix('\n').unwrap_or(raw);
    let raw = raw.strip_suffix('\n').unwrap_or(raw);
    let typed = schema::from_text(raw, schema::property(tools, name, key));
    Ok((key.to_string(), typed, value_at + end + PARAM_END.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn tools() -> Vec<ToolSpec> {
        vec![ToolSpec {
            name: "weather".into(),
            description: String::new(),
            parameters: json!({"type": "object", "properties": {
                "city": {"type": "string"}, "state": {"type": "string"},
                "zip": {"type": "string"}, "days": {"type": "integer"}}}),
        }]
    }

    type Found = Vec<Result<(String, Value), String>>;

    fn parse(text: &str) -> (Found, usize) {
        let (items, used) = function(text, &tools()).unwrap_or_default();
        let calls = items
            .into_iter()
            .filter_map(|i| match i {
                Item::Call(call) => Some(call.map(|c| (c.name, c.arguments))),
                Item::Content(_) => None,
            })
            .collect();
        (calls, used)
    }

    #[test]
    fn well_formed_calls_are_typed_by_the_schema() {
        let spellings = [
            "<function=weather>\n<parameter=zip>\n77004\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>",
            "<function=weather><parameter=zip>77004</parameter><parameter=days>3</parameter></function>",
            "<function name=\"weather\">\n<parameter=zip>77004</parameter>\n<parameter=days>3</parameter>\n</function>",
            "<function=weather>{\"zip\": \"77004\", \"days\": 3}</function>",
            // `</function>` left out at the end, or cut inside it.
            "<function=weather>\n<parameter=zip>\n77004\n</parameter>\n<parameter=days>\n3\n</parameter>\n",
            "<function=weather>\n<parameter=zip>\n77004\n</parameter>\n<parameter=days>\n3\n</parameter>\n</func",
        ];
        for text in spellings {
            let (calls, _) = parse(text);
            assert_eq!(
                calls,
                vec![Ok(("weather".into(), json!({"zip": "77004", "days": 3})))],
                "{text}"
            );
        }
    }

    #[test]
    fn a_value_whose_end_is_unclear_is_a_diagnostic_not_a_value() {
        let damaged = [
            // The case: the value would swallow the next parameter.
            "<function=weather>\n<parameter=city>Dallas<parameter=state>TX</parameter>\n</function>",
            "<function=weather>\n<parameter=city>\nDallas <parameter=state>\nTX\n</parameter>\n</function>",
            // Even on lines of their own: whether the newlines belong to the value is unclear.
            "<function=weather>\n<parameter=zip>\n77004\n<parameter=days>\n3\n</parameter>\n</function>",
            "<function=weather>\n<parameter=zip>\n77004\n</parameter>\n<parameter=days>\n3\n</function>",
            // Cut off inside a value or a tag.
            "<function=weather>\n<parameter=city>\nDal",
            "<function=weather>\n<parameter=city>\nDallas\n</param",
            "<function=weather>\n<parameter=ci",
            // Not parameters at all.
            "<function=weather>\ncity: Dallas\n</function>",
        ];
        for text in damaged {
            let (calls, _) = parse(text);
            assert!(calls.len() == 1 && calls[0].is_err(), "{text}: {calls:?}");
        }
        assert!(function("<function=>x</function>", &[]).is_none());
        assert!(function("<function=a b>x</function>", &[]).is_none());
    }
}
