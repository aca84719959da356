//! Readings of a parse-tree node that the parser and the fork-bomb check share: its text,
//! whether it runs in the background, and the scopes it runs in.

use tree_sitter::Node;

/// The node's text in `src`.
pub(super) fn text_of<'s>(node: Node<'_>, src: &'s str) -> &'s str {
    src.get(node.byte_range()).unwrap_or("")
}

/// Whether `&` follows the node: it runs in the background.
pub(super) fn followed_by_ampersand(node: Node<'_>) -> bool {
    node.next_sibling().is_some_and(|s| s.kind() == "&")
}

/// The scopes a command runs in (see `SimpleCommand::scopes`), outermost first.
pub(super) fn scopes(node: Node<'_>) -> Vec<(usize, bool)> {
    let mut out = Vec::new();
    let mut child = node;
    while let Some(parent) = child.parent() {
        match parent.kind() {
            "subshell"
            | "command_substitution"
            | "process_substitution"
            | "pipeline"
            | "function_definition" => out.push((parent.id(), false)),
            "if_statement"
            | "case_statement"
            | "while_statement"
            | "for_statement"
            | "c_style_for_statement" => out.push((parent.id(), true)),
            // A chain of `&&` and `||`: what runs in it depends on how each part turns out
            // (one scope for the whole chain: its parts follow each other's `cd`).
            "list" if parent.parent().is_none_or(|p| p.kind() != "list") => {
                out.push((parent.id(), true));
            }
            _ => {}
        }
        child = parent;
    }
    out.reverse();
    out
}
