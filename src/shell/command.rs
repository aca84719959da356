//! The command line `ai --command` puts on the user's prompt: taken out of the model's answer and
//! checked with the same tree-sitter-bash parser as the policy, so prose ("I cannot help with
//! that.") or a script cut in half never lands on the command line.

use tree_sitter::{Node, Parser};

/// Words a shell runs itself: they are commands without being files on `PATH`.
const BUILTINS: &[&str] = &[
    ".", ":", "[", "[[", "alias", "bg", "bind", "builtin", "cd", "command", "declare", "dirs",
    "disown", "echo", "eval", "exec", "exit", "export", "false", "fc", "fg", "getopts", "hash",
    "history", "jobs", "kill", "let", "local", "popd", "printf", "pushd", "pwd", "read",
    "readonly", "set", "shift", "source", "test", "time", "times", "trap", "true", "type",
    "typeset", "ulimit", "umask", "unalias", "unset", "wait",
];

/// The one command line in a model's answer, or why there is none. A fenced block is taken
/// whole (joined into one line, never cut); unfenced text may be followed by prose, so its first
/// command is tried when the whole is not one. `path` is the `PATH` a program name is looked up in.
pub(crate) fn extract_command(answer: &str, path: Option<&str>) -> Result<String, String> {
    let text = answer.trim();
    if text.is_empty() {
        return Err("the model's answer was empty".into());
    }
    if let Some(body) = fenced(text) {
        return one_line(body, path);
    }
    let whole = one_line(text, path);
    if whole.is_ok() {
        return whole;
    }
    match one_line(&first_logical_line(text), path) {
        Ok(command) => Ok(command),
        Err(_) => whole,
    }
}

/// The inside of the first fenced block, if the answer has one.
fn fenced(text: &str) -> Option<&str> {
    let start = text.find("```")?;
    let after = &text[start + 3..];
    let body_start = after.find('\n')? + 1;
    let body = &after[body_start..];
    let end = body.find("```").unwrap_or(body.len());
    Some(&body[..end])
}

/// The first line, with the lines a trailing `\` continues it onto.
fn first_logical_line(text: &str) -> String {
    let mut command = String::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        command.push_str(line.trim_end());
        if command.ends_with('\\') {
            command.push('\n');
        } else {
            break;
        }
    }
    command
}

/// A script made one command line: prompt signs and comments dropped, lines joined the way the
/// shell would read them, the result parsed again and every program checked.
fn one_line(body: &str, path: Option<&str>) -> Result<String, String> {
    let lines: Vec<&str> = body
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|l| {
            let trimmed = l.trim_start();
            trimmed.strip_prefix("$ ").unwrap_or(l)
        })
        .collect();
    if lines.is_empty() {
        return Err("the model's answer held no command".into());
    }
    let mut joined = String::new();
    for line in lines {
        if joined.is_empty() {
            joined.push_str(line.trim_start());
            continue;
        }
        let separator = separator(&joined);
        joined.push_str(separator);
        // A continued line keeps its indentation, as it was written.
        joined.push_str(if separator == "\n" {
            line
        } else {
            line.trim_start()
        });
    }
    let command = joined.trim().trim_matches('`').trim().to_string();
    check(&command, path)?;
    Ok(command)
}

/// How the next line joins what came before: a `\` continues it as written, an operator or a
/// keyword that opens a body takes it after a space, anything else ends a command (`;`).
fn separator(before: &str) -> &'static str {
    let end = before.trim_end();
    if end.ends_with('\\') {
        "\n"
    } else if ["&&", "||", "|", "then", "do", "else", "{", "(", ";"]
        .iter()
        .any(|op| end.ends_with(op))
    {
        " "
    } else {
        "; "
    }
}

/// Parses the line and checks that it is made of commands this shell can run.
fn check(command: &str, path: Option<&str>) -> Result<(), String> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .map_err(|_| "the shell parser is unavailable".to_string())?;
    let tree = parser
        .parse(command, None)
        .ok_or("the model's answer could not be parsed as a command")?;
    let root = tree.root_node();
    if root.has_error() {
        return Err("the model's answer is not a valid command line".into());
    }
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind() == "heredoc_redirect" {
            return Err(
                "the model's answer is a script with a here-document, not one command line".into(),
            );
        }
        if node.kind() == "command"
            && let Some(name) = node.child_by_field_name("name")
        {
            runnable(text_of(name, command), path)?;
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
    Ok(())
}

fn text_of<'a>(node: Node<'_>, src: &'a str) -> &'a str {
    src.get(node.byte_range()).unwrap_or_default()
}

/// A program name that names something to run: a builtin, a path, something computed, or a file
/// on `PATH`. Prose fails here: its first word is not a program.
fn runnable(name: &str, path: Option<&str>) -> Result<(), String> {
    let computed = name.contains(['$', '/', '`', '"', '\'', '=']);
    if computed || BUILTINS.contains(&name) {
        return Ok(());
    }
    let found = path
        .unwrap_or_default()
        .split(':')
        .filter(|dir| !dir.is_empty())
        .any(|dir| is_executable(&std::path::Path::new(dir).join(name)));
    if found {
        Ok(())
    } else {
        Err(format!(
            "the model's answer is not a command (`{}` is no program here)",
            name.chars().take(40).collect::<String>()
        ))
    }
}

fn is_executable(path: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATH: Option<&str> = Some("/usr/bin:/bin");

    fn extract(answer: &str) -> Result<String, String> {
        extract_command(answer, PATH)
    }

    #[test]
    fn commands_come_out_of_fences_prose_and_prompt_signs() {
        assert_eq!(
            extract("find . -size +100M"),
            Ok("find . -size +100M".into())
        );
        assert_eq!(
            extract("```bash\nfind . -size +100M\n```"),
            Ok("find . -size +100M".into())
        );
        assert_eq!(
            extract("Here you go:\n```sh\n$ du -sh *\n```\nThis lists sizes."),
            Ok("du -sh *".into())
        );
        assert_eq!(extract("`ls -la`"), Ok("ls -la".into()));
        assert_eq!(
            extract("tar czf out.tgz \\\n  src"),
            Ok("tar czf out.tgz \\\n  src".into())
        );
        assert_eq!(
            extract("ls -la\nThis lists the files."),
            Ok("ls -la".into())
        );
        assert!(extract("  \n ").is_err());
    }

    #[test]
    fn prose_is_refused() {
        for prose in [
            "I cannot help with that request.",
            "I can't help with that.",
            "Sorry, that is not something a command can do",
        ] {
            assert!(extract(prose).is_err(), "{prose}");
        }
    }

    #[test]
    fn a_fenced_script_is_joined_into_one_line_never_cut() {
        assert_eq!(
            extract("```bash\nmkdir -p build\ncd build\n```"),
            Ok("mkdir -p build; cd build".into())
        );
        assert_eq!(
            extract("```sh\nfor f in *.txt; do\n  wc -l \"$f\"\ndone\n```"),
            Ok("for f in *.txt; do wc -l \"$f\"; done".into())
        );
        assert_eq!(
            extract("```sh\ngrep -r TODO . |\n  wc -l\n```"),
            Ok("grep -r TODO . | wc -l".into())
        );
        assert!(extract("```sh\ncat <<EOF\nhello\nEOF\n```").is_err());
    }
}
