//! The safe table's other build drivers, linters, formatters and test runners: safe in their
//! checking forms with options from short lists known to change nothing but what they print.

use super::safe::{Judged, option_values, subcommand};
use super::shell::Word;

/// Build drivers of C/C++ projects, safe when they only build an existing build directory in the
/// project (`cmake --build build`, `ctest --test-dir build`, `ninja -C build`), and pagers and man
/// pages read without options.
pub fn build_driver(name: &str, args: &[Word], judged: &mut Judged) {
    let (allowed, dirs): (&[&str], &[&str]) = match name {
        "cmake" if args.first().is_some_and(|a| a.text == "--build") => (
            &[
                "--build=",
                "-j=",
                "--parallel=",
                "--target=",
                "-t=",
                "--config=",
                "--verbose",
                "-v",
            ],
            &["--build"],
        ),
        "ctest" => (
            &[
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
            ],
            &["--test-dir"],
        ),
        "ninja" => (&["-C=", "-j=", "-k=", "-v", "-n"], &["-C"]),
        "less" | "more" | "man" => (&[], &[]),
        _ => {
            judged.ask(format!("`{name}` with these arguments runs unchecked code"));
            return;
        }
    };
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        if text.starts_with('-') && text != "-" {
            let given = text.split_once('=').map_or(text, |(g, _)| g);
            if allowed.contains(&given) {
            } else if allowed.contains(&format!("{given}=").as_str()) {
                if !text.contains('=') {
                    i += 1;
                }
            } else {
                judged.ask(format!(
                    "`{name} {given}` is an option ai does not know to be safe"
                ));
                return;
            }
        } else if text.starts_with('+') && matches!(name, "less" | "more" | "man") {
            judged.ask(format!(
                "`{name} +...` runs pager commands, which can run programs"
            ));
            return;
        } else if name == "ninja" && matches!(text, "install" | "clean" | "-t") {
            judged.ask(format!("`ninja {text}` changes files outside the build"));
        }
        i += 1;
    }
    judged.dirs.extend(option_values(args, dirs));
}

/// `coverage run -m pytest`: coverage around a Python run, judged as that run; its reports
/// write into the project.
pub fn coverage(_name: &str, args: &[Word], judged: &mut Judged) {
    match subcommand(args) {
        Some("run") => {
            let at = args
                .iter()
                .position(|a| a.text == "run")
                .map_or(0, |i| i + 1);
            super::safe_interp::interpreter("python3", args.get(at..).unwrap_or(&[]), judged);
        }
        Some("report" | "html" | "xml" | "json" | "lcov" | "combine" | "erase" | "debug") => {}
        other => judged.ask(format!(
            "`coverage {}` is not one of its run or report commands",
            other.unwrap_or("")
        )),
    }
}

/// Linters, formatters and test runners of other languages: safe only in their checking forms,
/// with options from a short list known to change nothing but what they print (an option not on
/// the list may write files, load plugins or read a configuration that runs code). Names ending
/// in `=` take a value. The first entry, when set, is a subcommand or flag that must be present.
pub fn formatter(name: &str, args: &[Word], judged: &mut Judged) {
    let (required, allowed): (&[&str], &[&str]) = match name {
        "ruff" => (
            &["check", "format"],
            &[
                "--check",
                "--diff",
                "--quiet",
                "-q",
                "--statistics",
                "--no-cache",
                "--exit-zero",
                "--select=",
                "--ignore=",
                "--extend-select=",
                "--output-format=",
                "--show-fixes",
                "--target-version=",
                "--line-length=",
            ],
        ),
        "black" | "isort" => (
            &["--check", "--diff"],
            &[
                "--check",
                "--diff",
                "--quiet",
                "-q",
                "--line-length=",
                "-l=",
                "--color",
                "--profile=",
            ],
        ),
        "prettier" => (
            &["--check", "-c", "--list-different", "-l"],
            &["--check", "-c", "--list-different", "-l", "--log-level="],
        ),
        "rustfmt" => (&["--check"], &["--check", "--edition=", "-q", "--quiet"]),
        "gofmt" => (&[], &["-l", "-d", "-s", "-e"]),
        "eslint" => (
            &[],
            &[
                "--ext=",
                "--quiet",
                "--max-warnings=",
                "--color",
                "--no-color",
            ],
        ),
        "biome" => (
            &["check", "lint", "ci", "format"],
            &["--max-diagnostics=", "--diagnostic-level="],
        ),
        "mypy" => (
            &[],
            &[
                "--strict",
                "--ignore-missing-imports",
                "--no-error-summary",
                "--pretty",
                "--show-error-codes",
                "-p=",
                "--package=",
                "-m=",
                "--module=",
                "--python-version=",
                "--no-incremental",
                "--check-untyped-defs",
            ],
        ),
        "flake8" => (
            &[],
            &[
                "--max-line-length=",
                "--select=",
                "--ignore=",
                "--extend-ignore=",
                "--count",
                "--statistics",
                "--exclude=",
                "--show-source",
            ],
        ),
        "pylint" => (
            &[],
            &[
                "--disable=",
                "--enable=",
                "--errors-only",
                "-E",
                "--score=",
                "--reports=",
                "--output-format=",
            ],
        ),
        "tsc" => (
            &["--noEmit"],
            &[
                "--noEmit",
                "--pretty",
                "--strict",
                "--skipLibCheck",
                "-p=",
                "--project=",
            ],
        ),
        "jest" => (
            &[],
            &[
                "--ci",
                "--runInBand",
                "-i",
                "--silent",
                "--verbose",
                "-t=",
                "--testNamePattern=",
                "--passWithNoTests",
                "--bail",
                "--coverage",
                "--watchAll=false",
            ],
        ),
        "vitest" => (
            &["run", "--run"],
            &["--run", "--reporter=", "--coverage", "-t="],
        ),
        _ => (&[], &[]),
    };
    if !required.is_empty() && !args.iter().any(|a| required.contains(&a.text.as_str())) {
        judged.ask(format!(
            "`{name}` runs unasked only to check ({}): this way it may rewrite files",
            required.join(", ")
        ));
        return;
    }
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        if text == "--" {
            break;
        }
        if text.starts_with('-') && text != "-" {
            let (given, inline) = match text.split_once('=') {
                Some((given, _)) => (given, true),
                None => (text, false),
            };
            if allowed.contains(&given) {
            } else if allowed.contains(&format!("{given}=").as_str()) {
                if !inline {
                    i += 1;
                }
            } else {
                judged.ask(format!(
                    "`{name} {given}` is an option ai does not know to be safe (it may write files, \
                     load plugins or read a configuration that runs code)"
                ));
                return;
            }
        }
        i += 1;
    }
    if name == "tsc" {
        judged
            .dirs
            .extend(option_values(args, &["-p", "--project"]));
    }
}
