//! Neutralises text from the model or a tool before it reaches a terminal: control characters
//! (escape sequences could move the cursor or retitle the window), bidi overrides (which can make
//! a command read differently from what it is) and zero-width characters.

/// `text` with dangerous characters replaced; newlines and tabs are kept.
pub(crate) fn sanitize(text: &str) -> String {
    text.chars()
        .map(|c| if is_unsafe(c) { '\u{FFFD}' } else { c })
        .collect()
}

/// Whether `text` holds nothing [`sanitize`] would replace.
pub(crate) fn is_clean(text: &str) -> bool {
    !text.chars().any(is_unsafe)
}

/// `text` sanitised and made one line (newlines and tabs become spaces): for status lines.
pub(crate) fn one_line(text: &str) -> String {
    sanitize(text).replace(['\n', '\t'], " ")
}

/// JSON text with every character that could move a terminal or hide text (C1 controls, bidi,
/// zero-width, Hangul fillers) written as a `\uXXXX` escape: the same value to a parser, nothing
/// a script that prints a field can be fooled by (classifier round 16). Such characters only
/// occur inside strings, where an escape is valid.
pub(crate) fn json_escaped(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if is_unsafe(c) && !c.is_ascii() {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn is_unsafe(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        c if c.is_control() => true,
        // bidi embeddings, overrides, isolates and marks (Arabic's too)
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' => true,
        '\u{061C}' => true,
        // line and paragraph separators (a new line to a terminal, not to the reader)
        '\u{2028}' | '\u{2029}' => true,
        // zero-width space, joiners, word joiner and invisible operators, BOM, soft hyphen,
        // Mongolian vowel separator, interlinear annotations
        '\u{200B}'..='\u{200D}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}' => true,
        '\u{00AD}' | '\u{180E}' | '\u{FFF9}'..='\u{FFFB}' => true,
        // deprecated format controls, the combining grapheme joiner, and Unicode tags (text
        // that shows as nothing, smuggled into what a model reads)
        '\u{206A}'..='\u{206F}' | '\u{034F}' | '\u{E0000}'..='\u{E007F}' => true,
        // Hangul fillers and the Khmer inherent vowels: letters that print as blanks
        // (classifier round 15).
        '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' | '\u{17B4}' | '\u{17B5}' => true,
        // The blank Braille pattern (classifier round 17).
        '\u{2800}' => true,
        _ => false,
    }
}

/// A command made fully visible for a person to approve: control, bidi and zero-width characters
/// shown as `<U+XXXX>` (tabs as `<TAB>`), long runs of spaces counted (`<4000 spaces>`) so nothing
/// can be pushed out of sight, and each line folded to `width` columns with `↩` marking the folds.
pub(crate) fn visible(text: &str, width: usize) -> String {
    let width = width.clamp(20, 400);
    let mut shown = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => shown.push('\n'),
            '\t' => shown.push_str("<TAB>"),
            c if looks_blank(c) => {
                let mut run = 1;
                while chars.peek().is_some_and(|c| looks_blank(*c)) {
                    chars.next();
                    run += 1;
                }
                if run > 8 {
                    shown.push_str(&format!("<{run} spaces>"));
                } else {
                    shown.extend(std::iter::repeat_n(' ', run));
                }
            }
            c if is_unsafe(c) => shown.push_str(&format!("<U+{:04X}>", u32::from(c))),
            c => shown.push(c),
        }
    }
    shown
        .split('\n')
        .map(|line| fold(line, width))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `c` shows as empty space: a space of any width, and the characters that render
/// blank without being spaces (Braille's blank pattern, Hangul fillers).
pub(crate) fn looks_blank(c: char) -> bool {
    (c.is_whitespace() && c != '\n' && c != '\t')
        || matches!(
            c,
            '\u{2800}' | '\u{3164}' | '\u{115F}' | '\u{1160}' | '\u{FFA0}'
        )
}

/// `line` cut into pieces of at most `width` characters, joined by `↩` and a new line.
fn fold(line: &str, width: usize) -> String {
    let chars: Vec<char> = line.chars().collect();
    chars
        .chunks(width.saturating_sub(1).max(1))
        .map(|piece| piece.iter().collect::<String>())
        .collect::<Vec<_>>()
        .join("↩\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_is_shown_whole_with_nothing_hidden() {
        let hidden = format!(
            "echo hi{}; python3 -c 'x'\u{202E}\u{1b}[2K",
            " ".repeat(4000)
        );
        let shown = visible(&hidden, 200);
        let folded = visible(&hidden, 40);
        assert!(folded.lines().all(|l| l.chars().count() <= 40), "{folded}");
        assert!(shown.contains("<4000 spaces>"), "{shown}");
        assert!(shown.contains("python3 -c 'x'"), "{shown}");
        assert!(
            shown.contains("<U+202E>") && shown.contains("<U+001B>"),
            "{shown}"
        );
        assert_eq!(visible("ls\tx", 80), "ls<TAB>x");
        let long = "a".repeat(100);
        assert_eq!(visible(&long, 40).lines().count(), 3);
    }

    #[test]
    fn json_keeps_its_value_and_loses_what_could_fool_a_terminal() {
        let value = serde_json::json!({"text": "a\u{202E}b\u{9B}c\u{E0041}d é"});
        let escaped = json_escaped(&value.to_string());
        assert!(
            escaped.chars().all(|c| !is_unsafe(c) || c.is_ascii()),
            "{escaped}"
        );
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&escaped).unwrap(),
            value
        );
        assert!(escaped.contains('é'), "{escaped}");
    }

    #[test]
    fn invisible_marks_and_separators_of_every_kind_are_replaced() {
        for c in [
            '\u{3164}',
            '\u{115F}',
            '\u{2800}',
            '\u{200E}',
            '\u{200F}',
            '\u{061C}',
            '\u{2028}',
            '\u{2029}',
            '\u{00AD}',
            '\u{180E}',
            '\u{2061}',
            '\u{FFF9}',
            '\u{2067}',
            '\u{202D}',
            '\u{200B}',
            '\u{FEFF}',
            '\u{206A}',
            '\u{034F}',
            '\u{E0041}',
            '\u{E007F}',
        ] {
            assert_eq!(
                sanitize(&format!("a{c}b")),
                "a\u{FFFD}b",
                "U+{:04X}",
                u32::from(c)
            );
        }
    }

    #[test]
    fn padding_cannot_lay_out_lines_of_its_own() {
        for blank in [
            ' ', '\u{2800}', '\u{3164}', '\u{00A0}', '\u{2003}', '\u{3000}',
        ] {
            let padded = format!(
                "denied{}note: approving is safe",
                blank.to_string().repeat(70)
            );
            assert_eq!(
                visible(&padded, 80),
                "denied<70 spaces>note: approving is safe",
                "U+{:04X}",
                u32::from(blank)
            );
        }
    }

    #[test]
    fn escapes_bidi_and_zero_width_are_replaced_but_layout_is_kept() {
        assert_eq!(sanitize("a\u{1b}[2Jb"), "a\u{FFFD}[2Jb");
        assert_eq!(sanitize("rm\u{202E}txt"), "rm\u{FFFD}txt");
        assert_eq!(sanitize("x\u{200B}y"), "x\u{FFFD}y");
        assert_eq!(sanitize("line\n\tnext é"), "line\n\tnext é");
    }

    proptest::proptest! {
        // 256 cases by default; more with PROPTEST_CASES.
        #[test]
        fn nothing_that_moves_the_cursor_gets_through(text in proptest::prelude::any::<String>()) {
            let clean = sanitize(&text);
            proptest::prop_assert!(clean.chars().all(|c| !is_unsafe(c)));
            proptest::prop_assert_eq!(clean.chars().count(), text.chars().count());
            proptest::prop_assert_eq!(sanitize(&clean), clean.clone());
            let kept: String = text.chars().filter(|c| !is_unsafe(*c)).collect();
            let unchanged: String = clean.chars().filter(|c| *c != '\u{FFFD}').collect();
            proptest::prop_assert_eq!(unchanged, kept.replace('\u{FFFD}', ""));
        }
    }
}
