//! The second reading of a line: what bash does with its text that the tree-sitter walk does not
//! model. A backslash-newline inside a word (bash joins the lines), a here-document whose end
//! bash may find on another line than the parser, and variables whose values reach arithmetic
//! (where bash evaluates `a[$(cmd)]` as code). Where the two readings may disagree, the line asks.

use super::classify::{Judge, ask};
use super::shell::Script;
use super::{Approver, Finding};

/// Variables bash keeps numeric whatever the line does.
const NUMERIC: &[&str] = &[
    "RANDOM", "LINENO", "SECONDS", "BASHPID", "PPID", "UID", "EUID", "SRANDOM", "COLUMNS", "LINES",
];

/// Why bash may read the line's text otherwise than the parser did, if it may.
pub(super) fn disagreement(text: &str) -> Option<String> {
    named_descriptor(text)
        .or_else(|| substitution_in_parameter(text))
        .or_else(|| word_readings(text))
}

/// `{NAME}>file`, `{a[...]}<x`: bash sets NAME to a new descriptor's number, and a subscript
/// there is arithmetic that runs its `$(...)` (`echo {a['$(rm -rf ~)']}>/dev/null`,
/// `{PATH}>/dev/null; ls`); the parse reads an ordinary word.
fn named_descriptor(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    for (open, _) in text.match_indices('{') {
        let name_end = text[open + 1..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map(|i| open + 1 + i)?;
        if name_end == open + 1 {
            continue;
        }
        let mut close = name_end;
        if bytes.get(close) == Some(&b'[') {
            close = match text[close..].find(']') {
                Some(i) => close + i + 1,
                None => continue,
            };
        }
        if bytes.get(close) == Some(&b'}') && matches!(bytes.get(close + 1), Some(b'>' | b'<')) {
            return Some(format!(
                "`{}` before a redirection sets a variable (and runs a subscript's code)",
                &text[open..=close]
            ));
        }
    }
    None
}

/// `"${x:-'$(cmd)'}"`: inside a quoted `${...}` single quotes are ordinary characters, so the
/// command substitution runs where the parse reads a quoted string.
fn substitution_in_parameter(text: &str) -> Option<String> {
    for (open, _) in text.match_indices("${") {
        let mut depth = 0usize;
        for (i, c) in text[open + 1..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        let inner = &text[open..open + 1 + i];
                        if inner.contains("$(") || inner.contains('`') {
                            return Some(format!(
                                "`{inner}}}` holds a command substitution, which bash runs \
                                 whatever quotes are around it"
                            ));
                        }
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    None
}

/// Where bash reads the words of the line otherwise than the walk does.
fn word_readings(text: &str) -> Option<String> {
    let mut chars = text.char_indices().peekable();
    let mut prev = ' ';
    let mut continued = false;
    while let Some((at, c)) = chars.next() {
        match c {
            '\'' => {
                // Single quotes hold everything literally, a backslash-newline included; `$'...'`
                // has escapes, `\'` among them.
                let ansi = prev == '$';
                while let Some((_, q)) = chars.next() {
                    if ansi && q == '\\' {
                        chars.next();
                    } else if q == '\'' {
                        break;
                    }
                }
            }
            '#' if prev.is_whitespace() || at == 0 => {
                for (_, q) in chars.by_ref() {
                    if q == '\n' {
                        break;
                    }
                }
            }
            '\\' => {
                let Some((_, next)) = chars.next() else { break };
                if next == '\n' {
                    continued = true;
                    let after = chars.peek().map_or(' ', |(_, c)| *c);
                    if !ends_word(prev) && !ends_word(after) {
                        return Some(
                            "a backslash-newline inside a word: bash joins the two lines into one \
                             word, which the check does not read"
                                .into(),
                        );
                    }
                }
                prev = next;
                continue;
            }
            _ => {}
        }
        prev = c;
    }
    if continued && text.contains("<<") {
        return Some(
            "a backslash-newline with a here-document: bash may end the document on another line"
                .into(),
        );
    }
    heredoc_delimiter(text)
}

fn ends_word(c: char) -> bool {
    c.is_whitespace() || "|&;()<>".contains(c)
}

/// `<<'E'OF`, `<<E"O"F`, `<<E\OF`: bash's delimiter is the word without its quotes, which a parser
/// may not match; only a plain word, or one wholly in quotes or after one backslash, is read alike.
fn heredoc_delimiter(text: &str) -> Option<String> {
    let mut rest = text;
    while let Some(at) = rest.find("<<") {
        let after = &rest[at + 2..];
        rest = after;
        if let Some(herestring) = after.strip_prefix('<') {
            rest = herestring;
            continue;
        }
        let word: String = after
            .trim_start_matches('-')
            .trim_start_matches([' ', '\t'])
            .chars()
            .take_while(|c| !c.is_whitespace() && !"|&;()<>".contains(*c))
            .collect();
        let plain = |w: &str| {
            !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
        };
        let bare = word
            .strip_prefix('\'')
            .and_then(|w| w.strip_suffix('\''))
            .or_else(|| word.strip_prefix('"').and_then(|w| w.strip_suffix('"')))
            .or_else(|| word.strip_prefix('\\'))
            .unwrap_or(&word);
        if !plain(bare) && !word.chars().all(|c| c.is_ascii_digit()) {
            return Some(format!(
                "the here-document delimiter `{word}` is one bash and the check may end at \
                 different lines"
            ));
        }
    }
    None
}

impl Judge<'_> {
    /// Where bash reads the line otherwise than the walk did, the line asks; so does a value
    /// the line cannot know that reaches arithmetic, and a secret variable expanded anywhere.
    pub(super) fn second_reading(&mut self, text: &str, script: &Script) {
        let mut findings: Vec<Finding> = disagreement(text).map(ask).into_iter().collect();
        self.arithmetic(&script.arithmetic, &mut findings);
        // A secret variable expanded anywhere (a test, a `case`, an assignment, its length)
        // tells the model about it.
        if let Some(name) = super::words::secret_variable(text) {
            findings.push(ask(format!("it expands `${name}`, which holds a secret")));
        }
        // What ai read otherwise than bash does is for a person to read: `--yes` approves what
        // ai judged, and this it did not (classifier round 15).
        if !findings.is_empty() {
            let narrowed = findings.into_iter().map(|f| f.narrowed(Approver::Person));
            self.unit(text, narrowed.collect());
        }
    }

    /// Text bash evaluates as arithmetic: a value the line cannot know there asks.
    pub(super) fn arithmetic(&mut self, exprs: &[String], findings: &mut Vec<Finding>) {
        for expr in exprs {
            if let Some(why) = self.arithmetic_one(expr) {
                findings.push(ask(why));
            }
        }
    }

    fn arithmetic_one(&self, expr: &str) -> Option<String> {
        let inner = expr
            .strip_prefix("$((")
            .or_else(|| expr.strip_prefix("(("))
            .unwrap_or(expr);
        if inner.len() > 4096 {
            return Some(format!(
                "an arithmetic expression of {} bytes is too long to check",
                inner.len()
            ));
        }
        if inner.contains("$(") || inner.contains('`') {
            return Some(format!(
                "`{expr}`: command output reaches arithmetic, where bash runs `a[$(cmd)]` as code"
            ));
        }
        // `((IFS=0))`, `let PATH=0`, `${a[GLOBIGNORE=1]}`: arithmetic assigns too, and these
        // names change how the rest of the line splits, finds programs or matches globs.
        if let Some(name) = assigned_in(inner).into_iter().find(|n| shell_setting(n)) {
            return Some(format!(
                "`{expr}` assigns `{name}`, which changes how bash splits words, finds programs or \
                 expands globs for the rest of the line"
            ));
        }
        let positional = inner.match_indices('$').any(|(i, _)| {
            inner[i + 1..].starts_with(|c: char| c.is_ascii_digit() || "@*{".contains(c))
                && !inner[i + 1..].starts_with("{#")
        });
        if positional {
            return Some(format!(
                "`{expr}`: an argument or expansion ai cannot know reaches arithmetic, where bash \
                 runs `a[$(cmd)]` as code"
            ));
        }
        let name = identifiers(inner)
            .into_iter()
            .find(|name| !NUMERIC.contains(name) && self.place.doubtful.contains(*name))?;
        Some(format!(
            "`{name}` holds text ai cannot know and reaches arithmetic (`{expr}`), where bash runs \
             `a[$(cmd)]` as code"
        ))
    }
}

/// The names an arithmetic expression assigns: `NAME=`, `NAME op=`, `NAME[...]=`, `NAME++`,
/// `--NAME` (not `==`).
fn assigned_in(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut names = identifiers(text);
    names.sort_unstable();
    names.dedup();
    for name in names {
        for (at, _) in text.match_indices(name) {
            let before = &text[..at];
            let after = text[at + name.len()..].trim_start();
            let after = match after.strip_prefix('[') {
                Some(rest) => after_subscript(rest).trim_start(),
                None => after,
            };
            let whole = !before.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                && !after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
            let op = [
                "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|=", "++", "--",
            ]
            .iter()
            .any(|op| after.starts_with(op) && !after.starts_with("=="));
            let pre = before.trim_end().ends_with("++") || before.trim_end().ends_with("--");
            if whole && (op || pre) {
                out.push(name);
                break;
            }
        }
    }
    out
}

/// What follows the `]` that closes a subscript (`a[b[0]]=1`), nested brackets counted.
fn after_subscript(text: &str) -> &str {
    let mut depth = 1usize;
    for (i, c) in text.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return &text[i + 1..];
                }
            }
            _ => {}
        }
    }
    ""
}

/// A variable that changes how bash reads the rest of the line, or what runs (programs read
/// upper-case names: `((success++))` is the script's own counter).
fn shell_setting(name: &str) -> bool {
    matches!(
        name,
        "IFS" | "GLOBIGNORE" | "CDPATH" | "HOME" | "PWD" | "OLDPWD" | "BASH_ENV" | "ENV"
    ) || !name.contains(|c: char| c.is_ascii_lowercase())
        && super::danger::risky_variable(name).is_some()
}

/// The names in an arithmetic expression (`0x1f` and `10#7` are numbers, not names).
fn identifiers(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    let mut after_digit = false;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        let word = c.is_ascii_alphanumeric() || c == '_';
        match (start, word) {
            (None, true) => {
                start = Some(i);
                after_digit = c.is_ascii_digit() || text[..i].ends_with('#');
            }
            (Some(s), false) => {
                if !after_digit {
                    out.push(&text[s..i]);
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}
