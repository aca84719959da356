//! Append-only JSON-lines files that several `ai` processes may write at once (the audit log,
//! saved conversations): each batch of records goes out in one `write` on a file opened with
//! `O_APPEND`, so lines never interleave, and reading skips a line a crash left unreadable.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;

use serde_json::Value;

/// Opens `path` for appending, creating it private to the user (mode 0600).
pub(crate) fn open_append(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

/// Appends `lines`, each ended by a newline, with a single `write` call: with `O_APPEND` the
/// kernel places it whole at the end, whoever else is appending. (`writeln!` would issue one
/// write for the text and another for the newline, and two processes could interleave them.)
pub(crate) fn append(file: &mut File, lines: &[String]) -> std::io::Result<()> {
    let mut buffer = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for line in lines {
        buffer.push_str(line);
        buffer.push('\n');
    }
    file.write_all(buffer.as_bytes())
}

/// The JSON values of a JSON-lines text and how many lines were unreadable (cut off by a crash,
/// or not JSON at all).
pub(crate) fn parse(text: &str) -> (Vec<Value>, usize) {
    let mut skipped = 0;
    let values = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .filter_map(|line| {
            let value = serde_json::from_str(line).ok();
            skipped += usize::from(value.is_none());
            value
        })
        .collect();
    (values, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_is_one_write_and_a_torn_line_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        let mut file = open_append(&path).unwrap();
        append(&mut file, &["{\"a\":1}".into(), "{\"b\":2}".into()]).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"{\"c\":")
            .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let (values, skipped) = parse(&text);
        assert_eq!(values.len(), 2);
        assert_eq!(skipped, 1);
    }

    #[test]
    fn processes_appending_at_once_never_interleave() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        let writers: Vec<_> = (0..8)
            .map(|n| {
                let path = path.clone();
                std::thread::spawn(move || {
                    let mut file = open_append(&path).unwrap();
                    let line = format!("{{\"writer\":{n},\"pad\":\"{}\"}}", "x".repeat(3000));
                    for _ in 0..200 {
                        append(&mut file, std::slice::from_ref(&line)).unwrap();
                    }
                })
            })
            .collect();
        for writer in writers {
            writer.join().unwrap();
        }
        let (values, skipped) = parse(&std::fs::read_to_string(&path).unwrap());
        assert_eq!((values.len(), skipped), (1600, 0));
    }
}
