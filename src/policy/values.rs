//! The values a line's own variables give: a word whose every variable the line set
//! (`f=-delete; find ~ $f`), and `${NAME<op>word}` of a variable it knows (`${HOME:?}`).

use super::reach::{Place, UNKNOWN};
use super::shell::Word;

impl Place<'_> {
    /// A word's value when every variable in it is one the line set to known text (or `HOME`,
    /// `PWD`): `f=-delete; find ~ $f` hands find `-delete`. `None` when any part is only known
    /// at run time, or comes from the environment.
    pub(crate) fn line_value(&self, word: &Word) -> Option<String> {
        if !word.dynamic {
            return None;
        }
        let text = word.text.as_str();
        let mut names = Vec::new();
        let mut rest = text;
        while let Some(at) = rest.find('$') {
            let after = &rest[at + 1..];
            let name: String = after
                .trim_start_matches('{')
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if name.is_empty() {
                return None;
            }
            names.push(name);
            rest = after;
        }
        let known = |n: &String| {
            matches!(n.as_str(), "HOME" | "PWD")
                || self.vars.get(n).is_some_and(|v| !v.contains(UNKNOWN))
        };
        if names.is_empty() || !names.iter().all(known) || text.contains('`') {
            return None;
        }
        self.expand_variables(text, true)
    }

    /// The value of `${NAME<op>word}` for a variable the line knows (`HOME`, `PWD`, one it
    /// set): `:?`, `?`, `:-`, `-`, `:=`, `=` give its value, `:+` and `+` the word, `%`, `%%`,
    /// `#`, `##` with a literal pattern the value without it. `None` when only the run knows
    /// (`${HOME%/*}`, an unset variable's default, which the environment may override).
    pub(super) fn operator(&self, inner: &str) -> Option<String> {
        let end = inner.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
        let (name, rest) = inner.split_at(end);
        let known = matches!(name, "HOME" | "PWD")
            || self.vars.get(name).is_some_and(|v| !v.contains(UNKNOWN));
        let value = known
            .then(|| self.variable(name))
            .filter(|v| !v.is_empty())?;
        // Quotes and `~` change what a pattern matches: only plain text is followed.
        let literal =
            |pattern: &str| !pattern.contains(['*', '?', '[', '$', '`', '\\', '\'', '"', '~']);
        for op in [":?", ":-", ":=", "?", "-", "="] {
            if rest.starts_with(op) {
                return Some(value);
            }
        }
        for op in [":+", "+"] {
            if let Some(word) = rest.strip_prefix(op) {
                return Some(self.expand(word, true))
                    .filter(|w| !w.contains(UNKNOWN) && !w.contains(['\'', '"', '~']));
            }
        }
        for op in ["%%", "%"] {
            if let Some(pattern) = rest.strip_prefix(op) {
                return literal(pattern)
                    .then(|| value.strip_suffix(pattern).unwrap_or(&value).to_string());
            }
        }
        for op in ["##", "#"] {
            if let Some(pattern) = rest.strip_prefix(op) {
                return literal(pattern)
                    .then(|| value.strip_prefix(pattern).unwrap_or(&value).to_string());
            }
        }
        None
    }
}
