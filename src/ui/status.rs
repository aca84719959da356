//! The one line left on the terminal per finished tool call: a mark that tells the truth (a
//! failing command is not a success), the status that matters kept whole, the line fitted to the
//! terminal so it never wraps into debris.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::protocol::{CallErrorCode, Decision, ToolCallRecord};

/// The line for a finished call; `width` is the terminal's (0: not a terminal, no fitting).
pub(crate) fn finished_line(record: &ToolCallRecord, summary: &str, width: usize) -> String {
    let (mark, status) = verdict(record);
    let head = format!("  {mark} {} {summary}", record.name);
    let tail = format!("{status} ({} ms)", record.duration_ms);
    let detail = record
        .error
        .as_ref()
        .filter(|error| !error.message.is_empty())
        .map(|error| format!(": {}", one_line(&error.message)))
        .unwrap_or_default();
    if width == 0 {
        return format!("{head}{tail}{detail}");
    }
    // The status and time are what a person looks for: the arguments give way first.
    let room = width.saturating_sub(tail.width() + 1).max(12);
    let line = format!("{}{tail}{detail}", fit(&head, room));
    fit(&line, width.saturating_sub(1))
}

/// The mark and the status words: `✓` only for a call that worked and a command that exited 0.
fn verdict(record: &ToolCallRecord) -> (&'static str, String) {
    if record.decision == Decision::Duplicate {
        return ("↺", " cached".into());
    }
    match record.error.as_ref().map(|e| e.code) {
        Some(CallErrorCode::Blocked) => return ("⊘", " blocked".into()),
        Some(CallErrorCode::Timeout) => return ("⏱", " timeout".into()),
        Some(CallErrorCode::Denied) => return ("✗", " denied".into()),
        _ => {}
    }
    match record.exit_code {
        Some(code) if code != 0 => ("✗", format!(" exit {code}")),
        _ if !record.ok => ("✗", " failed".into()),
        _ => ("✓", String::new()),
    }
}

/// The first line of a message, so one call stays one line.
fn one_line(text: &str) -> String {
    let first = text.lines().next().unwrap_or_default();
    if first.len() < text.trim_end().len() {
        format!("{first} …")
    } else {
        first.to_string()
    }
}

/// `text` cut to `width` columns, with `…` where it was cut.
pub(crate) fn fit(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::CallError;
    use serde_json::json;

    fn record(ok: bool, exit_code: Option<i32>, error: Option<CallErrorCode>) -> ToolCallRecord {
        ToolCallRecord {
            id: "c1".into(),
            name: "execute_command".into(),
            arguments: json!({"command": "cargo build"}),
            decision: Decision::Allow,
            ok,
            exit_code,
            duration_ms: 840,
            output_truncated: false,
            error: error.map(|code| CallError {
                code,
                message: "what happened".into(),
            }),
        }
    }

    #[test]
    fn a_failing_command_is_a_cross_with_its_exit_code() {
        let line = finished_line(&record(true, Some(101), None), "cargo build", 0);
        assert_eq!(line, "  ✗ execute_command cargo build exit 101 (840 ms)");
    }

    #[test]
    fn success_alone_is_a_tick() {
        let line = finished_line(&record(true, Some(0), None), "cargo build", 0);
        assert_eq!(line, "  ✓ execute_command cargo build (840 ms)");
    }

    #[test]
    fn blocked_timeout_and_cached_have_their_own_marks() {
        let blocked = finished_line(
            &record(false, Some(1), Some(CallErrorCode::Blocked)),
            "x",
            0,
        );
        assert!(blocked.starts_with("  ⊘ ") && blocked.contains(" blocked"));
        let slow = finished_line(&record(false, None, Some(CallErrorCode::Timeout)), "x", 0);
        assert!(slow.starts_with("  ⏱ ") && slow.contains(" timeout"));
        let mut again = record(true, Some(0), None);
        again.decision = Decision::Duplicate;
        assert!(finished_line(&again, "x", 0).starts_with("  ↺ "));
    }

    #[test]
    fn a_long_line_fits_the_width_and_keeps_its_status() {
        let long = "a".repeat(300);
        let line = finished_line(&record(true, Some(2), None), &long, 40);
        assert!(line.width() < 40, "{line}");
        assert!(line.contains("exit 2"), "{line}");
    }

    #[test]
    fn fitting_counts_columns_not_bytes() {
        assert_eq!(fit("日本語です", 5), "日本…");
        assert_eq!(fit("short", 10), "short");
    }
}
