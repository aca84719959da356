//! Text written in the line that a shell then reads as its script on standard input: a
//! here-string (`bash <<< "rm -rf ~"`), a here-document, or the literal output of an `echo` or
//! `printf` piped into it (`echo "rm -rf /" | sh`). The classifier judges that text as it judges
//! `bash -c TEXT`, so what is denied there is denied here (classifier round 14: `--yes` ran
//! `bash <<< "rm -rf ~"`).

use tree_sitter::Node;

use super::node::text_of;
use super::word_of::{Word, word};

/// The text fed to the command at `node` on standard input, when the line spells it out.
pub(super) fn fed_text(node: Node<'_>, src: &str) -> Option<String> {
    let statement = node
        .parent()
        .filter(|p| p.kind() == "redirected_statement")
        .unwrap_or(node);
    let mut redirects = Vec::new();
    for holder in [node, statement] {
        let mut cursor = holder.walk();
        redirects.extend(
            holder
                .named_children(&mut cursor)
                .filter(|c| matches!(c.kind(), "herestring_redirect" | "heredoc_redirect")),
        );
    }
    if let Some(redirect) = redirects.last() {
        // `bash 3<<< TEXT`, which the parser reads as an argument `3` before the redirect.
        if redirect
            .prev_sibling()
            .filter(|p| p.kind() == "number" && p.end_byte() == redirect.start_byte())
            .is_some_and(|p| text_of(p, src) != "0")
        {
            return None;
        }
        return inline_text(*redirect, src);
    }
    // `bash <(echo TEXT)`, `source <(printf TEXT)`: the script is the substitution's output.
    let mut cursor = node.walk();
    let substituted = node
        .children_by_field_name("argument", &mut cursor)
        .find(|a| a.kind() == "process_substitution");
    if let Some(substitution) = substituted {
        let mut cursor = substitution.walk();
        let inner: Vec<Node<'_>> = substitution.named_children(&mut cursor).collect();
        return match inner.as_slice() {
            [producer] => printed_text(*producer, src),
            _ => None,
        };
    }
    let producer = statement
        .parent()
        .filter(|p| p.kind() == "pipeline")
        .and(statement.prev_named_sibling())?;
    printed_text(producer, src)
}

/// A here-string's word, or a here-document's body.
fn inline_text(redirect: Node<'_>, src: &str) -> Option<String> {
    let mut cursor = redirect.walk();
    let children: Vec<Node<'_>> = redirect.named_children(&mut cursor).collect();
    if redirect.kind() == "heredoc_redirect" {
        let descriptor = children.iter().find(|c| c.kind() == "file_descriptor");
        if descriptor.is_some_and(|d| text_of(*d, src) != "0") {
            return None;
        }
        let body = children.iter().find(|c| c.kind() == "heredoc_body")?;
        return Some(text_of(*body, src).to_string());
    }
    // `bash 0<<< TEXT` feeds standard input; `bash 3<<< TEXT` another descriptor.
    let descriptor = children.iter().find(|c| c.kind() == "file_descriptor");
    if descriptor.is_some_and(|d| text_of(*d, src) != "0") {
        return None;
    }
    let words: Vec<Word> = (children.iter())
        .filter(|c| c.kind() != "file_descriptor")
        .map(|c| word(*c, src))
        .collect();
    let text: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
    Some(format!("{}\n", text.join(" ")))
}

/// What an `echo` or `printf` of literal words prints.
fn printed_text(producer: Node<'_>, src: &str) -> Option<String> {
    if producer.kind() != "command" {
        return None;
    }
    let mut cursor = producer.walk();
    let words: Vec<Word> = producer
        .named_children(&mut cursor)
        .filter(|c| !c.kind().ends_with("redirect"))
        .map(|c| word(c, src))
        .collect();
    let (name, args) = words.split_first()?;
    if words.iter().any(|w| w.dynamic) {
        return None;
    }
    let args: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
    let text = match basename(&name.text) {
        "echo" => {
            let start = args
                .iter()
                .take_while(|a| ["-n", "-e", "-E", "-ne", "-en"].contains(a));
            args[start.count()..].join(" ")
        }
        "printf" => match args.as_slice() {
            [format] => (*format).to_string(),
            [_, rest @ ..] => rest.join("\n"),
            [] => return None,
        },
        _ => return None,
    };
    Some(text.replace("\\n", "\n"))
}

/// The program's name without its directory (`/bin/sh` is `sh`).
fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Shells that run what they read on standard input when given no script.
const SHELLS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "rbash",
];

/// Names of standard input as a script path.
const STDIN_NAMES: &[&str] = &["-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"];

/// Whether a script operand is standard input or what a process substitution prints.
fn is_fed(operand: &str) -> bool {
    STDIN_NAMES.contains(&operand) || operand.starts_with("<(")
}

/// Whether `words` (a command, after wrappers such as `env` or `command`) reads its script
/// from standard input: a shell with no script operand (or `-s`, or `/dev/stdin`), or `source`
/// of standard input.
pub(super) fn reads_script_from_stdin(words: &[Word]) -> bool {
    let words = unwrapped(words);
    let Some((name, args)) = words.split_first() else {
        return false;
    };
    let base = basename(&name.text);
    if matches!(base, "source" | ".") {
        return args.first().is_some_and(|a| is_fed(&a.text));
    }
    if !SHELLS.contains(&base) {
        return false;
    }
    let mut args = args.iter().map(|w| w.text.as_str());
    while let Some(arg) = args.next() {
        match arg {
            "--" => return args.next().is_none_or(is_fed),
            "-" => return true,
            "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file" => {
                args.next();
            }
            long if long.starts_with("--") => {}
            short if short.starts_with(['-', '+']) => {
                if short.contains('s') {
                    return true;
                }
                if short.contains('c') {
                    return false;
                }
            }
            operand => return is_fed(operand),
        }
    }
    true
}

/// The command past the wrappers that run it as it is (`env X=1 bash`, `command bash`).
fn unwrapped(words: &[Word]) -> &[Word] {
    let mut rest = words;
    while let Some((name, args)) = rest.split_first() {
        let base = basename(&name.text);
        if !matches!(
            base,
            "env" | "command" | "exec" | "nohup" | "time" | "nice" | "builtin" | "timeout"
        ) {
            break;
        }
        let skip = args
            .iter()
            .take_while(|a| a.text.starts_with('-') || a.text.contains('='))
            .count();
        // `timeout 5 bash`: its duration comes first.
        let duration = usize::from(base == "timeout" && args.len() > skip);
        rest = &args[(skip + duration).min(args.len())..];
    }
    rest
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Word> {
        line.split(' ').map(Word::literal).collect()
    }

    #[test]
    fn shells_that_read_their_script_from_stdin_are_told_apart() {
        for line in [
            "bash",
            "sh -s",
            "bash -s arg",
            "dash -",
            "bash /dev/stdin",
            "bash -x",
            "bash -o errexit",
            "env X=1 bash",
            "command sh",
            "timeout 5 sh -e",
            "source /dev/stdin",
            ". /dev/fd/0",
            "bash -- /dev/stdin",
        ] {
            assert!(reads_script_from_stdin(&words(line)), "{line}");
        }
        for line in [
            "bash script.sh",
            "sh -c x",
            "source env.sh",
            "cat",
            "python3",
        ] {
            assert!(!reads_script_from_stdin(&words(line)), "{line}");
        }
    }
}
