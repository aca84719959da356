//! The bookkeeping of one turn, free of I/O so its rules are unit-tested: how many model requests
//! and tool calls are left, and which calls were already answered with a result still true.

use std::collections::HashMap;

use crate::protocol::ToolCall;
use crate::tool::ToolOutcome;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    pub(crate) max_iterations: u32,
    pub(crate) max_tool_calls: u32,
}

/// Which limit ended a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LimitHit {
    Iterations(u32),
    ToolCalls(u32),
}

impl LimitHit {
    pub(crate) fn message(self) -> String {
        match self {
            LimitHit::Iterations(n) => format!(
                "stopped after {n} model requests without a final answer (SWEBASH_AI_TOOLS_MAX_ITER)"
            ),
            LimitHit::ToolCalls(n) => {
                format!("stopped after {n} tool calls in one turn (SWEBASH_AI_TOOLS_MAX_CALLS)")
            }
        }
    }
}

#[derive(Debug, Default)]
pub(crate) struct TurnState {
    pub(crate) iterations: u32,
    pub(crate) calls: u32,
    answered: HashMap<String, ToolOutcome>,
    /// Subjects of calls that needed approval when no one could give it: the turn ends.
    pub(crate) unapproved: Vec<String>,
    /// Where untrusted content came from, once the turn has taken some in.
    pub(crate) tainted: Option<String>,
}

impl TurnState {
    /// Counts a model request; `Err` when the turn may not make another.
    pub(crate) fn begin_request(&mut self, limits: Limits) -> Result<(), LimitHit> {
        if self.iterations >= limits.max_iterations {
            return Err(LimitHit::Iterations(self.iterations));
        }
        self.iterations += 1;
        Ok(())
    }

    /// Counts a tool call; `Err` when the turn may not make another.
    pub(crate) fn begin_call(&mut self, limits: Limits) -> Result<(), LimitHit> {
        if self.calls >= limits.max_tool_calls {
            return Err(LimitHit::ToolCalls(self.calls));
        }
        self.calls += 1;
        Ok(())
    }

    /// The outcome of an identical earlier read in this turn (same tool, same arguments) that
    /// nothing has made stale since.
    pub(crate) fn earlier(&self, call: &ToolCall) -> Option<&ToolOutcome> {
        self.answered.get(&call_key(call))
    }

    /// Keeps what a call did in mind: a read's result may answer the same read later; anything
    /// that could have changed the world (a command, an approved or external call) forgets every
    /// earlier result, so a model that fixed something sees the fix.
    pub(crate) fn remember(&mut self, call: &ToolCall, outcome: &ToolOutcome, effect: Effect) {
        match effect {
            Effect::Read => {
                self.answered.insert(call_key(call), outcome.clone());
            }
            Effect::Change => self.answered.clear(),
            Effect::Nothing => {}
        }
    }
}

/// What a finished call may have done, as far as replaying results goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    /// Read without approval (a file in the roots, a web search): replayable until a change.
    Read,
    /// Ran something that could change state: earlier results can no longer be trusted.
    Change,
    /// Did not run (invalid, denied): neither replayable nor a change.
    Nothing,
}

/// Object keys are sorted by serde_json's map, so equal arguments give equal text.
fn call_key(call: &ToolCall) -> String {
    format!("{}\u{0}{}", call.name, call.arguments)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LIMITS: Limits = Limits {
        max_iterations: 2,
        max_tool_calls: 3,
    };

    #[test]
    fn requests_stop_at_the_iteration_limit() {
        let mut turn = TurnState::default();
        assert_eq!(turn.begin_request(LIMITS), Ok(()));
        assert_eq!(turn.begin_request(LIMITS), Ok(()));
        assert_eq!(turn.begin_request(LIMITS), Err(LimitHit::Iterations(2)));
    }

    #[test]
    fn calls_stop_at_the_call_limit() {
        let mut turn = TurnState::default();
        for _ in 0..3 {
            assert_eq!(turn.begin_call(LIMITS), Ok(()));
        }
        assert_eq!(turn.begin_call(LIMITS), Err(LimitHit::ToolCalls(3)));
    }

    #[test]
    fn identical_calls_match_whatever_the_key_order() {
        let mut turn = TurnState::default();
        let first = ToolCall {
            id: "1".into(),
            name: "filesystem".into(),
            arguments: json!({"operation": "read", "path": "a"}),
        };
        turn.remember(&first, &ToolOutcome::ok(json!("A")), Effect::Read);
        let same: ToolCall = serde_json::from_str(
            r#"{"id":"2","name":"filesystem","arguments":{"path":"a","operation":"read"}}"#,
        )
        .unwrap_or(first.clone());
        assert!(turn.earlier(&same).is_some());
        let other = ToolCall {
            arguments: json!({"operation": "read", "path": "b"}),
            ..first
        };
        assert!(turn.earlier(&other).is_none());
    }

    fn call(name: &str, arguments: serde_json::Value) -> ToolCall {
        ToolCall {
            id: "1".into(),
            name: name.into(),
            arguments,
        }
    }

    #[test]
    fn a_command_is_never_replayed() {
        let mut turn = TurnState::default();
        let test = call("execute_command", json!({"command": "npm test"}));
        turn.remember(&test, &ToolOutcome::ok(json!("fail")), Effect::Change);
        assert!(turn.earlier(&test).is_none());
    }

    #[test]
    fn a_change_makes_earlier_reads_stale() {
        let mut turn = TurnState::default();
        let read = call("filesystem", json!({"operation": "read", "path": "a"}));
        turn.remember(&read, &ToolOutcome::ok(json!("A")), Effect::Read);
        assert!(turn.earlier(&read).is_some());
        let install = call("execute_command", json!({"command": "npm install"}));
        turn.remember(&install, &ToolOutcome::ok(json!("")), Effect::Change);
        assert!(turn.earlier(&read).is_none());
    }

    #[test]
    fn a_call_that_did_not_run_changes_nothing() {
        let mut turn = TurnState::default();
        let read = call("filesystem", json!({"operation": "read", "path": "a"}));
        turn.remember(&read, &ToolOutcome::ok(json!("A")), Effect::Read);
        let refused = call("execute_command", json!({"command": "rm x"}));
        turn.remember(&refused, &ToolOutcome::ok(json!("")), Effect::Nothing);
        assert!(turn.earlier(&read).is_some());
        assert!(turn.earlier(&refused).is_none());
    }
}
