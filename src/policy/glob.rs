//! Globs that put file names where options are read: bash replaces `*` with the names it
//! matches, so a project file named `--compress-program=sh` becomes an option of `sort *`.

use std::path::{Path, PathBuf};

use super::reach::{Place, has_glob};
use super::shell::Word;

/// Entries of a directory read before giving up and asking.
const MAX_ENTRIES: usize = 20_000;

/// Why a glob among `args` can expand to a name bash passes as an option, if one can: it is
/// unquoted, before `--`, its pattern can start with `-` (it does not begin with a literal
/// other than `-`), and the directory it is matched in holds a name starting with `-`.
pub(super) fn glob_makes_options(args: &[Word], cwd: &Path, written: &[PathBuf]) -> Option<String> {
    let before_end = args
        .iter()
        .take_while(|w| w.quoted || w.dynamic || w.text != "--");
    // A name starting with `-` there now, or one the line writes first (`> ./-p; git log -?`),
    // and a pattern that starts with `-` itself matches nothing but such names.
    let dashed = || {
        dashed_name_in(cwd)
            || written.iter().any(|w| {
                w.parent() == Some(cwd)
                    && w.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with('-'))
            })
    };
    let risky = before_end
        .filter(|w| !w.quoted && can_start_with_dash(w))
        // A name pattern of its own (`-?`, `--c*`), not an option's value (`--include=*.rs`).
        .find(|w| w.text.starts_with('-') && !w.text.contains('=') || dashed())?;
    Some(format!(
        "the glob `{}` can expand to a file name starting with `-`, which the program reads as \
         an option (put `--` before it or start it with `./`)",
        risky.text
    ))
}

/// Whether the pattern has a glob and its first character can match or is `-` (extglob's
/// `@(...)`, `!(...)`, `+(...)` match anything too, and `$x*` starts with what `$x` holds).
fn can_start_with_dash(word: &Word) -> bool {
    let text = word.text.as_str();
    has_glob(text)
        && (text.starts_with(['*', '?', '[', '-'])
            || (word.dynamic && text.starts_with('$'))
            || ["@(", "!(", "+("].iter().any(|p| text.starts_with(p)))
}

/// Whether `dir` holds a name starting with `-` (or more entries than are read).
fn dashed_name_in(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    let mut seen = 0;
    for entry in entries.flatten() {
        seen += 1;
        if seen > MAX_ENTRIES || entry.file_name().as_encoded_bytes().starts_with(b"-") {
            return true;
        }
    }
    false
}

/// The words as bash hands them to the program, as far as globs go: a variable that holds a
/// glob (`x=*; sort $x`, `for f in *; do sort $f`) is that glob where it is expanded unquoted,
/// and `$@`, `$*`, `$1`... after `set -- *` are the names it matches, quoted or not.
pub(super) fn as_expanded(args: &[Word], place: &Place<'_>, positional: &[Word]) -> Vec<Word> {
    let mut out = Vec::new();
    for arg in args {
        if arg.dynamic && is_positional(&arg.text) && !positional.is_empty() {
            out.extend(positional.iter().cloned());
            continue;
        }
        match place.value(arg) {
            Some(value) if arg.dynamic && !arg.quoted && has_glob(&value) => {
                out.push(Word::literal(value));
            }
            _ => out.push(arg.clone()),
        }
    }
    out
}

/// `$@`, `$*`, `${@}`, `$1`, `${2}`: the shell's arguments.
pub(super) fn is_positional(text: &str) -> bool {
    let inner = text.strip_prefix('$').unwrap_or("");
    let inner = inner
        .strip_prefix('{')
        .and_then(|i| i.strip_suffix('}'))
        .unwrap_or(inner);
    matches!(inner, "@" | "*") || (!inner.is_empty() && inner.chars().all(|c| c.is_ascii_digit()))
}

/// Why a loop over a glob can hand a program an option: its variable expanded unquoted
/// (`for f in *; do wc $f`) is split at blanks, so a name like `data -S1 --compress-program=sh`
/// becomes three words, two of them options.
pub(super) fn loop_splits_names(values: &[Word], place: &Place<'_>) -> Option<String> {
    let risky = values
        .iter()
        .filter(|w| !w.quoted && has_glob(&w.text))
        .find(|w| {
            place.paths(w).unwrap_or_default().iter().any(|path| {
                let name = path.file_name().unwrap_or_default().to_string_lossy();
                name.split_whitespace()
                    .skip(1)
                    .any(|part| part.starts_with('-'))
            })
        })?;
    Some(format!(
        "`{}` matches a name with blanks and a `-` after one: the loop's variable, expanded \
         unquoted, splits it into words the program reads as options",
        risky.text
    ))
}

/// Why `xargs` can hand its command an option: it appends the words it reads (`ls | xargs
/// sort`), and a name here starts with `-`.
pub(super) fn xargs_makes_options(base: &str, cwd: &Path) -> Option<String> {
    (base == "xargs" && dashed_name_in(cwd)).then(|| {
        "`xargs` appends the names it reads to its command, and a name here starts with `-`, \
         which the command reads as an option"
            .to_string()
    })
}
