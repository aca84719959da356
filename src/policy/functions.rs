//! Functions a line defines that call themselves while starting processes: fork bombs in every
//! shape (`:(){ :|:& };:`, `f(){ f & f; }`, `f(){ (f&); f; }`, `f(){ g|g& }; g(){ f|f& }`).

use tree_sitter::Node;

use super::node::text_of;

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
            // A name computed at run time (`$x`) could be the function itself.
            if name == function.name || name == ANY {
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
        let spawned = spawned || n.kind() == "pipeline";
        if n.kind() == "command"
            && let Some(called) = n.child_by_field_name("name")
        {
            // `eval "f & f"`: the calls in its text, started as processes there too.
            let (called, spawning) = match evaluated(n, src) {
                Some((calls, spawning)) => (calls, spawning),
                None => (vec![callee(n, text_of(called, src), src)], false),
            };
            if spawned || spawning {
                shape.spawned.extend(called.iter().cloned());
            }
            shape.calls.extend(called);
        }
        // Whether `&` follows a child is read from the list of children: tree-sitter's
        // `next_sibling` walks down from the root each time, which made nested definitions
        // cost the cube of their depth (classifier round 14: 8 KB took minutes).
        let mut cursor = n.walk();
        let children: Vec<Node<'_>> = n.children(&mut cursor).collect();
        for (i, child) in children.iter().enumerate().filter(|(_, c)| c.is_named()) {
            let backgrounded = children.get(i + 1).is_some_and(|next| next.kind() == "&");
            stack.push((*child, spawned || backgrounded));
        }
    }
    Some(shape)
}

/// A callee computed at run time: it may be any function.
const ANY: &str = "$";

/// Whom a command calls, as bash reads its name: quotes and backslashes gone (`"f"`, `\f`,
/// `f""`, `$'f'`), through `eval`, `command`, `builtin` and `exec` (`eval f`), and any function
/// at all for a name computed at run time (`$x`).
fn callee(command: Node<'_>, name: &str, src: &str) -> String {
    let plain = |text: &str| -> Option<String> {
        let text = text
            .strip_prefix("$'")
            .map_or(text, |t| t.trim_end_matches('\''));
        let plain: String = text
            .chars()
            .filter(|c| !matches!(c, '"' | '\'' | '\\'))
            .collect();
        (!plain.contains('$') && !plain.contains('`')).then_some(plain)
    };
    let Some(name) = plain(name) else {
        return ANY.to_string();
    };
    if matches!(name.as_str(), "eval" | "command" | "builtin" | "exec") {
        let mut cursor = command.walk();
        let first = command
            .children_by_field_name("argument", &mut cursor)
            .map(|a| text_of(a, src))
            .find(|a| !a.starts_with('-'));
        if let Some(first) = first {
            let word = first.split_whitespace().next().unwrap_or("");
            return plain(word.trim_matches(['"', '\''])).unwrap_or_else(|| ANY.to_string());
        }
    }
    name
}

/// The calls in the text an `eval` runs (also `builtin eval`, `command eval`), and whether that
/// text starts processes (`&` or a pipe): `f(){ eval "f & f"; }` is a fork bomb (classifier
/// round 14). `None` when the command is no `eval`.
fn evaluated(command: Node<'_>, src: &str) -> Option<(Vec<String>, bool)> {
    let mut cursor = command.walk();
    let words: Vec<&str> = std::iter::once(command.child_by_field_name("name")?)
        .chain(command.children_by_field_name("argument", &mut cursor))
        .map(|w| text_of(w, src))
        .collect();
    let unquoted = |w: &str| -> String {
        w.chars()
            .filter(|c| !matches!(c, '"' | '\'' | '\\'))
            .collect()
    };
    let at = words.iter().take(3).position(|w| unquoted(w) == "eval")?;
    let before_ok = words[..at]
        .iter()
        .all(|w| matches!(unquoted(w).as_str(), "builtin" | "command"));
    if !before_ok {
        return None;
    }
    let text: String = words[at + 1..].join(" ");
    let spawning = text.contains('&') || text.contains('|');
    let calls = text
        .split([';', '&', '|', '(', ')', '\n', '{', '}'])
        .filter_map(|piece| piece.split_whitespace().next())
        .map(|name| {
            let name = unquoted(name);
            if name.contains('$') || name.contains('`') {
                ANY.to_string()
            } else {
                name
            }
        })
        .collect();
    Some((calls, spawning))
}
