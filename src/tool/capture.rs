//! Keeps the head and the tail of a command's output within a fixed budget and counts the rest,
//! so a command that prints gigabytes costs no more memory than one that prints a page.

use std::collections::VecDeque;

#[derive(Debug)]
pub(crate) struct Capture {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    half: usize,
    omitted: u64,
}

impl Capture {
    /// Keeps at most `budget` bytes: the first half and the last half.
    pub(crate) fn new(budget: usize) -> Self {
        Capture {
            head: Vec::new(),
            tail: VecDeque::new(),
            half: budget / 2,
            omitted: 0,
        }
    }

    pub(crate) fn push(&mut self, mut bytes: &[u8]) {
        let room = self.half.saturating_sub(self.head.len());
        let take = room.min(bytes.len());
        self.head.extend_from_slice(&bytes[..take]);
        bytes = &bytes[take..];
        if bytes.is_empty() {
            return;
        }
        if bytes.len() >= self.half {
            self.omitted += (self.tail.len() + bytes.len() - self.half) as u64;
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - self.half..]);
            return;
        }
        let overflow = (self.tail.len() + bytes.len()).saturating_sub(self.half);
        self.tail.drain(..overflow);
        self.omitted += overflow as u64;
        self.tail.extend(bytes);
    }

    pub(crate) fn truncated(&self) -> bool {
        self.omitted > 0
    }

    pub(crate) fn omitted(&self) -> u64 {
        self.omitted
    }

    /// The kept text, with a marker where bytes were left out.
    pub(crate) fn text(&self) -> String {
        let mut text = String::from_utf8_lossy(&self.head).into_owned();
        if self.omitted > 0 {
            text.push_str(&format!("\n[... {} bytes omitted ...]\n", self.omitted));
        }
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        text.push_str(&String::from_utf8_lossy(&tail));
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_output_is_kept_whole() {
        let mut c = Capture::new(100);
        c.push(b"hello ");
        c.push(b"world");
        assert_eq!(c.text(), "hello world");
        assert!(!c.truncated());
    }

    #[test]
    fn large_output_keeps_head_and_tail_and_counts_the_rest() {
        let mut c = Capture::new(10);
        for chunk in [&b"0123"[..], b"456789", b"abcdefghij", b"XYZ"] {
            c.push(chunk);
        }
        assert_eq!(c.omitted(), 23 - 10);
        assert_eq!(c.text(), "01234\n[... 13 bytes omitted ...]\nijXYZ");
    }
}
