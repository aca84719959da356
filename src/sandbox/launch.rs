//! The launcher `ai __sandbox [OPTIONS] -- PROGRAM ARGS...`, in two stages. Stage one puts the
//! children in a new PID namespace (so everything a call starts dies with it, `setsid` and
//! double forks included), or, where that is not allowed, becomes their subreaper and kills what
//! is left; then it runs stage two and passes on its exit status. Stage two leaves the terminal
//! session, sets the limits, restricts itself with Landlock and execs the program. Both stages are
//! this binary re-executed, so nothing allocates between fork and exec.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::request::Request;
use super::rules::beneath_except;

/// The launcher's entry point; returns the exit code (stage two only returns when it cannot exec).
pub fn launch(args: &[OsString]) -> i32 {
    let request = match Request::parse(args) {
        Ok(request) => request,
        Err(message) => return fail(&message),
    };
    if request.program.is_empty() && !request.probe {
        return fail("the sandbox launcher needs a program");
    }
    if request.stage2 {
        stage_two(&request)
    } else {
        // The call dies with ai, however ai ends (a closed terminal's SIGHUP, SIGTERM,
        // SIGKILL): stage two dies with this stage, and everything in its PID namespace with it.
        // Otherwise a call could outlive ai and write after every check ai makes after a call
        // (sandbox round 25).
        let _ =
            rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL));
        if rustix::process::getppid().is_none_or(|p| p.as_raw_nonzero().get() == 1) {
            return fail("ai ended before the call started");
        }
        stage_one(request)
    }
}

pub(super) fn fail(message: &str) -> i32 {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "ai: sandbox: {message}");
    126
}

/// Stage one: isolate the children, run stage two, clean up, pass its status on.
fn stage_one(mut request: Request) -> i32 {
    make_caches(&request);
    request.pid_namespace = !request.no_pid_namespace && super::isolate::new_pid_namespace();
    if !request.pid_namespace {
        let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
    }
    let private = private_temp(&request);
    // Opened now: inside the mount namespace ai's directories are read-only.
    let report = request
        .report
        .as_ref()
        .and_then(|path| std::fs::File::create(path).ok());
    // Here, not in stage two: in a user namespace only this process keeps the capabilities
    // that mounting needs (stage two runs as the user again).
    request.mount_namespace = super::mounts::enter();
    if request.mount_namespace {
        super::mounts::cover(&request.cover);
        let grants = Grants::of(&request, true);
        // Device nodes stay on the read-only mounts (writing to /dev/null still works; its
        // mode and times cannot change), and /dev/shm becomes the call's own.
        let writable: Vec<PathBuf> = grants
            .writable
            .into_iter()
            .filter(|p| !DEVICES.iter().any(|d| p == Path::new(d)))
            .collect();
        let protected: Vec<PathBuf> = (request.read_only.iter())
            .chain(&request.mask)
            .cloned()
            .collect();
        let mounted = super::mounts::read_only_except(&writable)
            && super::mounts::pin_parents(&protected, &request.write)
            // Read-only binds first: a bind does not carry the mounts below it, so a mask made
            // before would be uncovered by the read-only bind of a directory above it.
            && super::mounts::read_only(&request.read_only)
            && super::mounts::mask(&request.mask);
        // Before /dev/shm becomes the call's own: the copies are staged there. A config that
        // could not be covered is hidden whole (git then fails in the call); nothing else
        // depends on it.
        if mounted {
            let unscrubbed = super::scrub::cover_credentials(&request.scrub);
            request.hide.extend(unscrubbed);
        }
        request.read_only_mounts = mounted
            && super::mounts::private_shm()
            && super::isolate::new_ipc_namespace()
            && (request.net || super::isolate::new_net_namespace());
        // The working directory still points into the old (now read-only) mount: enter it
        // again by name, through the writable bind mounts.
        if let Ok(cwd) = std::env::current_dir() {
            let _ = std::env::set_current_dir(cwd);
        }
    }
    request.stage2 = true;
    // After the mounts: made in the temp the call sees.
    let own_caches = own_caches(&request, &private);
    let mut table = std::fs::File::open("/proc/self/mountinfo").ok();
    let covering = table
        .as_mut()
        .and_then(|table| covering_mounts(table, &request))
        .unwrap_or_default();
    let pid_max = super::isolate::global_pid_max();
    let status = run_stage_two(&request, &private, own_caches.as_deref());
    super::isolate::restore_pid_max(pid_max);
    for dir in private.iter().chain(&own_caches) {
        super::walk::remove_tree(dir);
    }
    if !request.pid_namespace {
        super::isolate::kill_descendants();
    }
    report_lost(report, table, &covering);
    match status {
        Ok(status) => exit_code(status),
        Err(err) => fail(&format!("cannot start the sandbox: {err}")),
    }
}

/// The package managers' caches and lock files, made if missing: only what exists is granted.
fn make_caches(request: &Request) {
    for dir in &request.caches {
        let _ = std::fs::create_dir_all(dir);
    }
    for file in &request.cache_files {
        if let Some(parent) = file.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        let _ = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(file);
    }
}

/// The mounts that cover secrets and git's files, as the call begins.
fn covering_mounts(table: &mut std::fs::File, request: &Request) -> Option<Vec<PathBuf>> {
    let covered: Vec<PathBuf> = (request.mask.iter())
        .chain(&request.scrub)
        .chain(&request.read_only)
        .cloned()
        .collect();
    super::mounts::points_among(table, &covered)
}

/// Tells ai which of the mounts that covered secrets and git's files are gone now the call is
/// over (nothing of it runs any more): a file renamed over one from outside detaches it, and
/// the call could then use what lay beneath.
fn report_lost(report: Option<std::fs::File>, table: Option<std::fs::File>, covering: &[PathBuf]) {
    use std::io::Write;
    let (Some(mut report), Some(mut table)) = (report, table) else {
        return;
    };
    // Unreadable now: every mount counts as lost (it fails closed).
    let still = super::mounts::points_among(&mut table, covering).unwrap_or_default();
    let lost: Vec<String> = (covering.iter())
        .filter(|point| !still.contains(point))
        .map(|point| point.display().to_string())
        .collect();
    let _ = report.write_all(lost.join("\n").as_bytes());
}

/// The call's own directory for the caches its builds need but must not share: in the call's
/// private temp where it has one, else a fresh one in the temp it sees (removed after the call,
/// or swept by name).
fn own_caches(request: &Request, private: &[PathBuf]) -> Option<PathBuf> {
    let name = super::temps::private_temp_name(std::process::id());
    let dir = match (private.first(), &request.temp_dir) {
        (Some(private), _) => private.join("caches"),
        (None, Some(session)) => session.join(name),
        (None, None) => {
            let temp = std::env::temp_dir().canonicalize().ok()?;
            request
                .write
                .iter()
                .any(|root| temp.starts_with(root))
                .then(|| temp.join(name))?
        }
    };
    std::fs::create_dir(&dir).is_ok().then_some(dir)
}

/// What every sandboxed program is told of the caches it may use: Go's build cache is the
/// call's own (`off` without one: a build then fails rather than write the user's, which go
/// trusts by action ID), pip and uv use none, and go runs the toolchain it is (a go.mod's
/// `toolchain` line fetches and runs no other).
fn caches_environment(own: Option<&Path>) -> Vec<(String, String)> {
    let go_build = own.map_or_else(
        || "off".into(),
        |d| d.join("go-build").display().to_string(),
    );
    [
        ("GOCACHE", go_build.as_str()),
        ("GOTOOLCHAIN", "local"),
        ("PIP_NO_CACHE_DIR", "1"),
        ("UV_NO_CACHE", "1"),
    ]
    .iter()
    .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
    .collect()
}

/// The binary running now, to start the launcher with: `/proc/self/exe`, which names the file
/// that was run even when a call has since put another at its path (a binary inside the
/// project, `target/release/ai`, swapped for a program of the call's); its path only where
/// there is no `/proc`.
pub(super) fn own_binary() -> Option<PathBuf> {
    let proc = Path::new("/proc/self/exe");
    if proc.exists() {
        return Some(proc.to_path_buf());
    }
    std::env::current_exe().ok()
}

/// Runs stage two for `request` (its program), and waits for it.
fn run_stage_two(
    request: &Request,
    private: &[PathBuf],
    own_caches: Option<&Path>,
) -> Result<std::process::ExitStatus, String> {
    let exe = own_binary().ok_or_else(|| "cannot find the ai binary".to_string())?;
    let mut args = vec![OsString::from(super::LAUNCHER_ARG)];
    args.extend(request.to_args()?);
    args.push("--".into());
    args.extend(request.program.iter().cloned());
    let mut command = std::process::Command::new(exe);
    command.args(args);
    if request.mount_namespace && request.pid_namespace {
        super::mounts::proc_before_exec(&mut command);
    }
    if let Some(dir) = private.first().or(request.temp_dir.as_ref()) {
        command.env("TMPDIR", dir);
    }
    command.envs(caches_environment(own_caches));
    command
        .status()
        .map_err(|err| format!("cannot start the sandbox: {err}"))
}

/// A fresh directory in each writable root that holds something protected (a temp dir that
/// holds the home directory): such a root is only writable in what existed when the call
/// started, so new temp files go here (TMPDIR), removed when the call ends.
fn private_temp(request: &Request) -> Vec<PathBuf> {
    let pid = std::process::id();
    request
        .write
        .iter()
        .filter(|root| {
            // (Masked files do not count: they are mounts, or, without mounts, the call has no
            // writable project root anyway and temp gets its own directory.)
            request
                .hide
                .iter()
                .chain(&request.home)
                .any(|p| p.starts_with(root) && p != *root)
        })
        .map(|root| root.join(super::temps::private_temp_name(pid)))
        .filter(|dir| std::fs::create_dir(dir).is_ok())
        .collect()
}

fn exit_code(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1)
}

/// Stage two: no terminal, limits, Landlock, then the program.
fn stage_two(request: &Request) -> i32 {
    // Dies with stage one, which the tool kills on timeout or Ctrl-C.
    let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL));
    let session = rustix::process::setsid().is_ok();
    let limits = super::isolate::set_limits(request);
    // Nothing the call makes is writable by others unless it asks (as strict as the user's).
    let old = rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o022));
    rustix::process::umask(old | rustix::fs::Mode::from_raw_mode(0o022));
    // Only inside stage one's mount namespace: elsewhere this would cover the machine's /proc.
    let own_proc = request.mount_namespace
        && (super::mounts::proc_is_own() || super::mounts::own_proc(request.pid_namespace));
    let grants = Grants::of(request, request.read_only_mounts);
    let enforced = match restrict(request, grants) {
        Ok(enforced) => enforced,
        Err(message) => return fail(&message),
    };
    // After Landlock, which set no_new_privs (seccomp needs it without privilege).
    let sockets_filtered = super::seccomp::restrict(request.net);
    // Last: mounting /proc and writing pid_max above needed them.
    let unprivileged = super::privileges::drop_all() && super::privileges::close_inherited();
    if request.probe {
        let report = super::Capabilities {
            landlock_abi: enforced.abi,
            filesystem: enforced.filesystem,
            network: !request.net && (enforced.network || sockets_filtered),
            landlock_network: enforced.network,
            scoped: enforced.scoped,
            session,
            pid_namespace: request.pid_namespace,
            read_only_mounts: request.read_only_mounts,
            unix_sockets_closed: sockets_filtered,
            own_proc,
            unprivileged,
            max_processes: limits.processes,
            max_file_size: limits.file_size,
        };
        let Ok(json) = serde_json::to_string(&report) else {
            return fail("cannot report what the sandbox enforces");
        };
        use std::io::Write;
        let _ = writeln!(std::io::stdout(), "{json}");
        return 0;
    }
    let Some((program, args)) = request.program.split_first() else {
        return fail("the sandbox launcher needs a program");
    };
    let mut command = std::process::Command::new(program);
    command.args(args);
    if !request.prefetch.is_empty() {
        if let Err(message) = fetch_then_close(request) {
            return fail(&message);
        }
        command.envs([
            ("CARGO_NET_OFFLINE", "true"),
            ("npm_config_offline", "true"),
        ]);
    }
    if !request.net || !request.prefetch.is_empty() {
        // Offline: go says so at once instead of failing to connect.
        command.env("GOPROXY", "off");
    } else {
        // The command itself gets the network (`npm view`): the package manager it runs, and
        // the `node` npm's first line asks for, are never the project's.
        command.env("PATH", trusted_path(request));
    }
    use std::os::unix::process::CommandExt;
    let err = command.exec();
    fail(&format!("cannot run {}: {err}", program.to_string_lossy()))
}

/// Runs the code-free fetch with the network and the caches this stage was given, then takes
/// both away for good (a second Landlock layer without them, a second seccomp filter without IP
/// sockets: restrictions only ever add up), so the command's build and install scripts run with
/// neither.
fn fetch_then_close(request: &Request) -> Result<(), String> {
    // What the fetch starts comes to this process, and dies before the network closes: a
    // process forked during the fetch would otherwise keep the network and the caches.
    let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
    if let Some((program, args)) = request.prefetch.split_first() {
        // Its failure is the command's to meet, offline, with a message of its own. The
        // package manager (and the `node` npm's first line asks for) is looked for where no
        // call could have put one: a project's `.venv/bin` or `node_modules/.bin` on PATH
        // would run the project's code with the network and the caches.
        let path = trusted_path(request);
        if let Some(program) = find_program(program, &path) {
            let _ = std::process::Command::new(program)
                .args(args)
                .envs(fetch_environment())
                .env("PATH", &path)
                .status();
        }
    }
    super::isolate::kill_descendants();
    let mut offline = request.clone();
    offline.net = false;
    // The caches stay readable (the build reads what was fetched), no longer writable; nor
    // are their lock files (cargo's `.global-cache` records what a later clean-up removes).
    offline.read.append(&mut offline.caches);
    offline.read.append(&mut offline.cache_files);
    let grants = Grants::of(&offline, offline.read_only_mounts);
    restrict(&offline, grants)?;
    if super::seccomp::restrict(false) {
        Ok(())
    } else {
        Err("cannot close the network after the fetch".into())
    }
}

/// PATH without the directories a call can write (the project, temp, the caches), nor any
/// that does not resolve.
fn trusted_path(request: &Request) -> OsString {
    // What calls can write, where the command runs (the project, writable or not), and the
    // temp directories (a shared one is no longer writable whole, but is no more trusted).
    let mut untrusted: Vec<PathBuf> = (request.write.iter())
        .chain(&request.caches)
        .chain(request.cover.iter().map(|(temp, _)| temp))
        .cloned()
        .collect();
    untrusted.extend(
        request
            .temp_dir
            .iter()
            .filter_map(|t| t.parent().map(Path::to_path_buf)),
    );
    untrusted.extend(["/tmp", "/var/tmp", "/dev/shm"].map(PathBuf::from));
    untrusted.extend(std::env::current_dir().ok());
    let writable: Vec<PathBuf> = (untrusted.iter())
        .filter_map(|root| root.canonicalize().ok())
        .collect();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|dir| {
            dir.canonicalize()
                .is_ok_and(|real| !writable.iter().any(|root| real.starts_with(root)))
        })
        .collect();
    std::env::join_paths(kept).unwrap_or_default()
}

/// The program `name` as `path` finds it; none for a path (`.venv/bin/npm`: it may be the
/// project's).
fn find_program(name: &str, path: &OsString) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    if name.contains('/') {
        return None;
    }
    std::env::split_paths(path)
        .map(|dir| dir.join(name))
        .find(|file| {
            file.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// What the fetch run first is told beside its arguments: run no scripts, whatever its words
/// say (npm reads a `--ignore-scripts` after `--` as an operand); and git (npm's, for a git
/// dependency) reads no configuration the project can write: no system or global file, no
/// repository found above the working directory, none taken for a bare one, no `ext::` or
/// `file` transport a rewritten URL could name, no program a config could name.
fn fetch_environment() -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = [
        ("npm_config_ignore_scripts", "true"),
        // Above a project `.npmrc`'s `git=` (the environment comes before project config).
        ("npm_config_git", "git"),
        ("YARN_IGNORE_SCRIPTS", "true"),
        ("YARN_ENABLE_SCRIPTS", "false"),
        // corepack (what `yarn` and `pnpm` may be) reads no project `.corepack.env` and runs
        // no package manager from a URL.
        ("COREPACK_ENV_FILE", "0"),
        ("COREPACK_ENABLE_UNSAFE_CUSTOM_URLS", "0"),
        ("COREPACK_ENABLE_STRICT", "1"),
        ("GIT_CONFIG_NOSYSTEM", "1"),
        ("GIT_CONFIG_GLOBAL", "/dev/null"),
        ("GIT_TERMINAL_PROMPT", "0"),
        // Modules as go.mod names them, whatever a vendor directory holds.
        ("GOFLAGS", "-mod=mod"),
    ]
    .iter()
    .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
    .collect();
    // git still looks in the working directory itself (the project's own `.git` there is
    // read-only, a new one is moved aside after each call), never above it.
    if let Some(parent) = std::env::current_dir()
        .ok()
        .and_then(|d| d.parent().map(Path::to_path_buf))
    {
        env.push((
            "GIT_CEILING_DIRECTORIES".into(),
            parent.display().to_string(),
        ));
    }
    const PINS: &[(&str, &str)] = &[
        ("safe.bareRepository", "explicit"),
        ("protocol.allow", "never"),
        ("protocol.https.allow", "always"),
        ("protocol.http.allow", "always"),
        ("protocol.ssh.allow", "always"),
        ("protocol.ext.allow", "never"),
        ("protocol.file.allow", "never"),
        ("core.sshCommand", "ssh"),
        ("core.fsmonitor", "false"),
        ("core.hooksPath", "/dev/null"),
        ("credential.helper", ""),
    ];
    env.push(("GIT_CONFIG_COUNT".into(), PINS.len().to_string()));
    for (i, (key, value)) in PINS.iter().enumerate() {
        env.push((format!("GIT_CONFIG_KEY_{i}"), (*key).to_string()));
        env.push((format!("GIT_CONFIG_VALUE_{i}"), (*value).to_string()));
    }
    env
}

/// What Landlock enforced in stage two.
#[derive(Debug, Default)]
struct Enforced {
    abi: u8,
    filesystem: bool,
    network: bool,
    scoped: bool,
}

/// The TCP ports a package manager's fetch may connect to (Landlock ABI 4): HTTP and HTTPS.
const FETCH_PORTS: &[u16] = &[80, 443];

/// Devices a command may read and write; every other file under /dev (terminals, disks) is closed.
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/shm",
];

/// The paths Landlock grants, worked out in stage two (after the mounts are in place).
struct Grants {
    readable: Vec<PathBuf>,
    /// Split on the way to something hidden: listable, not readable whole.
    listable: Vec<PathBuf>,
    writable: Vec<PathBuf>,
}

impl Grants {
    /// `mounted`: the read-only and masked paths are (or are about to be) mounts.
    fn of(request: &Request, mounted: bool) -> Grants {
        // What lies below a tree granted whole is out of reach only if it is not granted too.
        let outside = |root: &Path, paths: &[PathBuf]| -> Vec<PathBuf> {
            paths
                .iter()
                .filter(|p| !root.starts_with(p))
                .cloned()
                .collect()
        };
        let mut hidden = request.hide.clone();
        hidden.push(PathBuf::from("/dev"));
        // Without mounts, masked secrets and git's directories leave the grants instead (their
        // parents become unwritable too: it fails closed).
        if !mounted {
            hidden.extend(request.mask.iter().cloned());
            hidden.extend(request.scrub.iter().cloned());
        }
        let (mut readable, mut listable) = (Vec::new(), Vec::new());
        beneath_except(Path::new("/"), &hidden, &mut readable, &mut listable);
        for root in &request.read {
            let excluded = outside(root, &hidden);
            beneath_except(root, &excluded, &mut readable, &mut listable);
        }
        let mut protected = hidden.clone();
        if !mounted {
            protected.extend(request.read_only.iter().cloned());
        }
        let mut writable = Vec::new();
        for root in &request.write {
            let mut excluded = outside(root, &protected);
            excluded.extend(request.home.iter().filter(|h| h.starts_with(root)).cloned());
            beneath_except(root, &excluded, &mut writable, &mut Vec::new());
        }
        // Caches live in the (hidden) home directory: granted by name, secrets still out.
        for root in &request.caches {
            let excluded = outside(root, &hidden);
            beneath_except(root, &excluded, &mut writable, &mut Vec::new());
        }
        writable.extend(request.cache_files.iter().cloned());
        writable.extend(DEVICES.iter().map(PathBuf::from));
        writable.retain(|p| p.exists());
        writable.sort();
        writable.dedup();
        Grants {
            readable,
            listable,
            writable,
        }
    }
}

fn restrict(request: &Request, grants: Grants) -> Result<Enforced, String> {
    use landlock::{
        ABI, Access, AccessFs, AccessNet, LandlockStatus, NetPort, Ruleset, RulesetAttr,
        RulesetCreatedAttr, RulesetStatus, Scope,
    };
    let abi = ABI::V6;
    let Grants {
        readable,
        listable,
        writable,
    } = grants;
    // What a call (this one, or another running at the same time) can change: a directory
    // there swapped for a link between the grants being worked out and being opened must not
    // carry a grant to where the link leads.
    let guarded: Vec<PathBuf> = (request.write.iter())
        .chain(&request.caches)
        .filter_map(|root| root.canonicalize().ok())
        .collect();
    let mut ruleset = Ruleset::default()
        .handle_access(AccessFs::from_all(abi))
        .map_err(|e| e.to_string())?;
    if !request.no_landlock_network {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(|e| e.to_string())?;
    }
    // A fetch connects to its registry over HTTP(S) only: no other port, no listening, so a
    // build script sharing the network cannot reach a local service or an arbitrary one.
    let ports: &[u16] = if request.net { FETCH_PORTS } else { &[] };
    let status = ruleset
        .scope(Scope::from_all(abi))
        .and_then(|r| r.create())
        .and_then(|r| {
            r.add_rules(ports.iter().map(|port| {
                Ok::<_, landlock::RulesetError>(NetPort::new(*port, AccessNet::ConnectTcp))
            }))
        })
        .and_then(|r| r.add_rules(beneath(&readable, AccessFs::from_read(abi), &guarded)))
        .and_then(|r| r.add_rules(beneath(&listable, AccessFs::ReadDir.into(), &guarded)))
        .and_then(|r| r.add_rules(beneath(&writable, AccessFs::from_all(abi), &guarded)))
        .and_then(|r| r.restrict_self())
        .map_err(|err| format!("cannot set up Landlock: {err}"))?;
    let kernel = match status.landlock {
        LandlockStatus::Available { effective_abi, .. } => effective_abi,
        _ => ABI::Unsupported,
    };
    let versions = [ABI::V1, ABI::V2, ABI::V3, ABI::V4, ABI::V5, ABI::V6];
    let number = versions.iter().filter(|v| **v <= kernel).count();
    let filesystem = status.ruleset != RulesetStatus::NotEnforced;
    Ok(Enforced {
        abi: u8::try_from(number).unwrap_or(0),
        filesystem,
        network: filesystem && kernel >= ABI::V4 && !request.no_landlock_network,
        scoped: filesystem && kernel >= ABI::V6,
    })
}

/// A Landlock rule granting `access` beneath each of `paths`, each opened by descriptor: one
/// under a `guarded` root without following any link on the way (it was resolved already: a
/// link there now was put there since), the rest as named (system paths such as `/dev/ptmx`
/// may be links of the system's). A path that cannot be opened so is not granted.
fn beneath(
    paths: &[PathBuf],
    access: landlock::BitFlags<landlock::AccessFs>,
    guarded: &[PathBuf],
) -> Vec<Result<landlock::PathBeneath<std::os::fd::OwnedFd>, landlock::RulesetError>> {
    use rustix::fs::{CWD, Mode, OFlags, ResolveFlags};
    let flags = OFlags::PATH | OFlags::CLOEXEC;
    paths
        .iter()
        .filter_map(|path| {
            let fd = if guarded.iter().any(|root| path.starts_with(root)) {
                match rustix::fs::openat2(
                    CWD,
                    path,
                    flags,
                    Mode::empty(),
                    ResolveFlags::NO_SYMLINKS,
                ) {
                    // A kernel before 5.6, or the seccomp filter of the first layer (a
                    // second layer only narrows the first): no link at the end at least.
                    Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => {
                        rustix::fs::open(path, flags | OFlags::NOFOLLOW, Mode::empty())
                    }
                    opened => opened,
                }
            } else {
                rustix::fs::open(path, flags, Mode::empty())
            };
            fd.ok()
        })
        .map(|fd| Ok(landlock::PathBeneath::new(fd, access)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_under_a_writable_root_carries_no_grant_and_a_system_one_does() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        std::os::unix::fs::symlink("/", root.join("swapped")).unwrap();
        let access = landlock::AccessFs::from_read(landlock::ABI::V6);
        let guarded = [root.clone()];
        let paths = [
            root.join("src"),
            root.join("swapped"),
            root.join("swapped/etc"),
        ];
        assert_eq!(beneath(&paths, access, &guarded).len(), 1);
        // Outside what calls can write, a link is the system's own and is followed.
        assert_eq!(beneath(&[root.join("swapped")], access, &[]).len(), 1);
    }

    fn value<'e>(env: &'e [(String, String)], name: &str) -> Option<&'e str> {
        env.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    #[test]
    fn every_call_uses_a_build_cache_of_its_own_and_no_shared_one() {
        let own = caches_environment(Some(Path::new("/tmp/.ai-sandbox-7")));
        assert_eq!(value(&own, "GOCACHE"), Some("/tmp/.ai-sandbox-7/go-build"));
        assert_eq!(value(&own, "GOTOOLCHAIN"), Some("local"));
        assert_eq!(value(&own, "PIP_NO_CACHE_DIR"), Some("1"));
        assert_eq!(value(&own, "UV_NO_CACHE"), Some("1"));
        // Without a directory of its own, go builds nothing rather than use the user's.
        assert_eq!(value(&caches_environment(None), "GOCACHE"), Some("off"));
        // The fetch run first: modules as go.mod names them, npm's scripts off.
        let fetch = fetch_environment();
        assert_eq!(value(&fetch, "GOFLAGS"), Some("-mod=mod"));
        assert_eq!(value(&fetch, "npm_config_ignore_scripts"), Some("true"));
    }
}
