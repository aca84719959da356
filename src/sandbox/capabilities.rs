//! What the sandbox enforces on this kernel, as the launcher's probe reports it, and the short
//! lines `--show-config` and `--check-command` say about it.

use serde::{Deserialize, Serialize};

use super::{Plan, SandboxMode};

/// What the sandbox enforces on this kernel (the launcher's probe). Every field must be there:
/// a report that lacks one is not read at all (and nothing is taken as enforced).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Capabilities {
    /// Landlock ABI version (0: none).
    pub(crate) landlock_abi: u8,
    /// Writes and reads are confined.
    pub(crate) filesystem: bool,
    /// A command without network opens no IP, packet or raw socket: seccomp on any kernel,
    /// and Landlock's TCP rules too where the kernel has them.
    pub(crate) network: bool,
    /// Landlock's own TCP connect and bind rules hold too (ABI 4, kernel 6.7+).
    pub(crate) landlock_network: bool,
    /// Abstract UNIX sockets and signals outside the sandbox are closed (Landlock ABI 6).
    pub(crate) scoped: bool,
    /// Commands run in their own session, without a controlling terminal.
    pub(crate) session: bool,
    /// Every process of a call is in one PID namespace that dies with it (else a subreaper).
    pub(crate) pid_namespace: bool,
    /// Everything outside the writable paths is on read-only mounts (metadata too: chmod,
    /// touch -d), in a private mount namespace.
    pub(crate) read_only_mounts: bool,
    /// The socket filter holds: no new UNIX sockets (daemons outside are out of reach through
    /// their socket files), and no IP sockets without network.
    pub(crate) unix_sockets_closed: bool,
    /// /proc lists only the call's processes.
    pub(crate) own_proc: bool,
    /// No capability is left, even as root, and no_new_privs is set.
    pub(crate) unprivileged: bool,
    pub(crate) max_processes: Option<u64>,
    pub(crate) max_file_size: Option<u64>,
}

impl Capabilities {
    /// Short lines for `--show-config` and `--check-command`: what is enforced and what is not.
    pub(crate) fn lines(&self, plan: &Plan) -> Vec<String> {
        if plan.mode == SandboxMode::Off {
            return vec!["off: allowed commands run without a sandbox".into()];
        }
        if !self.filesystem {
            return vec![
                "not available: this kernel has no Landlock, so allowed commands run without a \
                 sandbox"
                    .into(),
            ];
        }
        let mut lines = self.confinement(plan);
        lines.extend(self.isolation());
        lines
    }

    /// What a command may write, read and reach over the network, and with what privileges.
    fn confinement(&self, plan: &Plan) -> Vec<String> {
        let mut lines = vec![format!("Landlock ABI {}", self.landlock_abi)];
        let writes = match (&plan.project, plan.mode) {
            (_, SandboxMode::ReadOnly) => "writes: none (read-only)".to_string(),
            (Ok(project), _) => format!("writes: {} and temp", project.display()),
            (Err(why), _) => format!("writes: temp only ({why}: no writable project)"),
        };
        lines.push(writes);
        lines.push(format!(
            "reads: everything but secrets ({} locations hidden) and terminals",
            plan.secrets().len()
        ));
        lines.push(match (self.network, self.landlock_network) {
            (true, true) => "network: closed (seccomp and Landlock), except package managers' \
                             fetches (cargo, npm, pip, go)"
                .into(),
            (true, false) => "network: closed (seccomp), except package managers' fetches \
                              (cargo, npm, pip, go)"
                .into(),
            (false, _) => "network: NOT enforced: commands that could use it ask".into(),
        });
        lines.push(if self.unprivileged {
            "privileges: none (no capability, even as root; no_new_privs)".into()
        } else {
            "privileges: NOT dropped".into()
        });
        lines
    }

    /// How a call is kept from the machine's daemons, terminal and processes, and its limits.
    fn isolation(&self) -> Vec<String> {
        let mut lines = Vec::new();
        lines.push(match (self.scoped, self.unix_sockets_closed) {
            (true, true) => "daemons: no UNIX sockets (seccomp), signals outside closed".into(),
            (true, false) => "daemons: abstract UNIX sockets and signals outside closed; socket \
                              files NOT (no seccomp here): known clients ask"
                .into(),
            (false, true) => "daemons: no UNIX sockets (seccomp); signals NOT scoped".into(),
            (false, false) => "daemons: NOT scoped (Landlock ABI < 6, no seccomp)".into(),
        });
        lines.push(format!(
            "terminal: {}",
            if self.session {
                "own session, no controlling terminal, /dev/tty and ptys closed"
            } else {
                "NOT detached"
            }
        ));
        lines.push(format!(
            "leftovers: {}",
            if self.pid_namespace {
                "a PID namespace per call, killed when it ends"
            } else {
                "a subreaper kills what a call leaves (no PID namespace here)"
            }
        ));
        lines.push(format!(
            "metadata: {}",
            if self.read_only_mounts {
                "chmod, chown and timestamps outside the writable paths refused (read-only mounts)"
            } else {
                "NOT protected (no mount namespace here): chmod and touch -d reach outside"
            }
        ));
        if self.own_proc {
            lines.push("processes: a call sees only its own (/proc of its PID namespace)".into());
        }
        let processes = self
            .max_processes
            .map_or("processes unbounded here".to_string(), |n| {
                format!("{n} processes")
            });
        let size = self
            .max_file_size
            .map_or("file size unbounded".to_string(), |n| {
                format!("files up to {} MiB", n >> 20)
            });
        lines.push(format!("limits: {processes}, {size}"));
        lines
    }
}
