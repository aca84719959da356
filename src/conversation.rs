//! Saved conversations: every REPL conversation and one-shot run as a JSONL file in
//! `$XDG_DATA_HOME/swebash-ai/conversations/` (one header line, then one line per message), so
//! `ai -i --resume` can continue the last one and `ai --history` can list them.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::config::Env;
use crate::protocol::Message;

/// `$XDG_DATA_HOME/swebash-ai`, else `~/.local/share/swebash-ai`.
pub fn data_dir(env: &Env) -> Option<PathBuf> {
    let base = match env.get("XDG_DATA_HOME") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env.get("HOME")?).join(".local/share"),
    };
    Some(base.join("swebash-ai"))
}

fn conversations_dir(env: &Env) -> Option<PathBuf> {
    data_dir(env).map(|d| d.join("conversations"))
}

/// One conversation being written.
pub struct ConversationStore {
    path: PathBuf,
    /// Messages of the conversation already in the file.
    saved: usize,
}

/// A line of `ai --history`.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub path: PathBuf,
    pub started_unix_ms: u64,
    pub model: String,
    pub first_question: String,
    pub messages: usize,
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

impl ConversationStore {
    /// A new conversation file; `None` when it cannot be written (that must not stop a run).
    pub fn create(env: &Env, model: &str) -> Option<Self> {
        let dir = conversations_dir(env)?;
        std::fs::create_dir_all(&dir).ok()?;
        let started = now_ms();
        let path = dir.join(format!("{started}-{}.jsonl", std::process::id()));
        let header = json!({"type": "meta", "started_unix_ms": started, "model": model});
        let mut file = open_append(&path)?;
        writeln!(file, "{header}").ok()?;
        Some(ConversationStore { path, saved: 0 })
    }

    /// The most recent conversation and its messages (system prompts are not kept: a resumed
    /// conversation gets a fresh one).
    pub fn open_last(env: &Env) -> Option<(Self, Vec<Message>)> {
        let last = list_files(env)?.into_iter().next()?;
        let messages = read_messages(&last);
        let saved = messages.len();
        Some((ConversationStore { path: last, saved }, messages))
    }

    /// Appends the messages not yet saved (`messages` is the whole conversation, system prompt
    /// included, which is skipped).
    pub fn save(&mut self, messages: &[Message]) {
        let kept: Vec<&Message> = messages
            .iter()
            .filter(|m| !matches!(m, Message::System { .. }))
            .collect();
        if kept.len() <= self.saved {
            return;
        }
        let Some(mut file) = open_append(&self.path) else {
            return;
        };
        for message in &kept[self.saved..] {
            let mut line = serde_json::to_value(message).unwrap_or(Value::Null);
            line["type"] = json!("message");
            if writeln!(file, "{line}").is_err() {
                return;
            }
        }
        self.saved = kept.len();
    }

    /// After older turns were dropped from the context: what is in the file stays.
    pub fn forget_dropped(&mut self, dropped: usize) {
        self.saved = self.saved.saturating_sub(dropped);
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn open_append(path: &Path) -> Option<std::fs::File> {
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path).ok()
}

/// Conversation files, newest first.
fn list_files(env: &Env) -> Option<Vec<PathBuf>> {
    let dir = conversations_dir(env)?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    // Names start with the start time in milliseconds: a numeric sort is a time sort.
    files.sort_by_key(|p| std::cmp::Reverse(start_of(p)));
    Some(files)
}

fn start_of(path: &Path) -> u64 {
    path.file_stem()
        .and_then(|s| s.to_str())
        .and_then(|s| s.split('-').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

fn read_messages(path: &Path) -> Vec<Message> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|v| v["type"] == "message")
        .filter_map(|mut v| {
            if let Some(object) = v.as_object_mut() {
                object.remove("type");
            }
            serde_json::from_value(v).ok()
        })
        .collect()
}

/// The most recent conversations, newest first.
pub fn recent(env: &Env, limit: usize) -> Vec<Summary> {
    list_files(env)
        .unwrap_or_default()
        .into_iter()
        .take(limit)
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let header: Value = text
                .lines()
                .next()
                .and_then(|l| serde_json::from_str(l).ok())
                .unwrap_or(Value::Null);
            let messages = read_messages(&path);
            let first_question = messages
                .iter()
                .find_map(|m| match m {
                    Message::User { content } => Some(
                        content
                            .lines()
                            .next()
                            .unwrap_or_default()
                            .chars()
                            .take(70)
                            .collect(),
                    ),
                    _ => None,
                })
                .unwrap_or_default();
            Summary {
                started_unix_ms: header["started_unix_ms"]
                    .as_u64()
                    .unwrap_or_else(|| start_of(&path)),
                model: header["model"].as_str().unwrap_or_default().to_string(),
                first_question,
                messages: messages.len(),
                path,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_conversation_round_trips_and_the_last_one_is_found() {
        let Ok(dir) = tempfile::tempdir() else { return };
        let data = dir.path().display().to_string();
        let env = Env::from_pairs([("XDG_DATA_HOME", data.as_str())]);
        let Some(mut store) = ConversationStore::create(&env, "openai/m") else {
            return;
        };
        let messages = vec![
            Message::System {
                content: "s".into(),
            },
            Message::User {
                content: "first question\nmore".into(),
            },
            Message::Assistant {
                content: "answer".into(),
                tool_calls: Vec::new(),
            },
        ];
        store.save(&messages);
        store.save(&messages);
        let (_, restored) =
            ConversationStore::open_last(&env).unwrap_or_else(|| (store, Vec::new()));
        assert_eq!(restored, messages[1..].to_vec());
        let listed = recent(&env, 10);
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].first_question, "first question");
        assert_eq!(listed[0].messages, 2);
        assert_eq!(listed[0].model, "openai/m");
    }
}
