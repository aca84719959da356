//! The fixture corpus (tests/fixtures/toolformat/corpus.json: family, model text, the calls and
//! content it must give, how many diagnostics) and the table of issue 22's categories
//! (categories.json, the same shape plus a category) and replies recorded from real models
//! (recorded.json, each with its source): every case parsed whole, one character at
//! a time, and in random chunks, with the same result each way.

use serde::Deserialize;
use serde_json::Value;

use super::{Family, Parsed, StreamEvent, StreamParser, format_for, parse};
use crate::protocol::ToolSpec;

#[derive(Deserialize)]
struct ExpectedCall {
    name: String,
    arguments: Value,
}

#[derive(Deserialize)]
struct Case {
    #[serde(default)]
    category: String,
    family: String,
    text: String,
    calls: Vec<ExpectedCall>,
    content: String,
    diagnostics: usize,
}

fn corpus() -> Vec<Case> {
    let mut cases: Vec<Case> =
        serde_json::from_str(include_str!("../../tests/fixtures/toolformat/corpus.json"))
            .unwrap_or_default();
    cases.extend(categories());
    cases.extend(recorded());
    cases
}

/// Replies real small models wrote (each case names its recording).
fn recorded() -> Vec<Case> {
    serde_json::from_str(include_str!(
        "../../tests/fixtures/toolformat/recorded.json"
    ))
    .unwrap_or_default()
}

fn categories() -> Vec<Case> {
    serde_json::from_str(include_str!(
        "../../tests/fixtures/toolformat/categories.json"
    ))
    .unwrap_or_default()
}

fn tools() -> Vec<ToolSpec> {
    let schema = serde_json::json!({"type": "object", "properties": {
        "command": {"type": "string"}, "timeout_seconds": {"type": "integer"},
        "flag": {"type": "boolean"}, "opts": {"type": "object"}, "label": {"type": "string"}}});
    let weather = serde_json::json!({"type": "object", "properties": {
        "city": {"type": "string"}, "state": {"type": "string"}, "zip": {"type": "string"},
        "days": {"type": "integer"}, "units": {"type": ["string", "null"], "enum": ["c", "f", null]}}});
    let mut tools: Vec<ToolSpec> = ["run", "set"]
        .iter()
        .map(|name| ToolSpec {
            name: name.to_string(),
            description: String::new(),
            parameters: schema.clone(),
        })
        .collect();
    tools.push(ToolSpec {
        name: "weather".into(),
        description: String::new(),
        parameters: weather,
    });
    tools
}

fn check(case: &Case, parsed: &Parsed, how: &str) -> Option<String> {
    let want: Vec<(String, Value)> = case
        .calls
        .iter()
        .map(|c| (c.name.clone(), c.arguments.clone()))
        .collect();
    let got: Vec<(String, Value)> = parsed
        .calls
        .iter()
        .map(|c| (c.name.clone(), c.arguments.clone()))
        .collect();
    let ok = got == want
        && parsed.content.trim() == case.content
        && parsed.diagnostics.len() == case.diagnostics;
    (!ok).then(|| format!("[{}, {how}] {:?}\n  want calls {want:?} content {:?} diagnostics {}\n  got  calls {got:?} content {:?} diagnostics {:?}", case.family, case.text, case.content, case.diagnostics, parsed.content.trim(), parsed.diagnostics))
}

/// Feeds `text` cut at the given char boundaries; returns the shown text and the result.
fn stream(family: Family, text: &str, cuts: &[usize]) -> (String, Parsed) {
    let tools = tools();
    let format = format_for(family, &tools);
    let mut parser = StreamParser::new(format.as_ref());
    let mut shown = String::new();
    let mut take = |events: Vec<StreamEvent>| {
        for event in events {
            if let StreamEvent::Text(text) = event {
                shown.push_str(&text);
            }
        }
    };
    let mut last = 0;
    for &cut in cuts.iter().chain(std::iter::once(&text.len())) {
        if cut > last {
            take(parser.feed(&text[last..cut]));
            last = cut;
        }
    }
    let (events, parsed) = parser.finish();
    take(events);
    (shown, parsed)
}

fn boundaries(text: &str) -> Vec<usize> {
    text.char_indices().map(|(i, _)| i).skip(1).collect()
}

#[test]
fn the_corpus_has_enough_cases_for_every_family() {
    let cases = corpus();
    assert!(cases.len() >= 120, "{} cases", cases.len());
    for family in ["generic", "hermes", "qwen", "llama3", "mistral", "json"] {
        assert!(
            cases.iter().filter(|c| c.family == family).count() >= 8,
            "{family}"
        );
    }
}

#[test]
fn every_category_has_several_spellings() {
    let cases = categories();
    assert!(cases.len() >= 60, "{} cases", cases.len());
    for category in [
        "damaged",
        "schema",
        "after_prose",
        "bad_element",
        "wrappers",
        "junk",
        "clean",
        "gemma",
        "lfm2",
        "granite",
        "qwen_xml",
        "reasoning",
    ] {
        let count = cases.iter().filter(|c| c.category == category).count();
        assert!(count >= 3, "{category}: {count}");
    }
    for family in ["gemma", "lfm2", "granite"] {
        assert!(Family::parse(family).is_some(), "{family}");
    }
    assert!(recorded().len() >= 30, "{}", recorded().len());
}

#[test]
fn every_case_parses_whole() {
    let tools = tools();
    let cases = corpus();
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            let family = Family::parse(&case.family)?;
            check(
                case,
                &parse(format_for(family, &tools).as_ref(), &case.text),
                "whole",
            )
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn every_case_parses_the_same_fed_one_character_at_a_time() {
    let tools = tools();
    let mut failures = Vec::new();
    for case in &corpus() {
        let Some(family) = Family::parse(&case.family) else {
            continue;
        };
        let whole = parse(format_for(family, &tools).as_ref(), &case.text);
        let (shown, parsed) = stream(family, &case.text, &boundaries(&case.text));
        if parsed != whole {
            failures.push(format!(
                "[{}] {:?}: stream {parsed:?} != whole {whole:?}",
                case.family, case.text
            ));
        }
        // Known, documented exceptions: a reply that starts mid-reasoning (only a `</think>`
        // tells), and end-of-turn tokens, are shown before they can be recognised.
        let exception = (case.text.contains("</think>") && !case.text.contains("<think>"))
            || super::END_TOKENS.iter().any(|t| case.text.contains(t));
        if !whole.content.starts_with(&shown) && !exception {
            failures.push(format!(
                "[{}] {:?}: shown {shown:?} is not a prefix of the content {:?}",
                case.family, case.text, whole.content
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_case_parses_the_same_in_random_chunks() {
    let tools = tools();
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut failures = Vec::new();
    for case in &corpus() {
        let Some(family) = Family::parse(&case.family) else {
            continue;
        };
        let whole = parse(format_for(family, &tools).as_ref(), &case.text);
        let all = boundaries(&case.text);
        for _ in 0..20 {
            let cuts: Vec<usize> = all
                .iter()
                .copied()
                .filter(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed.is_multiple_of(5)
                })
                .collect();
            let (_, parsed) = stream(family, &case.text, &cuts);
            if parsed != whole {
                failures.push(format!("[{}] {:?} cuts {cuts:?}", case.family, case.text));
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

mod properties {
    use proptest::prelude::*;

    use super::super::{Family, StreamParser, format_for, parse};

    const FAMILIES: [Family; 9] = Family::ALL;

    /// Text made of the pieces parsers care about, so random input reaches the tricky paths.
    fn model_text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("<TOOL_CALL>".to_string()),
            Just("</TOOL_CALL>".to_string()),
            Just("<tool_call>".to_string()),
            Just("</tool_call>".to_string()),
            Just("[TOOL_CALLS]".to_string()),
            Just("<|python_tag|>".to_string()),
            Just("<think>".to_string()),
            Just("</think>".to_string()),
            Just("```".to_string()),
            Just("`".to_string()),
            Just("\n".to_string()),
            Just("<function=f>".to_string()),
            Just("<parameter=a>".to_string()),
            Just(r#"{"name": "f", "arguments": {"a": 1}}"#.to_string()),
            Just("{'tool': 'f', 'args': {".to_string()),
            Just("[f(a=1)".to_string()),
            "[{}\\[\\]\"'(),:;=a-z0-9 ]{0,8}",
            any::<String>(),
        ];
        prop::collection::vec(piece, 0..12).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::default())] // 256 cases, more with PROPTEST_CASES

        #[test]
        fn arbitrary_text_never_panics_and_streaming_matches_whole(text in model_text(), split in 0usize..64) {
            for family in FAMILIES {
                let format = format_for(family, &[]);
                let whole = parse(format.as_ref(), &text);
                let mut parser = StreamParser::new(format.as_ref());
                let mut last = 0;
                for (index, (at, _)) in text.char_indices().enumerate() {
                    if split > 0 && index % split == 0 && at > last {
                        parser.feed(&text[last..at]);
                        last = at;
                    }
                }
                parser.feed(&text[last..]);
                let (_, streamed) = parser.finish();
                prop_assert_eq!(streamed, whole);
            }
        }
    }

    /// JSON values made of what the lenient reader must round-trip exactly.
    fn json_value() -> impl Strategy<Value = serde_json::Value> {
        use serde_json::Value;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<String>().prop_map(Value::from),
        ];
        leaf.prop_recursive(6, 64, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::from),
                prop::collection::btree_map(any::<String>(), inner, 0..5)
                    .prop_map(|map| Value::Object(map.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::default())] // 256 cases, more with PROPTEST_CASES

        #[test]
        fn the_lenient_reader_never_panics_and_reads_strict_json_exactly(
            text in model_text(),
            value in json_value(),
        ) {
            let _ = crate::toolformat::lenient::parse(&text);
            if let Ok((_, end)) = crate::toolformat::lenient::read_value(&text) {
                prop_assert!(text.is_char_boundary(end));
            }
            let strict = value.to_string();
            prop_assert_eq!(crate::toolformat::lenient::parse(&strict), Ok(value.clone()));
            let pretty = serde_json::to_string_pretty(&value).unwrap();
            prop_assert_eq!(crate::toolformat::lenient::parse(&pretty), Ok(value));
        }

        #[test]
        fn deep_nesting_is_refused_not_a_stack_overflow(
            // Mostly shallow; sometimes far past any recursion limit and stack.
            depth in prop_oneof![3 => 1usize..300, 1 => 1_000usize..50_000],
            open in prop::sample::select(vec!["[", "{\"a\":", "['", "{a:["]),
        ) {
            let text = open.repeat(depth);
            let _ = crate::toolformat::lenient::parse(&text);
            for family in FAMILIES {
                let _ = parse(format_for(family, &[]).as_ref(), &format!("<tool_call>{text}"));
            }
        }
    }
}

/// A long marker-less call streamed in small pieces is not re-scanned from its start on every
/// piece (a 64 KB argument, as a file's content would be, in 4-byte pieces).
#[test]
fn a_long_bare_call_streams_in_linear_time() {
    let body = "x".repeat(64 * 1024);
    let text =
        format!("Writing it: {{\"name\": \"write\", \"arguments\": {{\"content\": \"{body}\"}}}}");
    for family in [Family::Json, Family::Llama3, Family::Hermes] {
        let format = format_for(family, &[]);
        let started = std::time::Instant::now();
        let mut parser = StreamParser::new(format.as_ref());
        let bytes = text.as_bytes();
        for chunk in bytes.chunks(4) {
            parser.feed(std::str::from_utf8(chunk).unwrap_or_default());
        }
        let (_, parsed) = parser.finish();
        let took = started.elapsed();
        assert_eq!(parsed.calls.len(), 1, "{}", family.name());
        assert!(took.as_secs_f64() < 1.0, "{}: {took:?}", family.name());
    }
}
