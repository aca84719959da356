//! How many words bash's brace expansion makes of a word, counted without expanding it, so
//! `ls {1..100000000}` asks at once instead of being built.

/// A sequence expression's first and last value, step and whether it counts letters
/// (`1..9..2`, `z..a`, `-3..3`).
pub(super) struct Sequence {
    pub(super) start: i64,
    pub(super) end: i64,
    pub(super) step: i64,
    pub(super) letter: bool,
}

impl Sequence {
    pub(super) fn parse(body: &str) -> Option<Sequence> {
        let parts: Vec<&str> = body.split("..").collect();
        let (from, to) = (parts.first()?, parts.get(1)?);
        let step: i64 = match parts.get(2) {
            Some(step) => step.parse::<i64>().ok()?.saturating_abs().max(1),
            None if parts.len() == 2 => 1,
            None => return None,
        };
        let numbers = from.parse::<i64>().ok().zip(to.parse::<i64>().ok());
        let letters = || {
            let (a, b) = (single_letter(from)?, single_letter(to)?);
            Some((i64::from(u32::from(a)), i64::from(u32::from(b))))
        };
        let (start, end, letter) = match numbers {
            Some((a, b)) => (a, b, false),
            None => letters().map(|(a, b)| (a, b, true))?,
        };
        Some(Sequence {
            start,
            end,
            step,
            letter,
        })
    }

    /// How many words it makes.
    pub(super) fn count(&self) -> u64 {
        (i128::from(self.end) - i128::from(self.start))
            .unsigned_abs()
            .checked_div(self.step.unsigned_abs().into())
            .and_then(|n| u64::try_from(n).ok())
            .map_or(u64::MAX, |n| n.saturating_add(1))
    }
}

fn single_letter(text: &str) -> Option<char> {
    let mut chars = text.chars();
    let c = chars.next().filter(char::is_ascii_alphabetic)?;
    chars.next().is_none().then_some(c)
}

/// The words brace expansion makes of `text` (saturating). Recursion follows the nesting of
/// braces, which the caller bounds first.
pub(super) fn word_count(text: &str) -> u64 {
    let mut total: u64 = 1;
    let mut at = 0;
    while let Some(open) = text[at..].find('{').map(|i| at + i) {
        let Some(close) = matching(text, open) else {
            break;
        };
        total = total.saturating_mul(group_count(&text[open + 1..close]));
        at = close + 1;
    }
    total
}

fn group_count(body: &str) -> u64 {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in body.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&body[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if parts.is_empty() {
        return Sequence::parse(body).map_or_else(|| word_count(body), |s| s.count());
    }
    parts.push(&body[start..]);
    parts
        .iter()
        .fold(0u64, |sum, part| sum.saturating_add(word_count(part)))
}

/// The `}` that closes the `{` at `open`.
fn matching(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::word_count;

    #[test]
    fn words_are_counted_without_expanding() {
        assert_eq!(word_count("plain"), 1);
        assert_eq!(word_count("{a,b}{1..3}"), 6);
        assert_eq!(word_count("x{a,{b,c}}y"), 3);
        assert_eq!(word_count("{1..100000000}"), 100_000_000);
        assert_eq!(word_count("{1..10..3}"), 4);
        assert_eq!(word_count("{z..a}"), 26);
        assert_eq!(word_count(&"{1..10}".repeat(30)), u64::MAX);
    }
}
