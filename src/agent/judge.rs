//! The policy's verdict on a whole call, which may do several things (a read of several files).

use serde_json::Value;

use super::outcome::subject_of;
use crate::policy::{Assessment, Policy, Verdict};
use crate::protocol::Action;
use crate::tool::{Tool, ToolContext};

/// The policy's verdict on everything the call would do: with several actions (a read of
/// several files) the strictest verdict wins, its reasons merged, and the action shown to a
/// person is the first one that earned it.
pub(crate) fn strictest(
    tool: &dyn Tool,
    arguments: &Value,
    ctx: &ToolContext,
    policy: &Policy,
) -> (Action, Assessment) {
    let mut judged: Vec<(Action, Assessment)> = tool
        .actions(arguments, ctx)
        .into_iter()
        .map(|action| {
            let assessment = policy.decide(&action);
            (action, assessment)
        })
        .collect();
    if judged.len() == 1 {
        return judged.remove(0);
    }
    let strictest = judged
        .iter()
        .map(|(_, a)| a.verdict)
        .max()
        .unwrap_or(Verdict::Deny);
    let mut reasons: Vec<String> = Vec::new();
    for (_, assessment) in judged.iter().filter(|(_, a)| a.verdict == strictest) {
        for reason in &assessment.reasons {
            if !reasons.contains(reason) {
                reasons.push(reason.clone());
            }
        }
    }
    let untrusted = judged.iter().find_map(|(_, a)| a.untrusted.clone());
    let Some(index) = judged.iter().position(|(_, a)| a.verdict == strictest) else {
        // No action at all: nothing to vouch for.
        let denied = Assessment {
            verdict: Verdict::Deny,
            reasons: vec!["the call names nothing to act on".into()],
            commands: Vec::new(),
            untrusted: None,
            fetch: Default::default(),
            prints_environment: false,
        };
        return (tool.action(arguments, ctx), denied);
    };
    let asking: Vec<String> = judged
        .iter()
        .filter(|(_, a)| a.verdict == strictest)
        .map(|(action, _)| subject_of(action))
        .collect();
    let (mut action, mut assessment) = judged.swap_remove(index);
    assessment.reasons = reasons;
    assessment.untrusted = untrusted;
    if let (Action::Read { resolved, .. }, true) = (&mut action, asking.len() > 1) {
        // The person is asked about every path that needs it, and an "always" answer
        // remembers exactly this set: a JSON list, which no single path can spell.
        *resolved = serde_json::to_string(&asking).unwrap_or_default().into();
    }
    (action, assessment)
}
