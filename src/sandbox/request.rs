//! The launcher's request: what `ai` tells its sandboxed self. It travels as one JSON argument
//! (serde: a misspelt or missing field is an error, never a silent default), followed by `--`
//! and the program with its arguments.

use std::ffi::OsString;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// What the launcher is told: one JSON argument, then `--` and the program.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Request {
    /// Writable trees (the project and temp); never what `hide` holds.
    pub(crate) write: Vec<PathBuf>,
    /// Readable inside hidden trees (the project and the toolchains in a hidden home), less
    /// what `hide` holds below them.
    pub(crate) read: Vec<PathBuf>,
    /// Secret files inside writable trees (a project's `.env`): masked by an empty file where
    /// mounts are possible, else left out of the grants.
    pub(crate) mask: Vec<PathBuf>,
    /// Git configuration files, seen through a copy without credentials where one holds any
    /// (where mounts are impossible, hidden whole).
    pub(crate) scrub: Vec<PathBuf>,
    /// The home directory: never writable through a writable root that holds it (temp holding
    /// a test's home); a project inside it stays writable.
    pub(crate) home: Option<PathBuf>,
    /// Temp directories each covered, for the call, by the session's own directory in it
    /// (temp, then the directory seen there): what else lives in temp (other projects, other
    /// users' files, credentials caches) is out of sight and out of reach.
    pub(crate) cover: Vec<(PathBuf, PathBuf)>,
    /// The call's temp directory (TMPDIR) where ai's temp holds what the call needs and so
    /// cannot be covered: the session's own directory in it.
    pub(crate) temp_dir: Option<PathBuf>,
    /// Inside writable trees but read-only: git directories and hooks (read-only mounts where
    /// the kernel allows them, else left out of Landlock's write grants).
    pub(crate) read_only: Vec<PathBuf>,
    /// Neither readable nor writable (secrets).
    pub(crate) hide: Vec<PathBuf>,
    /// Package manager caches: created if missing, then writable (with a `prefetch`, to it
    /// alone: the program then only reads them).
    pub(crate) caches: Vec<PathBuf>,
    /// Package manager lock files: created if missing, then writable as `caches` are.
    pub(crate) cache_files: Vec<PathBuf>,
    /// TCP allowed (a package manager fetches).
    pub(crate) net: bool,
    /// A fetch that runs no project code, run first with `net` and the caches; the program then
    /// runs with neither (empty: the program itself gets them).
    pub(crate) prefetch: Vec<String>,
    /// RLIMIT_FSIZE in bytes.
    pub(crate) max_file_size: Option<u64>,
    /// Most processes alive at once in the call.
    pub(crate) max_processes: Option<u64>,
    /// Print what is enforced as JSON instead of running a program.
    pub(crate) probe: bool,
    /// Set by stage one for stage two.
    pub(crate) stage2: bool,
    /// Stage one got a PID namespace (told to stage two for the probe).
    pub(crate) pid_namespace: bool,
    /// Stage one made a private mount namespace for stage two (so stage two may mount /proc).
    pub(crate) mount_namespace: bool,
    /// Stage one made every mount but the writable paths read-only.
    pub(crate) read_only_mounts: bool,
    /// Do without a PID namespace (the subreaper fallback, to test it where namespaces work).
    pub(crate) no_pid_namespace: bool,
    /// Do without Landlock's network rules (a kernel before 6.7, to test that seccomp alone
    /// keeps the network closed where Landlock could).
    pub(crate) no_landlock_network: bool,
    /// Where stage one writes, after the call, which of the mounts covering `mask`, `scrub` and
    /// `read_only` were lost while it ran (a file renamed over one from outside): in ai's own
    /// directories, out of the call's reach.
    pub(crate) report: Option<PathBuf>,
    /// The program and its arguments: after `--`, as they are (they need not be UTF-8).
    #[serde(skip)]
    pub(crate) program: Vec<OsString>,
}

impl Request {
    /// The launcher's arguments for this request, without the program.
    pub(crate) fn to_args(&self) -> Result<Vec<OsString>, String> {
        let json = serde_json::to_string(self)
            .map_err(|err| format!("cannot pass a path to the sandbox: {err}"))?;
        Ok(vec![json.into()])
    }

    /// Reads what `to_args` wrote, then `--` and the program.
    pub(crate) fn parse(args: &[OsString]) -> Result<Request, String> {
        let (json, rest) = args.split_first().ok_or("the launcher needs its request")?;
        let json = json.to_str().ok_or("the launcher's request is not UTF-8")?;
        let mut request: Request = serde_json::from_str(json)
            .map_err(|err| format!("the launcher's request is malformed: {err}"))?;
        match rest.split_first() {
            Some((dashes, program)) if dashes == "--" => request.program = program.to_vec(),
            None => {}
            Some(_) => {
                return Err("the launcher's request is followed by something else than --".into());
            }
        }
        Ok(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_survives_its_command_line() {
        let request = Request {
            write: vec!["/w".into()],
            read: vec!["/r".into(), "/r2".into()],
            mask: vec!["/w/.env".into()],
            scrub: vec!["/w/.git/config".into()],
            home: Some("/home/u".into()),
            read_only: vec!["/w/.git".into()],
            cover: vec![("/tmp".into(), "/tmp/.ai-session-1".into())],
            temp_dir: Some("/t/.ai-session-1".into()),
            hide: vec!["/h".into()],
            caches: vec!["/c".into()],
            cache_files: vec!["/c/lock".into()],
            net: true,
            prefetch: vec!["cargo".into(), "fetch".into()],
            max_file_size: Some(10),
            max_processes: Some(20),
            probe: false,
            stage2: true,
            pid_namespace: true,
            no_pid_namespace: true,
            no_landlock_network: true,
            mount_namespace: true,
            read_only_mounts: true,
            report: Some("/state/lost".into()),
            program: vec!["sh".into(), "-c".into(), "echo --net".into()],
        };
        let mut args = request.to_args().unwrap();
        args.push("--".into());
        args.extend(request.program.iter().cloned());
        assert_eq!(Request::parse(&args), Ok(request));
    }

    #[test]
    fn a_misspelt_or_missing_field_is_refused() {
        let full = serde_json::to_value(Request::default()).unwrap();
        let mut misspelt = full.clone();
        misspelt["nett"] = true.into();
        let mut missing = full;
        missing.as_object_mut().unwrap().remove("net");
        for bad in [misspelt, missing] {
            assert!(Request::parse(&[bad.to_string().into()]).is_err(), "{bad}");
        }
        assert!(Request::parse(&["--write".into()]).is_err());
        assert!(Request::parse(&[]).is_err());
    }
}
