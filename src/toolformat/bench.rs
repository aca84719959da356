//! What the parser benchmark (`benches/toolformat.rs`) drives from outside the crate: each
//! family's parser, over a whole text and fed one character at a time. The parsers' own types
//! stay inside the crate.

use super::{Family, StreamParser, format_for, parse};

/// The name of every family.
pub fn families() -> Vec<&'static str> {
    Family::ALL.iter().map(|f| f.name()).collect()
}

/// The calls `family` finds in `text` parsed whole, and fed one character at a time; `None`
/// for an unknown family.
pub fn parse_both_ways(family: &str, text: &str) -> Option<(usize, usize)> {
    let format = format_for(Family::parse(family)?, &[]);
    let whole = parse(format.as_ref(), text);
    let mut parser = StreamParser::new(format.as_ref());
    let mut chars = [0u8; 4];
    for c in text.chars() {
        parser.feed(c.encode_utf8(&mut chars));
    }
    let (_, streamed) = parser.finish();
    (whole == streamed).then_some((whole.calls.len(), streamed.calls.len()))
}

/// The calls `family` finds in `text` parsed whole.
pub fn parse_whole(family: &str, text: &str) -> Option<usize> {
    let format = format_for(Family::parse(family)?, &[]);
    Some(parse(format.as_ref(), text).calls.len())
}

/// The calls `family` finds in `text` fed one character at a time.
pub fn parse_streamed(family: &str, text: &str) -> Option<usize> {
    let format = format_for(Family::parse(family)?, &[]);
    let mut parser = StreamParser::new(format.as_ref());
    let mut chars = [0u8; 4];
    for c in text.chars() {
        parser.feed(c.encode_utf8(&mut chars));
    }
    Some(parser.finish().1.calls.len())
}
