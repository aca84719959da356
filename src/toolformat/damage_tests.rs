//! The property of issue 22: a well-formed call rendered in any family's own spelling parses back
//! to exactly that call, and after one damaging edit (a closing tag or bracket dropped, the text
//! cut off inside a value, or a quoted value cut short with the rest kept) parses to that same call or to a diagnostic, never to another call.
//! 20,000 cases by default; `SWEBASH_DAMAGE_CASES` sets another count.

use std::ops::Range;

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::{Family, format_for, parse};
use crate::protocol::ToolSpec;

const NAMES: [&str; 2] = ["weather", "lookup"];

fn tools() -> Vec<ToolSpec> {
    let schema = json!({"type": "object", "properties": {
        "city": {"type": "string"}, "zip": {"type": "string"}, "days": {"type": "integer"},
        "flag": {"type": "boolean"}, "tags": {"type": "array", "items": {"type": "string"}}}});
    NAMES
        .iter()
        .map(|name| ToolSpec {
            name: (*name).into(),
            description: String::new(),
            parameters: schema.clone(),
        })
        .collect()
}

/// Rendered text with the places a damaging edit may hit.
#[derive(Default)]
struct Out {
    text: String,
    closers: Vec<Range<usize>>,
    values: Vec<Range<usize>>,
    /// Values between quotes (not XML's raw text).
    quoted: Vec<Range<usize>>,
}

impl Out {
    fn lit(&mut self, text: &str) -> &mut Self {
        self.text.push_str(text);
        self
    }
    fn closer(&mut self, text: &str) -> &mut Self {
        let start = self.text.len();
        self.text.push_str(text);
        self.closers.push(start..self.text.len());
        self
    }
    fn value(&mut self, text: &str) -> &mut Self {
        let start = self.text.len();
        self.text.push_str(text);
        self.values.push(start..self.text.len());
        self
    }
}

/// How a family spells a value: JSON, Python literals, Gemma's `<|"|>` strings.
#[derive(Clone, Copy, PartialEq)]
enum Spelling {
    Json,
    Python,
    Gemma,
    FunctionGemma,
}

fn write_value(out: &mut Out, value: &Value, spelling: Spelling) {
    match value {
        Value::Array(items) => {
            out.lit("[");
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.lit(", ");
                }
                write_value(out, item, spelling);
            }
            out.closer("]");
        }
        Value::String(text) => {
            let start = out.text.len();
            match spelling {
                Spelling::Gemma => out.value(&format!("<|\"|>{text}<|\"|>")),
                Spelling::FunctionGemma => out.value(&format!("<escape>{text}<escape>")),
                _ => out.value(&value.to_string()),
            };
            out.quoted.push(start..out.text.len());
        }
        Value::Bool(b) if spelling == Spelling::Python => {
            out.value(if *b { "True" } else { "False" });
        }
        other => {
            out.value(&other.to_string());
        }
    }
}

/// `{"k": v, ...}` (JSON) or `{k:v,...}` (Gemma).
fn write_object(out: &mut Out, arguments: &Map<String, Value>, spelling: Spelling) {
    out.lit("{");
    for (n, (key, value)) in arguments.iter().enumerate() {
        if n > 0 {
            out.lit(", ");
        }
        match spelling {
            Spelling::Gemma | Spelling::FunctionGemma => out.lit(&format!("{key}:")),
            _ => out.lit(&format!("\"{key}\": ")),
        };
        write_value(out, value, spelling);
    }
    out.closer("}");
}

/// `"name": N, "<key>": {...}` inside a JSON object.
fn write_json_call(out: &mut Out, name: &str, key: &str, arguments: &Map<String, Value>) {
    out.lit(&format!("{{\"name\": \"{name}\", \"{key}\": "));
    write_object(out, arguments, Spelling::Json);
    out.closer("}");
}

fn write_pythonic(out: &mut Out, name: &str, arguments: &Map<String, Value>) {
    out.lit(&format!("[{name}("));
    for (n, (key, value)) in arguments.iter().enumerate() {
        if n > 0 {
            out.lit(", ");
        }
        out.lit(&format!("{key}="));
        write_value(out, value, Spelling::Python);
    }
    out.closer(")").closer("]");
}

fn write_xml(out: &mut Out, name: &str, arguments: &Map<String, Value>) {
    out.lit(&format!("<function={name}>\n"));
    for (key, value) in arguments {
        out.lit(&format!("<parameter={key}>\n"));
        match value {
            Value::String(text) => out.value(text),
            other => out.value(&other.to_string()),
        };
        out.lit("\n").closer("</parameter>").lit("\n");
    }
    out.closer("</function>");
}

/// The call in `family`'s spelling; `variant` picks among a family's spellings.
fn render(family: Family, variant: usize, name: &str, arguments: &Map<String, Value>) -> Out {
    let mut out = Out::default();
    let o = &mut out;
    match family {
        Family::Generic => {
            o.lit(&format!("<TOOL_CALL>{{\"tool\": \"{name}\", \"args\": "));
            write_object(o, arguments, Spelling::Json);
            o.closer("}").closer("</TOOL_CALL>");
        }
        Family::Hermes | Family::Granite => tool_call_family(o, family, variant, name, arguments),
        Family::Qwen => qwen(o, variant, name, arguments),
        Family::Llama3 => llama3(o, variant, name, arguments),
        Family::Mistral if variant.is_multiple_of(2) => {
            o.lit("[TOOL_CALLS] [");
            write_json_call(o, name, "arguments", arguments);
            o.closer("]");
        }
        Family::Mistral => {
            o.lit(&format!("[TOOL_CALLS]{name}"));
            write_object(o, arguments, Spelling::Json);
        }
        Family::Json => {
            o.lit(["", "Calling it now:\n", "Sure. "][variant % 3]);
            write_json_call(o, name, "arguments", arguments);
        }
        Family::Gemma if variant.is_multiple_of(2) => {
            o.lit(&format!("<|tool_call>call:{name}"));
            write_object(o, arguments, Spelling::Gemma);
            o.closer("<tool_call|>");
        }
        Family::Gemma => {
            o.lit(&format!("<start_function_call>call:{name}"));
            write_object(o, arguments, Spelling::FunctionGemma);
            o.closer("<end_function_call>");
        }
        Family::Lfm2 if variant.is_multiple_of(2) => {
            o.lit("<|tool_call_start|>");
            write_pythonic(o, name, arguments);
            o.closer("<|tool_call_end|>");
        }
        Family::Lfm2 => {
            o.lit("<|tool_call_start|>[");
            write_json_call(o, name, "arguments", arguments);
            o.closer("]").closer("<|tool_call_end|>");
        }
    }
    out
}

fn tool_call_family(
    o: &mut Out,
    family: Family,
    variant: usize,
    name: &str,
    arguments: &Map<String, Value>,
) {
    match variant % 3 {
        0 => {
            o.lit("<tool_call>\n");
            write_json_call(o, name, "arguments", arguments);
            o.lit("\n").closer("</tool_call>");
        }
        1 if family == Family::Granite => {
            o.lit("<|tool_call|>[");
            write_json_call(o, name, "arguments", arguments);
            o.closer("]");
        }
        1 => {
            o.lit(&format!("<function={name}>"));
            write_object(o, arguments, Spelling::Json);
            o.closer("</function>");
        }
        _ => {
            o.lit("Let me check.\n```json\n");
            write_json_call(o, name, "arguments", arguments);
            o.lit("\n").closer("```");
        }
    }
}

fn qwen(o: &mut Out, variant: usize, name: &str, arguments: &Map<String, Value>) {
    match variant % 3 {
        0 => {
            o.lit("<tool_call>\n");
            write_json_call(o, name, "arguments", arguments);
            o.lit("\n").closer("</tool_call>");
        }
        1 => {
            o.lit("<tool_call>\n");
            write_xml(o, name, arguments);
            o.lit("\n").closer("</tool_call>");
        }
        _ => {
            o.lit("I will look.\n\n");
            write_xml(o, name, arguments);
        }
    }
}

fn llama3(o: &mut Out, variant: usize, name: &str, arguments: &Map<String, Value>) {
    match variant % 3 {
        0 => {
            o.lit("<|python_tag|>");
            write_json_call(o, name, "parameters", arguments);
        }
        1 => write_pythonic(o, name, arguments),
        _ => {
            o.lit("Here is the call: ");
            write_json_call(o, name, "parameters", arguments);
        }
    }
}

fn arguments() -> impl Strategy<Value = Map<String, Value>> {
    let text = "[a-zA-Z0-9 ,.:;'\"(){}\\[\\]/=_\\\\é-]{0,12}";
    (
        prop::option::of(text),
        prop::option::of("[0-9]{1,6}"),
        prop::option::of(any::<i32>()),
        prop::option::of(any::<bool>()),
        prop::option::of(prop::collection::vec("[a-z0-9 ]{0,6}", 0..3)),
    )
        .prop_map(|(city, zip, days, flag, tags)| {
            let mut map = Map::new();
            let mut put = |key: &str, value: Option<Value>| {
                if let Some(value) = value {
                    map.insert(key.into(), value);
                }
            };
            put("city", city.map(Value::from));
            put("zip", zip.map(Value::from));
            put("days", days.map(Value::from));
            put("flag", flag.map(Value::from));
            put("tags", tags.map(Value::from));
            map
        })
}

/// One damaging edit: `None` leaves the text whole.
#[derive(Debug, Clone)]
enum Damage {
    None,
    DropCloser(usize),
    CutInValue(usize, usize),
    /// The end of a quoted value cut away, closing quote included, the rest of the text kept.
    CutThroughQuote(usize, usize),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        1 => Just(Damage::None),
        3 => any::<usize>().prop_map(Damage::DropCloser),
        3 => (any::<usize>(), any::<usize>()).prop_map(|(v, at)| Damage::CutInValue(v, at)),
        3 => (any::<usize>(), any::<usize>()).prop_map(|(v, at)| Damage::CutThroughQuote(v, at)),
    ]
}

/// The damaged text, or `None` when the rendering has no place for this edit.
fn apply(out: &Out, damage: &Damage) -> Option<String> {
    match damage {
        Damage::None => Some(out.text.clone()),
        Damage::DropCloser(pick) => {
            let range = out.closers.get(pick % out.closers.len().max(1))?;
            Some(format!(
                "{}{}",
                &out.text[..range.start],
                &out.text[range.end..]
            ))
        }
        Damage::CutInValue(pick, at) => {
            let (_, cut) = cut_point(out, *pick, *at)?;
            Some(out.text[..cut].to_string())
        }
        Damage::CutThroughQuote(pick, at) => {
            let (range, cut) = cut_point(out, *pick, *at)?;
            out.quoted
                .contains(&range)
                .then(|| format!("{}{}", &out.text[..cut], &out.text[range.end..]))
        }
    }
}

/// A value and a cut strictly inside it: after its first char, before its end.
fn cut_point(out: &Out, pick: usize, at: usize) -> Option<(Range<usize>, usize)> {
    let range = out.values.get(pick % out.values.len().max(1))?;
    let cuts: Vec<usize> = out.text[range.clone()]
        .char_indices()
        .map(|(i, _)| range.start + i)
        .skip(1)
        .collect();
    let cut = *cuts.get(at % cuts.len().max(1))?;
    Some((range.clone(), cut))
}

fn cases() -> u32 {
    std::env::var("SWEBASH_DAMAGE_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20_000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn a_damaged_call_is_the_original_call_or_a_diagnostic_never_another_call(
        family in prop::sample::select(Family::ALL.to_vec()),
        variant in 0usize..3,
        name in prop::sample::select(NAMES.to_vec()),
        arguments in arguments(),
        damage in damage(),
    ) {
        let tools = tools();
        let format = format_for(family, &tools);
        let out = render(family, variant, name, &arguments);
        let whole = parse(format.as_ref(), &out.text);
        let original = Value::Object(arguments);
        let got: Vec<(String, Value)> =
            whole.calls.iter().map(|c| (c.name.clone(), c.arguments.clone())).collect();
        prop_assert_eq!(&got, &vec![(name.to_string(), original.clone())], "{}", out.text);
        prop_assert!(whole.diagnostics.is_empty(), "{}: {:?}", out.text, whole.diagnostics);
        let Some(damaged) = apply(&out, &damage) else {
            return Ok(());
        };
        let parsed = parse(format.as_ref(), &damaged);
        let got: Vec<(String, Value)> =
            parsed.calls.iter().map(|c| (c.name.clone(), c.arguments.clone())).collect();
        let same = got == vec![(name.to_string(), original.clone())];
        let refused = got.is_empty() && !parsed.diagnostics.is_empty();
        prop_assert!(
            same || refused,
            "[{}] {:?}\n damaged to {:?}\n gave {:?}, diagnostics {:?}",
            family.name(), out.text, damaged, got, parsed.diagnostics
        );
    }
}
