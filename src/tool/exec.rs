//! `execute_command`: runs a command through the user's shell in the working directory, stdin
//! closed, output streamed and captured (head and tail), a timeout that kills the whole process
//! group, and the exit code returned. API keys this process holds never reach the child.

use std::process::Stdio;
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::AsyncReadExt;

use super::capture::Capture;
use super::{Effect, RunOptions, Tool, ToolContext, ToolOutcome, parse_arguments, schema_of};
use crate::protocol::{
    Action, BoxFuture, CallErrorCode, OutputStream, ToolErrorType, ToolResult, ToolSpec,
};

/// Bytes of each stream kept for the model (head and tail halves).
const CAPTURE_PER_STREAM: usize = 50 * 1024;
/// How long a process group gets between SIGTERM and SIGKILL.
const KILL_GRACE: Duration = Duration::from_secs(2);

/// Arguments of execute_command.
#[derive(Debug, Deserialize, JsonSchema)]
struct ExecArgs {
    /// The shell command line to run in the working directory.
    command: String,
    /// Seconds before the command is killed (default and maximum set by the user).
    #[serde(default)]
    timeout_seconds: Option<u64>,
}

pub(crate) struct ExecTool;

impl Tool for ExecTool {
    fn name(&self) -> &'static str {
        "execute_command"
    }

    fn effect(&self) -> Effect {
        Effect::Exec
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().into(),
            description:
                "Run a shell command in the working directory and get its output and exit \
                          code. stdin is closed; long output is cut in the middle. Commands that \
                          delete, overwrite or need privileges require the user's approval. \
                          Commands run without approval are sandboxed: they may write only the \
                          project and temp, read no secrets, use no network (package managers' \
                          dependency fetches excepted) and no terminal; what the sandbox refuses \
                          comes back as 'blocked by the sandbox'."
                    .into(),
            parameters: schema_of::<ExecArgs>(),
        }
    }

    fn asks(&self) -> &'static str {
        "when the command is risky"
    }

    fn validate(&self, arguments: &Value) -> Result<(), String> {
        let args: ExecArgs = parse_arguments(arguments)?;
        if args.command.trim().is_empty() {
            return Err("`command` is empty".into());
        }
        if args.timeout_seconds == Some(0) {
            return Err("`timeout_seconds` must be at least 1".into());
        }
        Ok(())
    }

    fn action(&self, arguments: &Value, _ctx: &ToolContext) -> Action {
        Action::Exec {
            command: arguments
                .get("command")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        }
    }

    fn run<'a>(
        &'a self,
        arguments: &'a Value,
        ctx: &'a ToolContext,
        options: RunOptions<'a>,
    ) -> BoxFuture<'a, ToolOutcome> {
        Box::pin(async move {
            let args: ExecArgs = match super::arguments_or_outcome(self.name(), arguments) {
                Ok(args) => args,
                Err(outcome) => return *outcome,
            };
            let limit = ctx.exec.timeout;
            let timeout = args
                .timeout_seconds
                .map_or(limit, |s| Duration::from_secs(s).min(limit));
            let outcome = run_command(&args.command, timeout, ctx, options).await;
            // Whatever ran may have given files new names: ai's own readers look again.
            crate::config::forget_other_names();
            outcome
        })
    }
}

async fn run_command(
    command: &str,
    timeout: Duration,
    ctx: &ToolContext,
    options: RunOptions<'_>,
) -> ToolOutcome {
    let sandboxed = options.sandbox.is_some();
    let network_closed = options.sandbox.is_some_and(|confined| !confined.network);
    let mut child = {
        let mut cmd = match options.sandbox.and_then(|c| c.argv.split_first()) {
            Some((launcher, request)) => {
                let mut cmd = tokio::process::Command::new(launcher);
                cmd.args(request).arg(&ctx.exec.shell);
                cmd
            }
            None => tokio::process::Command::new(&ctx.exec.shell),
        };
        cmd.arg("-c")
            .arg(command)
            .current_dir(&ctx.cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if sandboxed {
            cmd.env_clear().envs(ctx.exec.sandbox_env.iter().cloned());
        }
        for name in &ctx.exec.strip_env {
            cmd.env_remove(name);
        }
        #[cfg(unix)]
        cmd.process_group(0);
        match cmd.spawn() {
            Ok(child) => child,
            Err(err) => {
                return ToolOutcome::failed(
                    CallErrorCode::ExecutionFailed,
                    ToolResult::fail(
                        ToolErrorType::SystemError,
                        format!("cannot start {}: {err}", ctx.exec.shell.display()),
                    ),
                );
            }
        }
    };
    let group = GroupGuard(child.id());
    let (Some(mut stdout), Some(mut stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return ToolOutcome::failed(
            CallErrorCode::ExecutionFailed,
            ToolResult::fail(
                ToolErrorType::SystemError,
                "the command's output could not be read",
            ),
        );
    };
    let started = Instant::now();
    let deadline = tokio::time::sleep(timeout);
    tokio::pin!(deadline);
    let mut out = Capture::new(CAPTURE_PER_STREAM);
    let mut err = Capture::new(CAPTURE_PER_STREAM);
    let (mut out_open, mut err_open) = (true, true);
    let mut out_buf = vec![0u8; 8192];
    let mut err_buf = vec![0u8; 8192];
    let mut timed_out = false;
    while out_open || err_open {
        tokio::select! {
            read = stdout.read(&mut out_buf), if out_open => match read {
                Ok(0) | Err(_) => out_open = false,
                Ok(n) => {
                    out.push(&out_buf[..n]);
                    (options.output)(OutputStream::Stdout, &String::from_utf8_lossy(&out_buf[..n]));
                }
            },
            read = stderr.read(&mut err_buf), if err_open => match read {
                Ok(0) | Err(_) => err_open = false,
                Ok(n) => {
                    err.push(&err_buf[..n]);
                    (options.output)(OutputStream::Stderr, &String::from_utf8_lossy(&err_buf[..n]));
                }
            },
            () = &mut deadline => {
                timed_out = true;
                break;
            }
        }
    }
    let status = if timed_out {
        group.terminate(&mut child).await;
        None
    } else {
        // Output closed: the shell is finishing; background children may linger, so the
        // deadline still applies to the wait.
        tokio::select! {
            status = child.wait() => status.ok(),
            () = &mut deadline => {
                timed_out = true;
                group.terminate(&mut child).await;
                None
            }
        }
    };
    let _ = child.wait().await;
    group.kill_rest();
    let exit_code = status.and_then(|s| s.code());
    let mut data = json!({
        "exit_code": exit_code,
        "stdout": out.text(),
        "stderr": err.text(),
        "duration_ms": u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    });
    let truncated = out.truncated() || err.truncated();
    if truncated {
        data["truncated"] = json!(true);
        data["omitted_bytes"] = json!(out.omitted() + err.omitted());
    }
    if timed_out {
        let mut result = ToolResult::fail(
            ToolErrorType::UserError,
            format!(
                "the command timed out after {} s and was killed",
                timeout.as_secs()
            ),
        )
        .with_suggestion("run something quicker, or pass a larger timeout_seconds");
        result.data = data;
        let mut outcome = ToolOutcome::failed(CallErrorCode::Timeout, result);
        outcome.output_truncated = truncated;
        return outcome;
    }
    if sandboxed
        && exit_code != Some(0)
        && let Some(outcome) =
            sandbox_outcome(exit_code, &err.text(), network_closed, &data, truncated)
    {
        return outcome;
    }
    ToolOutcome {
        result: ToolResult::ok(data),
        exit_code,
        output_truncated: truncated,
        error_code: None,
    }
}

/// A sandboxed command that failed: stopped by a limit (a note on the ordinary result), or
/// refused something by the sandbox (a `BLOCKED` failure, never a success).
fn sandbox_outcome(
    exit_code: Option<i32>,
    stderr: &str,
    network_closed: bool,
    data: &Value,
    truncated: bool,
) -> Option<ToolOutcome> {
    if let Some(note) = super::refusal::limit_note(exit_code, stderr) {
        let mut result = ToolResult::ok(data.clone());
        result.note = Some(note);
        return Some(ToolOutcome {
            result,
            exit_code,
            output_truncated: truncated,
            error_code: None,
        });
    }
    let what = super::refusal::refusal(stderr, network_closed)?;
    let mut result = ToolResult::fail(
        ToolErrorType::SecurityError,
        format!("blocked by the sandbox: {what}"),
    )
    .with_suggestion(
        "commands run without asking may write only the project and temp, read no secrets and \
         use no network; the user can approve running it outside the sandbox",
    );
    result.data = data.clone();
    let mut outcome = ToolOutcome::failed(CallErrorCode::Blocked, result);
    outcome.exit_code = exit_code;
    outcome.output_truncated = truncated;
    Some(outcome)
}

/// The command's process group: terminated on timeout, and killed when dropped (Ctrl-C, or the
/// shell exited leaving background children), so nothing outlives the call.
struct GroupGuard(Option<u32>);

impl GroupGuard {
    fn signal(&self, signal: rustix::process::Signal) {
        if let Some(pid) = self
            .0
            .and_then(|id| rustix::process::Pid::from_raw(id as i32))
        {
            let _ = rustix::process::kill_process_group(pid, signal);
        }
    }

    /// SIGTERM to the group, then SIGKILL if the shell has not exited within the grace period.
    async fn terminate(&self, child: &mut tokio::process::Child) {
        self.signal(rustix::process::Signal::TERM);
        let _ = tokio::time::timeout(KILL_GRACE, child.wait()).await;
        self.signal(rustix::process::Signal::KILL);
    }

    fn kill_rest(&self) {
        self.signal(rustix::process::Signal::KILL);
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill_rest();
    }
}
