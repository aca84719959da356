//! Runs the real `ai` binary in a sandbox of temp dirs: its own HOME and XDG dirs, a working
//! directory with files, a clean environment pointing at a fake server.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use serde_json::Value;
use tempfile::TempDir;

pub struct Ai {
    root: TempDir,
    args: Vec<String>,
    env: Vec<(String, String)>,
    stdin: Option<Vec<u8>>,
    /// Where under the working directory the binary starts (the working directory itself if
    /// `None`).
    subdir: Option<String>,
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// stdout parsed as one JSON object.
    pub fn json(&self) -> Value {
        serde_json::from_str(self.stdout.trim()).unwrap_or_else(|err| {
            panic!(
                "stdout is not one JSON object ({err}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }

    /// stdout parsed as JSON lines.
    pub fn events(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|line| {
                serde_json::from_str(line)
                    .unwrap_or_else(|err| panic!("bad JSON line {line:?}: {err}"))
            })
            .collect()
    }
}

impl Ai {
    /// A sandbox with no server configured.
    pub fn bare() -> Ai {
        let root = tempfile::tempdir().expect("temp dir");
        for dir in ["home", "config", "data", "state", "cache", "work"] {
            std::fs::create_dir_all(root.path().join(dir)).expect("make dir");
        }
        let mut ai = Ai {
            root,
            args: Vec::new(),
            env: Vec::new(),
            stdin: None,
            subdir: None,
        };
        let path = |name: &str| ai.root.path().join(name).display().to_string();
        let env = vec![
            (
                "PATH".to_string(),
                std::env::var("PATH").unwrap_or_default(),
            ),
            ("HOME".to_string(), path("home")),
            ("XDG_CONFIG_HOME".to_string(), path("config")),
            ("XDG_DATA_HOME".to_string(), path("data")),
            ("XDG_STATE_HOME".to_string(), path("state")),
            ("XDG_CACHE_HOME".to_string(), path("cache")),
            ("TMPDIR".to_string(), path("cache")),
            // Whether this machine runs Ollama or llama.cpp must not change what a test sees.
            ("SWEBASH_AI_PROBE".to_string(), "off".to_string()),
        ];
        ai.env = env;
        ai
    }

    /// A sandbox talking to `server` with a model set and quick timeouts.
    pub fn new(server_url: &str) -> Ai {
        Ai::bare()
            .env("SWEBASH_AI_BASE_URL", server_url)
            .env("SWEBASH_AI_MODEL", "fake-model")
            .env("SWEBASH_AI_HTTP_TIMEOUT", "20")
    }

    pub fn root_dir(&self) -> PathBuf {
        self.root.path().to_path_buf()
    }

    pub fn work(&self) -> PathBuf {
        self.root.path().join("work")
    }

    pub fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    pub fn config_file(&self) -> PathBuf {
        self.root.path().join("config/swebash-ai/config.toml")
    }

    pub fn file(self, relative: &str, content: &str) -> Ai {
        let path = self.work().join(relative);
        write_file(&path, content);
        self
    }

    /// Makes the working directory a git repository.
    pub fn git_init(self) -> Ai {
        let status = std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(self.work())
            .status()
            .expect("git init");
        assert!(status.success(), "git init failed");
        self
    }

    pub fn config(self, content: &str) -> Ai {
        write_file(&self.config_file(), content);
        self
    }

    pub fn arg(mut self, arg: &str) -> Ai {
        self.args.push(arg.to_string());
        self
    }

    pub fn args(mut self, args: &[&str]) -> Ai {
        self.args.extend(args.iter().map(|a| a.to_string()));
        self
    }

    pub fn env(mut self, name: &str, value: &str) -> Ai {
        self.env.retain(|(k, _)| k != name);
        self.env.push((name.to_string(), value.to_string()));
        self
    }

    pub fn unset(mut self, name: &str) -> Ai {
        self.env.retain(|(k, _)| k != name);
        self
    }

    /// Starts the binary in this directory under the working directory (made if missing).
    pub fn in_dir(mut self, relative: &str) -> Ai {
        std::fs::create_dir_all(self.work().join(relative)).expect("make dir");
        self.subdir = Some(relative.to_string());
        self
    }

    fn start_dir(&self) -> PathBuf {
        match &self.subdir {
            Some(relative) => self.work().join(relative),
            None => self.work(),
        }
    }

    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Ai {
        self.stdin = Some(bytes.into());
        self
    }

    /// The command, in a new session: without a controlling terminal, as in CI, even when the
    /// tests run in a developer's terminal (no test may ever wait on a prompt).
    fn command(&self) -> Command {
        let mut command = Command::new("setsid");
        command
            .arg("-w")
            .arg(env!("CARGO_BIN_EXE_ai"))
            .args(&self.args)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .current_dir(self.start_dir())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// The command for a pseudo-terminal test: the same sandbox, no pipes and no `setsid` (the
    /// PTY becomes its controlling terminal).
    pub fn pty_command(&self) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_ai"));
        command
            .args(&self.args)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .current_dir(self.work());
        command
    }

    /// The sandbox's environment, for starting other programs (a shell) in it.
    pub fn env_pairs(&self) -> &[(String, String)] {
        &self.env
    }

    pub fn state_dir(&self) -> PathBuf {
        self.root.path().join("state")
    }

    /// Starts the binary and leaves it running (stdin closed unless set).
    pub fn spawn(&self) -> Child {
        let mut command = self.command();
        command.stdin(if self.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
        let mut child = command.spawn().expect("spawn ai");
        if let (Some(bytes), Some(mut pipe)) = (&self.stdin, child.stdin.take()) {
            let _ = pipe.write_all(bytes);
        }
        child
    }

    /// Starts the binary in the same sandbox with other arguments and this stdin.
    pub fn spawn_with(&self, args: &[&str], stdin: &[u8]) -> Child {
        let mut command = self.command();
        command.args(args).stdin(Stdio::piped());
        let mut child = command.spawn().expect("spawn ai");
        let mut pipe = child.stdin.take().expect("stdin pipe");
        pipe.write_all(stdin).expect("write stdin");
        child
    }

    /// Runs in the same sandbox with other arguments.
    pub fn run_with(&self, args: &[&str]) -> Run {
        let mut command = self.command();
        command.args(args).stdin(Stdio::null());
        finish(command.output().expect("run ai"))
    }

    pub fn run(&self) -> Run {
        finish(self.spawn().wait_with_output().expect("wait for ai"))
    }
}

pub fn finish(output: Output) -> Run {
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn write_file(path: &Path, content: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("make parent dir");
    }
    std::fs::write(path, content).expect("write file");
}

/// Waits until the program in `session` reads the terminal key by key (raw mode: rustyline at its
/// prompt, dialoguer waiting for a key). Keys typed before that would be line-buffered or lost.
pub fn wait_for_raw_mode(session: &rexpect::session::PtySession) {
    use rustix::termios::{LocalModes, tcgetattr};
    let master = session.process().get_file_handle().expect("pty handle");
    let start = std::time::Instant::now();
    loop {
        let modes = tcgetattr(&master).expect("tcgetattr").local_modes;
        if !modes.contains(LocalModes::ICANON) {
            return;
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(10),
            "the terminal never left line mode"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}
