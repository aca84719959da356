//! Assignments bash makes that are not written `NAME=value` in the open: the arguments of
//! `declare`, `typeset`, `local`, `export` and `readonly` are assignments however they are quoted
//! (`declare 'PATH=/tmp'`, `export "PS4=..."`, `declare PA""TH=/tmp`), and a name computed at run
//! time (`declare $x=...`) may be any variable. The subscripts of an assignment
//! (`a=(['$(cmd)']=1)`, `declare -a 'b[$(cmd)]=1'`, `a+=([k]=v)`) are arithmetic, which runs
//! the command substitutions in them, quoted or not.

/// What one non-option argument of a declaration builtin does.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Declared {
    /// `NAME=value`, `NAME+=value`, `NAME[sub]=value`: an assignment to NAME of the value's
    /// text.
    Assignment(String, String),
    /// A name computed at run time (`$x=1`, `"$x"`): it may assign any variable.
    Computed,
    /// A plain name (`export PATH`) or nothing bash assigns.
    Plain,
}

/// Reads a declaration argument: `raw` as written, `text` its value after quote removal,
/// `dynamic` when that value holds an expansion.
pub(super) fn declared(raw: &str, text: &str, dynamic: bool) -> Declared {
    let unquoted_raw = without_quotes(raw);
    let name_part = unquoted_raw
        .split(['=', '['])
        .next()
        .unwrap_or("")
        .trim_end_matches('+');
    // Braces build the names (`GIT_D{I,}R=x`, `{A,B}=x`, `X_{A=1,B=2}`): any variable.
    if name_part.contains(['$', '`', '{']) || (dynamic && !text.contains('=')) {
        return Declared::Computed;
    }
    let Some((left, value)) = text.split_once('=') else {
        return Declared::Plain;
    };
    let name = left.split('[').next().unwrap_or("").trim_end_matches('+');
    if !is_name(name) {
        return Declared::Plain;
    }
    Declared::Assignment(name.to_string(), value.to_string())
}

/// The subscripts an assignment word holds, quotes removed: `NAME[sub]=...` and the `[key]=`
/// of each element of `NAME=( ... )`. Bash reads each as arithmetic for an indexed array.
pub(super) fn subscripts(raw: &str) -> Vec<String> {
    let text = without_quotes(raw);
    let mut out = Vec::new();
    let name_end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    let rest = &text[name_end..];
    if rest.starts_with('[')
        && let Some(end) = closing(rest)
    {
        out.push(rest[1..end].to_string());
    }
    let Some((_, value)) = text.split_once('=') else {
        return out;
    };
    let Some(list) = value.strip_prefix('(') else {
        return out;
    };
    let mut i = 0;
    while let Some(offset) = list.get(i..).and_then(|s| s.find('[')) {
        let start = i + offset;
        let tail = &list[start..];
        match closing(tail) {
            Some(end) => {
                if tail[end + 1..].starts_with(['=', '+']) {
                    out.push(tail[1..end].to_string());
                }
                i = start + end + 1;
            }
            None => {
                out.push(tail[1..].to_string());
                break;
            }
        }
    }
    out
}

/// The index of the `]` that closes the `[` `text` starts with.
fn closing(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Quotes and backslashes dropped: what the subscript or name reads as, loosely (a quote in it
/// never hides a `$(` from this check).
fn without_quotes(raw: &str) -> String {
    raw.chars()
        .filter(|c| !matches!(c, '\'' | '"' | '\\'))
        .collect()
}

fn is_name(text: &str) -> bool {
    text.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subscripts_are_found_in_names_and_compound_values() {
        assert_eq!(subscripts("b[$(id)]=1"), vec!["$(id)"]);
        assert_eq!(subscripts("a=(['$(id)']=1 [2]=x)"), vec!["$(id)", "2"]);
        assert_eq!(subscripts("a+=([\"`id`\"]=1)"), vec!["`id`"]);
        assert!(subscripts("x=$(date)").is_empty());
        assert!(subscripts("a=(one two)").is_empty());
    }

    #[test]
    fn declaration_arguments_are_assignments() {
        assert_eq!(
            declared("'PATH=/tmp'", "PATH=/tmp", false),
            Declared::Assignment("PATH".into(), "/tmp".into())
        );
        assert_eq!(declared("$x=/tmp", "$x=/tmp", true), Declared::Computed);
        assert_eq!(declared("PATH", "PATH", false), Declared::Plain);
    }
}
