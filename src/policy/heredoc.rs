//! What bash expands in the body of a here-document whose delimiter is unquoted: command
//! substitutions (`$(...)` and backticks, indented or not), `$((...))` and `${...}`. The parser
//! shows only some of them, so the body is read again here, as text.

/// One expansion bash performs in a here-document body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Expansion {
    /// A command line run for its output (`$(cmd)`, `` `cmd` ``).
    Command(String),
    /// `$((expr))`: arithmetic.
    Arithmetic(String),
    /// `${...}`: a parameter expansion, as written.
    Parameter(String),
}

/// The delimiter word of `<<EOF`, `<<-'EOF'`: whether it is quoted in any part (then bash
/// expands nothing in the body).
pub(crate) fn quoted_delimiter(start: &str) -> bool {
    start.contains(['\'', '"', '\\'])
}

/// Every expansion in an unquoted here-document `body`, or why it cannot be read (an unclosed
/// substitution).
pub(crate) fn expansions(body: &str) -> Result<Vec<Expansion>, &'static str> {
    let body = &joined(body);
    let bytes = body.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b'`' => {
                let (inner, end) = backquoted(body, at + 1)?;
                out.push(Expansion::Command(inner));
                at = end;
            }
            b'$' if body[at..].starts_with("$((") => {
                let end = closing(body, at + 3, b'(', b')')?;
                out.push(Expansion::Arithmetic(body[at + 3..end].to_string()));
                at += 3;
            }
            b'$' if body[at..].starts_with("$(") => {
                let end = closing(body, at + 2, b'(', b')')?;
                out.push(Expansion::Command(body[at + 2..end].to_string()));
                at = end + 1;
            }
            b'$' if body[at..].starts_with("${") => {
                let end = closing(body, at + 2, b'{', b'}')?;
                out.push(Expansion::Parameter(body[at..=end].to_string()));
                // What is inside (`${x:-$(cmd)}`) is read on.
                at += 2;
            }
            b'$' if body[at..].starts_with("$[") => return Err("`$[` in a here-document"),
            _ => at += 1,
        }
    }
    Ok(out)
}

/// The body with bash's line continuations removed: `$\⏎(cmd)` is `$(cmd)`, `\\⏎` is not one.
fn joined(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('\n') => {}
            Some(next) => {
                out.push(c);
                out.push(next);
            }
            None => out.push(c),
        }
    }
    out
}

/// The text of `` `...` `` from `from` (just after the opening backquote), with bash's
/// escapes inside backquotes undone, and the index after the closing one.
fn backquoted(body: &str, from: usize) -> Result<(String, usize), &'static str> {
    let mut inner = String::new();
    let mut chars = body[from..].char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '`' => return Ok((inner, from + i + 1)),
            '\\' => match chars.next() {
                Some((_, e @ ('`' | '\\' | '$'))) => inner.push(e),
                Some((_, e)) => {
                    inner.push('\\');
                    inner.push(e);
                }
                None => break,
            },
            _ => inner.push(c),
        }
    }
    Err("an unclosed backquote in a here-document")
}

/// The index of the `close` that balances an `open` already passed, skipping quoted text.
/// A `case` pattern's lone `)` ends it early; the shorter text then fails to parse and asks.
fn closing(body: &str, from: usize, open: u8, close: u8) -> Result<usize, &'static str> {
    let bytes = body.as_bytes();
    let mut depth = 1usize;
    let mut at = from;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 1,
            b'\'' => at += body[at + 1..].find('\'').ok_or(UNCLOSED)? + 1,
            b'"' => {
                at += 1;
                while at < bytes.len() && bytes[at] != b'"' {
                    at += if bytes[at] == b'\\' { 2 } else { 1 };
                }
            }
            b if b == open => depth += 1,
            b if b == close => {
                depth -= 1;
                if depth == 0 {
                    return Ok(at);
                }
            }
            _ => {}
        }
        at += 1;
    }
    Err(UNCLOSED)
}

const UNCLOSED: &str = "an unclosed expansion in a here-document";

#[cfg(test)]
mod tests {
    use super::Expansion::{Arithmetic, Command, Parameter};
    use super::*;

    #[test]
    fn substitutions_are_found_wherever_they_are() {
        let got = expansions("a `rm -rf ~` b\n\t$(id -u) $((1+2)) ${x:-$(pwd)} \\$(no) \\`no\\`\n");
        let want = vec![
            Command("rm -rf ~".into()),
            Command("id -u".into()),
            Arithmetic("1+2".into()),
            Parameter("${x:-$(pwd)}".into()),
            Command("pwd".into()),
        ];
        assert_eq!(got, Ok(want));
        assert!(expansions("`x").is_err());
        assert!(expansions("$(x").is_err());
        assert_eq!(expansions("hello \"$\" 'x'\n"), Ok(vec![]));
        assert_eq!(expansions("'$\\\n(id)'"), Ok(vec![Command("id".into())]));
        assert_eq!(expansions("\\\\\n$(id)"), Ok(vec![Command("id".into())]));
        assert_eq!(expansions("\\\\$(id)"), Ok(vec![Command("id".into())]));
    }
}
