//! Records of linters, formatters, type checkers and test runners of other languages: safe only
//! in their checking forms, with options from a short list known to change nothing but what they
//! print (an option not on the list may write files, load plugins or read a configuration that
//! runs code). Names ending in `=` take a value. What they check must be the project's.

use super::Program;
use super::tools::read_options;
use crate::policy::args::option_values;
use crate::policy::judged::Judged;
use crate::policy::shell::Word;

pub(super) const PROGRAMS: &[Program] = &[
    Program::new(&["ruff"]).checked(ruff),
    Program::new(&["black"]).checked(black),
    Program::new(&["isort"]).checked(black),
    Program::new(&["prettier"]).checked(prettier),
    Program::new(&["eslint"]).checked(eslint),
    Program::new(&["gofmt"]).checked(gofmt),
    Program::new(&["biome"]).checked(biome),
    Program::new(&["rustfmt"]).checked(rustfmt),
    Program::new(&["mypy"]).checked(mypy),
    Program::new(&["flake8"]).checked(flake8),
    Program::new(&["pylint"]).checked(pylint),
    Program::new(&["tsc"]).checked(tsc),
    Program::new(&["jest"]).checked(jest),
    Program::new(&["vitest"]).checked(vitest),
];

/// A tool's checking form: what must be given (a subcommand first, or else a flag anywhere), and
/// the options it may have.
struct CheckOnly {
    required: &'static [&'static str],
    subcommand_first: bool,
    allowed: &'static [&'static str],
}

impl CheckOnly {
    /// The tool runs project code; it asks unless given its checking form and known options.
    /// Whether it got that far (its other checks follow).
    fn judge(&self, name: &str, args: &[Word], judged: &mut Judged) -> bool {
        judged.project_code = true;
        if !self.required.is_empty() && !self.present(args) {
            judged.ask(self.rewrites(name));
            return false;
        }
        match read_options(name, args, self.allowed) {
            // What it checks must be the project's: a config beside a file elsewhere runs code.
            Ok(operands) => judged.scripts.extend(
                operands
                    .into_iter()
                    .filter(|w| !self.required.contains(&w.text.as_str()))
                    .cloned(),
            ),
            Err(why) => {
                judged.ask(why);
                return false;
            }
        }
        judged
            .scripts
            .extend(option_values(args, &["--config-file"]));
        true
    }

    /// A subcommand that must come first (`ruff check`), or a flag that must be there (`--check`).
    fn present(&self, args: &[Word]) -> bool {
        if self.subcommand_first {
            first_operand(args).is_some_and(|f| self.required.contains(&f))
        } else {
            args.iter()
                .any(|a| self.required.contains(&a.text.as_str()))
        }
    }

    fn rewrites(&self, name: &str) -> String {
        format!(
            "`{name}` runs unasked only to check ({}): this way it may rewrite files",
            self.required.join(", ")
        )
    }
}

fn first_operand(args: &[Word]) -> Option<&str> {
    args.iter()
        .find(|a| !a.text.starts_with('-'))
        .map(|a| a.text.as_str())
}

const RUFF: CheckOnly = CheckOnly {
    required: &["check", "format"],
    subcommand_first: true,
    allowed: &[
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
        "--no-fix",
    ],
};

/// `ruff format` checks only with `--check` or `--diff`.
fn ruff(name: &str, args: &[Word], judged: &mut Judged) {
    if first_operand(args) == Some("format")
        && !args
            .iter()
            .any(|a| a.text == "--check" || a.text == "--diff")
    {
        judged.project_code = true;
        return judged.ask(RUFF.rewrites(name));
    }
    RUFF.judge(name, args, judged);
}

fn black(name: &str, args: &[Word], judged: &mut Judged) {
    CheckOnly {
        required: &["--check", "--diff", "--check-only"],
        subcommand_first: false,
        allowed: &[
            "--check",
            "--check-only",
            "--diff",
            "--quiet",
            "-q",
            "--line-length=",
            "-l=",
            "--color",
            "--profile=",
        ],
    }
    .judge(name, args, judged);
}

fn prettier(name: &str, args: &[Word], judged: &mut Judged) {
    CheckOnly {
        required: &["--check", "-c", "--list-different", "-l"],
        subcommand_first: false,
        allowed: &["--check", "-c", "--list-different", "-l", "--log-level="],
    }
    .judge(name, args, judged);
}

fn rustfmt(name: &str, args: &[Word], judged: &mut Judged) {
    CheckOnly {
        required: &["--check"],
        subcommand_first: false,
        allowed: &["--check", "--edition=", "-q", "--quiet"],
    }
    .judge(name, args, judged);
}

/// A tool with no required form, only an options list.
fn options_only(name: &str, args: &[Word], judged: &mut Judged, allowed: &'static [&'static str]) {
    CheckOnly {
        required: &[],
        subcommand_first: false,
        allowed,
    }
    .judge(name, args, judged);
}

fn gofmt(name: &str, args: &[Word], judged: &mut Judged) {
    options_only(name, args, judged, &["-l", "-d", "-s", "-e"]);
}

fn eslint(name: &str, args: &[Word], judged: &mut Judged) {
    let allowed = &[
        "--ext=",
        "--quiet",
        "--max-warnings=",
        "--color",
        "--no-color",
    ];
    options_only(name, args, judged, allowed);
}

fn biome(name: &str, args: &[Word], judged: &mut Judged) {
    CheckOnly {
        required: &["check", "lint", "ci", "format"],
        subcommand_first: true,
        allowed: &["--max-diagnostics=", "--diagnostic-level="],
    }
    .judge(name, args, judged);
}

fn mypy(name: &str, args: &[Word], judged: &mut Judged) {
    let allowed = &[
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
        "--config-file=",
    ];
    options_only(name, args, judged, allowed);
}

fn flake8(name: &str, args: &[Word], judged: &mut Judged) {
    let allowed = &[
        "--max-line-length=",
        "--select=",
        "--ignore=",
        "--extend-ignore=",
        "--count",
        "--statistics",
        "--exclude=",
        "--show-source",
    ];
    options_only(name, args, judged, allowed);
}

fn pylint(name: &str, args: &[Word], judged: &mut Judged) {
    let allowed = &[
        "--disable=",
        "--enable=",
        "--errors-only",
        "-E",
        "--score=",
        "--reports=",
    ];
    options_only(name, args, judged, allowed);
}

/// `tsc -p DIR`: the project it compiles must be the project's.
fn tsc(name: &str, args: &[Word], judged: &mut Judged) {
    let checked = CheckOnly {
        required: &["--noEmit"],
        subcommand_first: false,
        allowed: &[
            "--noEmit",
            "--pretty",
            "--strict",
            "--skipLibCheck",
            "-p=",
            "--project=",
        ],
    }
    .judge(name, args, judged);
    if checked {
        judged
            .dirs
            .extend(option_values(args, &["-p", "--project"]));
    }
}

fn jest(name: &str, args: &[Word], judged: &mut Judged) {
    let allowed = &[
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
    ];
    options_only(name, args, judged, allowed);
}

fn vitest(name: &str, args: &[Word], judged: &mut Judged) {
    CheckOnly {
        required: &["run", "--run"],
        subcommand_first: true,
        allowed: &["--run", "--coverage", "-t="],
    }
    .judge(name, args, judged);
}
