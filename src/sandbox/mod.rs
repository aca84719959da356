//! The OS sandbox for commands that run without a person's approval.
//!
//! # Threat model
//! Whatever runs in here is assumed to be an attacker's program: the policy's classifier only
//! decides what is convenient to run unasked, and any bypass of it (a spelling bash reads
//! differently, project code the model wrote, a dependency's build script) lands here. The
//! sandbox alone must then hold, as the user and as root:
//! - **Writes** reach only the project and temp (and a package manager's cache during a fetch
//!   that runs no project code: never while a build, a test or a setup.py runs; Go's build
//!   cache is the call's own, pip and uv use none). Every git directory and hooks directory in
//!   the project is read-only, and so is every project file git's own configuration includes
//!   or runs (`gitconfig`); a `.git` made during a call is moved aside after it, and a
//!   directory a call made into one git would take for a repository (`HEAD` with `objects` and
//!   `refs`) loses its `HEAD`: git would otherwise run their config and hooks later, outside
//!   any sandbox (`git`).
//! - **Nothing it writes widens a later call.** What is writable, readable and reachable is
//!   worked out once per run from the tree as it was (the project root, its git directories,
//!   the toolchains), never from files a sandboxed command can change; the launcher's request
//!   is built by `ai`, not read from the project.
//! - **Reads**: the home is hidden but for the project, the toolchains and what the user adds;
//!   ai's own directories, the system's and the home's secrets are hidden; the project's own
//!   secret files (`.env`, keys) are masked. One list of secrets, config's, shared with the
//!   policy.
//! - **Network**: closed by a seccomp filter on every kernel (no IP, raw or packet socket) and by
//!   Landlock where the kernel has network rules; open only for a package manager's dependency
//!   fetch, and with the caches writable only together with it: a fetch that runs no project
//!   code run first (`cargo fetch`, `npm install --ignore-scripts`, `go mod download`; the
//!   command then runs offline, under a second layer), or a command that runs none itself.
//!   pip's, uv's and poetry's lines keep the network (an accepted gap: their fetches build what
//!   they fetch) but get no cache. Any other line of cargo, npm or go runs offline. The fetch
//!   run first gets git's configuration pinned, npm's scripts off and go's toolchain local in
//!   its environment, whatever its arguments say. No UNIX sockets either, so daemons outside
//!   (docker, ssh-agent, tmux) are out of reach.
//! - **Privileges**: none, as root too (capability sets emptied, no_new_privs); no terminal (own
//!   session, no tty); no process outlives the call (a PID namespace, else a subreaper); limits
//!   on processes and file size.
//! - **Environment**: an allowlist; credential-looking variables never.
//! - **Nothing left behind**: no temp directory, mount or process survives a call.
//!
//! Leaving the sandbox takes a person at the terminal who is told the command runs unconfined,
//! or `--sandbox off`; flags and rules only approve running inside it.
//!
//! `ai` re-executes itself as a small launcher (`ai __sandbox REQUEST -- PROGRAM ARGS...`, see
//! `launch`) that restricts itself and then execs the program.

mod aliases;
mod capabilities;
mod direnv;
mod envrc;
mod exposure;
mod git;
mod git_modules;
mod gitconfig;
mod home_links;
mod isolate;
mod launch;
mod mounts;
mod privileges;
mod project_secrets;
mod request;
mod rules;
mod scrub;
mod seccomp;
mod shadowing;

mod sources;
mod temps;
mod tool_configs;
mod toolchains;
mod walk;

use launch::own_binary;
use project_secrets::secret_files;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

pub(crate) use crate::config::SandboxMode;
use crate::config::exposed;
use crate::config::{
    FetchNeeds, Fetcher, ForeignVars, Paths, holds_programs_on_path, home_secrets, project_root,
    reached_through_a_link, relocated_home_secrets, system_secrets,
};
pub(crate) use capabilities::Capabilities;
use git::{GitState, Quarantine};
pub use launch::launch;
use toolchains::{toolchain_dirs, toolchain_secrets};

/// The hidden first argument that turns `ai` into the launcher.
pub const LAUNCHER_ARG: &str = "__sandbox";

/// Largest file a sandboxed command may write (RLIMIT_FSIZE).
pub(crate) const MAX_FILE_SIZE: u64 = 1 << 30;
/// Most processes (threads count) a sandboxed call may have at once: a fork storm stops there,
/// a parallel build on a big machine does not.
pub(crate) const MAX_PROCESSES: u64 = 4096;

/// Where a session's sandbox draws its lines, worked out once per session (clones share what
/// the kernel was found to enforce, so a REPL probes and says it once).
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub(crate) mode: SandboxMode,
    /// The writable project, or why there is none.
    pub(crate) project: Result<PathBuf, String>,
    pub(crate) temp: Vec<PathBuf>,
    pub(crate) home: Option<PathBuf>,
    /// ai's own config, state, data and cache directories (hidden: other projects'
    /// conversations, the audit log, the key command).
    pub(crate) own: Vec<PathBuf>,
    /// The working directory commands run in.
    cwd: PathBuf,
    /// Directories of the home the user lets sandboxed commands read (`SWEBASH_AI_SANDBOX_READ`).
    extra_read: Vec<PathBuf>,
    /// Where the toolchains live (the variables that say so, and the roots of PATH's entries):
    /// readable even inside a hidden home.
    toolchains: Vec<PathBuf>,
    /// ai's config directory (hidden: it holds the key command).
    pub(crate) config: Option<PathBuf>,
    /// Each package manager's caches and lock files (where its variables put them).
    fetch_caches: Vec<(Fetcher, Vec<PathBuf>, Vec<PathBuf>)>,
    /// The project's git state and secret files as the run found them before its first
    /// sandboxed command (updated only after runs a person approved); `None` until then.
    tree: Arc<Mutex<Option<Tree>>>,
    probed: Arc<OnceLock<Capabilities>>,
    /// The session's own temp directories, removed when the last clone of the plan goes.
    sessions: Arc<temps::SessionTemps>,
    /// The masked secrets of the call under way, to see afterwards whether one was saved over.
    watch: Arc<Mutex<Option<exposure::Watch>>>,
    /// ai's state directory, where exposures are recorded for later runs.
    state_dir: Option<PathBuf>,
    /// What earlier runs recorded of exposed secrets in this project, said once.
    pub(crate) notices: Vec<String>,
    /// Where, besides the home's hidden directories, a link into the project would be run or
    /// read later: PATH's directories and the XDG config directory (which may lie elsewhere).
    link_places: Vec<PathBuf>,
}

impl Plan {
    /// The plan of a session in `cwd`: ai's own directories (`paths`) are kept, its config
    /// directory hidden; `vars` say where package managers keep their caches.
    pub(crate) fn new(mode: SandboxMode, cwd: &Path, paths: &Paths, vars: &ForeignVars) -> Plan {
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
        // ai's own directories are hidden, and only what exists can be hidden: one that does
        // not exist yet inside a writable tree (a home under temp, as in CI) is made now, so no
        // command can make it and plant a config.toml that the next run reads.
        for dir in paths.own_dirs() {
            let _ = std::fs::create_dir_all(dir);
        }
        let project = project_root(&canonical(cwd), home.as_deref()).and_then(|root| {
            let why = reached_through_a_link(&canonical(cwd), paths.logical_cwd.as_deref())
                .or_else(|| holds_programs_on_path(&root, vars.path.as_deref()));
            match why {
                Some(why) => Err(why),
                None => Ok(root),
            }
        });
        let toolchains = toolchain_dirs(home.as_deref(), project.as_ref().ok(), vars);
        let state_dir = paths.state_dir.as_deref().map(canonical);
        let mut link_places: Vec<PathBuf> =
            std::env::split_paths(vars.path.as_deref().unwrap_or_default()).collect();
        link_places.extend(
            paths
                .config_dir
                .as_deref()
                .and_then(Path::parent)
                .map(canonical),
        );
        link_places.retain(|p| p.is_absolute() && Some(p) != home.as_ref());

        let notices = match (&state_dir, &project) {
            (Some(state), Ok(project)) => exposed::load(state, project),
            _ => Vec::new(),
        };
        Plan {
            mode,
            project,
            temp: temp.iter().map(|p| canonical(p)).collect(),
            home,
            own: paths.own_dirs().iter().map(|p| canonical(p)).collect(),
            config: paths.config_dir.as_deref().map(canonical),
            fetch_caches,
            cwd: canonical(cwd),
            extra_read: Vec::new(),
            toolchains,
            tree: Arc::default(),
            probed: Arc::default(),
            sessions: Arc::default(),
            watch: Arc::default(),
            state_dir,
            notices,
            link_places,
        }
    }

    /// The same plan, letting sandboxed commands read these directories of the home too.
    pub(crate) fn reading(mut self, dirs: &[PathBuf]) -> Plan {
        self.extra_read = dirs.to_vec();
        self
    }

    /// What the launcher is told for a command that needs `fetch` of the package managers (the
    /// policy's reading of it); `None` when the sandbox is off.
    pub(crate) fn request(&self, fetch: &FetchNeeds) -> Option<request::Request> {
        if self.mode == SandboxMode::Off {
            return None;
        }
        let mut request = request::Request {
            max_file_size: Some(MAX_FILE_SIZE),
            max_processes: Some(MAX_PROCESSES),
            ..request::Request::default()
        };
        // What could not be checked is not vouched for: the command is not contained.
        let mut tree = self.tree.lock().ok()?;
        let tree = self.found(&mut tree);
        if let (Ok(project), SandboxMode::Workspace | SandboxMode::ReadOnly) =
            (&self.project, self.mode)
        {
            tree.refresh_secrets(project);
            tree.git.refresh_listings();
        }
        if !tree.complete() {
            return None;
        }
        if self.mode == SandboxMode::Workspace {
            // A project the home reaches into (dotfiles) is read-only whole.
            if tree.reached.is_none() {
                request.write.extend(self.project.iter().cloned());
            }
            request.read_only.clone_from(&tree.git.protected);
        }
        request.home.clone_from(&self.home);
        request.hide = self.secrets();
        request.read = self.readable();
        self.grant_temps(&mut request);
        match self.mode {
            SandboxMode::Workspace => request.mask.clone_from(&tree.secrets),
            _ => request.hide.extend(tree.secrets.iter().cloned()),
        }
        // The same files under other names (hard links a call made) are covered the same way.
        if let Ok(project) = &self.project {
            // Not all looked at: nothing is vouched for (the command is not contained).
            let (cover, keep) = aliases::other_names(project, &tree.secrets, &request.read_only)?;
            match self.mode {
                SandboxMode::Workspace => request.mask.extend(cover),
                _ => request.hide.extend(cover),
            }
            request.read_only.extend(keep);
        }
        request.scrub = scrub::git_configs(&tree.git_dirs);
        request.scrub.extend(tree.git.includes.iter().cloned());
        // The caches are writable only to what runs no project code (a fetch run first, a
        // command that runs none): a build, a test or a setup.py that could write them would
        // plant code that the next build of any project runs, outside the sandbox.
        // Project configuration can name programs a package manager runs while it fetches
        // (`build.rustc-wrapper`, a `rust-toolchain` path, `.npmrc`'s `git`): with any of it
        // present, no fetch gets the network, and the command runs offline (or is blocked and
        // a person decides).
        let configured = fetch.network && self.fetch_refused(&fetch.managers);
        if self.home.is_some() && fetch.network && !configured {
            request.net = true;
            request.prefetch.clone_from(&fetch.prefetch);
        }
        if request.net && fetch.caches {
            for fetcher in &fetch.managers {
                let found = self.fetch_caches.iter().find(|(f, _, _)| f == fetcher);
                if let (SandboxMode::Workspace, Some((_, caches, locks))) = (self.mode, found) {
                    request.caches.extend(caches.iter().cloned());
                    request.cache_files.extend(locks.iter().cloned());
                }
            }
        }
        Some(request)
    }

    /// Whether a fetch by these package managers must run without the network: Go's fetches
    /// whatever host a module path names (through the module proxy too), the project names a
    /// source other than the registry or holds a link a fetch could write through (`sources`),
    /// or configuration that can name a program to run.
    fn fetch_refused(&self, managers: &[Fetcher]) -> bool {
        if managers.contains(&Fetcher::Go) {
            return true;
        }
        let top = self.project.as_ref().ok().unwrap_or(&self.cwd);
        sources::refusal(top).is_some() || self.fetch_configured(managers)
    }

    /// Whether the working directory or a directory above it, up to the project's root, holds
    /// configuration of these package managers that can name a program to run.
    fn fetch_configured(&self, managers: &[Fetcher]) -> bool {
        let files: &[&str] = &[
            ".cargo/config",
            ".cargo/config.toml",
            "rust-toolchain",
            "rust-toolchain.toml",
            ".npmrc",
            ".yarnrc",
            ".yarnrc.yml",
            ".pnpmfile.cjs",
            ".pnpmfile.mjs",
            // pnpm's workspace settings can name a pnpmfile of hooks, run during a fetch.
            "pnpm-workspace.yaml",
            // corepack's settings can make a URL the package manager.
            ".corepack.env",
        ];
        if managers.is_empty() {
            return false;
        }
        // Every directory above that a call could have written into: the project's, and a
        // temp directory's above a project inside it (cargo reads `.cargo/config.toml` from
        // every directory above).
        let top = self.project.as_ref().ok().unwrap_or(&self.cwd);
        let writable =
            |dir: &Path| dir.starts_with(top) || self.temp.iter().any(|t| dir.starts_with(t));
        self.cwd
            .ancestors()
            .filter(|dir| writable(dir))
            .any(|dir| files.iter().any(|f| dir.join(f).symlink_metadata().is_ok()))
    }

    /// Removes what launchers that have exited left behind: their private temp directories
    /// (`.ai-sandbox-PID`), which a launcher cannot remove itself because it made their parent
    /// read-only for the call. Called before and after each sandboxed call, so none piles up
    /// (each later call would bind-mount them all).
    pub(crate) fn sweep(&self) {
        isolate::kill_sandboxed_orphans();
        let roots = self.temp.iter().chain(self.project.as_ref().ok());
        for root in roots {
            temps::sweep_private_temps(root);
        }
    }

    /// After a call in the sandbox: a `.git` it made is moved aside (git would run what its
    /// config and hooks say, later, outside the sandbox). Returns (where it was, where it is).
    pub(crate) fn quarantine(&self) -> Quarantine {
        let (Ok(project), SandboxMode::Workspace, Ok(mut tree)) =
            (&self.project, self.mode, self.tree.lock())
        else {
            return Quarantine {
                complete: true,
                ..Quarantine::default()
            };
        };
        let tree = self.found(&mut tree);
        let done = tree.git.quarantine(project);
        // Something may hide past what the walk could see: later calls are not contained.
        tree.git.complete &= done.complete;
        done
    }

    /// After a call in the sandbox: whether a file the sandbox covered by a mount (a secret, a
    /// git config, git's directories) was replaced while it ran, so the call could read it or
    /// write there. Then the project counts as secret from now on (the call may have left the
    /// secret anywhere it could write), its temp is emptied, and the notice says so: the call's
    /// output must not reach the model.
    pub(crate) fn exposure(&self) -> Option<String> {
        let watch = self.watch.lock().ok()?.take()?;
        let mut lost = watch.replaced();
        if let Some(report) = self.lost_report() {
            // Written by the launcher once nothing of the call ran: the mounts it lost.
            if let Ok(text) = std::fs::read_to_string(&report) {
                lost.extend(text.lines().map(PathBuf::from));
            }
            let _ = std::fs::remove_file(report);
        }
        let secret = lost.first()?;
        let project = self.project.as_ref().ok()?;
        self.sessions.empty();
        Some(exposed::add(self.state_dir.as_deref(), project, secret))
    }

    /// Where the launcher says which covering mounts a call lost: in ai's state directory,
    /// which calls can neither read nor write.
    fn lost_report(&self) -> Option<PathBuf> {
        let dir = self.state_dir.as_ref()?;
        let _ = std::fs::create_dir_all(dir);
        Some(dir.join(format!("sandbox-lost-{}", std::process::id())))
    }

    /// Why the sandbox cannot vouch for this project, if it cannot: a tree too big to check
    /// for secret files and git repositories (it may have been made so to hide one), or one
    /// that counts whole as secret since a call could read a secret saved during it.
    pub(crate) fn unverifiable(&self) -> Option<String> {
        if let Ok(project) = &self.project
            && exposed::exposed(project)
        {
            return Some(
                "a secret was saved over while an earlier sandboxed command ran, so the project \
                 counts as secret until you have checked it"
                    .into(),
            );
        }
        let mut tree = self.tree.lock().ok()?;
        (!self.found(&mut tree).complete()).then(|| {
            "the project holds too many directories to check for secret files and git \
             repositories, so the sandbox cannot vouch for it"
                .to_string()
        })
    }

    /// After a run outside the sandbox that a person approved: whatever git state it made is
    /// the user's, and protected from now on.
    pub(crate) fn trust_git_state(&self) {
        if let Ok(mut tree) = self.tree.lock() {
            *tree = Some(self.tree_now());
        }
    }

    /// The project's tree as found before the first sandboxed command (found now if not yet).
    fn found<'t>(&self, tree: &'t mut Option<Tree>) -> &'t mut Tree {
        tree.get_or_insert_with(|| self.tree_now())
    }

    /// The project's tree as it is now, with whether the home reaches into it.
    fn tree_now(&self) -> Tree {
        let mut tree = Tree::of(self.project.as_ref().ok(), self.home.as_deref(), self.mode);
        if let (Some(home), Ok(project)) = (&self.home, &self.project) {
            tree.reached = home_links::reached_from_home(home, project, &self.link_places);
        }
        // A PATH directory of the `.envrc` ai cannot work out could be any of the project's.
        if let (None, Ok(project)) = (&tree.reached, &self.project) {
            tree.reached = direnv::unreadable(project);
        }
        tree
    }

    /// How to run a command that needs `fetch` under the sandbox.
    pub(crate) fn prefix(&self, fetch: &FetchNeeds) -> Option<Launch> {
        isolate::adopt_orphans();
        self.sweep();
        let mut request = self.request(fetch)?;
        request.report = self.lost_report();
        if let Some(report) = &request.report {
            let _ = std::fs::remove_file(report);
        }
        if let Ok(mut watch) = self.watch.lock() {
            let covered = (request.mask.iter())
                .chain(&request.scrub)
                .chain(&request.read_only);
            *watch = Some(exposure::Watch::of(covered));
        }
        let exe = own_binary()?;
        let mut argv = vec![exe.into_os_string(), LAUNCHER_ARG.into()];
        // A path JSON cannot carry (not UTF-8) leaves the command uncontained: it asks.
        argv.extend(request.to_args().ok()?);
        argv.push("--".into());
        Some(Launch {
            argv,
            // With a fetch run first, the command itself runs offline.
            network: request.net && request.prefetch.is_empty(),
        })
    }

    /// Paths no sandboxed command may read: the system's secrets, the home directory (and
    /// every other user's), the home's secrets (inside what is readable of it), ai's own dirs.
    pub(crate) fn secrets(&self) -> Vec<PathBuf> {
        let mut hide: Vec<PathBuf> = system_secrets().map(PathBuf::from).collect();
        if let Some(home) = &self.home {
            hide.push(home.clone());
            hide.extend(home_secrets().map(|p| home.join(p)));
            hide.extend(
                relocated_home_secrets()
                    .into_iter()
                    .map(|(place, _, _)| place),
            );
        }
        let homes = Path::new("/home");
        if homes.is_dir() && self.home.as_deref() != Some(homes) {
            hide.push(homes.to_path_buf());
        }
        hide.extend(self.own.iter().cloned());
        hide.extend(self.config.iter().cloned());
        // A toolchain's own credentials (`~/.cargo/credentials.toml` of another home).
        for dir in &self.toolchains {
            let Some(name) = dir.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            let below = home_secrets().filter_map(|s| s.strip_prefix(name)?.strip_prefix('/'));
            hide.extend(below.map(|rest| dir.join(rest)));
            hide.extend(toolchain_secrets(dir));
        }
        hide.sort();
        hide.dedup();
        hide
    }

    /// What is readable inside the hidden trees: the project, the toolchains, what the user
    /// added.
    fn readable(&self) -> Vec<PathBuf> {
        let mut read: Vec<PathBuf> = self.project.iter().cloned().collect();
        read.extend(self.toolchains.iter().cloned());
        read.extend(self.extra_read.iter().cloned());
        read
    }

    /// The same plan in `mode` (what was probed is shared only when the mode is the same).
    pub(crate) fn with_mode(&self, mode: SandboxMode) -> Plan {
        let mut plan = self.clone();
        if mode != self.mode {
            plan.mode = mode;
            plan.probed = Arc::default();
        }
        plan
    }

    /// What the sandbox enforces here, probed on first use; `true` with it the first time.
    pub(crate) fn capabilities(&self) -> (&Capabilities, bool) {
        let mut first = false;
        let capabilities = self.probed.get_or_init(|| {
            first = true;
            self.probe()
        });
        (capabilities, first)
    }

    /// Whether the sandbox can be used on this kernel, and what it enforces there.
    pub(crate) fn probe(&self) -> Capabilities {
        let Some(mut request) = self.request(&FetchNeeds::default()) else {
            return Capabilities::default();
        };
        request.probe = true;
        let (Some(exe), Ok(args)) = (own_binary(), request.to_args()) else {
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
pub(crate) struct Launch {
    pub(crate) argv: Vec<OsString>,
    pub(crate) network: bool,
}

/// What the project holds that the sandbox must know of, found once per run from the tree as it
/// was: its git directories and its own secret files.
#[derive(Debug, Default)]
struct Tree {
    git: GitState,
    /// The secret files below the project (by name: `.env`, keys, credentials).
    secrets: Vec<PathBuf>,
    /// Where git keeps its configuration (its credentials are scrubbed from what runs see).
    git_dirs: Vec<PathBuf>,
    secrets_complete: bool,
    /// Why calls may not write the project: the home reaches into it (dotfiles), or its
    /// `.envrc` puts a directory ai cannot work out on PATH.
    reached: Option<String>,
}

impl Tree {
    fn of(project: Option<&PathBuf>, home: Option<&Path>, mode: SandboxMode) -> Tree {
        let Some(project) = project.filter(|_| mode != SandboxMode::Off) else {
            return Tree {
                secrets_complete: true,
                ..Tree::default()
            };
        };
        let (secrets, secrets_complete) = secret_files(project);
        let git = match mode {
            SandboxMode::Workspace => GitState::of(project, home),
            _ => GitState::default(),
        };
        let git_dirs = match mode {
            SandboxMode::Workspace => git.protected.clone(),
            _ => vec![project.join(".git")],
        };
        let mut secrets = secrets;
        secrets.extend(scrub::git_secret_files(&git_dirs));
        Tree {
            git,
            secrets,
            git_dirs,
            secrets_complete,
            reached: None,
        }
    }

    /// Both walks saw the whole project.
    fn complete(&self) -> bool {
        self.git.complete && self.secrets_complete
    }

    /// Looks for secret files again before a call: one made since the run began (the user
    /// filling in `.env` while `ai -i` runs, a command a person approved) is masked too. Git's
    /// state is not read again: it stays what the run began with, so what a call made is never
    /// trusted.
    fn refresh_secrets(&mut self, project: &Path) {
        // What this walk found is added even when the tree has grown past what one walk
        // sees (an `npm install`): the run's first walk, complete, stays what vouches.
        let (found, _complete) = secret_files(project);
        self.secrets.extend(found);
        self.secrets.sort();
        self.secrets.dedup();
    }
}

/// Runs `git ARGS` in `dir` for a test, with no system or global configuration.
#[cfg(test)]
pub(crate) fn test_git(dir: &Path, args: &[&str]) {
    let status = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .status()
        .expect("git");
    assert!(status.success(), "git {args:?}");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The launcher is started from the file that was run, not from whatever is at its path
    /// now (sandbox round 23: a call swapped `target/release/ai` and planted `ai (deleted)`).
    #[test]
    fn the_launcher_is_the_binary_that_runs_not_its_path() {
        let exe = own_binary().unwrap();
        assert_eq!(exe, Path::new("/proc/self/exe"));
        assert_eq!(
            std::fs::canonicalize(&exe).unwrap(),
            std::fs::canonicalize(std::env::current_exe().unwrap()).unwrap()
        );
    }

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
        let request = plan.request(&FetchNeeds::default()).unwrap();
        assert!(request.write.contains(&project.canonicalize().unwrap()));
        assert_eq!(request.home, Some(home.canonicalize().unwrap()));
        assert!(request.hide.iter().any(|p| p.ends_with(".ssh")));
        assert!(!request.net);
        let fetch = FetchNeeds {
            managers: vec![Fetcher::Cargo],
            network: true,
            prefetch: vec!["cargo".into(), "fetch".into()],
            caches: true,
        };
        let offline = FetchNeeds {
            managers: vec![Fetcher::Cargo],
            ..FetchNeeds::default()
        };
        let pip = FetchNeeds {
            managers: vec![Fetcher::Python],
            network: true,
            ..FetchNeeds::default()
        };
        let pip = plan.request(&pip).unwrap();
        assert!(pip.net && pip.caches.is_empty(), "setup.py writes no cache");
        let built = plan.request(&offline).unwrap();
        assert!(
            built.caches.is_empty() && !built.net,
            "a build writes no cache"
        );
        let cargo = plan.request(&fetch).unwrap();
        assert_eq!(cargo.prefetch, ["cargo", "fetch"]);
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
