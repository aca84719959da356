//! Parses a shell command line with tree-sitter-bash into plain data: every simple command (in
//! pipelines, lists, subshells, `$(...)`, backticks, process substitutions, loops, conditionals and
//! function bodies), every redirection and every bare assignment. Nothing here judges; the
//! classifier reads what this returns. The walk is iterative and bounded, so no input can exhaust
//! the stack.

use tree_sitter::{Node, Parser};

use super::declare::{self, Declared};
use super::functions;
use super::heredoc::{self, Expansion};
use super::node::{followed_by_ampersand, scopes, text_of};
pub(crate) use super::word_of::{Word, word};

/// How deep the syntax tree may nest before the line is judged too deeply nested to check.
const MAX_TREE_DEPTH: usize = 256;

/// How many here-documents deep, through command substitutions, a line is read.
const MAX_HEREDOC_NESTING: usize = 4;

/// One simple command: `NAME=value program arg...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SimpleCommand {
    /// The command's own text, as written (for approval patterns and messages).
    pub(crate) text: String,
    pub(crate) assignments: Vec<(String, Word)>,
    pub(crate) words: Vec<Word>,
    /// Fed a here-document or here-string: text written in the line itself is its input.
    pub(crate) inline_input: bool,
    /// The text the line feeds it on standard input, where the line spells it out (a
    /// here-string, a here-document, an `echo` piped into it).
    pub(crate) fed: Option<String>,
    /// Started with `&`: it keeps running after the line's other commands.
    pub(crate) background: bool,
    /// What it runs inside, outermost first: a subshell, `$(...)`, a pipeline or a function
    /// body (what changes there, a `cd`, stays there), or a branch, a loop or the right of
    /// `&&`/`||` (it may not run at all). Each by its node's id, and whether it is a condition.
    pub(crate) scopes: Vec<(usize, bool)>,
}

/// The direction of a redirection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RedirectKind {
    /// `< file`: reads a file.
    Input,
    /// `> file`, `>> file`, `>| file`, `&> file`, `>& file`, `<> file`: writes a file.
    Output,
    /// `2>&1`, `>&2`: duplicates a descriptor, touches no file.
    Duplicate,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Redirect {
    pub(crate) text: String,
    pub(crate) kind: RedirectKind,
    pub(crate) target: Word,
}

/// Everything found in one command line.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Script {
    /// In the order they appear (so `cd dir && cat x` is read in order).
    pub(crate) commands: Vec<SimpleCommand>,
    pub(crate) redirects: Vec<Redirect>,
    /// Assignments that stand alone or in `export`/`declare`/`local`: they change what later
    /// commands see (`PATH=...; ls`).
    pub(crate) assignments: Vec<(String, Word)>,
    /// Words that name things without being a command's arguments (`for f in ~/.ssh/*`).
    pub(crate) loose_words: Vec<Word>,
    /// The variables loops set, with the words they take their values from (none: unknown).
    pub(crate) loop_variables: Vec<(String, Vec<Word>)>,
    /// Expansions whose value ai cannot see even when it knows the variables (`${!name}`,
    /// `${name@P}`): indirection and prompt expansion can run commands.
    pub(crate) indirect: Vec<String>,
    /// Function names defined in the line that call themselves while starting processes.
    pub(crate) fork_bombs: Vec<String>,
    /// The bodies of the functions the line defines: they run wherever they are called.
    pub(crate) function_bodies: Vec<(String, String)>,
    /// Why the line could not be read completely, if it could not.
    pub(crate) unreadable: Option<&'static str>,
    /// Text bash evaluates as arithmetic (`(( ))`, `$(( ))`, `let`, `[[ -eq ]]`, subscripts,
    /// `declare -i`, `test -v`): a variable's value there is read as code (`a[$(cmd)]` runs cmd).
    pub(crate) arithmetic: Vec<String>,
    /// How deep in here-documents' command substitutions this reading is.
    nesting: usize,
    /// The functions the line defines: whom each calls, and whether it starts processes.
    functions: Vec<functions::FunctionShape>,
}

/// Parses `text` into a [`Script`].
pub(crate) fn parse(text: &str) -> Script {
    parse_nested(text, 0)
}

fn parse_nested(text: &str, nesting: usize) -> Script {
    let mut script = Script {
        nesting,
        ..Script::default()
    };
    let mut parser = Parser::new();
    if parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .is_err()
    {
        script.unreadable = Some("the shell parser is unavailable");
        return script;
    }
    let Some(tree) = parser.parse(text, None) else {
        script.unreadable = Some("the command could not be parsed");
        return script;
    };
    let root = tree.root_node();
    if root.has_error() {
        script.unreadable = Some("the command could not be parsed as shell");
    }
    walk(root, text, &mut script);
    let bombs = functions::recursive_spawners(&script.functions);
    script.fork_bombs.extend(bombs);
    script
}

/// Visits every node depth first, in source order, without recursion.
fn walk(root: Node<'_>, src: &str, script: &mut Script) {
    let mut stack = vec![(root, 0usize)];
    while let Some((node, depth)) = stack.pop() {
        if depth > MAX_TREE_DEPTH {
            script.unreadable = Some("the command is too deeply nested to check");
            continue;
        }
        visit(node, src, script);
        // A here-document's body is read as text by `heredoc_body`, which sees what bash runs
        // there (the parser misses backquotes and indented `$(`, and misreads `$((`).
        if node.kind() == "heredoc_body" {
            continue;
        }
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        for child in children.into_iter().rev() {
            stack.push((child, depth + 1));
        }
    }
}

fn visit(node: Node<'_>, src: &str, script: &mut Script) {
    match node.kind() {
        "command" => {
            let command = simple_command(node, src);
            script.arithmetic.extend(arithmetic_words(&command.words));
            script.commands.push(command);
        }
        "file_redirect" => {
            if let Some(redirect) = redirect(node, src) {
                script.redirects.push(redirect);
            }
        }
        "variable_assignment" => {
            script
                .arithmetic
                .extend(declare::subscripts(text_of(node, src)));
            if !is_command_prefix(node)
                && let Some(assignment) = assignment(node, src)
            {
                script.assignments.push(assignment);
            }
        }
        "for_statement" => for_loop(node, src, script),
        "c_style_for_statement" => {
            script.arithmetic.push(text_of(node, src).to_string());
            for_loop(node, src, script);
        }
        "herestring_redirect" => {
            let mut cursor = node.walk();
            let words: Vec<Word> = node
                .named_children(&mut cursor)
                .map(|child| word(child, src))
                .collect();
            script.loose_words.extend(words);
        }
        "declaration_command" => declaration(node, src, script),
        "heredoc_redirect" => heredoc_body(node, src, script),
        "unset_command" => unset_command(node, src, script),
        // `[[ -v 'a[$(cmd)]' ]]` evaluates the subscript: quoted code inside a test still runs.
        "test_command" | "arithmetic_expansion" => {
            let text = text_of(node, src);
            let inner = text.strip_prefix("$((").unwrap_or(text);
            if (inner.contains("$(") || inner.contains('`')) && !has_substitution(node) {
                script.indirect.push(text.to_string());
            }
            if node.kind() == "arithmetic_expansion" {
                script.arithmetic.push(text.to_string());
            }
        }
        "compound_statement" if text_of(node, src).starts_with("((") => {
            script.arithmetic.push(text_of(node, src).to_string());
        }
        "binary_expression" | "unary_expression" => arithmetic_test(node, src, script),
        "subscript" => {
            if let Some(index) = node.child_by_field_name("index") {
                script.arithmetic.push(text_of(index, src).to_string());
            }
        }
        "expansion" => expansion(text_of(node, src), script),
        // Backquotes inside backquotes (`` echo `echo \`CMD\`` ``): bash unescapes the inner
        // level and runs it, where the parser sees only text (classifier round 15).
        "command_substitution" if backquoted_inside(text_of(node, src)) => {
            let inner = unescape_backquoted(text_of(node, src));
            if script.nesting < MAX_HEREDOC_NESTING {
                script.absorb(parse_nested(&inner, script.nesting + 1));
            } else {
                script.unreadable = Some("backquotes nested too deeply to check");
            }
        }
        "function_definition" => function_definition(node, src, script),
        _ => {}
    }
}

/// Whether a backquoted substitution holds another, escaped (`` `echo \`id\`` ``).
fn backquoted_inside(text: &str) -> bool {
    text.starts_with('`') && text.contains("\\`")
}

/// The command inside backquotes as bash reads it: a backslash before `` ` ``, `$` or `\`
/// is removed.
fn unescape_backquoted(text: &str) -> String {
    let inner = text.strip_prefix('`').unwrap_or(text);
    let inner = inner.strip_suffix('`').unwrap_or(inner);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&next) = chars.peek()
            && matches!(next, '`' | '$' | '\\')
        {
            chars.next();
            out.push(next);
        } else {
            out.push(c);
        }
    }
    out
}

/// `unset NAMES`: subscripts are arithmetic; a name only the run knows (`unset "$x"` with
/// `x='a[$(cmd)]'`) has its subscript evaluated too (classifier round 17).
fn unset_command(node: Node<'_>, src: &str, script: &mut Script) {
    let mut cursor = node.walk();
    let words: Vec<Word> = std::iter::once(Word::literal("unset"))
        .chain(node.named_children(&mut cursor).map(|c| word(c, src)))
        .collect();
    // `unset "$x"` with `x='a[$(cmd)]'`: bash evaluates the subscript of a name only
    // the run knows (classifier round 17).
    if words.iter().any(|w| w.text.starts_with(['$', '`'])) {
        script.indirect.push(text_of(node, src).to_string());
    }
    script.arithmetic.extend(arithmetic_words(&words));
}

/// A function the line defines: its shape (for fork bombs) and its body, by name.
fn function_definition(node: Node<'_>, src: &str, script: &mut Script) {
    script
        .functions
        .extend(functions::function_shape(node, src));
    // A function defined inside another's body is judged when that body is: recording it here
    // too would judge each nested body once per level above it (8 KB of nested definitions
    // took minutes: classifier round 14).
    let mut parent = node.parent();
    while let Some(p) = parent {
        if p.kind() == "function_definition" {
            return;
        }
        parent = p.parent();
    }
    if let (Some(name), Some(body)) = (
        node.child_by_field_name("name"),
        node.child_by_field_name("body"),
    ) {
        let name = text_of(name, src).to_string();
        script
            .function_bodies
            .push((name, text_of(body, src).to_string()));
    }
}

/// `${!name}`, `${name@P}` expand a value ai cannot see; `${s:OFFSET}` is arithmetic.
fn expansion(text: &str, script: &mut Script) {
    let indirect = text.starts_with("${!")
        || ["@P", "@E", "@A", "@K", "@a", "@k"]
            .iter()
            .any(|op| text.ends_with(&format!("{op}}}")));
    if indirect {
        script.indirect.push(text.to_string());
    }
    script.arithmetic.extend(substring_offset(text));
    script.assignments.extend(assigning_default(text));
}

/// `${NAME:=value}` and `${NAME=value}` assign NAME when it is unset (or empty): judged like
/// `NAME=value` (`: ${GIT_DIR:=bare}`).
fn assigning_default(text: &str) -> Option<(String, Word)> {
    let inner = text.strip_prefix("${")?.strip_suffix('}')?;
    let name_end = inner.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
    let (name, rest) = inner.split_at(name_end);
    let value = rest.strip_prefix(":=").or_else(|| rest.strip_prefix('='))?;
    let dynamic = value.contains(['$', '`']);
    let value = Word {
        text: value.trim_matches(['"', '\'']).to_string(),
        dynamic,
        quoted: false,
    };
    (!name.is_empty()).then(|| (name.to_string(), value))
}

/// An unquoted here-document's body: bash runs every command substitution in it, indented or
/// in backquotes, which the parser does not all show. Each is read as a line of its own.
fn heredoc_body(node: Node<'_>, src: &str, script: &mut Script) {
    let mut cursor = node.walk();
    let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
    let start = children.iter().find(|c| c.kind() == "heredoc_start");
    if start.is_none_or(|s| heredoc::quoted_delimiter(text_of(*s, src))) {
        return;
    }
    let Some(body) = children.iter().find(|c| c.kind() == "heredoc_body") else {
        return;
    };
    let expansions = match heredoc::expansions(text_of(*body, src)) {
        Ok(found) => found,
        Err(why) => {
            script.unreadable = Some(why);
            return;
        }
    };
    for found in expansions {
        match found {
            Expansion::Command(line) if script.nesting < MAX_HEREDOC_NESTING => {
                script.absorb(parse_nested(&line, script.nesting + 1));
            }
            Expansion::Command(_) => {
                script.unreadable = Some("here-documents nested too deeply to check");
            }
            Expansion::Arithmetic(expr) => script.arithmetic.push(expr),
            Expansion::Parameter(text) => expansion(&text, script),
        }
    }
}

impl Script {
    /// Adds what a nested reading found (a here-document's command substitution).
    fn absorb(&mut self, inner: Script) {
        self.commands.extend(inner.commands);
        self.redirects.extend(inner.redirects);
        self.assignments.extend(inner.assignments);
        self.loose_words.extend(inner.loose_words);
        self.loop_variables.extend(inner.loop_variables);
        self.indirect.extend(inner.indirect);
        self.fork_bombs.extend(inner.fork_bombs);
        self.arithmetic.extend(inner.arithmetic);
        self.unreadable = self.unreadable.or(inner.unreadable);
    }
}

/// `declare -n ref=NAME` makes later assignments to `ref` change NAME; `-f` exports code;
/// `export` alone and `declare -p` print every variable, tokens included; `-i` evaluates what is
/// assigned as arithmetic.
fn declaration(node: Node<'_>, src: &str, script: &mut Script) {
    let text = text_of(node, src);
    let mut cursor = node.walk();
    let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
    let flags: Vec<&str> = children
        .iter()
        .map(|c| text_of(*c, src))
        .filter(|t| t.starts_with('-'))
        .collect();
    // `-n` (a name reference), `-f` (functions), `-l`/`-u` (the value's case changed): what
    // the names hold is not what is written.
    let flagged = flags
        .iter()
        .any(|t| !t.starts_with("--") && t.contains(['n', 'f', 'l', 'u']));
    let prints = flags.iter().any(|t| t.contains('p')) || children.len() == flags.len();
    if flagged || prints {
        script.indirect.push(text.to_string());
    }
    if flags
        .iter()
        .any(|t| !t.starts_with("--") && t.contains('i'))
    {
        script.arithmetic.push(text.to_string());
    }
    // Quoted or concatenated arguments are assignments too (`declare 'PATH=/tmp'`); the
    // parser may split one word in parts (`PA""TH=/tmp`), so touching parts are joined.
    for parts in children.chunk_by(|a, b| a.end_byte() == b.start_byte()) {
        let (Some(first), Some(last)) = (parts.first(), parts.last()) else {
            continue;
        };
        let raw = src.get(first.start_byte()..last.end_byte()).unwrap_or("");
        let alone = parts.len() == 1;
        let plain = alone && matches!(first.kind(), "variable_assignment" | "variable_name");
        if plain || raw.starts_with(['-', '+']) {
            continue;
        }
        script.arithmetic.extend(declare::subscripts(raw));
        let whole = joined(parts, src);
        match declare::declared(raw, &whole.text, whole.dynamic) {
            Declared::Assignment(name, text) => {
                let value = Word { text, ..whole };
                script.assignments.push((name, value));
            }
            Declared::Computed => script.indirect.push(text.to_string()),
            Declared::Plain => {}
        }
    }
}

/// The word that touching parts make together.
fn joined(parts: &[Node<'_>], src: &str) -> Word {
    let mut out = Word {
        text: String::new(),
        dynamic: false,
        quoted: true,
    };
    for part in parts {
        let piece = match part.kind() {
            "variable_assignment" | "variable_name" => Word::literal(text_of(*part, src)),
            _ => word(*part, src),
        };
        out.text.push_str(&piece.text);
        out.dynamic |= piece.dynamic;
        out.quoted &= piece.quoted;
    }
    out
}

/// A loop's variable, with the words it takes its values from, and those words.
fn for_loop(node: Node<'_>, src: &str, script: &mut Script) {
    let mut cursor = node.walk();
    let values: Vec<Word> = node
        .children_by_field_name("value", &mut cursor)
        .map(|v| word(v, src))
        .collect();
    if let Some(variable) = node.child_by_field_name("variable") {
        let known = if node.kind() == "for_statement" {
            values.clone()
        } else {
            Vec::new()
        };
        script
            .loop_variables
            .push((text_of(variable, src).to_string(), known));
    }
    script.loose_words.extend(values);
}

/// `[[ X -eq Y ]]` compares numbers (both sides arithmetic), `[[ -v NAME ]]` evaluates a
/// subscript in NAME.
fn arithmetic_test(node: Node<'_>, src: &str, script: &mut Script) {
    let mut up = node.parent();
    while let Some(p) = up.filter(|p| {
        matches!(
            p.kind(),
            "binary_expression" | "unary_expression" | "parenthesized_expression"
        )
    }) {
        up = p.parent();
    }
    if up.is_none_or(|p| p.kind() != "test_command") {
        return;
    }
    let mut cursor = node.walk();
    let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
    let numeric = children.iter().any(|c| {
        c.kind() == "test_operator"
            && matches!(
                text_of(*c, src),
                "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge" | "-v"
            )
    });
    if numeric {
        for child in children.iter().filter(|c| c.kind() != "test_operator") {
            script.arithmetic.push(text_of(*child, src).to_string());
        }
    }
}

/// `let EXPR...` evaluates every word; `test -v NAME` / `[ -v NAME ]` and `unset NAME[SUB]` a
/// subscript in NAME, quoted or not (`unset 'a[$(cmd)]'` runs cmd).
fn arithmetic_words(words: &[Word]) -> Vec<String> {
    let Some((name, args)) = words.split_first() else {
        return Vec::new();
    };
    match name.text.as_str() {
        "let" => args.iter().map(|w| w.text.clone()).collect(),
        "unset" => args
            .iter()
            .filter(|w| w.text.contains('['))
            .map(|w| w.text.clone())
            .collect(),
        "test" | "[" => args
            .windows(2)
            .filter(|pair| pair[0].text == "-v")
            .map(|pair| pair[1].text.clone())
            .collect(),
        _ => Vec::new(),
    }
}

/// `${s:OFFSET:LENGTH}`, `${a[@]:OFFSET}`, `${@:OFFSET}`: both are arithmetic (`${s:-x}`, `${s:=x}`, ... are not).
fn substring_offset(text: &str) -> Option<String> {
    let inner = text.strip_prefix("${")?.strip_suffix('}')?;
    let name_end = if inner.starts_with(['@', '*']) {
        1
    } else {
        inner.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?
    };
    let mut rest = &inner[name_end..];
    if rest.starts_with('[') {
        rest = &rest[rest.find(']')? + 1..];
    }
    let rest = rest.strip_prefix(':')?;
    (!rest.starts_with(['-', '=', '+', '?'])).then(|| rest.to_string())
}

/// Whether a real command substitution is somewhere below `node` (bounded walk).
fn has_substitution(node: Node<'_>) -> bool {
    let mut stack = vec![node];
    let mut seen = 0;
    while let Some(n) = stack.pop() {
        seen += 1;
        if n.kind() == "command_substitution" || seen > 10_000 {
            return true;
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    false
}

/// `FOO=1 cmd` is a prefix of the command (kept with it); `FOO=1` alone changes the shell.
fn is_command_prefix(node: Node<'_>) -> bool {
    node.parent().is_some_and(|p| p.kind() == "command")
}

fn simple_command(node: Node<'_>, src: &str) -> SimpleCommand {
    let mut words = Vec::new();
    let mut assignments = Vec::new();
    let mut inline_input = fed_inline(node);
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        // `bash 0<<< TEXT`: bash reads `0` as the redirect's descriptor, the parser as an
        // argument (classifier round 15).
        let descriptor = child.kind() == "number"
            && child.next_sibling().is_some_and(|n| {
                n.kind().ends_with("redirect") && n.start_byte() == child.end_byte()
            });
        if descriptor {
            continue;
        }
        match child.kind() {
            "variable_assignment" => assignments.extend(assignment(child, src)),
            "file_redirect" => {}
            "herestring_redirect" | "heredoc_redirect" => inline_input = true,
            _ => words.push(word(child, src)),
        }
    }
    SimpleCommand {
        text: text_of(node, src).to_string(),
        assignments,
        words,
        inline_input,
        fed: super::fed::fed_text(node, src),
        background: in_background(node),
        scopes: scopes(node),
    }
}

/// Whether a here-document or here-string redirects the statement the command is the body of.
fn fed_inline(node: Node<'_>) -> bool {
    node.parent()
        .filter(|p| p.kind() == "redirected_statement")
        .is_some_and(|p| {
            let mut cursor = p.walk();
            p.named_children(&mut cursor)
                .any(|c| matches!(c.kind(), "heredoc_redirect" | "herestring_redirect"))
        })
}

/// Whether the command, or a list, pipeline, subshell, group or loop it is part of, is started
/// with `&` (`(sleep 999) &` and `{ x; } &` are background jobs too: classifier round 14).
/// A function's body runs where the function is called, not where it is defined.
fn in_background(node: Node<'_>) -> bool {
    let mut child = node;
    while let Some(parent) = child.parent() {
        if followed_by_ampersand(child) {
            return true;
        }
        if matches!(parent.kind(), "program" | "function_definition") {
            return false;
        }
        child = parent;
    }
    false
}

fn assignment(node: Node<'_>, src: &str) -> Option<(String, Word)> {
    let name = node.child_by_field_name("name")?;
    let mut value = node
        .child_by_field_name("value")
        .map_or_else(|| Word::literal(""), |v| word(v, src));
    let name = text_of(name, src).to_string();
    // `NAME+=text` appends: it is `NAME=${NAME}text`.
    if text_of(node, src)[name.len()..].starts_with("+=") && !name.contains('[') {
        value = Word {
            text: format!("${{{name}}}{}", value.text),
            dynamic: true,
            quoted: value.quoted,
        };
    }
    Some((name, value))
}

fn redirect(node: Node<'_>, src: &str) -> Option<Redirect> {
    let mut operator = "";
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if !child.is_named() {
            operator = child.kind();
            break;
        }
    }
    let target = node.child_by_field_name("destination")?;
    let target_word = word(target, src);
    let kind = match operator {
        "<" | "<&" | "<&-" => {
            if target.kind() == "number" || operator != "<" {
                RedirectKind::Duplicate
            } else {
                RedirectKind::Input
            }
        }
        ">&" | ">&-" if target.kind() == "number" || target_word.text == "-" => {
            RedirectKind::Duplicate
        }
        _ => RedirectKind::Output,
    };
    Some(Redirect {
        text: text_of(node, src).to_string(),
        kind,
        target: target_word,
    })
}
