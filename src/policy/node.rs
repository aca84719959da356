//! Two readings of a parse-tree node that the parser and the fork-bomb check share.

use tree_sitter::Node;

/// The node's text in `src`.
pub(super) fn text_of<'s>(node: Node<'_>, src: &'s str) -> &'s str {
    src.get(node.byte_range()).unwrap_or("")
}

/// Whether `&` follows the node: it runs in the background.
pub(super) fn followed_by_ampersand(node: Node<'_>) -> bool {
    node.next_sibling().is_some_and(|s| s.kind() == "&")
}
