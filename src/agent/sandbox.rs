//! The sandbox of allowed commands as the loop sees it: whether this kernel can contain a
//! command, the launcher prefix that does, and what it cannot do, said once per session.

use crate::config::FetchNeeds;
use crate::protocol::Event;
use crate::sandbox::{Capabilities, Launch, Plan, SandboxMode};

use super::machine::Containment;

/// The sandbox of allowed commands, checked against the kernel on first use.
pub(crate) struct Sandbox {
    plan: Plan,
}

impl Sandbox {
    pub(crate) fn new(plan: Plan) -> Self {
        Sandbox { plan }
    }

    /// What this kernel enforces; the first time in a session, says what it cannot.
    fn capabilities(&self, emit: &mut dyn FnMut(&Event)) -> &Capabilities {
        let (capabilities, first) = self.plan.capabilities();
        if first {
            for message in limits_of(&self.plan, capabilities) {
                emit(&Event::Notice { message });
            }
        }
        capabilities
    }

    /// The launcher prefix for an allowed command (`None`: run it directly).
    pub(crate) fn prefix(
        &self,
        fetch: &FetchNeeds,
        emit: &mut dyn FnMut(&Event),
    ) -> Option<Launch> {
        if self.plan.mode == SandboxMode::Off || !self.capabilities(emit).filesystem {
            return None;
        }
        self.plan.prefix(fetch)
    }

    /// After a contained call: what its launcher left behind is removed, a git repository it
    /// made is moved aside, and a secret saved over while it ran is seen. Says what was done,
    /// for the model and the user.
    pub(crate) fn after_call(&self) -> AfterCall {
        self.plan.sweep();
        AfterCall {
            withheld: self.plan.exposure(),
            note: self.quarantined(),
        }
    }

    fn quarantined(&self) -> Option<String> {
        let done = self.plan.quarantine();
        let mut notes = Vec::new();
        if !done.moved.is_empty() {
            let moved: Vec<String> = (done.moved.iter())
                .map(|(from, to)| format!("{} (now {})", from.display(), to.display()))
                .collect();
            notes.push(format!(
                "the command made a git repository (or made a directory one to git), or a file \
                 git's hooks, filters or includes would read or run; moved aside because git \
                 would later run what it says, outside the sandbox: {}",
                moved.join(", ")
            ));
        }
        if !done.stuck.is_empty() {
            let stuck: Vec<String> = done.stuck.iter().map(|p| p.display().to_string()).collect();
            notes.push(format!(
                "WARNING: the command made a git repository (or a file git would read or run) \
                 ai could not move aside; do not run git there before checking its config and \
                 hooks: {}",
                stuck.join(", ")
            ));
        }
        if !done.complete {
            notes.push(
                "WARNING: the project now holds too many directories to check for git \
                 repositories a command made; later commands ask"
                    .into(),
            );
        }
        (!notes.is_empty()).then(|| notes.join("; "))
    }

    /// After a command ran outside the sandbox (approved, or the sandbox is off): the git state
    /// it made is the user's.
    pub(crate) fn after_unconfined(&self) {
        self.plan.trust_git_state();
    }

    /// Why an allowed command must ask instead: the kernel cannot contain it (no Landlock), or
    /// cannot keep it off the network. `--sandbox off` is the user's own choice to run unasked.
    pub(crate) fn must_ask(&self, emit: &mut dyn FnMut(&Event)) -> Option<String> {
        if self.plan.mode == SandboxMode::Off {
            return None;
        }
        let capabilities = self.capabilities(emit);
        if !capabilities.filesystem {
            return Some(
                "this kernel has no Landlock, so nothing would contain the command (--sandbox off \
                 runs such commands unasked)"
                    .into(),
            );
        }
        (!capabilities.network).then(|| {
            "this kernel cannot keep sandboxed commands off the network (neither seccomp nor Landlock ABI 4)".into()
        })
    }

    /// Whether an allowed command can run contained, with the prefix that contains it.
    pub(crate) fn containment(
        &self,
        fetch: &FetchNeeds,
        emit: &mut dyn FnMut(&Event),
    ) -> (Containment, Option<Launch>) {
        if self.plan.mode == SandboxMode::Off {
            return (Containment::Off, None);
        }
        if let Some(why) = self.plan.unverifiable() {
            return (Containment::Unavailable(why), None);
        }
        let network = self.capabilities(emit).network;
        match (self.must_ask(emit), self.prefix(fetch, emit)) {
            (Some(reason), Some(prefix)) if !network => {
                (Containment::Partial(reason), Some(prefix))
            }
            (Some(reason), _) => (Containment::Unavailable(reason), None),
            (None, Some(prefix)) => (Containment::Ready, Some(prefix)),
            // The sandbox could not be prepared for this command: nothing contains it.
            (None, None) => (
                Containment::Unavailable("the sandbox could not be prepared for it".into()),
                None,
            ),
        }
    }
}

/// What a contained call left to say.
pub(crate) struct AfterCall {
    /// Why its output must not reach the model: a secret was saved over while it ran.
    pub(crate) withheld: Option<String>,
    /// What was done after it (a repository it made, moved aside).
    pub(crate) note: Option<String>,
}

/// What the sandbox cannot do here, said once per session.
fn limits_of(plan: &Plan, capabilities: &Capabilities) -> Vec<String> {
    let mut notes = Vec::new();
    if plan.mode == SandboxMode::Off {
        return notes;
    }
    notes.extend(plan.notices.iter().map(|n| format!("sandbox: {n}")));
    if !capabilities.filesystem {
        notes.push(
            "Landlock is not available in this kernel: commands ai knows to be safe ask too \
             (--sandbox off runs them unasked)"
                .into(),
        );
        return notes;
    }
    if let (SandboxMode::Workspace, Err(why)) = (plan.mode, &plan.project) {
        notes.push(format!(
            "sandbox: {why}: no writable project, commands run without asking may write only temp"
        ));
    }
    if !capabilities.network {
        notes.push(
            "sandbox: this kernel cannot close the network to commands (neither seccomp nor Landlock ABI 4); \
             commands ask instead"
                .into(),
        );
    }
    notes
}
