//! Functions a line defines that call themselves while starting processes: fork bombs in every
//! shape (`:(){ :|:& };:`, `f(){ f & f; }`, `f(){ (f&); f; }`, `f(){ g|g& }; g(){ f|f& }`).

use tree_sitter::Node;

use super::node::{followed_by_ampersand, text_of};

/// What a function's body does that makes recursion a fork bomb.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct FunctionShape {
    name: String,
    calls: Vec<String>,
    /// The calls it makes as processes of their own: in the background (`&`) or a pipeline.
    spawned: Vec<String>,
}

/// Functions that reach themselves (directly or through other functions of the line) and start
/// processes on the way: `f(){ f & f; }`, `f(){ (f&); f; }`, `f(){ g|g& }; g(){ f|f& }`.
pub(super) fn recursive_spawners(functions: &[FunctionShape]) -> Vec<String> {
    let by_name = |name: &str| functions.iter().find(|f| f.name == name);
    let mut out = Vec::new();
    for function in functions.iter().filter(|f| !f.spawned.is_empty()) {
        let mut seen: Vec<&str> = Vec::new();
        // A call started as a process that leads back to the function itself.
        let mut stack: Vec<&str> = function.spawned.iter().map(String::as_str).collect();
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

/// Whom a function's body calls, and which calls start processes (bounded walk).
pub(super) fn function_shape(node: Node<'_>, src: &str) -> Option<FunctionShape> {
    let name = text_of(node.child_by_field_name("name")?, src).to_string();
    let body = node.child_by_field_name("body")?;
    let mut shape = FunctionShape {
        name,
        ..FunctionShape::default()
    };
    // Each node with whether it runs as a process of its own (inside a pipeline or `&`).
    let mut stack = vec![(body, false)];
    let mut seen = 0;
    while let Some((n, spawned)) = stack.pop() {
        seen += 1;
        if seen > 10_000 {
            // Too big to read: taken as starting itself.
            shape.spawned.push(shape.name.clone());
            break;
        }
        let spawned = spawned || n.kind() == "pipeline" || followed_by_ampersand(n);
        if n.kind() == "command"
            && let Some(called) = n.child_by_field_name("name")
        {
            let called = text_of(called, src).to_string();
            if spawned {
                shape.spawned.push(called.clone());
            }
            shape.calls.push(called);
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor).map(|c| (c, spawned)));
    }
    Some(shape)
}
