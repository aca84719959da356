//! The read-only `filesystem` tool: read (line-numbered, windowed, text only), list (gitignore-aware,
//! bounded), exists and metadata. Every path is resolved and checked against the roots first.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Effect, RunOptions, Tool, ToolContext, ToolOutcome, parse_arguments, schema_of};
use crate::protocol::{Action, BoxFuture, CallErrorCode, ToolErrorType, ToolResult, ToolSpec};

/// Lines returned by one read when the model gives no `limit`.
const DEFAULT_LINES: u64 = 2000;
/// Entries returned by one list.
const MAX_ENTRIES: usize = 500;
/// Bytes looked at to tell text from binary.
const SNIFF_BYTES: usize = 8192;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Operation {
    /// Read a text file, with line numbers.
    Read,
    /// List a directory (entries ignored by .gitignore are left out).
    List,
    /// Tell whether a path exists and what it is.
    Exists,
    /// Size, type, modification time and permissions of a path.
    Metadata,
}

/// Arguments of the filesystem tool.
#[derive(Debug, Deserialize, JsonSchema)]
pub(super) struct FsArgs {
    /// What to do.
    operation: Operation,
    /// The file or directory, relative to the working directory or absolute.
    // Required in the schema (a grammar-constrained model must always name one); `paths` alone
    // is still accepted from models that send it.
    #[schemars(required)]
    path: Option<String>,
    /// read only, instead of `path`: several files read in one call (at most 20), each with
    /// line numbers, with an estimated token count; what would not fit is named, not read.
    #[serde(default)]
    paths: Option<Vec<String>>,
    /// read only: the first line to return, counting from 1.
    #[serde(default)]
    offset: Option<u64>,
    /// read only: how many lines to return (default 2000).
    #[serde(default)]
    limit: Option<u64>,
}

impl FsArgs {
    /// A whole-file read of one of several paths.
    pub(super) fn whole(path: &str) -> Self {
        FsArgs {
            operation: Operation::Read,
            path: Some(path.to_string()),
            paths: None,
            offset: None,
            limit: None,
        }
    }
}

pub(crate) struct FilesystemTool;

impl Tool for FilesystemTool {
    fn name(&self) -> &'static str {
        "filesystem"
    }

    fn effect(&self) -> Effect {
        Effect::Read
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().into(),
            description: "Read-only access to local files: read a text file (line-numbered; use \
                          offset/limit for long files), list a directory, check whether a path \
                          exists, or get its metadata."
                .into(),
            parameters: schema_of::<FsArgs>(),
        }
    }

    fn asks(&self) -> &'static str {
        "outside the allowed roots (never for secrets: denied)"
    }

    fn validate(&self, arguments: &Value) -> Result<(), String> {
        let args: FsArgs = parse_arguments(arguments)?;
        match (&args.path, &args.paths) {
            (None, None) => return Err("missing field `path`".into()),
            (_, Some(paths)) => {
                if !matches!(args.operation, Operation::Read) {
                    return Err("`paths` works with operation `read` only; use `path`".into());
                }
                if paths.is_empty() || paths.len() > super::fs_batch::MAX_PATHS {
                    return Err(format!(
                        "`paths` takes 1 to {} paths",
                        super::fs_batch::MAX_PATHS
                    ));
                }
                if args.offset.is_some() || args.limit.is_some() {
                    return Err("`offset` and `limit` work with one `path` only".into());
                }
            }
            (Some(_), None) => {}
        }
        if args.offset == Some(0) {
            return Err("`offset` counts from 1".into());
        }
        if args.limit == Some(0) {
            return Err("`limit` must be at least 1".into());
        }
        Ok(())
    }

    fn action(&self, arguments: &Value, ctx: &ToolContext) -> Action {
        let path = arguments
            .get("path")
            .and_then(Value::as_str)
            .unwrap_or_default();
        read_action(path, ctx)
    }

    fn actions(&self, arguments: &Value, ctx: &ToolContext) -> Vec<Action> {
        // Every path the call would read is judged: `path` and each of `paths`.
        let path = arguments.get("path").and_then(Value::as_str);
        let paths: Vec<String> = arguments
            .get("paths")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .map(|p| p.as_str().unwrap_or_default().to_string())
                    .collect()
            })
            .unwrap_or_default();
        if paths.is_empty() {
            return vec![self.action(arguments, ctx)];
        }
        all_paths(path, &paths)
            .iter()
            .map(|p| read_action(p, ctx))
            .collect()
    }

    fn run<'a>(
        &'a self,
        arguments: &'a Value,
        ctx: &'a ToolContext,
        _options: RunOptions<'a>,
    ) -> BoxFuture<'a, ToolOutcome> {
        Box::pin(async move {
            let args: FsArgs = match super::arguments_or_outcome(self.name(), arguments) {
                Ok(args) => args,
                Err(outcome) => return *outcome,
            };
            // File reads and directory walks block; the runtime has one thread to keep free
            // (for Ctrl-C, the spinner, the other calls).
            let ctx = ctx.clone();
            tokio::task::spawn_blocking(move || run(&args, &ctx))
                .await
                .unwrap_or_else(|err| {
                    fail(
                        ToolErrorType::SystemError,
                        format!("the filesystem tool stopped: {err}"),
                        None,
                    )
                })
        })
    }
}

/// What reading `path` means to the policy: the path as asked and where it really leads.
fn read_action(path: &str, ctx: &ToolContext) -> Action {
    let requested = super::absolute(path, &ctx.cwd, ctx.home.as_deref());
    let resolved =
        super::resolve(path, &ctx.cwd, ctx.home.as_deref()).unwrap_or_else(|| requested.clone());
    Action::Read {
        requested,
        resolved,
    }
}

/// The files of a multi-file read: `path` first (the schema asks for it), then `paths`.
fn all_paths(path: Option<&str>, paths: &[String]) -> Vec<String> {
    path.map(str::to_string)
        .into_iter()
        .chain(paths.iter().filter(|p| Some(p.as_str()) != path).cloned())
        .collect()
}

pub(super) fn run(args: &FsArgs, ctx: &ToolContext) -> ToolOutcome {
    if let Some(paths) = &args.paths {
        let paths = all_paths(args.path.as_deref(), paths);
        return super::fs_batch::read_many(&paths, ctx, |path, shown| {
            read(path, shown, &FsArgs::whole(shown), ctx)
        });
    }
    let shown = args.path.as_deref().unwrap_or_default();
    let Some(path) = super::resolve(shown, &ctx.cwd, ctx.home.as_deref()) else {
        return fail(
            ToolErrorType::ValidationError,
            "`path` is empty".into(),
            None,
        );
    };
    match args.operation {
        Operation::Read => read(&path, shown, args, ctx),
        Operation::List => list(&path, shown),
        Operation::Exists => exists(&path, shown),
        Operation::Metadata => metadata(&path, shown),
    }
}

fn fail(kind: ToolErrorType, message: String, suggestion: Option<&str>) -> ToolOutcome {
    let code = match kind {
        ToolErrorType::ValidationError => CallErrorCode::InvalidArguments,
        ToolErrorType::PermissionError | ToolErrorType::SecurityError => CallErrorCode::Denied,
        _ => CallErrorCode::ExecutionFailed,
    };
    let mut result = ToolResult::fail(kind, message);
    if let Some(suggestion) = suggestion {
        result = result.with_suggestion(suggestion);
    }
    ToolOutcome::failed(code, result)
}

fn io_failure(err: &std::io::Error, shown: &str) -> ToolOutcome {
    match err.kind() {
        std::io::ErrorKind::NotFound => fail(
            ToolErrorType::UserError,
            format!("{shown}: no such file or directory"),
            Some("list the parent directory to see what exists"),
        ),
        std::io::ErrorKind::PermissionDenied => fail(
            ToolErrorType::PermissionError,
            format!("{shown}: permission denied"),
            None,
        ),
        _ => fail(ToolErrorType::SystemError, format!("{shown}: {err}"), None),
    }
}

/// The path of what an open file really is, from the kernel (`/proc/self/fd`).
fn opened_path(file: &File) -> Option<std::path::PathBuf> {
    use std::os::fd::AsRawFd;
    std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()
}

/// A regular file opened for reading. A FIFO, socket or device is refused before it is opened
/// (opening a FIFO blocks until a writer comes, reading a device may never end), and checked
/// again on what was opened, without blocking, in case the path changed in between.
fn open_regular(path: &Path, shown: &str) -> Result<File, Box<ToolOutcome>> {
    let not_regular = |meta: &std::fs::Metadata| {
        Box::new(if meta.is_dir() {
            fail(
                ToolErrorType::UserError,
                format!("{shown} is a directory"),
                Some("use operation `list` for directories"),
            )
        } else {
            fail(
                ToolErrorType::UserError,
                format!(
                    "{shown} is a {}, not a regular file; only regular files can be read",
                    kind_of(meta)
                ),
                None,
            )
        })
    };
    let meta = std::fs::metadata(path).map_err(|err| Box::new(io_failure(&err, shown)))?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = options
        .open(path)
        .map_err(|err| Box::new(io_failure(&err, shown)))?;
    let opened = file
        .metadata()
        .map_err(|err| Box::new(io_failure(&err, shown)))?;
    if !opened.is_file() {
        return Err(not_regular(&opened));
    }
    Ok(file)
}

/// Why the opened file is a secret under another of its names in the working tree (a hard
/// link, a secret-named link leading to it), or that they cannot all be seen.
fn other_name(file: &std::fs::File, real: &Path, ctx: &ToolContext) -> Option<String> {
    let meta = file.metadata().ok()?;
    // Only a project's files have names a call could have made (nothing else is writable).
    let root = crate::config::project_dir(&ctx.cwd, ctx.home.as_deref()).ok()?;
    match crate::config::secret_by_other_name(&root, real, &meta, ctx.home.as_deref()) {
        Ok(found) => found,
        Err(()) => Some("a file in a tree too big to look through for its other names".into()),
    }
}

pub(super) fn read(path: &Path, shown: &str, args: &FsArgs, ctx: &ToolContext) -> ToolOutcome {
    let max_size = ctx.fs_max_size;
    let file = match open_regular(path, shown) {
        Ok(file) => file,
        Err(outcome) => return *outcome,
    };
    // Checked on what was opened, not on the name: a link swapped after the policy looked at the
    // path could otherwise hand over a secret.
    // When the kernel cannot say what was opened, nothing is read (fail closed).
    let Some(real) = opened_path(&file) else {
        return fail(
            ToolErrorType::SystemError,
            format!("{shown}: cannot tell what file was opened"),
            None,
        );
    };
    if let Some(what) =
        (ctx.secret)(&real, ctx.home.as_deref()).or_else(|| other_name(&file, &real, ctx))
    {
        return fail(
            ToolErrorType::SecurityError,
            format!("{shown} turned out to be a secret when opened: {what}"),
            Some("this is never read; find another way or explain to the user"),
        );
    }
    // Never more than the limit (and one byte to tell that there is more), whatever the file's
    // size claims to be: /proc files say 0, sparse files say little on disk.
    let mut file = file.take(max_size.saturating_add(1));
    let mut head = vec![0u8; SNIFF_BYTES];
    let sniffed = match read_up_to(&mut file, &mut head) {
        Ok(n) => n,
        Err(err) => return io_failure(&err, shown),
    };
    if head[..sniffed].contains(&0) {
        return fail(
            ToolErrorType::UserError,
            format!("{shown} is a binary file; only text files can be read"),
            Some("use operation `metadata` to learn its size and type"),
        );
    }
    let reader = BufReader::new(std::io::Cursor::new(head[..sniffed].to_vec()).chain(file));
    let first = args.offset.unwrap_or(1);
    let limit = args.limit.unwrap_or(DEFAULT_LINES);
    match window(reader, first, limit, max_size) {
        Ok(window) => {
            let mut data = json!({
                "path": shown,
                "content": window.content,
                "total_lines": window.total_lines,
            });
            if window.returned > 0 {
                data["lines"] = json!(format!("{}-{}", first, first + window.returned - 1));
            }
            if let Some(next) = window.next_offset {
                data["truncated"] = json!(true);
                data["next_offset"] = json!(next);
            }
            if window.cut_at_limit {
                data["truncated"] = json!(true);
                data["note"] = json!(format!(
                    "only the first {max_size} bytes of the file can be read \
                     (SWEBASH_AI_FS_MAX_SIZE); total_lines counts lines in them"
                ));
                if window.returned == 0 {
                    return fail(
                        ToolErrorType::UserError,
                        format!(
                            "line {first} of {shown} is past the first {max_size} bytes, \
                             the most this tool reads from a file"
                        ),
                        Some("use execute_command with `sed -n` or `tail` for far lines"),
                    );
                }
            }
            let mut outcome = ToolOutcome::ok(data);
            outcome.output_truncated = window.next_offset.is_some();
            outcome
        }
        Err(WindowError::NotUtf8 { line }) => fail(
            ToolErrorType::UserError,
            format!("{shown} is not UTF-8 text (line {line})"),
            None,
        ),
        Err(WindowError::Io(err)) => io_failure(&err, shown),
    }
}

fn read_up_to(file: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

struct Window {
    content: String,
    returned: u64,
    total_lines: u64,
    next_offset: Option<u64>,
    /// The file went on past `max_bytes`: lines after that were not read.
    cut_at_limit: bool,
}

enum WindowError {
    NotUtf8 { line: u64 },
    Io(std::io::Error),
}

/// Lines `first..first+limit` numbered like `cat -n`, at most `max_bytes` of them; the rest of
/// the file is only counted.
fn window(
    mut reader: impl BufRead,
    first: u64,
    limit: u64,
    max_bytes: u64,
) -> Result<Window, WindowError> {
    let mut content = String::new();
    let mut number = 0u64;
    let mut returned = 0u64;
    let mut next_offset = None;
    let mut raw = Vec::new();
    let mut consumed = 0u64;
    let mut cut_at_limit = false;
    loop {
        raw.clear();
        let read = reader
            .read_until(b'\n', &mut raw)
            .map_err(WindowError::Io)?;
        if read == 0 {
            break;
        }
        consumed = consumed.saturating_add(read as u64);
        if consumed > max_bytes {
            // The reader gives one byte past the limit: the line that crosses it is not whole.
            cut_at_limit = true;
            break;
        }
        number += 1;
        if number < first || next_offset.is_some() {
            continue;
        }
        if returned == limit {
            next_offset = Some(number);
            continue;
        }
        let line = std::str::from_utf8(&raw).map_err(|_| WindowError::NotUtf8 { line: number })?;
        let line = line.trim_end_matches(['\n', '\r']);
        let numbered = format!("{number:>6}\t{line}\n");
        if (content.len() + numbered.len()) as u64 > max_bytes {
            next_offset = Some(number);
            continue;
        }
        content.push_str(&numbered);
        returned += 1;
    }
    Ok(Window {
        content,
        returned,
        total_lines: number,
        next_offset,
        cut_at_limit,
    })
}

fn list(path: &Path, shown: &str) -> ToolOutcome {
    if !path.is_dir() {
        return match std::fs::metadata(path) {
            Ok(_) => fail(
                ToolErrorType::UserError,
                format!("{shown} is not a directory"),
                Some("use operation `read` for files"),
            ),
            Err(err) => io_failure(&err, shown),
        };
    }
    let walker = ignore::WalkBuilder::new(path)
        .max_depth(Some(1))
        .hidden(false)
        .require_git(false)
        .git_global(false)
        .filter_entry(|entry| entry.file_name() != ".git")
        .build();
    let mut entries: Vec<String> = walker
        .filter_map(Result::ok)
        .filter(|entry| entry.depth() == 1)
        .map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.file_type().is_some_and(|t| t.is_dir()) {
                format!("{name}/")
            } else {
                name
            }
        })
        .collect();
    entries.sort();
    let total = entries.len();
    entries.truncate(MAX_ENTRIES);
    let mut outcome = ToolOutcome::ok(json!({
        "path": shown,
        "entries": entries,
        "total": total,
        "truncated": total > MAX_ENTRIES,
    }));
    outcome.output_truncated = total > MAX_ENTRIES;
    outcome
}

fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = meta.file_type();
        if kind.is_fifo() {
            return "fifo";
        }
        if kind.is_socket() {
            return "socket";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "device";
        }
    }
    if meta.is_dir() {
        "directory"
    } else if meta.is_file() {
        "file"
    } else {
        "other"
    }
}

fn exists(path: &Path, shown: &str) -> ToolOutcome {
    match std::fs::metadata(path) {
        Ok(meta) => ToolOutcome::ok(json!({"path": shown, "exists": true, "type": kind_of(&meta)})),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            ToolOutcome::ok(json!({"path": shown, "exists": false}))
        }
        Err(err) => io_failure(&err, shown),
    }
}

fn metadata(path: &Path, shown: &str) -> ToolOutcome {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(err) => return io_failure(&err, shown),
    };
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_secs());
    let mut data = json!({
        "path": shown,
        "type": kind_of(&meta),
        "size": meta.len(),
        "modified_unix": modified,
        "readonly": meta.permissions().readonly(),
    });
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        data["mode"] = json!(format!("{:o}", meta.permissions().mode() & 0o7777));
    }
    ToolOutcome::ok(data)
}

#[cfg(test)]
#[path = "fs_tests.rs"]
mod tests;
