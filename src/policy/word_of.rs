//! One shell word as far as it is known before running, read from its parse-tree node: quotes
//! removed, escapes resolved (`$'\x72m'` is `rm`), and whether an expansion makes it dynamic.

use tree_sitter::Node;

use super::node::text_of;

/// One shell word as far as it is known before running: quotes removed, escapes resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Word {
    pub(crate) text: String,
    /// Holds an expansion or substitution: its value is only known at run time.
    pub(crate) dynamic: bool,
    /// Written wholly inside quotes: the shell does not expand `~` or globs in it.
    pub(crate) quoted: bool,
}

impl Word {
    pub(crate) fn literal(text: impl Into<String>) -> Self {
        Word {
            text: text.into(),
            dynamic: false,
            quoted: false,
        }
    }

    pub(crate) fn computed(text: impl Into<String>) -> Self {
        Word {
            text: text.into(),
            dynamic: true,
            quoted: false,
        }
    }

    /// The names `xargs` or `parallel` read from their input, as a word of the inner command.
    /// Checks of what a path reads know these are judged by the reader's own record; checks of
    /// what it wrecks take the word as unknown (see [`Word::is_from_input`]).
    pub(crate) fn from_input() -> Self {
        Word::computed(FROM_INPUT)
    }

    /// Whether the word holds names read from input when the command runs.
    pub(crate) fn is_from_input(&self) -> bool {
        self.dynamic && self.text.contains(FROM_INPUT)
    }

    pub(super) fn quoted(mut self) -> Self {
        self.quoted = true;
        self
    }
}

const FROM_INPUT: &str = "<arguments from input>";

/// The value of one shell word: quotes removed, escapes resolved; `dynamic` when it holds an
/// expansion or substitution. Iterative over concatenations, so deep nesting costs no stack.
pub(crate) fn word(node: Node<'_>, src: &str) -> Word {
    let raw = text_of(node, src);
    match node.kind() {
        "word" | "number" => Word::literal(unescape(raw)),
        "raw_string" => Word::literal(strip(raw, "'", "'")).quoted(),
        "ansi_c_string" => ansi_c(strip(raw, "$'", "'")).quoted(),
        "string" => {
            let mut cursor = node.walk();
            let dynamic = node
                .named_children(&mut cursor)
                .any(|c| c.kind() != "string_content");
            Word {
                text: unescape_double_quoted(strip(raw, "\"", "\"")),
                dynamic,
                quoted: true,
            }
        }
        "command_name" => node
            .named_child(0)
            .filter(|c| c.kind() != "command_name")
            .map_or_else(|| concatenated(node, src), |child| word(child, src)),
        "concatenation" => concatenated(node, src),
        _ => Word::computed(raw),
    }
}

fn concatenated(node: Node<'_>, src: &str) -> Word {
    let mut cursor = node.walk();
    let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
    if children.is_empty() {
        return Word::literal(unescape(text_of(node, src)));
    }
    let mut text = String::new();
    let mut dynamic = false;
    let mut quoted = true;
    for child in children {
        let part = match child.kind() {
            "concatenation" | "command_name" => Word::computed(text_of(child, src)),
            _ => word(child, src),
        };
        text.push_str(&part.text);
        dynamic |= part.dynamic;
        quoted &= part.quoted;
    }
    Word {
        text,
        dynamic,
        quoted,
    }
}

fn strip<'a>(raw: &'a str, prefix: &str, suffix: &str) -> &'a str {
    let inner = raw.strip_prefix(prefix).unwrap_or(raw);
    inner.strip_suffix(suffix).unwrap_or(inner)
}

fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Inside double quotes a backslash escapes only `$`, `` ` ``, `"`, `\` and a newline.
fn unescape_double_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&next) = chars.peek()
            && matches!(next, '$' | '`' | '"' | '\\' | '\n')
        {
            chars.next();
            if next != '\n' {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `$'...'` strings: the escapes bash resolves (`\x72m` is `rm`).
fn ansi_c(body: &str) -> Word {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(escape) = chars.next() else { break };
        let simple = match escape {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'e' | 'E' => Some('\u{1b}'),
            'f' => Some('\u{c}'),
            'v' => Some('\u{b}'),
            '\\' | '\'' | '"' | '?' => Some(escape),
            _ => None,
        };
        if let Some(c) = simple {
            out.push(c);
            continue;
        }
        let (radix, max) = match escape {
            'x' => (16, 2),
            'u' => (16, 4),
            'U' => (16, 8),
            '0'..='7' => (8, 2),
            _ => {
                // Unknown escapes (`\c`, ...) are kept as written; the word is not trusted.
                return Word::computed(body);
            }
        };
        let mut digits = String::new();
        if radix == 8 {
            digits.push(escape);
        }
        while digits.len() < max + usize::from(radix == 8)
            && let Some(&d) = chars.peek()
            && d.is_digit(radix)
        {
            digits.push(d);
            chars.next();
        }
        match u32::from_str_radix(&digits, radix)
            .ok()
            .and_then(char::from_u32)
        {
            Some(c) => out.push(c),
            None => {
                return Word::computed(body);
            }
        }
    }
    Word::literal(out)
}
