//! Saved conversations: every REPL conversation and one-shot run as a JSONL file in
//! `$XDG_DATA_HOME/swebash-ai/conversations/` (one header line, then one line per message), so
//! `ai -i --resume` can continue the last one and `ai --history` can list them.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::config::Paths;
use crate::journal;
use crate::protocol::{Message, Untrusted};

/// One conversation being written.
pub(crate) struct ConversationStore {
    path: PathBuf,
    /// Messages of the conversation already in the file.
    saved: usize,
    /// Untrusted marks already in the file.
    untrusted: usize,
}

/// A line of `ai --history`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Summary {
    pub(crate) path: PathBuf,
    /// The file's name without `.jsonl`: what `--resume ID` takes.
    pub(crate) id: String,
    pub(crate) started_unix_ms: u64,
    pub(crate) model: String,
    /// `repl`, `oneshot` or `command` (empty for files written before the mode was kept).
    pub(crate) mode: String,
    pub(crate) cwd: String,
    pub(crate) first_question: String,
    pub(crate) messages: usize,
    /// Questions asked.
    pub(crate) turns: usize,
    /// How the conversation stands: `answered`, `no answer`, `interrupted` or `unfinished`.
    pub(crate) status: &'static str,
}

/// What kind of run wrote a conversation: the shell widget's are not resumed unless named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    OneShot,
    Repl,
    /// `ai --command`, the shell widget: its exchange is a command line, no conversation.
    Command,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::OneShot => "oneshot",
            Mode::Repl => "repl",
            Mode::Command => "command",
        }
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

impl ConversationStore {
    /// A new conversation file; the reason when it cannot be written (that must not stop a run).
    /// A new conversation file, the oldest beyond `keep` removed; the reason when it cannot be
    /// written (that must not stop a run).
    pub(crate) fn create(
        paths: &Paths,
        model: &str,
        mode: Mode,
        keep: usize,
    ) -> Result<Self, String> {
        let dir = paths
            .conversations_dir
            .as_ref()
            .ok_or("neither XDG_DATA_HOME nor HOME is set")?;
        let unwritable = |err: std::io::Error| format!("cannot write {}: {err}", dir.display());
        std::fs::create_dir_all(dir).map_err(unwritable)?;
        let started = now_ms();
        let path = dir.join(format!("{started}-{}.jsonl", std::process::id()));
        let cwd = paths
            .cwd
            .as_ref()
            .map(|d| d.display().to_string())
            .unwrap_or_default();
        let header = json!({"type": "meta", "started_unix_ms": started, "model": model,
            "mode": mode.name(), "cwd": cwd});
        journal::open_append(&path)
            .and_then(|mut file| journal::append(&mut file, &[header.to_string()]))
            .map_err(unwritable)?;
        prune(paths, keep);
        Ok(ConversationStore {
            path,
            saved: 0,
            untrusted: 0,
        })
    }

    /// The conversation to resume: the one named by `id`, else the most recent one (REPL or
    /// one-shot, not the shell widget's) that holds messages; with its summary and how many unreadable lines were skipped. System
    /// prompts are not kept: a resumed conversation gets a fresh one.
    pub(crate) fn open(
        paths: &Paths,
        id: Option<&str>,
    ) -> Option<(Self, Vec<Message>, Summary, usize)> {
        let path = list_files(paths)?.into_iter().find(|path| {
            let summary = summarize(path);
            match id {
                Some(id) => summary.id == id,
                None => summary.mode != Mode::Command.name() && summary.messages > 0,
            }
        })?;
        let (messages, skipped) = read_messages(&path);
        let summary = summarize(&path);
        let saved = messages.len();
        Some((
            ConversationStore {
                path,
                saved,
                untrusted: 0,
            },
            messages,
            summary,
            skipped,
        ))
    }

    /// Appends the messages not yet saved (`messages` is the whole conversation, system prompt
    /// included, which is skipped).
    /// The new messages go out in one write, so a crash never leaves half of a message.
    pub(crate) fn save(&mut self, messages: &[Message]) -> Result<(), String> {
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

    /// Which saved messages carry untrusted text (the `untrusted` lines of the file).
    pub(crate) fn untrusted(&mut self) -> Vec<Untrusted> {
        let bytes = std::fs::read(&self.path).unwrap_or_default();
        let (values, _) = journal::parse(&String::from_utf8_lossy(&bytes));
        let found: Vec<Untrusted> = values
            .into_iter()
            .filter(|v| v["type"] == "untrusted")
            .filter_map(|v| serde_json::from_value(v).ok())
            .collect();
        self.untrusted = found.len();
        found
    }

    /// Appends the untrusted marks not yet saved (`untrusted` is the whole list).
    pub(crate) fn save_untrusted(&mut self, untrusted: &[Untrusted]) -> Result<(), String> {
        let Some(new) = untrusted.get(self.untrusted..).filter(|n| !n.is_empty()) else {
            return Ok(());
        };
        let lines: Vec<String> = new
            .iter()
            .map(|mark| {
                let mut line = serde_json::to_value(mark).unwrap_or(Value::Null);
                line["type"] = json!("untrusted");
                line.to_string()
            })
            .collect();
        journal::open_append(&self.path)
            .and_then(|mut file| journal::append(&mut file, &lines))
            .map_err(|err| format!("cannot write {}: {err}", self.path.display()))?;
        self.untrusted = untrusted.len();
        Ok(())
    }

    /// After older turns were dropped from the context: what is in the file stays.
    pub(crate) fn forget_dropped(&mut self, dropped: usize) {
        self.saved = self.saved.saturating_sub(dropped);
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

/// Whether a saved conversation has the id `id`.
pub(crate) fn exists(paths: &Paths, id: &str) -> bool {
    list_files(paths)
        .unwrap_or_default()
        .iter()
        .any(|path| path.file_stem().is_some_and(|stem| stem == id))
}

/// Conversation files, newest first.
fn list_files(paths: &Paths) -> Option<Vec<PathBuf>> {
    let dir = paths.conversations_dir.as_ref()?;
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
        .filter(|v| v["type"] != "meta" && v["type"] != "untrusted")
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

/// Removes the oldest conversations beyond `keep` (a failure only leaves more files behind).
fn prune(paths: &Paths, keep: usize) {
    for old in list_files(paths).unwrap_or_default().into_iter().skip(keep) {
        let _ = std::fs::remove_file(old);
    }
}

/// The most recent conversations that hold a question, newest first.
pub(crate) fn recent(paths: &Paths, limit: usize) -> Vec<Summary> {
    list_files(paths)
        .unwrap_or_default()
        .iter()
        .map(|path| summarize(path))
        .filter(|summary| summary.turns > 0)
        .take(limit)
        .collect()
}

fn summarize(path: &Path) -> Summary {
    // Bytes, not a string: one bad byte later in the file must not lose the header.
    let bytes = std::fs::read(path).unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    let header: Value = text
        .lines()
        .next()
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or(Value::Null);
    let (messages, _) = read_messages(path);
    let first_question = messages
        .iter()
        .find_map(|m| match m {
            Message::User { content } => Some(
                content
                    .lines()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or_default()
                    .chars()
                    .take(70)
                    .collect(),
            ),
            _ => None,
        })
        .unwrap_or_default();
    let text_of = |key: &str| header[key].as_str().unwrap_or_default().to_string();
    Summary {
        id: path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        started_unix_ms: header["started_unix_ms"]
            .as_u64()
            .unwrap_or_else(|| start_of(path)),
        model: text_of("model"),
        mode: text_of("mode"),
        cwd: text_of("cwd"),
        first_question,
        messages: messages.len(),
        turns: messages
            .iter()
            .filter(|m| matches!(m, Message::User { .. }))
            .count(),
        status: status_of(&messages),
        path: path.to_path_buf(),
    }
}

/// How a conversation stands, from its last message.
fn status_of(messages: &[Message]) -> &'static str {
    match messages.last() {
        Some(Message::Assistant { content, .. }) if content.ends_with("[interrupted]") => {
            "interrupted"
        }
        Some(Message::Assistant {
            content,
            tool_calls,
        }) if tool_calls.is_empty() && !content.trim().is_empty() => "answered",
        Some(Message::User { .. }) => "no answer",
        _ => "unfinished",
    }
}

/// `2026-11-23 14:02` (UTC) for a time in milliseconds since the epoch.
pub(crate) fn utc_minute(unix_ms: u64) -> String {
    let minutes = unix_ms / 60_000;
    let (days, minute_of_day) = (minutes / 1440, minutes % 1440);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}",
        minute_of_day / 60,
        minute_of_day % 60
    )
}

/// Howard Hinnant's days-to-date algorithm, for days since 1970-01-01.
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Env;

    #[test]
    fn a_conversation_round_trips_and_the_last_one_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().display().to_string();
        let env = Paths::new(&Env::from_pairs([("XDG_DATA_HOME", data.as_str())]));
        let mut store = ConversationStore::create(&env, "openai/m", Mode::Repl, 10).unwrap();
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
        let (_, restored, summary, skipped) = ConversationStore::open(&env, None).unwrap();
        assert_eq!(summary.status, "answered");
        assert_eq!(summary.turns, 1);
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
        let env = Paths::new(&Env::from_pairs([("XDG_DATA_HOME", data.as_str())]));
        let mut store = ConversationStore::create(&env, "m", Mode::Repl, 10).unwrap();
        let question = Message::User {
            content: "q".into(),
        };
        store.save(std::slice::from_ref(&question)).unwrap();
        let mut bytes = std::fs::read(store.path()).unwrap();
        bytes.extend_from_slice(
            b"\xff\xfe not json\n{\"type\":\"message\",\"role\":\"nobody\"}\n{\"type\":\"mess",
        );
        std::fs::write(store.path(), bytes).unwrap();
        let (_, restored, _, skipped) = ConversationStore::open(&env, None).unwrap();
        assert_eq!(restored, [question]);
        assert_eq!(skipped, 3);
        assert_eq!(recent(&env, 5)[0].messages, 1);
    }

    #[test]
    fn times_are_shown_to_the_minute_in_utc() {
        assert_eq!(utc_minute(0), "1970-01-01 00:00");
        assert_eq!(utc_minute(1_795_392_120_000), "2026-11-23 00:02");
        assert_eq!(utc_minute(951_782_400_000), "2000-02-29 00:00");
    }

    #[test]
    fn only_the_newest_conversations_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().display().to_string();
        let env = Paths::new(&Env::from_pairs([("XDG_DATA_HOME", data.as_str())]));
        let conversations = env.conversations_dir.clone().unwrap();
        std::fs::create_dir_all(&conversations).unwrap();
        for started in 1..=5 {
            std::fs::write(conversations.join(format!("{started}-1.jsonl")), "").unwrap();
        }
        ConversationStore::create(&env, "m", Mode::OneShot, 3).unwrap();
        let left = list_files(&env).unwrap();
        assert_eq!(left.len(), 3);
        assert!(left.iter().all(|p| start_of(p) > 3), "{left:?}");
    }

    #[test]
    fn resume_takes_the_last_conversation_but_not_the_widgets() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().display().to_string();
        let env = Paths::new(&Env::from_pairs([("XDG_DATA_HOME", data.as_str())]));
        let question = |text: &str| Message::User {
            content: text.into(),
        };
        let mut repl = ConversationStore::create(&env, "m", Mode::Repl, 10).unwrap();
        repl.save(&[question("in the repl")]).unwrap();
        // Newer runs (written by hand: one process in one millisecond makes one name): a
        // one-shot run, then the shell widget's.
        let later = start_of(repl.path());
        for (offset, mode, content) in [(10, "oneshot", "one shot"), (20, "command", "widget")] {
            std::fs::write(
                repl.path().with_file_name(format!("{}-9.jsonl", later + offset)),
                format!(
                    "{}\n{}\n",
                    json!({"type": "meta", "started_unix_ms": later + offset, "model": "m", "mode": mode}),
                    json!({"type": "message", "role": "user", "content": content})
                ),
            )
            .unwrap();
        }
        let (_, messages, summary, _) = ConversationStore::open(&env, None).unwrap();
        assert_eq!(messages, [question("one shot")], "the widget's is skipped");
        assert_eq!(summary.status, "no answer");
        let by_id = ConversationStore::open(&env, Some(&recent(&env, 10)[0].id));
        assert_eq!(by_id.map(|(_, m, _, _)| m), Some(vec![question("widget")]));
    }
}
