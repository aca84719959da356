//! The audit log: every tool call (tool, arguments, decision, who decided, exit code, duration) as
//! one JSON line in `$XDG_STATE_HOME/swebash-ai/audit.jsonl`, mode 0600, rotated by size, and one
//! `"type": "turn"` line per turn (model, iterations, calls, tokens) for `ai --stats`. It is one
//! more consumer of the event stream; secrets this process holds are scrubbed from each line.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::config::Secret;
use crate::protocol::Event;

/// When the log passes this size it is moved to `audit.jsonl.1` and a new one started.
const ROTATE_BYTES: u64 = 5 * 1024 * 1024;

pub(crate) struct AuditLog {
    file: File,
    secrets: Vec<String>,
    decided_by: HashMap<String, String>,
    /// The model of the run, for turn lines.
    model: String,
    /// Tool calls completed in the current turn.
    calls_in_turn: u32,
}

/// The rotated part of the log at `path` (`audit.jsonl.1`).
pub(crate) fn rotated(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(".1");
    PathBuf::from(name)
}

impl AuditLog {
    /// Opens (creating, rotating) the log at `path`; the reason when it cannot be written, which
    /// must not stop the run.
    pub(crate) fn open(path: &Path, secrets: &[Secret]) -> Result<Self, String> {
        let unwritable = |err: std::io::Error| format!("{}: {err}", path.display());
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(unwritable)?;
        }
        if std::fs::metadata(path).is_ok_and(|m| m.len() > ROTATE_BYTES) {
            let _ = std::fs::rename(path, rotated(path));
        }
        let file = crate::journal::open_append(path).map_err(unwritable)?;
        Ok(AuditLog {
            file,
            secrets: secrets
                .iter()
                .map(|s| s.expose().to_string())
                .filter(|s| s.len() >= 4)
                .collect(),
            decided_by: HashMap::new(),
            model: String::new(),
            calls_in_turn: 0,
        })
    }

    pub(crate) fn observe(&mut self, event: &Event) {
        match event {
            Event::RunStarted {
                provider, model, ..
            } => {
                self.model = format!("{provider}/{model}");
                self.calls_in_turn = 0;
            }
            Event::TurnCompleted { usage, iterations } => {
                let line = json!({
                    "type": "turn",
                    "time_unix_ms": now_ms(),
                    "model": self.model,
                    "iterations": iterations,
                    "tool_calls": self.calls_in_turn,
                    "input_tokens": usage.map(|u| u.input_tokens),
                    "output_tokens": usage.map(|u| u.output_tokens),
                });
                self.calls_in_turn = 0;
                self.write(line.to_string());
            }
            Event::ApprovalDecided { id, by, .. } => {
                self.decided_by.insert(id.clone(), by.clone());
            }
            Event::ToolCallCompleted { record } => {
                let by = self
                    .decided_by
                    .remove(&record.id)
                    .unwrap_or_else(|| "policy".to_string());
                self.calls_in_turn += 1;
                let line = json!({
                    "time_unix_ms": now_ms(),
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
                self.write(line);
            }
            _ => {}
        }
    }

    fn write(&mut self, mut line: String) {
        for secret in &self.secrets {
            line = line.replace(secret, "<redacted>");
        }
        // One write per line: other `ai` processes append to the same log.
        let _ = crate::journal::append(&mut self.file, &[line]);
    }
}

fn now_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Decision, ToolCallRecord};

    fn record() -> Event {
        Event::ToolCallCompleted {
            record: ToolCallRecord {
                id: "c1".into(),
                name: "execute_command".into(),
                arguments: json!({"command": "echo sk-secret-123"}),
                decision: Decision::Approved,
                ok: true,
                exit_code: Some(0),
                duration_ms: 3,
                output_truncated: false,
                error: None,
            },
        }
    }

    #[test]
    fn lines_say_who_decided_without_secrets_and_big_logs_rotate() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("audit.jsonl");
        std::fs::write(&big, vec![b'x'; (ROTATE_BYTES + 1) as usize]).unwrap();
        let mut log = AuditLog::open(&big, &[Secret::new("sk-secret-123")]).unwrap();
        log.observe(&Event::ApprovalDecided {
            id: "c1".into(),
            decision: Decision::Approved,
            by: "--yes".into(),
        });
        log.observe(&record());
        drop(log);
        assert!(
            dir.path().join("audit.jsonl.1").exists(),
            "the big log was rotated"
        );
        let text = std::fs::read_to_string(&big).unwrap_or_default();
        let line: serde_json::Value = serde_json::from_str(text.trim()).unwrap_or_default();
        assert_eq!(line["decided_by"], json!("--yes"));
        assert_eq!(line["decision"], json!("approved"));
        assert!(
            !text.contains("sk-secret-123") && text.contains("<redacted>"),
            "{text}"
        );
    }
}
