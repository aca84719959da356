//! A read of several files in one call (`paths: [...]`): each file with its line numbers and an
//! estimated token count, within a budget so the answer cannot overflow the model's context;
//! a file that would not fit is named with its size, not read, so the model can ask for it alone.

use serde_json::{Value, json};

use std::path::Path;

use super::{ToolContext, ToolOutcome};
use crate::protocol::{CallErrorCode, ToolErrorType, ToolResult};

/// Most paths in one call.
pub(crate) const MAX_PATHS: usize = 20;
/// Tokens the files of one call may take together (a quarter of a 128k context, most of a 32k one).
const BUDGET_TOKENS: u64 = 32_000;
/// A rough count that errs high for code: about four bytes a token.
const BYTES_PER_TOKEN: u64 = 4;

/// Reads `paths` in order with `read_whole` (a resolved path and the path as the model wrote
/// it) until the budget is spent; the rest are listed as left out.
pub(crate) fn read_many(
    paths: &[String],
    ctx: &ToolContext,
    read_whole: impl Fn(&Path, &str) -> ToolOutcome,
) -> ToolOutcome {
    let budget = BUDGET_TOKENS.min(ctx.fs_max_size / BYTES_PER_TOKEN).max(1);
    let mut files: Vec<Value> = Vec::new();
    let mut left_out: Vec<Value> = Vec::new();
    let mut used = 0u64;
    for shown in paths {
        let Some(path) = super::resolve(shown, &ctx.cwd, ctx.home.as_deref()) else {
            left_out.push(json!({"path": shown, "reason": "the path is empty"}));
            continue;
        };
        let outcome = read_whole(&path, shown);
        if !outcome.result.success {
            left_out.push(json!({"path": shown, "reason": outcome.result.error}));
            continue;
        }
        let mut data = outcome.result.data;
        let tokens = estimate(data["content"].as_str().unwrap_or_default());
        if used + tokens > budget {
            left_out.push(json!({
                "path": shown,
                "estimated_tokens": tokens,
                "reason": format!(
                    "not read: about {tokens} tokens, and {} of the {budget} of this call were left",
                    budget - used
                ),
            }));
            continue;
        }
        used += tokens;
        data["estimated_tokens"] = json!(tokens);
        files.push(data);
    }
    if files.is_empty() {
        let reasons: Vec<String> = left_out
            .iter()
            .map(|l| format!("{}: {}", l["path"].as_str().unwrap_or_default(), reason(l)))
            .collect();
        let result = ToolResult::fail(
            ToolErrorType::UserError,
            format!("none of the files could be read ({})", reasons.join("; ")),
        )
        .with_suggestion("read a large file alone with `path`, `offset` and `limit`");
        return ToolOutcome::failed(CallErrorCode::ExecutionFailed, result);
    }
    let mut data = json!({"files": files, "estimated_tokens": used, "budget_tokens": budget});
    let truncated = !left_out.is_empty();
    if truncated {
        data["left_out"] = Value::Array(left_out);
    }
    let mut outcome = ToolOutcome::ok(data);
    outcome.output_truncated = truncated;
    outcome
}

fn reason(left: &Value) -> String {
    match &left["reason"] {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn estimate(text: &str) -> u64 {
    (text.len() as u64).div_ceil(BYTES_PER_TOKEN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::fs::{FsArgs, read};

    fn read_many(paths: &[String], ctx: &ToolContext) -> ToolOutcome {
        super::read_many(paths, ctx, |path, shown| {
            read(path, shown, &FsArgs::whole(shown), ctx)
        })
    }

    fn ctx(dir: &Path, max: u64) -> ToolContext {
        ToolContext {
            cwd: dir.to_path_buf(),
            home: None,
            secret: |_, _| None,
            fs_max_size: max,
            exec: crate::tool::ExecSettings {
                shell: "/bin/sh".into(),
                timeout: std::time::Duration::from_secs(5),
                strip_env: Vec::new(),
                sandbox_env: Vec::new(),
            },
        }
    }

    #[test]
    fn several_files_come_back_numbered_with_token_estimates() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.rs"), "fn a() {}\n").unwrap();
        std::fs::write(dir.path().join("b.rs"), "fn b() {}\nfn c() {}\n").unwrap();
        let outcome = read_many(&["a.rs".into(), "b.rs".into()], &ctx(dir.path(), 1 << 20));
        assert!(outcome.result.success, "{:?}", outcome.result);
        let files = &outcome.result.data["files"];
        assert_eq!(files[0]["path"], "a.rs");
        assert!(files[1]["content"].as_str().unwrap().contains("2"));
        assert!(files[1]["estimated_tokens"].as_u64().unwrap() > 0);
        assert!(outcome.result.data.get("left_out").is_none());
    }

    #[test]
    fn what_would_exceed_the_budget_is_named_not_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("small"), "tiny\n").unwrap();
        std::fs::write(dir.path().join("big"), "word\n".repeat(200)).unwrap();
        // A 400-byte limit: a budget of 100 tokens.
        let outcome = read_many(
            &["small".into(), "big".into(), "missing".into()],
            &ctx(dir.path(), 400),
        );
        assert!(outcome.result.success);
        assert!(outcome.output_truncated);
        let data = &outcome.result.data;
        assert_eq!(data["files"].as_array().map(Vec::len), Some(1));
        let left: Vec<&str> = data["left_out"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|l| l["path"].as_str())
            .collect();
        assert_eq!(left, ["big", "missing"]);
        assert!(
            data["left_out"][0]["reason"]
                .as_str()
                .unwrap()
                .contains("tokens")
        );
    }
}
