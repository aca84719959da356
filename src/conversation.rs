//! Saved conversations: every REPL conversation and one-shot run as a JSONL file in
//! `$XDG_DATA_HOME/swebash-ai/conversations/` (one header line, then one line per message), so
//! `ai -i --resume` can continue the last one and `ai --history` can list them.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::config::Env;
use crate::journal;
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
    /// A new conversation file; the reason when it cannot be written (that must not stop a run).
    pub fn create(env: &Env, model: &str) -> Result<Self, String> {
        let dir = conversations_dir(env).ok_or("neither XDG_DATA_HOME nor HOME is set")?;
        let unwritable = |err: std::io::Error| format!("cannot write {}: {err}", dir.display());
        std::fs::create_dir_all(&dir).map_err(unwritable)?;
        let started = now_ms();
        let path = dir.join(format!("{started}-{}.jsonl", std::process::id()));
        let header = json!({"type": "meta", "started_unix_ms": started, "model": model});
        journal::open_append(&path)
            .and_then(|mut file| journal::append(&mut file, &[header.to_string()]))
            .map_err(unwritable)?;
        Ok(ConversationStore { path, saved: 0 })
    }

    /// The most recent conversation, its messages (system prompts are not kept: a resumed
    /// conversation gets a fresh one) and how many unreadable lines were skipped.
    pub fn open_last(env: &Env) -> Option<(Self, Vec<Message>, usize)> {
        let last = list_files(env)?.into_iter().next()?;
        let (messages, skipped) = read_messages(&last);
        let saved = messages.len();
        Some((ConversationStore { path: last, saved }, messages, skipped))
    }

    /// Appends the messages not yet saved (`messages` is the whole conversation, system prompt
    /// included, which is skipped).
    /// The new messages go out in one write, so a crash never leaves half of a message.
    pub fn save(&mut self, messages: &[Message]) -> Result<(), String> {
        let kept: Vec<&Message> = messages
            .iter()
            .filter(|m| !matches!(m, Message::System { .. }))
            .collect();
        if kept.len() <= self.saved {
            return Ok(());
        }
        let lines: Vec<String> = kept[self.saved..]
            .iter()
            .map(|message| {
                let mut line = serde_json::to_value(message).unwrap_or(Value::Null);
                line["type"] = json!("message");
                line.to_string()
            })
            .collect();
        journal::open_append(&self.path)
            .and_then(|mut file| journal::append(&mut file, &lines))
            .map_err(|err| format!("cannot write {}: {err}", self.path.display()))?;
        self.saved = kept.len();
        Ok(())
    }

    /// After older turns were dropped from the context: what is in the file stays.
    pub fn forget_dropped(&mut self, dropped: usize) {
        self.saved = self.saved.saturating_sub(dropped);
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
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

/// The messages of a conversation file and how many lines were unreadable (not JSON, not a
/// message, or not valid UTF-8: a file is read as bytes so one bad line costs only itself).
fn read_messages(path: &Path) -> (Vec<Message>, usize) {
    let bytes = std::fs::read(path).unwrap_or_default();
    let (values, mut skipped) = journal::parse(&String::from_utf8_lossy(&bytes));
    let messages = values
        .into_iter()
        .filter(|v| v["type"] != "meta")
        .filter_map(|mut v| {
            let message = (v["type"] == "message")
                .then(|| {
                    v.as_object_mut()?.remove("type");
                    serde_json::from_value(v).ok()
                })
                .flatten();
            skipped += usize::from(message.is_none());
            message
        })
        .collect();
    (messages, skipped)
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
            let (messages, _) = read_messages(&path);
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
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().display().to_string();
        let env = Env::from_pairs([("XDG_DATA_HOME", data.as_str())]);
        let mut store = ConversationStore::create(&env, "openai/m").unwrap();
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
        store.save(&messages).unwrap();
        store.save(&messages).unwrap();
        let (_, restored, skipped) = ConversationStore::open_last(&env).unwrap();
        assert_eq!(restored, messages[1..].to_vec());
        assert_eq!(skipped, 0);
        let listed = recent(&env, 10);
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].first_question, "first question");
        assert_eq!(listed[0].messages, 2);
        assert_eq!(listed[0].model, "openai/m");
    }

    #[test]
    fn a_corrupt_conversation_file_is_read_around_its_bad_lines() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().display().to_string();
        let env = Env::from_pairs([("XDG_DATA_HOME", data.as_str())]);
        let mut store = ConversationStore::create(&env, "m").unwrap();
        let question = Message::User {
            content: "q".into(),
        };
        store.save(std::slice::from_ref(&question)).unwrap();
        let mut bytes = std::fs::read(store.path()).unwrap();
        bytes.extend_from_slice(
            b"\xff\xfe not json\n{\"type\":\"message\",\"role\":\"nobody\"}\n{\"type\":\"mess",
        );
        std::fs::write(store.path(), bytes).unwrap();
        let (_, restored, skipped) = ConversationStore::open_last(&env).unwrap();
        assert_eq!(restored, [question]);
        assert_eq!(skipped, 3);
        assert_eq!(recent(&env, 5)[0].messages, 1);
    }
}
