//! Bash's brace expansion: the words it makes of a word (bounded), and how many it would make,
//! counted without expanding it, so `ls {1..100000000}` asks at once instead of being built.

/// At most this many paths are produced from one word (brace and glob expansion).
pub(super) const MAX_EXPANSIONS: usize = 2048;

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

/// `a{b,c}d` → `abd`, `acd` (nested braces too), bounded.
pub(crate) fn expand_braces(text: &str) -> Vec<String> {
    let mut done = Vec::new();
    let mut pending = vec![text.to_string()];
    while let Some(item) = pending.pop() {
        if done.len() + pending.len() >= MAX_EXPANSIONS {
            done.push(item);
            continue;
        }
        match brace_group(&item) {
            Some((open, close, parts)) => {
                for part in parts {
                    pending.push(format!("{}{}{}", &item[..open], part, &item[close + 1..]));
                }
            }
            None => done.push(item),
        }
    }
    done
}

/// The first `{...}` holding a top-level comma or a sequence (`{a..e}`, `{1..9..2}`): its byte
/// range and alternatives.
fn brace_group(text: &str) -> Option<(usize, usize, Vec<String>)> {
    let bytes = text.as_bytes();
    // `${...}` is a parameter expansion, never a brace list (`${f,,}`), nor is what it holds.
    let mut in_parameter = vec![false; bytes.len()];
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == b'$' && bytes[i + 1] == b'{' {
            let mut depth = 0;
            let mut j = i + 1;
            while j < bytes.len() {
                match bytes[j] {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            in_parameter[i..=j.min(bytes.len() - 1)].fill(true);
            i = j;
        }
        i += 1;
    }
    for open in (0..bytes.len()).filter(|&i| bytes[i] == b'{' && !in_parameter[i]) {
        let mut depth = 0;
        let mut commas = Vec::new();
        for (i, &b) in bytes.iter().enumerate().skip(open) {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        if commas.is_empty() {
                            match sequence(&text[open + 1..i]) {
                                Some(items) => return Some((open, i, items)),
                                None => break,
                            }
                        }
                        let mut parts = Vec::new();
                        let mut start = open + 1;
                        for &comma in &commas {
                            parts.push(text[start..comma].to_string());
                            start = comma + 1;
                        }
                        parts.push(text[start..i].to_string());
                        return Some((open, i, parts));
                    }
                }
                b',' if depth == 1 => commas.push(i),
                _ => {}
            }
        }
    }
    None
}

/// A sequence expression's words (`a..e`, `-3..3`, `1..9..2`, `z..a`), bounded.
fn sequence(body: &str) -> Option<Vec<String>> {
    let seq = Sequence::parse(body)?;
    let count = usize::try_from(seq.count())
        .unwrap_or(usize::MAX)
        .min(MAX_EXPANSIONS);
    let sign = if seq.end >= seq.start { 1 } else { -1 };
    let items = (0..count)
        .filter_map(|k| {
            let n = seq.start + sign * seq.step * i64::try_from(k).ok()?;
            if seq.letter {
                u32::try_from(n)
                    .ok()
                    .and_then(char::from_u32)
                    .map(String::from)
            } else {
                Some(n.to_string())
            }
        })
        .collect();
    Some(items)
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
