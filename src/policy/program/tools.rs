//! Records of other build drivers, linters, formatters and test runners: safe in their
//! checking forms with options from short lists known to change nothing but what they print.

use super::Program;
use super::interp::pytest;
use crate::policy::args::{option_values, subcommand};
use crate::policy::judged::Judged;
use crate::policy::shell::Word;

pub(super) const PROGRAMS: &[Program] = &[
    Program::new(&["cmake"]).checked(cmake),
    Program::new(&["ctest"]).checked(ctest),
    Program::new(&["ninja"]).checked(ninja),
    Program::new(&["man"]).checked(pager),
    Program::new(&["less"]).data_filter().checked(pager),
    Program::new(&["more"]).data_filter().checked(pager),
    Program::new(&["coverage"]).checked(coverage),
    Program::new(&["tox"]).checked(tox),
    Program::new(&["pytest", "py.test"]).checked(pytest),
];

/// Build drivers of C/C++ projects, safe when they only build an existing build directory in the
/// project (`cmake --build build`, `ctest --test-dir build`, `ninja -C build`), and pagers and man
/// pages read without options.
/// cmake only as `cmake --build DIR` with options that only choose what to build.
fn cmake(name: &str, args: &[Word], judged: &mut Judged) {
    if args.first().is_none_or(|a| a.text != "--build") {
        judged.project_code = true;
        return judged.ask(format!("`{name}` with these arguments runs unchecked code"));
    }
    let allowed = &[
        "--build=",
        "-j=",
        "--parallel=",
        "--target=",
        "-t=",
        "--config=",
        "--verbose",
        "-v",
    ];
    drive(name, args, judged, (allowed, &["--build"]), false);
}

fn ctest(name: &str, args: &[Word], judged: &mut Judged) {
    let allowed = &[
        "--output-on-failure",
        "-j=",
        "--parallel=",
        "-R=",
        "-E=",
        "-L=",
        "--test-dir=",
        "-C=",
        "--build-config=",
        "-V",
        "--verbose",
        "-N",
        "--show-only",
    ];
    drive(name, args, judged, (allowed, &["--test-dir"]), false);
}

fn ninja(name: &str, args: &[Word], judged: &mut Judged) {
    let allowed = &["-C=", "-j=", "-k=", "-v", "-n"];
    drive(name, args, judged, (allowed, &["-C"]), false);
}

/// less, more, man: no options; `+cmd` runs pager commands.
fn pager(name: &str, args: &[Word], judged: &mut Judged) {
    drive(name, args, judged, (&[], &[]), true);
    // A page given by path follows the files it names (`.so` requests): any file, a secret
    // whose name the line never spells.
    if name == "man"
        && let Some(page) = args.iter().find(|a| a.text.contains('/') || a.dynamic)
    {
        judged.ask(format!(
            "`man {}` reads a page file, which can pull in others",
            page.text
        ));
    }
}

/// A build driver's or pager's own rules: no `--` passing arguments on, no install, uninstall or
/// clean target, only its allowed options (`options.0`); `options.1` name the directories it
/// works in. A build driver runs project code; a pager does not, but its `+cmd` runs commands.
fn drive(name: &str, args: &[Word], judged: &mut Judged, options: (&[&str], &[&str]), pager: bool) {
    let (allowed, dirs) = options;
    judged.project_code = !pager;
    if args.iter().any(|a| a.text == "--")
        || option_values(args, &["--target", "-t"])
            .iter()
            .any(|t| matches!(t.text.as_str(), "install" | "uninstall" | "clean"))
    {
        judged.ask(format!(
            "`{name}` passes arguments to another program or installs outside the build"
        ));
        return;
    }
    let operands = match read_options(name, args, allowed) {
        Ok(operands) => operands,
        Err(why) => return judged.ask(why),
    };
    for word in operands {
        let text = word.text.as_str();
        if text.starts_with('+') && pager {
            return judged.ask(format!(
                "`{name} +...` runs pager commands, which can run programs"
            ));
        }
        if matches!(text, "install" | "uninstall" | "clean" | "-t") {
            return judged.ask(format!("`{name} {text}` changes files outside the build"));
        }
    }
    judged.dirs.extend(option_values(args, dirs));
}

/// `coverage run -m pytest`: coverage around a Python run, judged as that run; its reports
/// write into the project.
pub(crate) fn coverage(_name: &str, args: &[Word], judged: &mut Judged) {
    judged.project_code = true;
    // coverage's own options come before what it runs (`coverage run -m pytest -k x`).
    let own = args
        .iter()
        .position(|a| a.text == "-m" || a.text.ends_with(".py"))
        .unwrap_or(args.len());
    for arg in args[..own].iter().filter(|a| a.text.starts_with('-')) {
        let name = arg
            .text
            .split_once('=')
            .map_or(arg.text.as_str(), |(n, _)| n);
        if !matches!(
            name,
            "-m" | "--module"
                | "--branch"
                | "--source"
                | "--parallel-mode"
                | "-p"
                | "--show-missing"
                | "--skip-covered"
                | "--fail-under"
                | "--precision"
                | "--include"
                | "--omit"
                | "-q"
                | "--quiet"
        ) {
            judged.ask(format!(
                "`coverage {name}` reads another configuration or writes elsewhere"
            ));
            return;
        }
    }
    match subcommand(args) {
        Some("run") => {
            let at = args
                .iter()
                .position(|a| a.text == "run")
                .map_or(0, |i| i + 1);
            super::interp::python("python3", args.get(at..).unwrap_or(&[]), judged);
        }
        Some("report" | "html" | "xml" | "json" | "lcov" | "combine" | "erase" | "debug") => {}
        other => judged.ask(format!(
            "`coverage {}` is not one of its run or report commands",
            other.unwrap_or("")
        )),
    }
}

/// Reads a tool's options against its allowlist: a name given exactly, or a name ending in `=`
/// whose value is glued (`--x=v`, `-j8`) or the next word (unless that word is an option: `-j`
/// may stand alone). Returns the operands; an option not on the list is the error.
pub(super) fn read_options<'a>(
    name: &str,
    args: &'a [Word],
    allowed: &[&str],
) -> Result<Vec<&'a Word>, String> {
    let mut operands = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        i += 1;
        if text == "--" {
            operands.extend(args.get(i..).unwrap_or(&[]));
            break;
        }
        if !text.starts_with('-') || text == "-" {
            operands.push(arg);
            continue;
        }
        let given = text.split_once('=').map_or(text, |(g, _)| g);
        let takes_value = |option: &str| allowed.contains(&format!("{option}=").as_str());
        if allowed.contains(&text) || (given != text && takes_value(given)) {
            continue;
        }
        if takes_value(given) {
            if args.get(i).is_some_and(|next| !next.text.starts_with('-')) {
                i += 1;
            }
            continue;
        }
        // A short option with its value glued on: `-j8`.
        let glued = !text.starts_with("--")
            && text.len() > 2
            && text.is_char_boundary(2)
            && takes_value(&text[..2]);
        if !glued {
            return Err(format!(
                "`{name} {given}` is an option ai does not know to be safe (it may write files, \
                 load plugins or read a configuration that runs code)"
            ));
        }
    }
    Ok(operands)
}

/// `tox`, `tox -e py311`, `tox -av`: the project's own test environments (project code, like
/// `make test`); options that point it at other configuration, packages or commands ask.
pub(crate) fn tox(name: &str, args: &[Word], judged: &mut Judged) {
    judged.project_code = true;
    const PLAIN: &[&str] = &[
        "-e",
        "--env",
        "-a",
        "--listenvs-all",
        "-l",
        "--listenvs",
        "-v",
        "-vv",
        "-av",
        "-q",
        "-r",
        "--recreate",
        "-p",
        "--parallel",
        "--skip-missing-interpreters",
    ];
    let mut value = false;
    for arg in args {
        if std::mem::take(&mut value) {
            continue;
        }
        let option = arg
            .text
            .split_once('=')
            .map_or(arg.text.as_str(), |(o, _)| o);
        if !arg.text.starts_with('-') || arg.text == "--" {
            return judged.ask(format!(
                "`{name} {}` runs commands ai does not check",
                arg.text
            ));
        }
        if !PLAIN.contains(&option) {
            return judged.ask(format!(
                "`{name} {}` is an option ai does not know to be safe (other configuration, \
                 packages or commands)",
                arg.text
            ));
        }
        value = matches!(option, "-e" | "--env" | "-p" | "--parallel") && !arg.text.contains('=');
    }
}
