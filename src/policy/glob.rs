//! Globs that put file names where options are read: bash replaces `*` with the names it
//! matches, so a project file named `--compress-program=sh` becomes an option of `sort *`.

use std::path::Path;

use super::shell::Word;

/// Entries of a directory read before giving up and asking.
const MAX_ENTRIES: usize = 20_000;

/// Why a glob among `args` can expand to a name bash passes as an option, if one can: it is
/// unquoted, before `--`, its pattern can start with `-` (it does not begin with a literal
/// other than `-`), and the directory it is matched in holds a name starting with `-`.
pub(super) fn glob_makes_options(args: &[Word], cwd: &Path) -> Option<String> {
    let before_end = args
        .iter()
        .take_while(|w| w.quoted || w.dynamic || w.text != "--");
    let risky = before_end
        .filter(|w| !w.quoted && can_start_with_dash(w))
        .find(|_| dashed_name_in(cwd))?;
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
    super::reach::has_glob(text)
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
