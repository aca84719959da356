//! Parses a shell command with tree-sitter-bash and finds every simple command in it (pipelines,
//! lists, subshells, `$(...)`, backticks, loops, conditionals, `bash -c` strings), every
//! redirection and every pipe into an interpreter, and hands each to the rules.

use tree_sitter::{Node, Parser};

use super::rules::{self, INTERPRETERS, Word, basename, is_block_device};
use super::{Finding, Verdict};

/// How deep `bash -c "bash -c '...'"` strings are followed before giving up and asking.
const MAX_DEPTH: usize = 6;

/// Everything the command's parts call for.
pub fn findings(command: &str, home: Option<&str>) -> Vec<Finding> {
    let mut out = Vec::new();
    Walker {
        home,
        out: &mut out,
    }
    .source(command, 0);
    out
}

pub(super) struct Walker<'a> {
    pub home: Option<&'a str>,
    pub out: &'a mut Vec<Finding>,
}

impl Walker<'_> {
    pub fn find(&mut self, verdict: Verdict, reason: impl Into<String>) {
        self.out.push(Finding {
            verdict,
            reason: reason.into(),
        });
    }

    /// Parses and walks a whole command string (the top level, or the string of `bash -c`).
    pub fn source(&mut self, text: &str, depth: usize) {
        if depth > MAX_DEPTH {
            self.find(Verdict::Ask, "shell strings are nested too deeply to check");
            return;
        }
        let mut parser = Parser::new();
        if parser
            .set_language(&tree_sitter_bash::LANGUAGE.into())
            .is_err()
        {
            self.find(Verdict::Ask, "the shell parser is unavailable");
            return;
        }
        let Some(tree) = parser.parse(text, None) else {
            self.find(Verdict::Ask, "the command could not be parsed");
            return;
        };
        let root = tree.root_node();
        if root.has_error() {
            self.find(Verdict::Ask, "the command could not be parsed as shell");
        }
        self.node(root, text, depth);
    }

    fn node(&mut self, node: Node<'_>, src: &str, depth: usize) {
        match node.kind() {
            "command" => self.command(node, src, depth),
            "file_redirect" => self.redirect(node, src),
            "pipeline" => self.pipeline(node, src),
            "function_definition" => self.function(node, src),
            "heredoc_redirect" | "herestring_redirect" => self.inline_script(node, src),
            _ => {}
        }
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            self.node(child, src, depth);
        }
    }

    fn command(&mut self, node: Node<'_>, src: &str, depth: usize) {
        let mut words = Vec::new();
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match child.kind() {
                "variable_assignment" | "file_redirect" | "herestring_redirect" => {}
                _ => words.push(word(child, src)),
            }
        }
        rules::classify(self, &words, depth);
    }

    fn redirect(&mut self, node: Node<'_>, src: &str) {
        let mut writes = false;
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if !child.is_named() && matches!(child.kind(), ">" | ">>" | ">|" | "&>" | "&>>") {
                writes = true;
            }
        }
        let Some(target) = node.child_by_field_name("destination") else {
            return;
        };
        if !writes || target.kind() == "number" {
            return;
        }
        let target = word(target, src);
        let path = target.text.as_str();
        if is_block_device(path) {
            self.find(
                Verdict::Deny,
                format!("a redirection writes onto the block device {path}"),
            );
        } else if !matches!(
            path,
            "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty"
        ) && !path.starts_with("/dev/fd/")
            && !path.starts_with('&')
        {
            self.find(Verdict::Ask, format!("`> {path}` writes to a file"));
        }
    }

    /// `curl ... | sh`: text piped into an interpreter that reads its program from stdin.
    fn pipeline(&mut self, node: Node<'_>, src: &str) {
        let mut cursor = node.walk();
        for stage in node.named_children(&mut cursor).skip(1) {
            let command = if stage.kind() == "redirected_statement" {
                stage.child_by_field_name("body").unwrap_or(stage)
            } else {
                stage
            };
            if command.kind() != "command" {
                continue;
            }
            let words = command_words(command, src);
            if let Some(name) = reads_program_from_stdin(&words) {
                self.find(
                    Verdict::Ask,
                    format!("pipes text into `{name}`, which runs it"),
                );
            }
        }
    }

    /// A function that calls itself from a pipeline is the classic fork bomb `:(){ :|:& };:`.
    fn function(&mut self, node: Node<'_>, src: &str) {
        let (Some(name), Some(body)) = (
            node.child_by_field_name("name"),
            node.child_by_field_name("body"),
        ) else {
            return;
        };
        let name = &src[name.byte_range()];
        if calls_itself_in_pipeline(body, src, name) {
            self.find(
                Verdict::Deny,
                format!("the function `{name}` calls itself in a pipeline: a fork bomb"),
            );
        }
    }

    /// `bash <<EOF ... EOF` or `sh <<< "..."`: a shell fed its program inline.
    fn inline_script(&mut self, node: Node<'_>, src: &str) {
        let Some(parent) = node.parent() else { return };
        let body = if parent.kind() == "redirected_statement" {
            parent.child_by_field_name("body")
        } else if parent.kind() == "command" {
            Some(parent)
        } else {
            None
        };
        let Some(body) = body.filter(|b| b.kind() == "command") else {
            return;
        };
        let words = command_words(body, src);
        if let Some(name) = reads_program_from_stdin(&words) {
            self.find(Verdict::Ask, format!("feeds an inline script to `{name}`"));
        }
    }
}

fn command_words(node: Node<'_>, src: &str) -> Vec<Word> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|c| {
            !matches!(
                c.kind(),
                "variable_assignment" | "file_redirect" | "herestring_redirect"
            )
        })
        .map(|c| word(c, src))
        .collect()
}

/// The interpreter's name when `words` run one with no program argument (so it reads stdin).
fn reads_program_from_stdin(words: &[Word]) -> Option<String> {
    let (name, args) = words.split_first()?;
    let base = basename(&name.text);
    if !INTERPRETERS.contains(&base) {
        return None;
    }
    let program_given = args
        .iter()
        .any(|a| !a.text.starts_with('-') || a.text == "-c" || a.text == "-e");
    (!program_given || args.iter().any(|a| a.text == "-s" || a.text == "-"))
        .then(|| base.to_string())
}

fn calls_itself_in_pipeline(node: Node<'_>, src: &str, name: &str) -> bool {
    if node.kind() == "pipeline" {
        let mut cursor = node.walk();
        let calls = node
            .named_children(&mut cursor)
            .filter(|c| c.kind() == "command")
            .filter_map(|c| c.child_by_field_name("name"))
            .any(|n| &src[n.byte_range()] == name);
        if calls {
            return true;
        }
    }
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        if calls_itself_in_pipeline(child, src, name) {
            return true;
        }
    }
    false
}

/// The value of one shell word as far as it can be known before running: quotes removed, escapes
/// resolved; `dynamic` when it holds an expansion or substitution.
pub(super) fn word(node: Node<'_>, src: &str) -> Word {
    let raw = &src[node.byte_range()];
    match node.kind() {
        "word" | "number" => Word::literal(unescape(raw)),
        "raw_string" => Word::literal(raw.trim_start_matches('\'').trim_end_matches('\'')),
        "ansi_c_string" => Word::literal(raw.trim_start_matches("$'").trim_end_matches('\'')),
        "string" => {
            let inner = raw.strip_prefix('"').unwrap_or(raw);
            let inner = inner.strip_suffix('"').unwrap_or(inner);
            let mut cursor = node.walk();
            let dynamic = node
                .named_children(&mut cursor)
                .any(|c| c.kind() != "string_content");
            Word {
                text: unescape(inner),
                dynamic,
            }
        }
        "command_name" => node
            .named_child(0)
            .map_or_else(|| Word::literal(raw), |child| word(child, src)),
        "concatenation" => {
            let mut cursor = node.walk();
            let parts: Vec<Word> = node
                .named_children(&mut cursor)
                .map(|c| word(c, src))
                .collect();
            Word {
                text: parts.iter().map(|p| p.text.as_str()).collect(),
                dynamic: parts.iter().any(|p| p.dynamic),
            }
        }
        _ => Word {
            text: raw.to_string(),
            dynamic: true,
        },
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn words(command: &str) -> Vec<(String, bool)> {
        let mut parser = Parser::new();
        let _ = parser.set_language(&tree_sitter_bash::LANGUAGE.into());
        let Some(tree) = parser.parse(command, None) else {
            return Vec::new();
        };
        let Some(node) = tree.root_node().named_child(0) else {
            return Vec::new();
        };
        command_words(node, command)
            .into_iter()
            .map(|w| (w.text, w.dynamic))
            .collect()
    }

    #[test]
    fn words_lose_their_quotes_and_escapes_and_expansions_are_dynamic() {
        let got = words(r#"\rm "a b" 'c' x\ y "$HOME/z" $(pwd) a{b,c}"#);
        let want = vec![
            ("rm".to_string(), false),
            ("a b".to_string(), false),
            ("c".to_string(), false),
            ("x y".to_string(), false),
            ("$HOME/z".to_string(), true),
            ("$(pwd)".to_string(), true),
            ("a{b,c}".to_string(), false),
        ];
        assert_eq!(got, want);
    }
}
