//! One turn as every front end runs it (one-shot and the REPL alike): Ctrl-C listened for, the
//! front end and the record chosen, the audit log fed, and the loop driven until it ends, is
//! interrupted or finds stdout closed.

use std::sync::Arc;

use crate::agent::{Agent, Recorder, Stop, TurnEnd};
use crate::audit::AuditLog;
use crate::config::Settings;
use crate::protocol::{Event, Message};
use crate::ui::{Frontend, frontend_for, value_frontend_for};

/// What every turn of a session runs with, beside the agent: Ctrl-C, the audit log, and how
/// the settings say to show a turn.
pub(crate) struct Session<'s> {
    settings: &'s Settings,
    /// Ctrl-C listened for before the session was set up (a one-shot run, so a press while the
    /// endpoint is chosen ends it cleanly): the first turn uses it; later ones listen afresh.
    interrupt: Option<Interrupt>,
    audit: Option<AuditLog>,
}

/// A turn that ended: how, what it recorded, and the front end that showed it (which shows the
/// run's result too).
pub(crate) struct Turned {
    pub(crate) ended: Ended,
    pub(crate) recorder: Recorder,
    pub(crate) frontend: Box<dyn Frontend>,
}

impl<'s> Session<'s> {
    pub(crate) fn new(
        settings: &'s Settings,
        interrupt: Option<Interrupt>,
        audit: Option<AuditLog>,
    ) -> Self {
        Session {
            settings,
            interrupt,
            audit,
        }
    }

    /// One turn of `agent` on `messages` (which end with the user's message): announced, then
    /// the loop driven with the front end, the record and the audit log as its sinks. An answer
    /// that must match `--output-schema` is shown as the JSON value it is.
    pub(crate) async fn turn(
        &mut self,
        agent: &mut Agent<'_>,
        messages: &mut Vec<Message>,
    ) -> Turned {
        let mut interrupt = self.interrupt.take().unwrap_or_else(Interrupt::listen);
        let shown = self.settings;
        let (mut frontend, mut recorder) = if agent.output.is_some() {
            let frontend = value_frontend_for(shown.output, shown.quiet, shown.color);
            (frontend, Recorder::structured())
        } else {
            let frontend = frontend_for(shown.output, shown.quiet, shown.color);
            (frontend, Recorder::default())
        };
        let mut sinks = Sinks {
            recorder: &mut recorder,
            audit: self.audit.as_mut(),
            frontend: frontend.as_mut(),
        };
        sinks.emit(&Event::RunStarted {
            provider: agent.provider.name().to_string(),
            model: agent.provider.model().to_string(),
            tool_format: agent.mode.name().into(),
        });
        let ended = drive_turn(agent, messages, &mut sinks, &mut interrupt).await;
        Turned {
            ended,
            recorder,
            frontend,
        }
    }
}

/// Where a turn's events go.
struct Sinks<'a> {
    recorder: &'a mut Recorder,
    audit: Option<&'a mut AuditLog>,
    frontend: &'a mut dyn Frontend,
}

impl Sinks<'_> {
    fn emit(&mut self, event: &Event) {
        self.recorder.observe(event);
        if let Some(audit) = self.audit.as_mut() {
            audit.observe(event);
        }
        self.frontend.handle(event);
    }
}

/// How a turn ended.
pub(crate) enum Ended {
    Turn(TurnEnd),
    Interrupted,
    PipeClosed,
}

/// Ctrl-C, listened for from before anything is drawn: a press in the first instant must end
/// the run through the same clean-up (spinner cleared, cursor shown) rather than kill the
/// process with the spinner half drawn.
pub(crate) struct Interrupt(Option<tokio::signal::unix::Signal>);

impl Interrupt {
    /// Starts listening (inside the runtime).
    pub(crate) fn listen() -> Self {
        Interrupt(tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()).ok())
    }

    pub(crate) async fn pressed(&mut self) {
        match &mut self.0 {
            Some(signal) => {
                signal.recv().await;
            }
            None => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
}

/// Runs one turn; Ctrl-C or a closed stdout end it early (the running command's future is
/// dropped, which kills its process group, and the agent leaves the conversation valid).
async fn drive_turn(
    agent: &mut Agent<'_>,
    messages: &mut Vec<Message>,
    sinks: &mut Sinks<'_>,
    interrupt: &mut Interrupt,
) -> Ended {
    let pipe_closed = Arc::new(tokio::sync::Notify::new());
    let closed = Arc::clone(&pipe_closed);
    let mut emit = |event: &Event| {
        sinks.emit(event);
        if sinks.frontend.broken() {
            closed.notify_one();
        }
    };
    let stop = std::pin::pin!(async {
        tokio::select! {
            () = interrupt.pressed() => Stop::Interrupted,
            () = pipe_closed.notified() => Stop::PipeClosed,
        }
    });
    let end = agent.run_turn(messages, &mut emit, stop).await;
    match end.stopped {
        Some(Stop::Interrupted) => Ended::Interrupted,
        Some(Stop::PipeClosed) => Ended::PipeClosed,
        None => Ended::Turn(end),
    }
}
