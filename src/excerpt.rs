//! Long input cut to what matters: the head and the tail (a failing build or test says why at
//! the end), cut at line boundaries, with a count of what was left out in the middle. Reads a
//! stream of any length in bounded memory.

use std::io::{self, Read};

/// What is kept of a long input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Excerpt {
    pub(crate) head: Vec<u8>,
    pub(crate) tail: Vec<u8>,
    /// Whole lines between `head` and `tail` that were left out (0: nothing was cut).
    pub(crate) omitted_lines: u64,
    pub(crate) omitted_bytes: u64,
}

impl Excerpt {
    pub(crate) fn is_cut(&self) -> bool {
        self.omitted_bytes > 0
    }

    /// The text with a marker where the middle was left out.
    pub(crate) fn to_text(&self) -> String {
        let head = String::from_utf8_lossy(&self.head);
        if !self.is_cut() {
            return head.into_owned();
        }
        let tail = String::from_utf8_lossy(&self.tail);
        format!(
            "{head}[… {} lines ({} bytes) left out here …]\n{tail}",
            self.omitted_lines, self.omitted_bytes
        )
    }
}

/// Reads `reader` to its end, keeping at most `head_max` bytes from the start and `tail_max`
/// from the end.
pub(crate) fn read_excerpt(
    mut reader: impl Read,
    head_max: usize,
    tail_max: usize,
) -> io::Result<Excerpt> {
    let mut head = Vec::new();
    (&mut reader)
        .take(u64::try_from(head_max).unwrap_or(u64::MAX))
        .read_to_end(&mut head)?;
    let mut tail = Vec::new();
    let mut dropped_bytes = 0u64;
    let mut dropped_lines = 0u64;
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        tail.extend_from_slice(&chunk[..n]);
        // Compacting only past twice the limit keeps the copying linear.
        if tail.len() > 2 * tail_max {
            let excess = tail.len() - tail_max;
            dropped_lines += count_lines(&tail[..excess]);
            dropped_bytes += excess as u64;
            tail.drain(..excess);
        }
    }
    if tail.len() > tail_max {
        let excess = tail.len() - tail_max;
        dropped_lines += count_lines(&tail[..excess]);
        dropped_bytes += excess as u64;
        tail.drain(..excess);
    }
    if dropped_bytes == 0 {
        // It all fit: nothing to leave out.
        head.extend_from_slice(&tail);
        return Ok(whole(head));
    }
    Ok(at_line_boundaries(head, tail, dropped_bytes, dropped_lines))
}

fn whole(text: Vec<u8>) -> Excerpt {
    Excerpt {
        head: text,
        tail: Vec::new(),
        omitted_lines: 0,
        omitted_bytes: 0,
    }
}

/// Moves the cuts to line boundaries: the head ends after its last newline and the tail starts
/// after its first, so no half line is shown (unless a line is longer than the whole limit).
fn at_line_boundaries(
    mut head: Vec<u8>,
    mut tail: Vec<u8>,
    mut dropped_bytes: u64,
    mut dropped_lines: u64,
) -> Excerpt {
    if let Some(last) = head.iter().rposition(|&b| b == b'\n') {
        let rest = head.split_off(last + 1);
        dropped_lines += count_lines(&rest);
        dropped_bytes += rest.len() as u64;
    }
    if let Some(first) = tail.iter().position(|&b| b == b'\n')
        && first + 1 < tail.len()
    {
        let rest = tail.split_off(first + 1);
        dropped_lines += 1;
        dropped_bytes += tail.len() as u64;
        tail = rest;
    }
    Excerpt {
        head,
        tail,
        omitted_lines: dropped_lines,
        omitted_bytes: dropped_bytes,
    }
}

fn count_lines(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(n: usize) -> String {
        (1..=n).map(|i| format!("line {i}\n")).collect()
    }

    fn cut(text: &str, head: usize, tail: usize) -> Excerpt {
        read_excerpt(text.as_bytes(), head, tail).unwrap_or_else(|_| whole(Vec::new()))
    }

    #[test]
    fn short_input_is_kept_whole() {
        let text = lines(3);
        let excerpt = cut(&text, 100, 100);
        assert!(!excerpt.is_cut());
        assert_eq!(excerpt.to_text(), text);
    }

    #[test]
    fn input_just_over_the_head_but_within_both_limits_is_kept_whole() {
        let text = lines(30);
        let excerpt = cut(&text, 50, 500);
        assert!(!excerpt.is_cut());
        assert_eq!(excerpt.to_text(), text);
    }

    #[test]
    fn long_input_keeps_whole_first_and_last_lines_and_counts_the_rest() {
        let text = lines(10_000);
        let excerpt = cut(&text, 100, 100);
        let shown = excerpt.to_text();
        assert!(shown.starts_with("line 1\n"), "{shown}");
        assert!(shown.ends_with("line 10000\n"), "{shown}");
        let kept_head = String::from_utf8_lossy(&excerpt.head).lines().count() as u64;
        let kept_tail = String::from_utf8_lossy(&excerpt.tail).lines().count() as u64;
        assert_eq!(kept_head + kept_tail + excerpt.omitted_lines, 10_000);
        assert!(excerpt.head.ends_with(b"\n") && excerpt.tail.starts_with(b"line "));
        assert_eq!(
            excerpt.head.len() as u64 + excerpt.tail.len() as u64 + excerpt.omitted_bytes,
            text.len() as u64
        );
        assert!(shown.contains(&format!("{} lines", excerpt.omitted_lines)));
    }

    #[test]
    fn the_count_is_right_whatever_the_read_size() {
        // A reader that hands out 7 bytes at a time exercises the compaction of the tail.
        struct Trickle<'a>(&'a [u8]);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = buf.len().min(7).min(self.0.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let text = lines(5_000);
        let excerpt =
            read_excerpt(Trickle(text.as_bytes()), 64, 64).unwrap_or_else(|_| whole(Vec::new()));
        let kept = String::from_utf8_lossy(&excerpt.head).lines().count() as u64
            + String::from_utf8_lossy(&excerpt.tail).lines().count() as u64;
        assert_eq!(kept + excerpt.omitted_lines, 5_000);
        assert!(excerpt.to_text().ends_with("line 5000\n"));
    }

    #[test]
    fn one_endless_line_is_cut_by_bytes() {
        let text = "y".repeat(10_000);
        let excerpt = cut(&text, 100, 100);
        assert_eq!(excerpt.head.len(), 100);
        assert_eq!(excerpt.tail.len(), 100);
        assert_eq!(excerpt.omitted_bytes, 9_800);
    }
}
