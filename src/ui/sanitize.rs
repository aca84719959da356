//! Neutralises text from the model or a tool before it reaches a terminal: control characters
//! (escape sequences could move the cursor or retitle the window), bidi overrides (which can make
//! a command read differently from what it is) and zero-width characters.

/// `text` with dangerous characters replaced; newlines and tabs are kept.
pub fn sanitize(text: &str) -> String {
    text.chars()
        .map(|c| if is_unsafe(c) { '\u{FFFD}' } else { c })
        .collect()
}

fn is_unsafe(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        c if c.is_control() => true,
        // bidi embeddings, overrides and isolates
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => true,
        // zero-width space, joiners, word joiner, BOM
        '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}' => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
