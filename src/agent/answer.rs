//! The final answer under `--output-schema`: one JSON value that matches the schema. What the
//! model is told, how its reply is read and checked, what it is told when the check fails (once),
//! and how the turn ends when it fails again. Which requests carry the schema the provider's own
//! way is decided here too. Pure: no I/O.

use serde_json::Value;

use super::end::TurnEnd;
use crate::error::{ExitCode, Report};
use crate::protocol::{ErrorKind, RunError, RunStatus};
use crate::schema::Schema;

/// The schema the final answer must match, and the file it came from (named in errors).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OutputSchema {
    pub(crate) schema: Schema,
    pub(crate) file: String,
}

impl OutputSchema {
    /// The sentence of the system prompt that asks for the answer's shape (servers that enforce
    /// a schema do not always show it to the model).
    pub(crate) fn instruction(&self) -> String {
        format!(
            "Your final answer must be one JSON value, and nothing else (no prose, no code fence), \
             that matches this JSON Schema: {}",
            self.schema.as_value()
        )
    }

    /// The answer in `text` as a JSON value that matches the schema, or what is wrong with it.
    /// `constrained`: the reply was constrained to `{"response": value}`.
    pub(crate) fn read(&self, text: &str, constrained: bool) -> Result<Value, Vec<String>> {
        let mut value = json_in(text).map_err(|why| vec![why])?;
        if constrained
            && let Value::Object(map) = &mut value
            && map.len() == 1
            && let Some(inner) = map.remove("response")
        {
            value = inner;
        }
        let errors = self.schema.validate(&value);
        if errors.is_empty() {
            Ok(value)
        } else {
            Err(errors)
        }
    }

    /// What the model is told when its answer does not match: the errors, and the schema again.
    pub(crate) fn retry_message(&self, errors: &[String]) -> String {
        format!(
            "Your answer does not match the required JSON Schema:\n- {}\nReply again with only \
             one JSON value that matches this schema: {}",
            errors.join("\n- "),
            self.schema.as_value()
        )
    }

    /// The notice shown while the model is asked again.
    pub(crate) fn retry_notice(&self, errors: &[String]) -> String {
        format!(
            "the answer does not match {}: {}; asking the model once more",
            self.file,
            errors.join("; ")
        )
    }

    /// The second answer did not match either: the run fails (exit 1) naming what failed.
    pub(crate) fn failed_end(&self, errors: &[String]) -> TurnEnd {
        let message = format!(
            "the model's answer does not match the output schema {} (after one retry): {}",
            self.file,
            errors.join("; ")
        );
        let report = Report::new(ExitCode::Runtime, message.clone()).with_hint(
            "try a more capable model (-m MODEL), a simpler schema, or say more in the prompt",
        );
        TurnEnd {
            status: RunStatus::Error,
            error: Some(RunError {
                kind: ErrorKind::Provider,
                message,
            }),
            report: Some(report),
            stopped: None,
        }
    }
}

/// How one request carries the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SchemaPlan {
    /// The request carries the schema by the provider's own mechanism.
    pub(crate) carry: bool,
    /// The request keeps the tools.
    pub(crate) tools: bool,
}

/// Whether a request carries the schema the provider's way, and keeps its tools. A server that
/// enforces a schema by a grammar (Ollama's `format`, a prompt-based format's text calls) cannot
/// call a tool under it, so while tools are on offer there the schema is only in the prompt, and
/// the retry after an invalid answer carries the schema instead of the tools. Constrained
/// prompt-based requests fold it into their own response format.
pub(crate) fn schema_plan(
    native: bool,
    constrained: bool,
    beside_tools: bool,
    has_tools: bool,
    retrying: bool,
) -> SchemaPlan {
    let (carry, tools) = if constrained {
        (false, true)
    } else if !has_tools || (native && beside_tools) {
        (true, true)
    } else if retrying {
        (true, false)
    } else {
        (false, true)
    };
    SchemaPlan { carry, tools }
}

/// The JSON value a reply holds: the whole text, else inside a code fence, else from the first
/// `{` or `[` to the last `}` or `]`; reasoning blocks are left out.
fn json_in(text: &str) -> Result<Value, String> {
    let text = without_reasoning(text);
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err("the answer is empty, not a JSON value".into());
    }
    let whole = serde_json::from_str::<Value>(trimmed);
    let Err(first_error) = whole else {
        return whole.map_err(|e| e.to_string());
    };
    let fenced = trimmed
        .split("```")
        .nth(1)
        .map(|block| block.trim_start_matches("json").trim());
    let spanned = trimmed
        .find(['{', '['])
        .zip(trimmed.rfind(['}', ']']))
        .filter(|(start, end)| start < end)
        .map(|(start, end)| &trimmed[start..=end]);
    [fenced, spanned]
        .into_iter()
        .flatten()
        .find_map(|candidate| serde_json::from_str(candidate).ok())
        .ok_or_else(|| format!("the answer is not JSON ({first_error})"))
}

fn without_reasoning(text: &str) -> String {
    let mut rest = text;
    let mut kept = String::new();
    while let Some(start) = rest.find("<think>") {
        kept.push_str(&rest[..start]);
        match rest[start..].find("</think>") {
            Some(end) => rest = &rest[start + end + "</think>".len()..],
            None => return kept,
        }
    }
    kept.push_str(rest);
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn output() -> OutputSchema {
        let schema = json!({"type": "object", "required": ["failing"],
            "properties": {"failing": {"type": "array", "items": {"type": "string"}}}});
        OutputSchema {
            schema: Schema::new(schema).unwrap(),
            file: "s.json".into(),
        }
    }

    #[test]
    fn answers_are_read_whole_fenced_or_after_reasoning() {
        let want = Ok(json!({"failing": ["a"]}));
        assert_eq!(output().read(r#"{"failing": ["a"]}"#, false), want);
        assert_eq!(
            output().read("Here:\n```json\n{\"failing\": [\"a\"]}\n```", false),
            want
        );
        assert_eq!(
            output().read("<think>{\"x\": 1}</think>{\"failing\": [\"a\"]}", false),
            want
        );
        assert_eq!(
            output().read(r#"{"response": {"failing": ["a"]}}"#, true),
            want
        );
    }

    #[test]
    fn wrong_answers_say_what_is_wrong() {
        assert_eq!(
            output().read(r#"{"failing": "a"}"#, false),
            Err(vec![
                "$.failing: expected array, got string \"a\"".to_string()
            ])
        );
        let not_json = output().read("All tests pass.", false);
        assert!(
            not_json
                .as_ref()
                .err()
                .is_some_and(|e| e[0].starts_with("the answer is not JSON")),
            "{not_json:?}"
        );
        assert!(output().read("  ", false).is_err());
    }

    #[test]
    fn grammar_servers_get_the_schema_on_the_retry_instead_of_the_tools() {
        let plan = |native, constrained, beside, tools, retrying| {
            let p = schema_plan(native, constrained, beside, tools, retrying);
            (p.carry, p.tools)
        };
        // OpenAI, Anthropic: always, beside the tools.
        assert_eq!(plan(true, false, true, true, false), (true, true));
        // Ollama, Gemini: only without tools, or on the retry, which drops them.
        assert_eq!(plan(true, false, false, true, false), (false, true));
        assert_eq!(plan(true, false, false, true, true), (true, false));
        assert_eq!(plan(true, false, false, false, false), (true, true));
        // Prompt-based text calls cannot live under a schema either.
        assert_eq!(plan(false, false, true, true, false), (false, true));
        // Constrained: folded into the response format.
        assert_eq!(plan(false, true, true, true, true), (false, true));
    }
}

/// The rule of one retry, on the pure core: a miss asks again once with the errors, a second miss
/// ends the turn, and only a match is shown.
#[cfg(test)]
mod core_tests {
    use serde_json::json;

    use super::OutputSchema;
    use crate::agent::test_kit::*;
    use crate::config::ToolFormat;
    use crate::protocol::{Event, Message, RunStatus};
    use crate::schema::Schema;

    fn with_schema() -> crate::agent::machine::Setup {
        let mut setup = setup(10, 10);
        setup.output = Some(OutputSchema {
            schema: Schema::new(json!({"type": "object", "required": ["n"]})).unwrap(),
            file: "s.json".into(),
        });
        setup
    }

    fn shown(turn: &Turn<'_>) -> Vec<String> {
        turn.events
            .iter()
            .filter_map(|e| match e {
                Event::MessageDelta { text } => Some(text.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_miss_is_asked_again_once_with_the_errors_and_a_match_is_shown() {
        let mut mode = mode(ToolFormat::Native);
        let mut turn = Turn::new(&mut mode, with_schema());
        turn.feed(crate::agent::machine::Input::Start);
        assert!(is_request(&turn.feed(answered("{}"))));
        let asked = turn.messages.last().cloned();
        assert!(
            matches!(&asked, Some(Message::User { content }) if content.contains("missing required property \"n\"")),
            "{asked:?}"
        );
        let end = end_of(turn.feed(answered("{\"n\": 1}")));
        assert_eq!(end.map(|e| e.status), Some(RunStatus::Ok));
        assert_eq!(shown(&turn), vec!["{\"n\":1}".to_string()]);
    }

    #[test]
    fn a_second_miss_ends_the_turn_naming_what_failed() {
        let mut mode = mode(ToolFormat::Native);
        let mut turn = Turn::new(&mut mode, with_schema());
        turn.feed(crate::agent::machine::Input::Start);
        turn.feed(answered("[]"));
        let end = end_of(turn.feed(answered("{}"))).expect("the turn ends");
        assert_eq!(end.status, RunStatus::Error);
        let message = end.error.map(|e| e.message).unwrap_or_default();
        assert!(
            message.contains("s.json") && message.contains("missing required property"),
            "{message}"
        );
        assert!(shown(&turn).is_empty(), "nothing invalid is shown");
    }
}
