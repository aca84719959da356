//! One record per program: everything the policy knows about a program it runs unasked — its
//! names, the options that make it ask, whether it reads contents, walks trees, takes a pattern
//! first, skips hidden files, reads a here-document as data — and the check for the rest of its
//! arguments. The lists the classifier and the secret walk need are read off these records.
//! A program that has no record asks.
//!
//! Review the records like code: every one is a promise that the command cannot delete,
//! overwrite, upload, run code ai cannot see, or start something that outlives the call.

mod admin;
mod builtin;
mod dev;
mod files;
mod git;
mod interp;
mod lint;
mod net;
mod read;
mod sys;
mod text;
mod tools;
mod vetted;

use super::args::{flag_matches, has_flag, operands, operands_with, option_values};
use super::judged::Judged;
use super::shell::Word;

/// How a record checks the arguments its fields do not cover: the program's name as given
/// (after version folding), its arguments, and what the check finds.
pub(crate) type Check = fn(&str, &[Word], &mut Judged);

/// Whether a program walks directory trees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Walk {
    Never,
    /// Always (`rg`, `find`, `tree`).
    Always,
    /// When told to recurse: `-r`, `-R`, `--recursive` or `--dereference-recursive`.
    Recursive,
}

/// What a program does with its operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operands {
    /// It opens them as files (the usual case).
    Files,
    /// It prints them as words and opens none (`echo`, `printf`).
    Words,
    /// It only looks names up (`which`, `type`): a secret path given to it is not read.
    Names,
}

/// A program's options as its `--help` lists them: those that take the next word as their
/// value (`-e PATTERN`, `--file FILE`), and the rest (flags, and values only given with `=`).
/// Empty where not yet written down; a unit test holds each table to the program's `--help`.
#[derive(Debug)]
pub(crate) struct Options {
    pub(crate) values: &'static [&'static str],
    // Only the `--help` test reads the flags: the classifier needs no more than the values.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) flags: &'static [&'static str],
}

/// Everything the policy knows about one program (or the spellings of one program).
#[derive(Debug)]
pub(crate) struct Program {
    /// Its basenames; `python3.12`-style versions are folded before lookup.
    pub(crate) names: &'static [&'static str],
    /// Options that make it ask, each with why (`` `sort -o` writes its output to a file ``).
    pub(crate) asks: &'static [(&'static str, &'static str)],
    pub(crate) options: Options,
    /// The check of everything else about its arguments, if anything else matters.
    pub(crate) check: Option<Check>,
    pub(crate) operands: Operands,
    pub(crate) walk: Walk,
    /// Options whose value `recurse` makes it walk (`grep -d recurse`); any value but `read` and
    /// `skip` counts.
    pub(crate) recurse_by: &'static [&'static str],
    /// When it walks, it reads the contents of what it finds (`grep -r`), not only names.
    pub(crate) contents: bool,
    /// How many operands come before its paths: 1 for a pattern (`grep PATTERN DIR`), 2 for
    /// `git grep PATTERN`.
    pub(crate) paths_after: usize,
    /// Options that give the pattern instead (`grep -e PATTERN DIR`): with one, no operand is a
    /// pattern.
    pub(crate) pattern_options: &'static [&'static str],
    /// It skips hidden and ignored files unless told otherwise (`rg`, `fd`, `git grep`)...
    pub(crate) hides: bool,
    /// ...by these options besides `SHOWS_HIDDEN` (`fd -H`).
    pub(crate) shows_hidden: &'static [&'static str],
    /// Options after which the rest of the words, up to a `;`, are a command it runs on what
    /// it finds (`fd -x CMD`).
    pub(crate) runs_the_rest: &'static [&'static str],
    /// Whether a command of it prints the environment it was given, tokens included (`env`,
    /// `export`, `make -p`, `npm run env`).
    pub(crate) prints_env: Option<fn(&[Word]) -> bool>,
    /// It reads its input as data: a here-document fed to it is text, not code.
    pub(crate) filter: bool,
    /// It evaluates array subscripts in its words (`test`, `let`, `read`): `$(...)` there runs.
    pub(crate) subscripts: bool,
}

impl Program {
    /// A program that reads its operand files and nothing else matters: where every record starts.
    pub(crate) const fn new(names: &'static [&'static str]) -> Program {
        Program {
            names,
            asks: &[],
            check: None,
            options: Options {
                values: &[],
                flags: &[],
            },
            recurse_by: &[],
            operands: Operands::Files,
            walk: Walk::Never,
            contents: false,
            paths_after: 0,
            pattern_options: &[],
            hides: false,
            shows_hidden: &[],
            runs_the_rest: &[],
            prints_env: None,
            filter: false,
            subscripts: false,
        }
    }

    const fn asking(self, asks: &'static [(&'static str, &'static str)]) -> Program {
        Program { asks, ..self }
    }

    const fn checked(self, check: Check) -> Program {
        Program {
            check: Some(check),
            ..self
        }
    }

    const fn printing_words(self) -> Program {
        Program {
            operands: Operands::Words,
            ..self
        }
    }

    const fn looking_names_up(self) -> Program {
        Program {
            operands: Operands::Names,
            ..self
        }
    }

    const fn with_options(self, options: Options) -> Program {
        Program { options, ..self }
    }

    const fn recursing_by(self, recurse_by: &'static [&'static str]) -> Program {
        Program { recurse_by, ..self }
    }

    const fn walking(self, walk: Walk) -> Program {
        Program { walk, ..self }
    }

    const fn reading_contents(self) -> Program {
        Program {
            contents: true,
            ..self
        }
    }

    const fn paths_after(self, paths_after: usize) -> Program {
        Program {
            paths_after,
            ..self
        }
    }

    const fn pattern_options(self, pattern_options: &'static [&'static str]) -> Program {
        Program {
            pattern_options,
            ..self
        }
    }

    /// How many operands of `args` come before the paths: a pattern given by an option
    /// (`grep -eAPI ~`) leaves none in the operands.
    pub(crate) fn paths_start(&self, args: &[Word]) -> usize {
        let by_option = !option_values(args, self.pattern_options).is_empty();
        self.paths_after.saturating_sub(usize::from(by_option))
    }

    const fn skipping_hidden(self, shows_hidden: &'static [&'static str]) -> Program {
        Program {
            hides: true,
            shows_hidden,
            ..self
        }
    }

    /// Whether this command skips hidden and ignored files: its program does, and no option of
    /// `args` says otherwise. A short option counts anywhere in a cluster (`rg -i.`); a long
    /// one by any prefix (`--no-ignore-vcs`, `--hid`).
    pub(crate) fn skips_hidden(&self, args: &[Word]) -> bool {
        let shown = |flag: &&str| {
            args.iter().any(|a| match flag.strip_prefix("--") {
                Some(_) => a.text.starts_with(flag) || flag_matches(&a.text, flag),
                None => {
                    a.text == *flag
                        || (!a.text.starts_with("--")
                            && a.text.starts_with('-')
                            && flag.get(1..).is_some_and(|f| a.text[1..].contains(f)))
                }
            })
        };
        self.hides && !SHOWS_HIDDEN.iter().chain(self.shows_hidden).any(shown)
    }

    const fn running_the_rest(self, runs_the_rest: &'static [&'static str]) -> Program {
        Program {
            runs_the_rest,
            ..self
        }
    }

    /// Its operands in `args`: by its options table where it has one, which knows the values of
    /// options (`grep -C 2 API`: `API` is the pattern), else every word not an option.
    pub(crate) fn operands<'a>(&self, args: &'a [Word]) -> Vec<&'a Word> {
        if self.options.values.is_empty() {
            operands(args).collect()
        } else {
            operands_with(args, self.options.values)
        }
    }

    /// Where in `args` the option that runs the rest stands, in any spelling.
    fn runs_at(&self, args: &[Word]) -> Option<usize> {
        args.iter()
            .position(|a| (self.runs_the_rest.iter()).any(|flag| flag_matches(&a.text, flag)))
    }

    /// The words that are the program's own: those before the command it runs (`fd -x CMD`).
    pub(crate) fn own_args<'a>(&self, args: &'a [Word]) -> &'a [Word] {
        args.get(..self.runs_at(args).unwrap_or(args.len()))
            .unwrap_or(args)
    }

    /// The command `args` make it run on what it finds: judged in turn. A spelling other than
    /// the option alone (`fd -Hx rm`) asks.
    fn run_the_rest(&self, name: &str, args: &[Word], judged: &mut Judged) {
        let Some(at) = self.runs_at(args) else {
            return;
        };
        let option = &args[at].text;
        if !self.runs_the_rest.contains(&option.as_str()) {
            judged.ask(format!(
                "`{name} {option}` runs a command on every file it finds"
            ));
            return;
        }
        let rest = args.get(at + 1..).unwrap_or(&[]);
        let end = rest
            .iter()
            .position(|w| w.text == ";")
            .unwrap_or(rest.len());
        judged.inner.push(rest[..end].to_vec());
        judged.contents = true;
    }

    const fn printing_env(self, prints_env: fn(&[Word]) -> bool) -> Program {
        Program {
            prints_env: Some(prints_env),
            ..self
        }
    }

    const fn data_filter(self) -> Program {
        Program {
            filter: true,
            ..self
        }
    }

    const fn evaluating_subscripts(self) -> Program {
        Program {
            subscripts: true,
            ..self
        }
    }
}

/// The options that make any program that skips hidden and ignored files read them too.
const SHOWS_HIDDEN: &[&str] = &[
    "--hidden",
    "--no-ignore",
    "-u",
    "-.",
    "-L",
    "--follow",
    "--no-index",
    "--untracked",
];

/// The families of records, each in its own file.
const FAMILIES: &[&[Program]] = &[
    read::PROGRAMS,
    builtin::PROGRAMS,
    text::PROGRAMS,
    files::PROGRAMS,
    sys::PROGRAMS,
    admin::PROGRAMS,
    git::PROGRAMS,
    dev::PROGRAMS,
    tools::PROGRAMS,
    lint::PROGRAMS,
    vetted::PROGRAMS,
    interp::PROGRAMS,
    net::PROGRAMS,
];

/// Every record.
fn all() -> impl Iterator<Item = &'static Program> {
    FAMILIES.iter().flat_map(|family| family.iter())
}

/// The record of a program by its basename (versions folded), if it has one.
pub(crate) fn find(base: &str) -> Option<&'static Program> {
    let name = fold_version(base);
    all().find(|program| program.names.contains(&name))
}

/// Whether a here-document fed to `base` is data to it rather than code.
pub(crate) fn is_filter(base: &str) -> bool {
    find(base).is_some_and(|program| program.filter)
}

/// Whether `base` prints its operands as words and opens none (`echo`, `printf`).
pub(crate) fn prints_words(base: &str) -> bool {
    find(base).is_some_and(|program| program.operands == Operands::Words)
}

/// Whether the command prints the environment it was given: `env` and `printenv` with no
/// program to run, `set`, `export`, `declare`/`typeset` listing, make's data base (`make -p`),
/// `npm run env`.
pub(crate) fn prints_environment(base: &str, args: &[Word]) -> bool {
    find(base)
        .and_then(|program| program.prints_env)
        .is_some_and(|prints| prints(args))
}

/// Judges one simple command by its program's basename and arguments.
pub(crate) fn judge(base: &str, args: &[Word]) -> Judged {
    let name = fold_version(base);
    let Some(program) = find(base) else {
        return Judged::default();
    };
    let mut judged = Judged {
        known: true,
        names_only: program.operands == Operands::Names,
        ..Judged::default()
    };
    judged.recursive = match program.walk {
        Walk::Never => false,
        Walk::Always => true,
        Walk::Recursive => {
            ["-r", "-R", "--recursive", "--dereference-recursive"]
                .iter()
                .any(|flag| has_flag(args, flag))
                || option_values(args, program.recurse_by)
                    .iter()
                    .any(|v| v.dynamic || !matches!(v.text.as_str(), "read" | "skip"))
        }
    };
    judged.contents = judged.recursive && program.contents;
    for (flag, why) in program.asks {
        if has_flag(args, flag) {
            judged.ask(format!("`{name} {flag}` {why}"));
        }
    }
    program.run_the_rest(name, args, &mut judged);
    if let Some(check) = program.check {
        check(name, args, &mut judged);
    }
    if program.subscripts
        && args
            .iter()
            .any(|a| !a.dynamic && (a.text.contains("$(") || a.text.contains('`')))
    {
        judged.ask(format!(
            "`{name}` evaluates text that can run commands (an array subscript)"
        ));
    }
    judged
}

/// `python3.12` → `python3`, `pip3.11` → `pip3`: the version suffix does not change what runs.
fn fold_version(base: &str) -> &str {
    let trimmed = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    match trimmed {
        "python" | "pip" | "pypy" => {
            let rest = &base[trimmed.len()..];
            if rest.starts_with("3") {
                match trimmed {
                    "python" => "python3",
                    "pip" => "pip3",
                    _ => "pypy3",
                }
            } else if rest.is_empty() {
                trimmed
            } else {
                base
            }
        }
        _ => base,
    }
}

#[cfg(test)]
mod tests;
