//! The segmenter shared by the whole-text and the streaming parser: it cuts model text into text,
//! reasoning, fenced blocks (calls or code) and the call region, deciding each piece only once
//! enough text has arrived, so every chunking of a reply gives the same pieces. Quote- and
//! code-aware: markers inside inline code or another language's code block are text.

use super::bare::{self, Candidate};
use super::pythonic::Balance;
use super::region::Item;
use super::{Format, ParsedCall};

const THINK: [(&str, &str); 4] = [
    ("<think>", "</think>"),
    ("<thinking>", "</thinking>"),
    ("[THINK]", "[/THINK]"),
    // Gemma 4's thought channel.
    ("<|channel>", "<channel|>"),
];

/// One decided piece of a reply.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Segment {
    Text(String),
    Reasoning(String),
    /// A fenced block that holds calls.
    FenceCalls(Vec<Result<ParsedCall, String>>),
    /// From the first call marker (or a bare `{`/`[` opening the reply) to the end.
    Region(String),
}

/// What the segmenter is waiting for, and how far it has already looked (so a long wait stays
/// linear when the text arrives a byte at a time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Wait {
    at: usize,
    searched: usize,
}

#[derive(Debug, Default)]
pub(crate) struct Segmenter {
    pos: usize,
    in_region: bool,
    saw_think: bool,
    wait: Option<Wait>,
    /// The bracket scan of a marker-less call at this byte: its end once found.
    balance: Option<(usize, Result<usize, Balance>)>,
    pub(crate) segments: Vec<Segment>,
    /// Every piece of text decided as text, in order (what a stream may show at once).
    pub(crate) text_log: String,
}

impl Segmenter {
    pub(crate) fn new() -> Self {
        Segmenter::default()
    }

    /// Decides what it can of `buf` (the whole text so far); at `eof` everything is decided.
    pub(crate) fn advance(&mut self, buf: &str, eof: bool, format: &dyn Format) {
        if self.in_region {
            if eof {
                self.segments
                    .push(Segment::Region(buf[self.pos..].to_string()));
                self.pos = buf.len();
            }
            return;
        }
        let bytes = buf.as_bytes();
        let mut scan = self.pos;
        loop {
            let Some(offset) = bytes[scan..]
                .iter()
                .position(|b| matches!(b, b'<' | b'[' | b'`' | b'{'))
            else {
                self.text(buf, buf.len());
                return;
            };
            let i = scan + offset;
            let rest = &buf[i..];
            // Reasoning.
            if let Some((open, close)) = THINK.iter().find(|(open, _)| rest.starts_with(open)) {
                let from = self.wait_from(i, i + open.len());
                match buf[from..].find(close) {
                    Some(found) => {
                        self.text(buf, i);
                        let end = from + found;
                        self.segments
                            .push(Segment::Reasoning(buf[i + open.len()..end].to_string()));
                        self.saw_think = true;
                        self.pos = end + close.len();
                        self.wait = None;
                        scan = self.pos;
                        continue;
                    }
                    None if eof => {
                        self.text(buf, i);
                        self.segments
                            .push(Segment::Reasoning(buf[i + open.len()..].to_string()));
                        self.pos = buf.len();
                        return;
                    }
                    None => {
                        self.text(buf, i);
                        self.wait = Some(Wait {
                            at: i,
                            searched: floor_char(buf, buf.len().saturating_sub(close.len())),
                        });
                        return;
                    }
                }
            }
            // A reasoning close with no open: the reply started mid-reasoning.
            if let Some((_, close)) = THINK.iter().find(|(_, close)| rest.starts_with(close)) {
                self.text(buf, i);
                if !self.saw_think {
                    self.reclassify_as_reasoning();
                    self.saw_think = true;
                }
                self.pos = i + close.len();
                scan = self.pos;
                continue;
            }
            // A call marker opens the region, unless prose follows it.
            if let Some(marker) = format.open_markers().iter().find(|m| rest.starts_with(**m)) {
                let after = rest[marker.len()..].trim_start();
                if !eof && could_still_open(after) {
                    self.text(buf, i);
                    return;
                }
                if opens_call(after, marker) {
                    self.text(buf, i);
                    self.in_region = true;
                    return self.advance(buf, eof, format);
                }
                scan = i + marker.len();
                continue;
            }
            // The start of a marker, cut off by the end of what has arrived.
            if !eof && is_partial_marker(rest, format) {
                self.text(buf, i);
                return;
            }
            if matches!(bytes[i], b'{' | b'[') {
                match self.bare(buf, i, eof, format) {
                    Some(next) => {
                        scan = next;
                        continue;
                    }
                    None => return,
                }
            }
            if bytes[i] == b'`' {
                match self.code(buf, i, eof, format) {
                    Some(next) => {
                        scan = next;
                        continue;
                    }
                    None => return,
                }
            }
            scan = i + 1;
        }
    }

    /// A call with no marker at `i` (`{` or `[`). Returns where scanning goes on, or `None` to
    /// wait for more text (or when the calls ran to the end).
    fn bare(&mut self, buf: &str, i: usize, eof: bool, format: &dyn Format) -> Option<usize> {
        let rest = &buf[i..];
        let (items, end) = match self.bare_candidate(rest, i, format, eof) {
            Candidate::Wait => {
                self.text(buf, i);
                return None;
            }
            Candidate::No => return Some(i + 1),
            // A stray close bracket right after the call belongs to it; wait to see the next byte.
            Candidate::Span(len) if !eof && i + len == buf.len() => {
                self.text(buf, i);
                return None;
            }
            Candidate::Span(len) => {
                let tail = &rest[len..];
                let stray = tail
                    .bytes()
                    .take_while(|b| matches!(b, b']' | b'}'))
                    .count();
                // `{…}; {…}`: the separator belongs to the calls.
                let after = tail[stray..].trim_start();
                if !eof && after.is_empty() {
                    self.text(buf, i);
                    return None;
                }
                let separator = if after.starts_with(';') {
                    tail.len() - after.len() + 1
                } else {
                    stray
                };
                (bare::calls(&rest[..len], format), i + len + separator)
            }
            Candidate::Unclosed => (bare::unclosed(rest, format), buf.len()),
        };
        let Some(items) = items else {
            return Some(i + 1);
        };
        self.text(buf, i);
        let mut calls = Vec::new();
        let mut after = String::new();
        for item in items {
            match item {
                Item::Call(call) => calls.push(call),
                Item::Content(text) => after.push_str(&text),
            }
        }
        self.segments.push(Segment::FenceCalls(calls));
        if !after.is_empty() {
            self.segments.push(Segment::Text(after));
        }
        self.pos = end;
        Some(end)
    }

    /// `bare::candidate`, resuming the bracket scan of a candidate at `i` where the last call
    /// left it.
    fn bare_candidate(
        &mut self,
        rest: &str,
        i: usize,
        format: &dyn Format,
        eof: bool,
    ) -> Candidate {
        match bare::opens(rest, format) {
            None if eof => return Candidate::No,
            None => return Candidate::Wait,
            Some(false) => return Candidate::No,
            Some(true) => {}
        }
        let found = match self.balance {
            Some((at, found)) if at == i => found,
            _ => Err(Balance::new(0)),
        };
        let found = found.or_else(|mut balance| balance.run(rest).ok_or(balance));
        self.balance = Some((i, found));
        match found {
            Ok(len) => Candidate::Span(len),
            Err(_) if eof => Candidate::Unclosed,
            Err(_) => Candidate::Wait,
        }
    }

    /// Where to resume a search for a construct starting at `at` (first search: `from`).
    fn wait_from(&self, at: usize, from: usize) -> usize {
        match self.wait {
            Some(wait) if wait.at == at => wait.searched.max(from),
            _ => from,
        }
    }

    /// Emits `buf[pos..end]` as text.
    fn text(&mut self, buf: &str, end: usize) {
        if end > self.pos {
            let piece = &buf[self.pos..end];
            self.text_log.push_str(piece);
            match self.segments.last_mut() {
                Some(Segment::Text(text)) => text.push_str(piece),
                _ => self.segments.push(Segment::Text(piece.to_string())),
            }
            self.pos = end;
        }
    }

    fn reclassify_as_reasoning(&mut self) {
        for segment in &mut self.segments {
            if let Segment::Text(text) = segment {
                *segment = Segment::Reasoning(std::mem::take(text));
            }
        }
    }

    /// Inline code or a fenced block at `i`. Returns where scanning goes on, or `None` to wait.
    fn code(&mut self, buf: &str, i: usize, eof: bool, format: &dyn Format) -> Option<usize> {
        let bytes = buf.as_bytes();
        let run = bytes[i..].iter().take_while(|b| **b == b'`').count();
        let line_begin = buf[..i].rfind('\n').map_or(0, |n| n + 1);
        let line_start = buf[line_begin..i].bytes().all(|b| b == b' ');
        if run >= 3 && line_start {
            return self.fence(buf, i, run, eof, format);
        }
        if !eof && i + run == buf.len() {
            self.text(buf, i);
            return None; // the run may grow into a fence
        }
        let fence = "`".repeat(run);
        let from = self.wait_from(i, i + run);
        let mut search = from;
        loop {
            match buf[search..].find(&fence) {
                Some(found) => {
                    let at = search + found;
                    let after = bytes.get(at + run);
                    if after == Some(&b'`') {
                        // A longer run does not close this span.
                        search =
                            at + run + bytes[at + run..].iter().take_while(|b| **b == b'`').count();
                        continue;
                    }
                    if after.is_none() && !eof {
                        self.text(buf, i);
                        self.wait = Some(Wait {
                            at: i,
                            searched: at,
                        });
                        return None;
                    }
                    self.wait = None;
                    return Some(at + run);
                }
                None if eof => return Some(i + run),
                None => {
                    self.text(buf, i);
                    self.wait = Some(Wait {
                        at: i,
                        searched: before_trailing_backticks(buf, from),
                    });
                    return None;
                }
            }
        }
    }

    fn fence(
        &mut self,
        buf: &str,
        i: usize,
        run: usize,
        eof: bool,
        format: &dyn Format,
    ) -> Option<usize> {
        let Some(line_end) = buf[i..].find('\n').map(|n| i + n) else {
            if eof {
                return Some(buf.len());
            }
            self.text(buf, i);
            return None;
        };
        let lang = buf[i + run..line_end].trim().to_ascii_lowercase();
        let body_start = line_end + 1;
        let from = self.wait_from(i, body_start);
        let close = find_fence_close(buf, from.max(body_start), run, eof);
        let (body_end, next) = match close {
            Some((start, end)) => (start, end),
            None if eof => (buf.len(), buf.len()),
            None => {
                self.text(buf, i);
                let last_line = buf
                    .rfind('\n')
                    .map_or(body_start, |n| (n + 1).max(body_start));
                self.wait = Some(Wait {
                    at: i,
                    searched: last_line,
                });
                return None;
            }
        };
        self.wait = None;
        let body = &buf[body_start.min(body_end)..body_end];
        match format.fence_calls(&lang, body) {
            Some(calls) => {
                self.text(buf, i);
                self.segments.push(Segment::FenceCalls(calls));
                self.pos = next;
                Some(next)
            }
            None => Some(next),
        }
    }
}

/// The `(start, end)` of the line closing a fence of `run` backticks, searching from `from`
/// (a line start). Before the end of the text, only a whole line (ended by a newline) counts.
fn find_fence_close(buf: &str, from: usize, run: usize, eof: bool) -> Option<(usize, usize)> {
    let mut line_start = from;
    while line_start <= buf.len() {
        let line_end = buf[line_start..].find('\n').map(|n| line_start + n);
        if line_end.is_none() && !eof {
            return None;
        }
        let line = &buf[line_start..line_end.unwrap_or(buf.len())];
        let trimmed = line.trim();
        if trimmed.len() >= run && trimmed.bytes().all(|b| b == b'`') {
            return Some((line_start, line_end.map_or(buf.len(), |end| end + 1)));
        }
        line_start = line_end? + 1;
    }
    None
}

/// Whether what follows a marker starts a call (not prose that mentions the marker).
fn opens_call(after: &str, marker: &str) -> bool {
    // Special tokens are never prose.
    SPECIAL.contains(&marker)
        || after.starts_with('{')
        || after.starts_with('[')
        || after.starts_with("<function=")
        || after.starts_with("```")
        || marker == "<function="
        || marker == "<function name="
        // Mistral v11: `[TOOL_CALLS]name{...}`; Llama 3: `<|python_tag|>name.call(...)`.
        || ((marker == "[TOOL_CALLS]" || marker.starts_with("<|python")) && after.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
}

/// Where a resumed search for a closing run must start: before any backticks at the end, which
/// may be the beginning of a longer run.
fn before_trailing_backticks(buf: &str, from: usize) -> usize {
    let trailing = buf.bytes().rev().take_while(|b| *b == b'`').count();
    (buf.len() - trailing).max(from)
}

/// The nearest char boundary at or before `i` (a resume point must be one).
fn floor_char(buf: &str, mut i: usize) -> usize {
    while i > 0 && !buf.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Markers that are special tokens of a model, so always the start of a call region.
const SPECIAL: &[&str] = &[
    "<tool_call>",
    "<TOOL_CALL>",
    "[TOOL_CALLS]",
    "<|python_tag|>",
    "<|python_start|>",
    "<|tool_call>",
    "<|tool_call_start|>",
    "<|tool_call|>",
    "<start_function_call>",
];

/// What follows a marker is too short to tell yet whether a call starts.
fn could_still_open(after: &str) -> bool {
    after.is_empty()
        || ["```", "<function="]
            .iter()
            .any(|opener| opener.len() > after.len() && opener.starts_with(after))
}

fn is_partial_marker(rest: &str, format: &dyn Format) -> bool {
    let prefix_of = |marker: &str| marker.len() > rest.len() && marker.starts_with(rest);
    THINK
        .iter()
        .any(|(open, close)| prefix_of(open) || prefix_of(close))
        || format.open_markers().iter().any(|m| prefix_of(m))
}
