//! Property tests of the stream readers on arbitrary bytes: the SSE decoder, the NDJSON line
//! splitter and the per-chunk handlers of the OpenAI and Ollama streams never panic, and how the
//! network cuts the bytes never changes what is read.

use proptest::prelude::*;
use serde_json::Value;

use super::ollama::{split_lines, take_line};
use super::openai::StreamState;
use super::sse::SseDecoder;
use super::{Completion, ProviderEvent};

/// Bytes that look like a stream often enough to reach the parsers' inner paths.
fn stream_bytes() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        3 => prop::collection::vec(any::<u8>(), 0..16),
        2 => prop::sample::select(vec![
            "data: ", "data:", "\n", "\r\n", "\n\n", ": keep-alive\n", "event: x\n", "[DONE]",
            "{\"choices\":[{\"delta\":{\"content\":\"h\u{e9}\"}}]}",
            "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\"\"}}]}}]}",
            "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":99999999999,\"function\":{\"arguments\":1}}]},\"finish_reason\":\"stop\"}]}",
            "{\"message\":{\"content\":\"x\",\"tool_calls\":[{\"function\":{\"name\":\"f\",\"arguments\":\"{\"}}]},\"done\":false}",
            "{\"done\":true,\"prompt_eval_count\":-1,\"eval_count\":1e300}",
            "{\"error\":{\"message\":\"boom\"}}", "{\"usage\":{\"prompt_tokens\":\"x\"}}",
            "\u{1F980}", "\u{ff}",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
    ];
    prop::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
}

/// `bytes` cut at `cuts` (offsets taken modulo the length).
fn chunks(bytes: &[u8], cuts: &[usize]) -> Vec<Vec<u8>> {
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    points.push(bytes.len());
    points.sort_unstable();
    let mut from = 0;
    points
        .into_iter()
        .map(|to| {
            let piece = bytes[from..to].to_vec();
            from = to;
            piece
        })
        .collect()
}

fn sse_events(pieces: &[Vec<u8>]) -> Vec<String> {
    let mut decoder = SseDecoder::default();
    let mut events: Vec<String> = pieces.iter().flat_map(|p| decoder.feed(p)).collect();
    events.extend(decoder.finish());
    events
}

proptest! {
    // 256 cases by default; `PROPTEST_CASES=20000` (read by the default config) for a long run.
    #![proptest_config(ProptestConfig::default())]

    #[test]
    fn sse_events_do_not_depend_on_how_the_bytes_arrive(
        bytes in stream_bytes(),
        cuts in prop::collection::vec(any::<usize>(), 0..16),
    ) {
        let whole = sse_events(std::slice::from_ref(&bytes));
        prop_assert_eq!(sse_events(&chunks(&bytes, &cuts)), whole);
    }

    #[test]
    fn ndjson_lines_do_not_depend_on_how_the_bytes_arrive(
        bytes in stream_bytes(),
        cuts in prop::collection::vec(any::<usize>(), 0..16),
    ) {
        let mut pending = Vec::new();
        let mut lines = Vec::new();
        let pieces = chunks(&bytes, &cuts);
        let last = pieces.len().saturating_sub(1);
        for (i, piece) in pieces.into_iter().enumerate() {
            pending.extend_from_slice(&piece);
            lines.extend(split_lines(&mut pending, i == last));
        }
        prop_assert_eq!(lines.concat(), bytes);
        let whole = lines.len().saturating_sub(1);
        prop_assert!(lines.iter().take(whole).all(|l| l.ends_with(b"\n")));
    }

    #[test]
    fn stream_chunks_of_any_shape_never_panic(bytes in stream_bytes()) {
        let mut sink = |_: ProviderEvent<'_>| {};
        let mut state = StreamState::default();
        let mut ollama = Completion::default();
        let mut started = false;
        for data in sse_events(std::slice::from_ref(&bytes)) {
            let _ = state.take(&data, "u", &mut sink);
            let _ = take_line(&data, "u", &mut ollama, &mut sink, &mut started);
        }
        let completion = state.finish();
        prop_assert!(completion.tool_calls.iter().all(|c| !c.arguments.is_null()));
    }

    #[test]
    fn any_json_value_as_a_chunk_never_panics(value in json_value()) {
        let data = value.to_string();
        let mut sink = |_: ProviderEvent<'_>| {};
        let mut state = StreamState::default();
        let _ = state.take(&data, "u", &mut sink);
        let _ = state.finish();
        let _ = take_line(&data, "u", &mut Completion::default(), &mut sink, &mut false);
    }
}

/// JSON values shaped like provider chunks, with wrong types and extreme numbers mixed in.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        Just(Value::from(u64::MAX)),
        "[a-z\u{e9}{}\"]{0,6}".prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        let keys = prop::sample::select(vec![
            "choices",
            "delta",
            "content",
            "tool_calls",
            "index",
            "id",
            "function",
            "name",
            "arguments",
            "finish_reason",
            "usage",
            "prompt_tokens",
            "completion_tokens",
            "message",
            "done",
            "error",
            "eval_count",
            "prompt_eval_count",
            "role",
        ]);
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::vec((keys, inner), 0..5).prop_map(|pairs| {
                Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
            }),
        ]
    })
}
