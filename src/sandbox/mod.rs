//! The OS sandbox for commands the policy allows without asking: writes only to the project and
//! temp, secrets unreadable, no network but package managers' fetches, no terminal, nothing left
//! running after the call, bounded processes and file sizes. `ai` re-executes itself as a small
//! launcher (`ai __sandbox [OPTIONS] -- PROGRAM ARGS...`, see `launch`) that restricts itself and
//! then execs the program.

mod capabilities;
mod fetch;
mod git;
mod isolate;
mod launch;
mod mounts;
mod privileges;
mod request;
mod rules;
mod seccomp;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

pub use crate::config::SandboxMode;
use crate::config::{ForeignVars, Paths, project_root};
pub use capabilities::Capabilities;
pub use fetch::{Fetcher, fetchers, fetches};
use git::GitState;
pub use launch::launch;

/// The hidden first argument that turns `ai` into the launcher.
pub const LAUNCHER_ARG: &str = "__sandbox";

/// Largest file a sandboxed command may write (RLIMIT_FSIZE).
pub const MAX_FILE_SIZE: u64 = 1 << 30;
/// Most processes (threads count) a sandboxed call may have at once: a fork storm stops there,
/// a parallel build on a big machine does not.
pub const MAX_PROCESSES: u64 = 4096;

/// Secret locations under the home directory, hidden from sandboxed commands whole (the policy's
/// list names files; the sandbox hides their directories).
const HOME_SECRETS: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".kube",
    ".azure",
    ".docker",
    ".config/gh",
    ".config/gcloud",
    ".password-store",
    ".netrc",
    ".git-credentials",
    ".pgpass",
    ".pypirc",
    ".npmrc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
];

const SYSTEM_SECRETS: &[&str] = &[
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/etc/ssh",
];

/// Where a session's sandbox draws its lines, worked out once per session (clones share what
/// the kernel was found to enforce, so a REPL probes and says it once).
#[derive(Debug, Clone)]
pub struct Plan {
    pub mode: SandboxMode,
    /// The writable project, or why there is none.
    pub project: Result<PathBuf, String>,
    pub temp: Vec<PathBuf>,
    pub home: Option<PathBuf>,
    /// ai's own config, state, data and cache directories.
    pub own: Vec<PathBuf>,
    /// ai's config directory (hidden: it holds the key command).
    pub config: Option<PathBuf>,
    /// Each package manager's caches and lock files (where its variables put them).
    fetch_caches: Vec<(Fetcher, Vec<PathBuf>, Vec<PathBuf>)>,
    /// The project's git state as the run found it (updated only after runs a person approved).
    git: Arc<Mutex<GitState>>,
    probed: Arc<OnceLock<Capabilities>>,
}

impl Plan {
    /// The plan of a session in `cwd`: ai's own directories (`paths`) are kept, its config
    /// directory hidden; `vars` say where package managers keep their caches.
    pub fn new(mode: SandboxMode, cwd: &Path, paths: &Paths, vars: &ForeignVars) -> Plan {
        let mut temp = vec![paths.temp.clone()];
        for dir in ["/tmp", "/var/tmp"] {
            let dir = PathBuf::from(dir);
            if !temp.contains(&dir) && dir.is_dir() {
                temp.push(dir);
            }
        }
        let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
        let home = paths.home.as_deref().map(canonical);
        let lookup = |name: &str| vars.cache_dir(name).map(Path::to_path_buf);
        let fetch_caches = home.as_ref().map_or_else(Vec::new, |home| {
            Fetcher::ALL
                .iter()
                .map(|f| (*f, f.caches(home, &lookup), f.lock_files(home, &lookup)))
                .collect()
        });
        let project = project_root(&canonical(cwd), home.as_deref());
        let git = match (&project, mode) {
            (Ok(project), SandboxMode::Workspace) => GitState::of(project),
            _ => GitState::default(),
        };
        Plan {
            mode,
            project,
            temp: temp.iter().map(|p| canonical(p)).collect(),
            home,
            own: paths.own_dirs().iter().map(|p| canonical(p)).collect(),
            config: paths.config_dir.as_deref().map(canonical),
            fetch_caches,
            git: Arc::new(Mutex::new(git)),
            probed: Arc::default(),
        }
    }

    /// What the launcher is told for `command`; `None` when the sandbox is off.
    pub fn request(&self, command: &str) -> Option<request::Request> {
        if self.mode == SandboxMode::Off {
            return None;
        }
        let mut request = request::Request {
            max_file_size: Some(MAX_FILE_SIZE),
            max_processes: Some(MAX_PROCESSES),
            ..request::Request::default()
        };
        if self.mode == SandboxMode::Workspace {
            request.write.extend(self.project.iter().cloned());
            request.write.extend(self.temp.iter().cloned());
            if let Ok(git) = self.git.lock() {
                request.read_only.clone_from(&git.protected);
            } else {
                return None;
            }
        }
        request.keep.extend(self.own.iter().cloned());
        request.home.clone_from(&self.home);
        request.hide = self.secrets();
        if self.home.is_some() {
            request.net = fetches(command);
            for fetcher in fetchers(command) {
                let found = self.fetch_caches.iter().find(|(f, _, _)| *f == fetcher);
                if let (SandboxMode::Workspace, Some((_, caches, locks))) = (self.mode, found) {
                    request.caches.extend(caches.iter().cloned());
                    request.cache_files.extend(locks.iter().cloned());
                }
            }
        }
        Some(request)
    }

    /// Removes what launchers that have exited left behind: their private temp directories
    /// (`.ai-sandbox-PID`), which a launcher cannot remove itself because it made their parent
    /// read-only for the call. Called before and after each sandboxed call, so none piles up
    /// (each later call would bind-mount them all).
    pub fn sweep(&self) {
        let roots = self.temp.iter().chain(self.project.as_ref().ok());
        for root in roots {
            sweep_private_temps(root);
        }
    }

    /// After a call in the sandbox: a `.git` it made is moved aside (git would run what its
    /// config and hooks say, later, outside the sandbox). Returns (where it was, where it is).
    pub fn quarantine(&self) -> Vec<(PathBuf, PathBuf)> {
        let (Ok(project), Ok(git)) = (&self.project, self.git.lock()) else {
            return Vec::new();
        };
        git.quarantine(project)
    }

    /// After a run outside the sandbox that a person approved: whatever git state it made is
    /// the user's, and protected from now on.
    pub fn trust_git_state(&self) {
        if let (Ok(project), SandboxMode::Workspace, Ok(mut git)) =
            (&self.project, self.mode, self.git.lock())
        {
            *git = GitState::of(project);
        }
    }

    /// How to run a program for `command` under the sandbox.
    pub fn prefix(&self, command: &str) -> Option<Launch> {
        self.sweep();
        let request = self.request(command)?;
        let exe = std::env::current_exe().ok()?;
        let mut argv = vec![exe.into_os_string(), LAUNCHER_ARG.into()];
        // A path JSON cannot carry (not UTF-8) leaves the command uncontained: it asks.
        argv.extend(request.to_args().ok()?);
        argv.push("--".into());
        Some(Launch {
            argv,
            network: request.net,
        })
    }

    /// Paths no sandboxed command may read.
    pub fn secrets(&self) -> Vec<PathBuf> {
        let mut hide: Vec<PathBuf> = SYSTEM_SECRETS.iter().map(PathBuf::from).collect();
        if let Some(home) = &self.home {
            hide.extend(HOME_SECRETS.iter().map(|p| home.join(p)));
        }
        hide.extend(self.config.iter().cloned());
        hide
    }

    /// The same plan in `mode` (what was probed is shared only when the mode is the same).
    pub fn with_mode(&self, mode: SandboxMode) -> Plan {
        let mut plan = self.clone();
        if mode != self.mode {
            plan.mode = mode;
            plan.probed = Arc::default();
        }
        plan
    }

    /// What the sandbox enforces here, probed on first use; `true` with it the first time.
    pub fn capabilities(&self) -> (&Capabilities, bool) {
        let mut first = false;
        let capabilities = self.probed.get_or_init(|| {
            first = true;
            self.probe()
        });
        (capabilities, first)
    }

    /// Whether the sandbox can be used on this kernel, and what it enforces there.
    pub fn probe(&self) -> Capabilities {
        let Some(mut request) = self.request("") else {
            return Capabilities::default();
        };
        request.probe = true;
        let (Ok(exe), Ok(args)) = (std::env::current_exe(), request.to_args()) else {
            return Capabilities::default();
        };
        let output = std::process::Command::new(exe)
            .arg(LAUNCHER_ARG)
            .args(args)
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output();
        output
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| serde_json::from_slice(&o.stdout).ok())
            .unwrap_or_default()
    }
}

/// How a command runs in the sandbox: the argv prefix (the launcher and its request, then
/// `--`), and whether the sandbox leaves it the network (a package manager's fetch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    pub argv: Vec<OsString>,
    pub network: bool,
}

/// The name of a launcher's private temp directory in a writable root.
pub(crate) fn private_temp_name(pid: u32) -> String {
    format!("{PRIVATE_TEMP_PREFIX}{pid}")
}

const PRIVATE_TEMP_PREFIX: &str = ".ai-sandbox-";

/// Removes the private temp directories in `root` whose launcher is no longer running.
fn sweep_private_temps(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(PRIVATE_TEMP_PREFIX))
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let running = Path::new("/proc").join(pid.to_string()).exists();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if !running && is_dir {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn home_and_ai_dirs_are_kept_and_secrets_hidden() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = home.join("app");
        std::fs::create_dir_all(project.join(".git")).unwrap();
        let config = home.join(".config/swebash-ai");
        std::fs::create_dir_all(&config).unwrap();
        let paths = Paths {
            home: Some(home.clone()),
            config_dir: Some(config.clone()),
            temp: std::env::temp_dir(),
            ..Paths::default()
        };
        let plan = Plan::new(
            SandboxMode::Workspace,
            &project,
            &paths,
            &ForeignVars::default(),
        );
        assert_eq!(plan.own, [config.canonicalize().unwrap()]);
        let request = plan.request("ls").unwrap();
        assert!(request.write.contains(&project.canonicalize().unwrap()));
        assert_eq!(request.home, Some(home.canonicalize().unwrap()));
        assert!(request.hide.iter().any(|p| p.ends_with(".ssh")));
        assert!(!request.net);
        let cargo = plan.request("cargo build").unwrap();
        assert!(cargo.net);
        assert!(cargo.caches.iter().any(|p| p.ends_with(".cargo/registry")));
        let from_home = Plan::new(
            SandboxMode::Workspace,
            &home,
            &paths,
            &ForeignVars::default(),
        );
        assert!(from_home.project.is_err());
    }
}
