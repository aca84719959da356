//! How programs read their options, so the program records read them the same way: clusters of
//! short flags, glued values, `--name=value`, GNU-style abbreviations of long options, and `--`.

use super::shell::Word;

/// Whether `flag` is given: exactly, as `--flag=value`, or inside a cluster of short flags.
pub(crate) fn has_flag(args: &[Word], flag: &str) -> bool {
    args.iter().any(|a| flag_matches(&a.text, flag))
}

pub(crate) fn flag_matches(arg: &str, flag: &str) -> bool {
    if arg == flag {
        return true;
    }
    if flag.starts_with("--") {
        // GNU getopt and git take any unambiguous prefix (`--in` for `--in-place`): a prefix of
        // one letter or more counts, whatever else it could also stand for.
        let name = arg.split_once('=').map_or(arg, |(name, _)| name);
        return name.starts_with("--") && name.len() >= 3 && flag.starts_with(name)
            || arg
                .strip_prefix(flag)
                .is_some_and(|rest| rest.starts_with('='));
    }
    // A one-letter short flag also counts inside a cluster (`-rf`), up to where a glued value
    // starts (`-Ei~`, `-ad2001-01-01`).
    match (flag.strip_prefix('-'), arg.strip_prefix('-')) {
        (Some(f), Some(cluster)) if f.chars().count() == 1 && !cluster.starts_with('-') => cluster
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .any(|c| f.starts_with(c)),
        _ => false,
    }
}

/// The values given to an option, in every spelling: `--name value`, `--name=value`, an
/// abbreviated `--na=value`, `-n value`, `-nvalue` and `-xnvalue`. `names` lists the spellings.
pub(crate) fn option_values(args: &[Word], names: &[&str]) -> Vec<Word> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        if text == "--" {
            break;
        }
        for name in names {
            if let Some(long) = name.strip_prefix("--") {
                let (given, inline) = match text.split_once('=') {
                    Some((given, value)) => (given, Some(value)),
                    None => (text, None),
                };
                let matches = given == *name
                    || given.len() >= 4 && given.starts_with("--") && long.starts_with(&given[2..]);
                if matches {
                    match inline {
                        Some(value) => out.push(with_text(arg, value)),
                        None => out.push(value_after(args, i)),
                    }
                }
            } else if let (Some(short), Some(cluster)) =
                (name.strip_prefix('-'), text.strip_prefix('-'))
                && !cluster.starts_with('-')
                && let Some(pos) = cluster.find(short)
                && cluster[..pos].chars().all(|c| c.is_ascii_alphabetic())
            {
                let glued = &cluster[pos + short.len()..];
                if glued.is_empty() {
                    out.push(value_after(args, i));
                } else {
                    out.push(with_text(arg, glued));
                }
            }
        }
        i += 1;
    }
    out
}

/// The word after an option; when there is none (the parser may have taken it, as in `make -f -
/// <<EOF`), a value nobody can know.
fn value_after(args: &[Word], i: usize) -> Word {
    args.get(i + 1)
        .cloned()
        .unwrap_or_else(|| Word::computed("<missing value>"))
}

fn with_text(word: &Word, text: &str) -> Word {
    Word {
        text: text.to_string(),
        ..word.clone()
    }
}

/// The words that are not options (everything after `--` is one).
pub(crate) fn operands(args: &[Word]) -> impl Iterator<Item = &Word> {
    let end = args
        .iter()
        .position(|a| a.text == "--")
        .unwrap_or(args.len());
    args[..end]
        .iter()
        .filter(|a| !a.text.starts_with('-') || a.text == "-")
        .chain(args.get(end + 1..).unwrap_or(&[]))
}

/// The operands of a program whose options that take a value are `values`: the value of
/// `-C 2`, `-rA 3` or `--context 2` is not an operand (`-C2`, `--context=2` are one word anyway).
pub(crate) fn operands_with<'a>(args: &'a [Word], values: &[&str]) -> Vec<&'a Word> {
    let mut out = Vec::new();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let text = arg.text.as_str();
        if text == "--" {
            out.extend(rest.by_ref());
        } else if text.starts_with("--") {
            if !text.contains('=') && values.contains(&text) {
                rest.next();
            }
        } else if let Some(cluster) = text.strip_prefix('-').filter(|c| !c.is_empty()) {
            // The first letter that takes a value ends the cluster; last, its value is next.
            let takes = |c: char| {
                values
                    .iter()
                    .any(|v| v.strip_prefix('-') == Some(&*c.to_string()))
            };
            if let Some(at) = cluster
                .char_indices()
                .find(|(_, c)| takes(*c))
                .map(|(i, _)| i)
                && at + 1 == cluster.len()
            {
                rest.next();
            }
        } else {
            out.push(arg);
        }
    }
    out
}

/// The first operand: the subcommand of `git`, `cargo`, `npm`, ...
pub(crate) fn subcommand(args: &[Word]) -> Option<&str> {
    operands(args).next().map(|w| w.text.as_str())
}

/// Skips a wrapper's options: `with_value` lists the options that take the next word.
pub(crate) fn skip_options<'a>(args: &'a [Word], with_value: &[&str]) -> &'a [Word] {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        if text == "--" {
            return args.get(i + 1..).unwrap_or(&[]);
        }
        if !text.starts_with('-') || text == "-" {
            break;
        }
        i += if with_value.contains(&text) { 2 } else { 1 };
    }
    args.get(i..).unwrap_or(&[])
}

/// Whether `flag` is given in any spelling its program accepts: `has_flag`'s, or a long option
/// cut to any prefix (`--r`) that no other of the program's long options (`longs`) shares.
pub(crate) fn has_long(args: &[Word], flag: &str, longs: &[&str]) -> bool {
    has_flag(args, flag)
        || args.iter().any(|a| {
            let name = a.text.split_once('=').map_or(a.text.as_str(), |(n, _)| n);
            name.len() >= 3
                && name.starts_with("--")
                && flag.starts_with(name)
                && longs
                    .iter()
                    .all(|other| *other == flag || !other.starts_with(name))
        })
}
