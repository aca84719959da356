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
mod core_props;
#[cfg(test)]
mod core_tests;
#[cfg(test)]
mod review_tests;
#[cfg(test)]
mod test_kit;
#[cfg(test)]
mod turn_tests;

use std::time::Instant;

pub use answer::OutputSchema;
pub use approval::{DecidedBy, Gate, GateAnswer, NobodyAsker};
pub use driver::StopSignal;
pub use end::{Stop, TurnEnd};
pub use mode::ToolMode;
pub use prompt::instructions;
pub use record::Recorder;
pub use sandbox::Sandbox;
pub use turn::{LimitHit, Limits};

use crate::policy::Policy;
use crate::protocol::ToolChoice;
use crate::provider::Provider;
use crate::tool::{Registry, ToolContext};

pub struct Agent<'a> {
    pub provider: &'a dyn Provider,
    pub registry: &'a Registry,
    pub ctx: &'a ToolContext,
    pub policy: &'a Policy,
    pub gate: Gate,
    pub sandbox: Sandbox,
    pub limits: Limits,
    pub tool_choice: ToolChoice,
    pub stream: bool,
    /// How tools are called; kept across turns (a switch to prompt-based calling lasts).
    pub mode: ToolMode,
    /// Whether the system prompt names the tools (the widget's instructions do without).
    pub name_tools: bool,
    /// The schema the final answer must match (`--output-schema`).
    pub output: Option<OutputSchema>,
}

pub fn millis(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}
