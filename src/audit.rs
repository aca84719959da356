//! The audit log: every tool call (tool, arguments, decision, who decided, exit code, duration) as
//! one JSON line in `$XDG_STATE_HOME/swebash-ai/audit.jsonl`, mode 0600, rotated by size. It is
//! one more consumer of the event stream; secrets this process holds are scrubbed from each line.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::config::{Env, Secret};
use crate::protocol::Event;

/// When the log passes this size it is moved to `audit.jsonl.1` and a new one started.
const ROTATE_BYTES: u64 = 5 * 1024 * 1024;

pub struct AuditLog {
    file: File,
    secrets: Vec<String>,
    decided_by: HashMap<String, String>,
}

/// `$XDG_STATE_HOME/swebash-ai`, else `~/.local/state/swebash-ai`.
pub fn state_dir(env: &Env) -> Option<PathBuf> {
    let base = match env.get("XDG_STATE_HOME") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env.get("HOME")?).join(".local/state"),
    };
    Some(base.join("swebash-ai"))
}

impl AuditLog {
    /// Opens (creating, rotating) the log in `dir`; `None` when it cannot be written, which must
    /// not stop the run.
    pub fn open(dir: &Path, secrets: &[Secret]) -> Option<Self> {
        std::fs::create_dir_all(dir).ok()?;
        let path = dir.join("audit.jsonl");
        if std::fs::metadata(&path).is_ok_and(|m| m.len() > ROTATE_BYTES) {
            let _ = std::fs::rename(&path, dir.join("audit.jsonl.1"));
        }
        let mut options = OpenOptions::new();
        options.create(true).append(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let file = options.open(&path).ok()?;
        Some(AuditLog {
            file,
            secrets: secrets
                .iter()
                .map(|s| s.expose().to_string())
                .filter(|s| s.len() >= 4)
                .collect(),
            decided_by: HashMap::new(),
        })
    }

    pub fn observe(&mut self, event: &Event) {
        match event {
            Event::ApprovalDecided { id, by, .. } => {
                self.decided_by.insert(id.clone(), by.clone());
            }
            Event::ToolCallCompleted { record } => {
                let by = self
                    .decided_by
                    .remove(&record.id)
                    .unwrap_or_else(|| "policy".to_string());
                let unix_ms = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_millis())
                    .unwrap_or(0);
                let line = json!({
                    "time_unix_ms": unix_ms,
                    "tool": record.name,
                    "arguments": record.arguments,
                    "decision": record.decision,
                    "decided_by": by,
                    "ok": record.ok,
                    "exit_code": record.exit_code,
                    "duration_ms": record.duration_ms,
                    "error": record.error,
                })
                .to_string();
                let mut line = line;
                for secret in &self.secrets {
                    line = line.replace(secret, "<redacted>");
                }
                let _ = writeln!(self.file, "{line}");
            }
            _ => {}
        }
    }
}
