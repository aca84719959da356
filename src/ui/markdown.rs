//! Markdown for a terminal, rendered line by line as the answer streams: headings, emphasis,
//! inline code, lists, and fenced code blocks set apart; prose wrapped to the terminal width.
//! Only used when stdout is a terminal; piped output is the model's text exactly.

use unicode_width::UnicodeWidthChar;

use super::sanitize;

pub(crate) struct MarkdownStream {
    pending: String,
    /// Characters of `pending` already shown raw (so a half line appears as it streams).
    shown: usize,
    in_code: bool,
    /// The language of the open code block (for light highlighting).
    lang: String,
    /// The column prose is wrapped at.
    width: usize,
    /// The terminal's real width: what a raw half line wraps at, so it can be erased exactly.
    cols: usize,
    color: bool,
}

const BOLD: &str = "\x1b[1m";
const ITALIC: &str = "\x1b[3m";
const DIM: &str = "\x1b[2m";
const CODE: &str = "\x1b[36m";
const RESET: &str = "\x1b[0m";

impl MarkdownStream {
    pub(crate) fn new(width: usize, color: bool) -> Self {
        MarkdownStream {
            pending: String::new(),
            shown: 0,
            in_code: false,
            lang: String::new(),
            width: width.clamp(20, 200),
            // 0 means the size is unknown: assume the usual 80 rather than erase a row per char.
            cols: if width == 0 { 80 } else { width },
            color,
        }
    }

    /// Adds streamed text; returns what to write: each completed line rendered (replacing its
    /// raw half shown earlier), then the new part of an unfinished line as it is.
    pub(crate) fn push(&mut self, text: &str) -> String {
        self.pending.push_str(text);
        let mut out = String::new();
        while let Some(newline) = self.pending.find('\n') {
            // Erase first: the width of what was shown is measured on `pending`.
            out.push_str(&self.erase_shown());
            let line: String = self.pending.drain(..=newline).collect();
            out.push_str(&self.line(line.trim_end_matches('\n')));
            out.push('\n');
        }
        let unshown: String = self.pending.chars().skip(self.shown).collect();
        if !unshown.is_empty() {
            self.shown += unshown.chars().count();
            // A tab's width depends on the column it lands in; a space keeps the erase exact.
            out.push_str(&sanitize(&unshown).replace('\t', " "));
        }
        out
    }

    /// Renders what is left (a last line with no newline).
    pub(crate) fn finish(&mut self) -> String {
        if self.pending.is_empty() {
            return String::new();
        }
        let erase = self.erase_shown();
        let line = std::mem::take(&mut self.pending);
        format!("{erase}{}", self.line(&line))
    }

    /// Moves back over the raw half line shown so far and clears it (it may have wrapped).
    fn erase_shown(&mut self) -> String {
        if self.shown == 0 {
            return String::new();
        }
        let shown: String = self.pending.chars().take(self.shown).collect();
        let rows_up = rows_below_start(&sanitize(&shown), self.cols);
        self.shown = 0;
        if rows_up > 0 {
            format!("\r\x1b[{rows_up}A\x1b[J")
        } else {
            "\r\x1b[J".to_string()
        }
    }

    fn paint(&self, style: &str, text: &str) -> String {
        if self.color {
            format!("{style}{text}{RESET}")
        } else {
            text.to_string()
        }
    }

    fn line(&mut self, raw: &str) -> String {
        let line = sanitize(raw);
        let trimmed = line.trim_start();
        // A closing fence has nothing after it; "```x" inside a block is code (its text is kept).
        if let Some(lang) = trimmed
            .strip_prefix("```")
            .filter(|lang| !self.in_code || lang.trim().is_empty())
        {
            self.in_code = !self.in_code;
            self.lang = lang.trim().to_ascii_lowercase();
            let label = if self.in_code && !lang.trim().is_empty() {
                format!("── {} ──", lang.trim())
            } else {
                "────".to_string()
            };
            return self.paint(DIM, &label);
        }
        if self.in_code {
            return if self.color {
                format!("  {}", highlight(&line, &self.lang))
            } else {
                format!("  {line}")
            };
        }
        let hashes = trimmed.chars().take_while(|c| *c == '#').count();
        if (1..=6).contains(&hashes) && trimmed[hashes..].starts_with(' ') {
            let title = trimmed[hashes..].trim();
            return self.paint(BOLD, &inline(title, false));
        }
        let indent = line.len() - trimmed.len();
        let (marker, body) = if let Some(rest) = ["- ", "* ", "+ "]
            .iter()
            .find_map(|m| trimmed.strip_prefix(m))
        {
            ("• ".to_string(), rest)
        } else if let Some(dot) = trimmed
            .find(". ")
            .filter(|d| *d > 0 && *d <= 3 && trimmed[..*d].chars().all(|c| c.is_ascii_digit()))
        {
            (trimmed[..dot + 2].to_string(), &trimmed[dot + 2..])
        } else {
            (String::new(), trimmed)
        };
        let lead = " ".repeat(indent);
        let hang = " ".repeat(indent + marker.chars().count());
        wrap(body, self.width.saturating_sub(hang.len()).max(10))
            .iter()
            .enumerate()
            .map(|(i, piece)| {
                let prefix = if i == 0 {
                    format!("{lead}{marker}")
                } else {
                    hang.clone()
                };
                format!("{prefix}{}", inline(piece, self.color))
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

const KEYWORD: &str = "\x1b[35m";
const STRING: &str = "\x1b[32m";

/// Light highlighting of a code line: comments dim, strings green, keywords of the common
/// languages magenta, the rest in the code colour. A line at a time, so nothing is held back.
fn highlight(line: &str, lang: &str) -> String {
    const KEYWORDS: &[&str] = &[
        "fn",
        "let",
        "mut",
        "pub",
        "use",
        "impl",
        "struct",
        "enum",
        "match",
        "if",
        "else",
        "for",
        "while",
        "loop",
        "return",
        "def",
        "class",
        "import",
        "from",
        "function",
        "const",
        "var",
        "async",
        "await",
        "then",
        "fi",
        "do",
        "done",
        "case",
        "esac",
        "in",
        "elif",
        "export",
        "package",
        "func",
        "type",
        "interface",
        "try",
        "except",
        "catch",
        "with",
        "as",
        "not",
        "and",
        "or",
    ];
    let comment = match lang {
        "python" | "py" | "bash" | "sh" | "shell" | "zsh" | "fish" | "toml" | "yaml" | "yml"
        | "ruby" => "#",
        _ => "//",
    };
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if !word.is_empty() {
            let style = if KEYWORDS.contains(&word.as_str()) {
                KEYWORD
            } else {
                CODE
            };
            out.push_str(&format!("{style}{word}{RESET}"));
            word.clear();
        }
    };
    let mut chars = line.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if line[i..].starts_with(comment) && !(comment == "#" && line[..i].ends_with('$')) {
            flush(&mut word, &mut out);
            out.push_str(&format!("{DIM}{}{RESET}", &line[i..]));
            return out;
        }
        if c == '"' || c == '\'' {
            flush(&mut word, &mut out);
            let mut literal = String::from(c);
            let mut escaped = false;
            for (_, next) in chars.by_ref() {
                literal.push(next);
                if next == c && !escaped {
                    break;
                }
                escaped = next == '\\' && !escaped;
            }
            out.push_str(&format!("{STRING}{literal}{RESET}"));
            continue;
        }
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push_str(&format!("{CODE}{c}{RESET}"));
        }
    }
    flush(&mut word, &mut out);
    out
}

/// `**bold**`, `*em*`/`_em_` and `` `code` `` as terminal styles (markers dropped).
fn inline(text: &str, color: bool) -> String {
    let mut out = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        let (marker, style) = if rest.starts_with("**") {
            ("**", BOLD)
        } else if rest.starts_with('`') {
            ("`", CODE)
        } else if rest.starts_with('*') && !rest.starts_with("* ") {
            ("*", ITALIC)
        } else {
            // Past the first character, whatever its length ("✅", "Ça", "é" are several bytes).
            let skip = rest.chars().next().map_or(1, char::len_utf8);
            let next = rest[skip..]
                .find(['*', '`'])
                .map_or(rest.len(), |i| i + skip);
            out.push_str(&rest[..next]);
            rest = &rest[next..];
            continue;
        };
        match rest[marker.len()..].find(marker) {
            Some(end) if end > 0 => {
                let inner = &rest[marker.len()..marker.len() + end];
                if color {
                    out.push_str(&format!("{style}{inner}{RESET}"));
                } else {
                    out.push_str(inner);
                }
                rest = &rest[marker.len() * 2 + end..];
            }
            _ => {
                out.push_str(marker);
                rest = &rest[marker.len()..];
            }
        }
    }
    out
}

/// Columns `c` takes on a terminal (wide CJK and emoji take two, combining marks none).
pub(super) fn char_width(c: char) -> usize {
    if c == '\t' { 1 } else { c.width().unwrap_or(0) }
}

fn text_width(text: &str) -> usize {
    text.chars().map(char_width).sum()
}

/// How many rows below its first one a terminal `cols` wide ends after printing `text` from
/// column 0 (a wide character that does not fit in the last column moves to the next row).
pub(super) fn rows_below_start(text: &str, cols: usize) -> usize {
    let (mut rows, mut col) = (0, 0);
    for width in text.chars().map(char_width).filter(|w| *w > 0) {
        if col > 0 && col + width > cols {
            rows += 1;
            col = 0;
        }
        col += width;
    }
    rows
}

/// Word-wraps to `width` columns (a word longer than a line gets a line of its own).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let Some(line) = lines.last_mut() else { break };
        let len = text_width(line);
        if len > 0 && len + 1 + text_width(word) > width {
            lines.push(word.to_string());
        } else {
            if len > 0 {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a terminal shows after the stream: raw half lines are erased by `\r\x1b[J`.
    fn render(text: &str, width: usize) -> String {
        let mut md = MarkdownStream::new(width, false);
        let mut out = String::new();
        for c in text.chars() {
            out.push_str(&md.push(&c.to_string()));
        }
        out.push_str(&md.finish());
        screen(&out)
    }

    /// Applies `\r\x1b[J` (erase the current line) to a transcript.
    fn screen(transcript: &str) -> String {
        let mut lines: Vec<String> = vec![String::new()];
        let mut rest = transcript;
        while !rest.is_empty() {
            // `\r`, maybe `\x1b[nA` (the half line wrapped; one logical line here), `\x1b[J`.
            if let Some(after) = rest.strip_prefix("\r\x1b[") {
                let end = after.find('J').unwrap_or(after.len());
                if let Some(last) = lines.last_mut() {
                    last.clear();
                }
                rest = &after[(end + 1).min(after.len())..];
            } else if let Some(after) = rest.strip_prefix('\n') {
                lines.push(String::new());
                rest = after;
            } else {
                let c = rest.chars().next().unwrap_or(' ');
                if let Some(last) = lines.last_mut() {
                    last.push(c);
                }
                rest = &rest[c.len_utf8()..];
            }
        }
        lines.join("\n")
    }

    #[test]
    fn a_half_line_is_shown_as_it_streams() {
        let mut md = MarkdownStream::new(80, false);
        assert_eq!(md.push("Hel"), "Hel");
        assert_eq!(md.push("lo **x"), "lo **x");
        assert_eq!(md.push("**\n"), "\r\x1b[JHello x\n");
    }

    #[test]
    fn structure_is_kept_without_colour() {
        let text =
            "# Title\nSome **bold** and `code`.\n- one\n- two\n```rust\nfn main() {}\n```\nend";
        assert_eq!(
            render(text, 80),
            "Title\nSome bold and code.\n• one\n• two\n── rust ──\n  fn main() {}\n────\nend"
        );
    }

    #[test]
    fn prose_wraps_with_hanging_indents() {
        assert_eq!(
            render("- alpha beta gamma delta", 20),
            "• alpha beta gamma\n  delta"
        );
    }

    #[test]
    fn code_is_highlighted_lightly_and_keeps_its_text() {
        let painted = highlight("let x = \"a # b\"; // note", "rust");
        assert!(painted.contains("\x1b[35mlet\x1b[0m"), "{painted:?}");
        assert!(painted.contains("\x1b[32m\"a # b\"\x1b[0m"), "{painted:?}");
        assert!(painted.contains("\x1b[2m// note\x1b[0m"), "{painted:?}");
        let plain: String = {
            let mut text = painted.clone();
            for code in ["\x1b[35m", "\x1b[32m", "\x1b[2m", "\x1b[36m", "\x1b[0m"] {
                text = text.replace(code, "");
            }
            text
        };
        assert_eq!(plain, "let x = \"a # b\"; // note");
    }

    #[test]
    fn colour_marks_emphasis_and_code() {
        let mut md = MarkdownStream::new(80, true);
        let out = md.push("a **b** `c`\n");
        assert!(
            out.contains("\x1b[1mb\x1b[0m") && out.contains("\x1b[36mc\x1b[0m"),
            "{out:?}"
        );
    }

    #[test]
    fn a_line_starting_with_an_emoji_or_accent_renders_without_panic() {
        assert_eq!(render("✅ done\n", 80), "✅ done\n");
        assert_eq!(render("Ça va\n", 80), "Ça va\n");
        assert_eq!(render("*é is not closed", 80), "*é is not closed");
        assert_eq!(render("*é*", 80), "é");
    }

    #[test]
    fn a_wrapped_half_line_of_wide_characters_is_erased_to_its_first_row() {
        // Ten CJK characters take 20 columns: three rows on a terminal 8 wide.
        let mut md = MarkdownStream::new(8, false);
        md.push("中文中文中文中文中文");
        assert!(md.push("\n").starts_with("\r\x1b[2A\x1b[J"));
    }
}
