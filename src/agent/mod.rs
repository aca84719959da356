//! The tool-calling loop: ask the model, run the calls it makes, feed the results back, until it
//! answers or a limit is reached. Its rules live in a pure state machine (`core`, `step`); the
//! async `driver` carries out what it decides. Everything it does is told through `Event`s.

mod answer;
mod approval;
mod core;
mod current;
mod driver;
mod end;
mod judge;
mod machine;
mod mode;
mod outcome;
mod prompt;
mod record;
mod sandbox;
mod step;
mod turn;

#[cfg(test)]
mod confinement_tests;
#[cfg(test)]
mod core_props;
#[cfg(test)]
mod core_tests;
#[cfg(test)]
mod test_kit;
#[cfg(test)]
mod turn_tests;

use std::time::Instant;

pub(crate) use answer::OutputSchema;
pub(crate) use approval::{Gate, NobodyAsker};
pub(crate) use end::{Stop, TurnEnd};
pub(crate) use mode::ToolMode;
pub(crate) use prompt::instructions;
pub(crate) use record::Recorder;
pub(crate) use sandbox::Sandbox;
pub(crate) use turn::Limits;

use crate::policy::Policy;
use crate::protocol::{ToolChoice, Untrusted};
use crate::provider::Provider;
use crate::tool::{Registry, ToolContext};

pub(crate) struct Agent<'a> {
    pub(crate) provider: &'a dyn Provider,
    pub(crate) registry: &'a Registry,
    pub(crate) ctx: &'a ToolContext,
    pub(crate) policy: &'a Policy,
    pub(crate) gate: Gate,
    pub(crate) sandbox: Sandbox,
    pub(crate) limits: Limits,
    pub(crate) tool_choice: ToolChoice,
    pub(crate) stream: bool,
    /// How tools are called; kept across turns (a switch to prompt-based calling lasts).
    pub(crate) mode: ToolMode,
    /// Whether the system prompt names the tools (the widget's instructions do without).
    pub(crate) name_tools: bool,
    /// The schema the final answer must match (`--output-schema`).
    pub(crate) output: Option<OutputSchema>,
    /// The messages of the conversation that carry untrusted text: while any is in the
    /// context, every turn is tainted (kept across REPL turns, saved for `--resume`).
    pub(crate) untrusted: Vec<Untrusted>,
}

pub(crate) fn millis(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}
