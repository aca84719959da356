//! Records of file makers: `tee`, `cp`, `mv`, `chmod +x`, `tar -c` and `zip`, with the
//! options that only copy, archive or add read and execute bits. Where they write is judged by
//! `write` (a new or ignored file in the project runs unasked; a tracked one asks).

use super::Program;
use crate::policy::args::{operands, option_values};
use crate::policy::judged::Judged;
use crate::policy::shell::Word;

pub(super) const PROGRAMS: &[Program] = &[
    Program::new(&["touch"]).checked(touch_mkdir),
    Program::new(&["mkdir"]).checked(touch_mkdir),
    Program::new(&["tee"]).data_filter().checked(tee),
    Program::new(&["cp", "mv"]).checked(copy),
    Program::new(&["chmod"]).checked(chmod),
    Program::new(&["zip"]).checked(zip),
];

/// Creating files and directories in the project; any option changes times or modes.
fn touch_mkdir(name: &str, args: &[Word], judged: &mut Judged) {
    let plain = |a: &Word| {
        !a.text.starts_with('-')
            || (name == "mkdir" && matches!(a.text.as_str(), "-p" | "-v" | "--parents"))
    };
    if !args.iter().all(plain) {
        judged.ask(format!("`{name}` with options changes file times or modes"));
    }
    judged.outputs.extend(operands(args).cloned());
}

/// Words that name no file to write.
fn is_stream(text: &str) -> bool {
    matches!(
        text,
        "-" | "/dev/null" | "/dev/tty" | "/dev/stdout" | "/dev/stderr"
    )
}

/// Asks for the first option not in `short` (letters of a cluster) or `long`.
fn only_options(
    name: &str,
    args: &[Word],
    short: &str,
    long: &[&str],
    judged: &mut Judged,
) -> bool {
    let odd = args.iter().take_while(|a| a.text != "--").find(|a| {
        let text = a.text.as_str();
        match text.strip_prefix("--") {
            Some(rest) => {
                let option = rest.split_once('=').map_or(rest, |(o, _)| o);
                !long.contains(&option)
            }
            None => {
                text.len() > 1
                    && text.starts_with('-')
                    && !text[1..].chars().all(|c| short.contains(c))
            }
        }
    });
    if let Some(arg) = odd {
        judged.ask(format!(
            "`{name} {}` is an option ai does not check",
            arg.text
        ));
        return false;
    }
    true
}

pub(crate) fn tee(name: &str, args: &[Word], judged: &mut Judged) {
    if only_options(
        name,
        args,
        "aip",
        &["append", "ignore-interrupts", "output-error"],
        judged,
    ) {
        judged
            .writes
            .extend(operands(args).filter(|w| !is_stream(&w.text)).cloned());
    }
}

/// `cp SRC... DEST`, `cp -t DIR SRC...`, and `mv` alike (its sources go away).
pub(crate) fn copy(name: &str, args: &[Word], judged: &mut Judged) {
    let (short, long): (&str, &[&str]) = if name == "cp" {
        (
            "rRavpfnuiLT",
            &[
                "recursive",
                "archive",
                "verbose",
                "preserve",
                "force",
                "no-clobber",
                "update",
                "dereference",
                "target-directory",
                "no-target-directory",
            ],
        )
    } else {
        (
            "fivnuT",
            &[
                "force",
                "interactive",
                "verbose",
                "no-clobber",
                "update",
                "target-directory",
                "no-target-directory",
            ],
        )
    };
    let target = option_values(args, &["-t", "--target-directory"]);
    let without_t: Vec<Word> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| !(a.text == "-t" || *i > 0 && args[i - 1].text == "-t"))
        .map(|(_, a)| a.clone())
        .collect();
    if !only_options(name, &without_t, short, long, judged) {
        return;
    }
    let mut sources: Vec<Word> = operands(&without_t).cloned().collect();
    let dest = match target.into_iter().next() {
        Some(dir) => dir,
        None if sources.len() >= 2 => sources.pop().unwrap_or_else(|| Word::computed("")),
        None => return judged.ask(format!("`{name}` without a destination")),
    };
    judged.moves = name == "mv";
    judged.copy = Some((sources, dest));
}

/// `chmod +x FILE...`: only read and execute bits added, no recursion, no reference file.
pub(crate) fn chmod(name: &str, args: &[Word], judged: &mut Judged) {
    let mut words = operands(args);
    let mode = words.next().map(|w| w.text.as_str()).unwrap_or("");
    let opts_ok = args.iter().all(|a| {
        !a.text.starts_with('-')
            || matches!(
                a.text.as_str(),
                "-v" | "-c" | "-f" | "--verbose" | "--changes" | "--silent" | "--quiet"
            )
    });
    if !opts_ok || !adds_read_or_execute(mode) {
        return judged.ask(format!(
            "`{name} {mode}` changes permissions beyond adding read and execute bits"
        ));
    }
    judged.modes.extend(words.cloned());
}

/// `+x`, `u+x`, `a+rx,g+r`, `755`, `0644`: adds read or execute bits, or sets a mode that gives
/// only its owner write and sets no special bit.
fn adds_read_or_execute(mode: &str) -> bool {
    if !mode.is_empty() && mode.chars().all(|c| c.is_ascii_digit()) {
        let digits: Vec<u32> = mode.chars().filter_map(|c| c.to_digit(8)).collect();
        let [special @ .., owner, group, other] = digits.as_slice() else {
            return false;
        };
        return digits.len() == mode.len()
            && special.iter().all(|d| *d == 0)
            && *owner >= 4
            && [group, other].iter().all(|d| matches!(d, 0 | 4 | 5));
    }
    !mode.is_empty()
        && mode.split(',').all(|clause| {
            clause.split_once('+').is_some_and(|(who, what)| {
                who.chars().all(|c| "ugoa".contains(c))
                    && !what.is_empty()
                    && what.chars().all(|c| "rxX".contains(c))
            })
        })
}

/// `tar -c` into an archive (listing is judged with the system tools): no option that runs a
/// program, deletes what it archives or names a remote archive.
pub(crate) fn tar_create(args: &[Word], judged: &mut Judged) {
    const LONG: &[&str] = &[
        "create",
        "file",
        "gzip",
        "bzip2",
        "xz",
        "zstd",
        "auto-compress",
        "verbose",
        "exclude",
        "exclude-vcs",
        "directory",
    ];
    let mut archive = option_values(args, &["--file"]);
    let first = args
        .first()
        .map(|w| w.text.trim_start_matches('-'))
        .unwrap_or("");
    let mut rest_start = 0;
    if !first.is_empty() && first.chars().all(|c| "cvzjJaf".contains(c)) {
        if first.ends_with('f') {
            archive.extend(args.get(1).cloned());
            rest_start = 2;
        } else {
            rest_start = 1;
        }
    }
    if !only_options(
        "tar",
        &args[rest_start.min(args.len())..],
        "cvzjJa",
        LONG,
        judged,
    ) {
        return;
    }
    if let Some(remote) = archive.iter().find(|w| w.text.contains(':')) {
        return judged.ask(format!(
            "`tar -f {}` names an archive on another host",
            remote.text
        ));
    }
    judged.dirs.extend(option_values(args, &["--directory"]));
    archive_contents(judged);
    judged
        .writes
        .extend(archive.into_iter().filter(|w| !is_stream(&w.text)));
}

/// `zip [-r] ARCHIVE FILE... [-x PATTERN...]`.
pub(crate) fn zip(name: &str, args: &[Word], judged: &mut Judged) {
    let end = args
        .iter()
        .position(|a| a.text == "-x" || a.text == "-i")
        .unwrap_or(args.len());
    if !only_options(
        name,
        &args[..end],
        "rqvj0123456789",
        &["recurse-paths", "quiet", "verbose"],
        judged,
    ) {
        return;
    }
    archive_contents(judged);
    judged.writes.extend(operands(&args[..end]).next().cloned());
}

/// An archive holds the contents of every file below what it is given.
fn archive_contents(judged: &mut Judged) {
    judged.recursive = true;
    judged.contents = true;
}
