//! Functions a line defines that call themselves while starting processes: fork bombs in every
//! shape (`:(){ :|:& };:`, `f(){ f & f; }`, `f(){ (f&); f; }`, `f(){ g|g& }; g(){ f|f& }`).

use tree_sitter::Node;

use super::node::{followed_by_ampersand, text_of};

/// What a function's body does that makes recursion a fork bomb.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct FunctionShape {
    name: String,
    calls: Vec<String>,
    /// It starts a process of its own: a call in the background (`&`) or in a pipeline.
    spawns: bool,
}

/// Functions that reach themselves (directly or through other functions of the line) and start
/// processes on the way: `f(){ f & f; }`, `f(){ (f&); f; }`, `f(){ g|g& }; g(){ f|f& }`.
pub(super) fn recursive_spawners(functions: &[FunctionShape]) -> Vec<String> {
    let by_name = |name: &str| functions.iter().find(|f| f.name == name);
    let mut out = Vec::new();
    for function in functions.iter().filter(|f| f.spawns) {
        let mut seen: Vec<&str> = Vec::new();
        let mut stack: Vec<&str> = function.calls.iter().map(String::as_str).collect();
        while let Some(name) = stack.pop() {
            if name == function.name {
                out.push(function.name.clone());
                break;
            }
            if seen.contains(&name) || seen.len() > 256 {
                continue;
            }
            seen.push(name);
            if let Some(called) = by_name(name) {
                stack.extend(called.calls.iter().map(String::as_str));
            }
        }
    }
    out
}

/// Whom a function's body calls, and whether it starts processes (bounded walk).
pub(super) fn function_shape(node: Node<'_>, src: &str) -> Option<FunctionShape> {
    let name = text_of(node.child_by_field_name("name")?, src).to_string();
    let body = node.child_by_field_name("body")?;
    let mut shape = FunctionShape {
        name,
        ..FunctionShape::default()
    };
    let mut stack = vec![body];
    let mut seen = 0;
    while let Some(n) = stack.pop() {
        seen += 1;
        if seen > 10_000 {
            shape.spawns = true;
            break;
        }
        if n.kind() == "pipeline" || followed_by_ampersand(n) {
            shape.spawns = true;
        }
        if n.kind() == "command"
            && let Some(called) = n.child_by_field_name("name")
        {
            shape.calls.push(text_of(called, src).to_string());
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    Some(shape)
}
