//! The safe table's development tools: git's read-only subcommands, the build and test commands
//! of cargo, npm/pnpm/yarn, go, make, maven/gradle/dotnet and linters, and the interpreters and
//! shells, which are safe only when they run a script from the project.

use super::safe::{Judged, has_flag, operands, option_values, skip_options, subcommand};
use super::shell::Word;

/// git subcommands that only read the repository.
const GIT_READ: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "blame",
    "annotate",
    "grep",
    "describe",
    "rev-parse",
    "rev-list",
    "ls-files",
    "ls-tree",
    "cat-file",
    "shortlog",
    "name-rev",
    "merge-base",
    "for-each-ref",
    "show-ref",
    "show-branch",
    "count-objects",
    "whatchanged",
    "cherry",
    "range-diff",
    "diff-tree",
    "diff-files",
    "diff-index",
    "version",
    "help",
    "check-ignore",
    "check-attr",
    "var",
    "verify-commit",
    "verify-tag",
];

/// Global options of git that run programs or read another configuration.
const GIT_UNSAFE_GLOBAL: &[&str] = &[
    "-c",
    "--config-env",
    "--exec-path",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--super-prefix",
    "-p",
    "--paginate",
];

/// Options of read-only subcommands that write files or run programs.
const GIT_UNSAFE_OPTIONS: &[(&str, &str)] = &[
    ("--output", "writes to a file"),
    ("--ext-diff", "runs an external diff program"),
    ("--textconv", "runs text conversion programs"),
    ("--upload-pack", "runs a program on the remote side"),
    ("--receive-pack", "runs a program on the remote side"),
    ("--exec", "runs a program"),
    ("--open-files-in-pager", "runs a pager program"),
    ("-O", "runs a pager program"),
    ("--run", "runs a program"),
];

pub fn git(_name: &str, args: &[Word], judged: &mut Judged) {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        if !text.starts_with('-') {
            break;
        }
        if let Some(flag) = GIT_UNSAFE_GLOBAL
            .iter()
            .find(|f| text == **f || text.starts_with(&format!("{f}=")))
        {
            judged.ask(format!(
                "`git {flag}` changes git's configuration or what it runs"
            ));
            return;
        }
        if text == "-C" {
            i += 1;
        }
        i += 1;
    }
    judged
        .dirs
        .extend(option_values(args.get(..i).unwrap_or(&[]), &["-C"]));
    let rest = args.get(i..).unwrap_or(&[]);
    let Some((sub, sub_args)) = rest.split_first() else {
        return;
    };
    let sub_text = sub.text.as_str();
    let read_only = GIT_READ.contains(&sub_text)
        || match sub_text {
            "branch" => lists_refs(sub_args, "dDmMcCfut", BRANCH_WRITES),
            "tag" => lists_refs(sub_args, "asufdmFe", TAG_WRITES),
            "remote" => {
                sub_args.is_empty()
                    || sub_args.iter().all(|a| a.text == "-v")
                    || subcommand(sub_args) == Some("get-url")
            }
            "stash" => matches!(subcommand(sub_args), Some("list" | "show")),
            "reflog" => !matches!(subcommand(sub_args), Some("expire" | "delete" | "drop")),
            "worktree" => matches!(subcommand(sub_args), Some("list")),
            // `git config user.email` (one name, no value) reads, like `--get`.
            "config" => {
                sub_args.iter().any(|a| {
                    matches!(
                        a.text.as_str(),
                        "--get" | "--get-all" | "--get-regexp" | "-l" | "--list"
                    )
                }) || sub_args.first().is_some_and(|a| a.text == "get")
                    || operands(sub_args).count() == 1
                        && sub_args.iter().all(|a| {
                            !a.text.starts_with('-')
                                || matches!(a.text.as_str(), "--global" | "--local" | "--system")
                        })
            }
            "submodule" => matches!(subcommand(sub_args), None | Some("status" | "summary")),
            "notes" => sub_args
                .first()
                .is_some_and(|a| matches!(a.text.as_str(), "list" | "show")),
            _ => false,
        };
    if !read_only {
        judged.ask(git_reason(sub_text, sub_args));
        return;
    }
    for (flag, why) in GIT_UNSAFE_OPTIONS {
        if sub_args
            .iter()
            .any(|a| super::safe::flag_matches(&a.text, flag))
        {
            judged.ask(format!("`git {sub_text} {flag}` {why}"));
        }
    }
    // `git grep` reads every tracked file below where it runs (`--no-index`: every file).
    judged.recursive |= sub_text == "grep";
    judged.contents |= sub_text == "grep";
}

/// `git branch`/`git tag` options that create, delete, move or sign refs.
const BRANCH_WRITES: &[&str] = &[
    "--delete",
    "--move",
    "--copy",
    "--force",
    "--set-upstream-to",
    "--unset-upstream",
    "--edit-description",
    "--track",
    "--no-track",
    "--create-reflog",
    "--recurse-submodules",
];
const TAG_WRITES: &[&str] = &[
    "--annotate",
    "--sign",
    "--local-user",
    "--force",
    "--delete",
    "--message",
    "--file",
    "--edit",
    "--create-reflog",
    "--cleanup",
    "--trailer",
];
/// Options that make `git branch`/`git tag` list (their operands are then patterns or commits).
const REF_LISTING: &[&str] = &[
    "-l",
    "--list",
    "-a",
    "--all",
    "-r",
    "--remotes",
    "-v",
    "-vv",
    "--verbose",
    "--contains",
    "--no-contains",
    "--merged",
    "--no-merged",
    "--points-at",
    "--show-current",
    "--sort",
    "--format",
    "--column",
    "--no-column",
    "-n",
    "-i",
    "--ignore-case",
];

/// Whether `git branch`/`git tag` with these arguments only lists: no option that writes (as
/// written, or as one of `write_letters` inside a cluster), and operands only when a listing
/// option says they are patterns or commits.
fn lists_refs(args: &[Word], write_letters: &str, writes: &[&str]) -> bool {
    let writing = args.iter().any(|a| {
        let text = a.text.as_str();
        let name = text.split_once('=').map_or(text, |(n, _)| n);
        writes.contains(&name)
            || (text.starts_with('-')
                && !text.starts_with("--")
                && text[1..]
                    .chars()
                    .take_while(char::is_ascii_alphabetic)
                    .any(|c| write_letters.contains(c)))
    });
    let listing = args.iter().any(|a| {
        let name = a.text.split_once('=').map_or(a.text.as_str(), |(n, _)| n);
        REF_LISTING.contains(&name) || name.starts_with("-n")
    });
    !writing && (operands(args).next().is_none() || listing)
}

/// Why a git subcommand that is not read-only asks, in words a person understands.
fn git_reason(sub: &str, args: &[Word]) -> String {
    match sub {
        "push" => "`git push` sends commits to a remote".into(),
        "config" => {
            "`git config` changes settings that run programs later (hooks, aliases, fsmonitor)"
                .into()
        }
        "reset" if has_flag(args, "--hard") => {
            "`git reset --hard` discards uncommitted changes".into()
        }
        "clean" => "`git clean` deletes untracked files".into(),
        "checkout" | "restore" | "switch" => format!("`git {sub}` can discard changes to files"),
        "fetch" | "pull" | "clone" => format!("`git {sub}` downloads from a remote"),
        "filter-branch" | "filter-repo" => "rewrites the repository's history".into(),
        _ => format!(
            "`git {sub}` changes the repository (only read-only git commands run without asking)"
        ),
    }
}

/// cargo subcommands that build, test or read the project.
const CARGO_SAFE: &[&str] = &[
    "build",
    "b",
    "check",
    "c",
    "test",
    "t",
    "bench",
    "clippy",
    "doc",
    "d",
    "run",
    "r",
    "tree",
    "metadata",
    "version",
    "locate-project",
    "verify-project",
    "pkgid",
    "read-manifest",
    "help",
    "nextest",
    "fetch",
    "generate-lockfile",
    "search",
    "info",
];

pub fn cargo(_name: &str, args: &[Word], judged: &mut Judged) {
    // cargo (clap) takes no abbreviations: its options are matched exactly.
    let given = |flag: &str| {
        args.iter()
            .any(|a| a.text == flag || a.text.starts_with(&format!("{flag}=")))
    };
    for flag in ["--config", "--open", "--target-dir"] {
        if given(flag) {
            judged.ask(format!("`cargo {flag}` changes what cargo runs or starts"));
        }
    }
    if args.iter().any(|a| a.text.starts_with("-Z")) {
        judged.ask("`cargo -Z` changes what cargo runs");
    }
    judged
        .scripts
        .extend(option_values(args, &["--manifest-path"]));
    judged.dirs.extend(option_values(args, &["-C"]));
    if given("--fix") || given("--allow-dirty") || given("--allow-staged") {
        judged.ask("`cargo --fix` rewrites source files");
    }
    let rest: Vec<&Word> = args.iter().filter(|a| !a.text.starts_with('+')).collect();
    let Some(sub) = rest.iter().find(|a| !a.text.starts_with('-')) else {
        return; // `cargo --version`, `cargo -V`
    };
    match sub.text.as_str() {
        "fmt" if has_flag(args, "--check") => {}
        s if CARGO_SAFE.contains(&s) => judged.network |= matches!(s, "fetch" | "search" | "info"),
        s => judged.ask(format!(
            "`cargo {s}` changes files or installs software (only build, check, test, clippy, doc, run and fmt --check run without asking)"
        )),
    }
}

pub fn node_package(name: &str, args: &[Word], judged: &mut Judged) {
    if has_flag(args, "-g")
        || has_flag(args, "--global")
        || args.iter().any(|a| a.text.starts_with("--location"))
    {
        judged.ask(format!(
            "`{name} --global` changes packages outside the project"
        ));
        return;
    }
    if has_flag(args, "--script-shell") {
        judged.ask(format!(
            "`{name} --script-shell` runs scripts with another program"
        ));
    }
    for flag in [
        "--registry",
        "--userconfig",
        "--globalconfig",
        "--config",
        "--node-options",
    ] {
        if has_flag(args, flag) {
            judged.ask(format!(
                "`{name} {flag}` talks to another registry or runs other code"
            ));
        }
    }
    judged.dirs.extend(option_values(
        args,
        &["--prefix", "-C", "--dir", "--cwd", "--workspace-root"],
    ));
    if matches!(name, "bun" | "deno")
        && let Some(file) = operands(args)
            .nth(1)
            .filter(|w| w.text.contains('/') || w.text.contains('.'))
    {
        judged.scripts.push(file.clone());
    }
    let ops: Vec<&Word> = operands(args).collect();
    let sub = ops.first().map_or("", |w| w.text.as_str());
    let safe = match sub {
        // The project's own scripts and tests: project code the user already trusts.
        "test" | "t" | "tst" | "run" | "run-script" | "start" | "ls" | "list" | "ll" | "la"
        | "outdated" | "view" | "info" | "show" | "why" | "explain" | "bin" | "root" | "prefix"
        | "help" | "doctor" | "-v" | "--version" | "build" | "lint" | "typecheck" => true,
        // Installing what the lockfile names is project-local; adding a package is not.
        "install" | "i" | "ci" => ops.len() == 1,
        "" => {
            name == "yarn"
                || name == "bun"
                || args.iter().any(|a| a.text == "--version" || a.text == "-v")
        }
        "audit" => !ops.iter().any(|w| w.text == "fix"),
        "config" => matches!(
            ops.get(1).map(|w| w.text.as_str()),
            Some("get" | "list" | "ls")
        ),
        "version" => ops.len() == 1,
        "pack" => has_flag(args, "--dry-run"),
        // `yarn jest`, `pnpm exec tsc`: a tool the project installed, or one of its scripts.
        "exec" if name != "npm" => {
            if let Some(bin) = ops.get(1) {
                judged.scripts.push(Word {
                    text: format!("node_modules/.bin/{}", bin.text),
                    ..(*bin).clone()
                });
            }
            ops.len() > 1
        }
        "dlx" | "create" | "add" | "global" | "up" | "upgrade" | "remove" | "link" | "publish"
        | "unpublish" | "login" | "logout" | "set" | "import" | "patch" | "npm" | "x" => false,
        other if name != "npm" && !other.contains('/') => {
            judged.scripts.push(Word {
                text: format!("node_modules/.bin/{other}"),
                ..ops[0].clone()
            });
            true
        }
        _ => false,
    };
    if !safe {
        judged.ask(if matches!(sub, "install" | "i" | "add") {
            format!("`{name} {sub} <package>` downloads new code and runs its install scripts")
        } else {
            format!(
                "`{name} {sub}` is not one of the package manager's read, build or test commands"
            )
        });
    }
    judged.network |= matches!(
        sub,
        "install" | "i" | "ci" | "" | "view" | "info" | "outdated"
    );
}

pub fn go(_name: &str, args: &[Word], judged: &mut Judged) {
    for flag in ["toolexec", "exec", "overlay", "vettool", "modfile", "pgo"] {
        let given = |a: &Word| {
            let name = a.text.trim_start_matches('-');
            a.text.starts_with('-') && (name == flag || name.starts_with(&format!("{flag}=")))
        };
        if args.iter().any(given) {
            judged.ask(format!("`go -{flag}` runs or reads another program"));
        }
    }
    judged.dirs.extend(option_values(args, &["-C"]));
    judged.outputs.extend(option_values(
        args,
        &[
            "-o",
            "--o",
            "-coverprofile",
            "--coverprofile",
            "-cpuprofile",
            "-memprofile",
            "-blockprofile",
            "-mutexprofile",
            "-trace",
        ],
    ));
    if subcommand(args) == Some("run")
        && let Some(target) = operands(args).nth(1)
    {
        let local = target.text.starts_with('.')
            || target.text.starts_with('/')
            || target.text.ends_with(".go");
        if local {
            judged.scripts.push(target.clone());
        } else {
            judged.ask(format!(
                "`go run {}` downloads and runs a module",
                target.text
            ));
        }
    }
    if subcommand(args) == Some("list") && args.iter().any(|a| a.text == "-m") {
        judged.ask(
            "`go list -m` looks modules up on the network, which can carry what the model read",
        );
    }
    match subcommand(args).unwrap_or("") {
        "build" | "test" | "vet" | "list" | "version" | "doc" | "run" | "help" | "" => {}
        "env"
            if !args.iter().any(|a| {
                let name = a.text.trim_start_matches('-');
                a.text.starts_with('-') && (name.starts_with('w') || name.starts_with('u'))
            }) => {}
        "mod" if matches!(
            operands(args).nth(1).map(|w| w.text.as_str()),
            Some("download" | "graph" | "why" | "verify")
        ) => judged.network = true,
        sub => judged.ask(format!(
            "`go {sub}` changes files or installs software (only build, test, vet, list and run run without asking)"
        )),
    }
}

/// `make [targets]`: the project's Makefile is project code; other makefiles, inline code and
/// targets that install or publish are not.
pub fn make(_name: &str, args: &[Word], judged: &mut Judged) {
    judged
        .scripts
        .extend(option_values(args, &["-f", "--file", "--makefile"]));
    judged.dirs.extend(option_values(
        args,
        &["-C", "--directory", "-I", "--include-dir"],
    ));
    if !option_values(args, &["-E", "--eval"]).is_empty() {
        judged.ask("`make --eval` runs make code given inline");
    }
    if has_flag(args, "-t") || has_flag(args, "--touch") {
        judged.ask("`make --touch` marks targets up to date by touching files");
    }
    let dry_run = ["-n", "--dry-run", "--just-print", "--recon"]
        .iter()
        .any(|flag| has_flag(args, flag));
    for arg in operands(args) {
        let text = arg.text.as_str();
        if let Some((var, value)) = text.split_once('=') {
            if let Some(why) = super::danger::risky_assignment(var, value) {
                judged.ask(format!("`make {var}=` {why}"));
            }
        } else if !dry_run
            && matches!(
                text,
                "install"
                    | "uninstall"
                    | "deploy"
                    | "publish"
                    | "release"
                    | "upload"
                    | "push"
                    | "distclean"
                    | "clean"
            )
        {
            judged.ask(format!(
                "`make {text}` changes files outside the build or publishes it"
            ));
        }
    }
}

pub fn jvm_dotnet(name: &str, args: &[Word], judged: &mut Judged) {
    let safe: &[&str] = match name {
        "mvn" => &[
            "compile",
            "test",
            "test-compile",
            "package",
            "verify",
            "validate",
            "dependency:tree",
            "-v",
            "--version",
        ],
        "dotnet" => &["build", "test", "restore", "--version", "--info", "list"],
        _ => &[
            "build",
            "test",
            "check",
            "assemble",
            "tasks",
            "dependencies",
            "--version",
            "-v",
            "classes",
            "testClasses",
        ],
    };
    let goals: Vec<&str> = args
        .iter()
        .filter(|a| !a.text.starts_with('-') || safe.contains(&a.text.as_str()))
        .map(|a| a.text.as_str())
        .collect();
    if goals.is_empty() && name != "gradle" && name != "gradlew" {
        judged.ask(format!("`{name}` without a build or test goal"));
    }
    for goal in goals {
        if !safe.contains(&goal) && !goal.contains('=') {
            judged.ask(format!(
                "`{name} {goal}` is not one of its build or test goals"
            ));
            return;
        }
    }
    judged.network = true;
}

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
            interpreter("python3", args.get(at..).unwrap_or(&[]), judged);
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

/// Python modules whose `-m` run is a test runner or a read-only tool.
const PYTHON_SAFE_MODULES: &[&str] = &[
    "pytest",
    "unittest",
    "doctest",
    "mypy",
    "pyflakes",
    "pylint",
    "flake8",
    "py_compile",
    "compileall",
    "tabnanny",
    "json.tool",
    "venv",
    "site",
    "platform",
    "sysconfig",
    "this",
];

/// Interpreters: running a script from the project is project code; inline code and code on stdin
/// are not something ai can check.
pub fn interpreter(name: &str, args: &[Word], judged: &mut Judged) {
    let inline: &[&str] = match name {
        "python" | "python2" | "python3" | "pypy" | "pypy3" => &["-c"],
        "node" | "nodejs" | "deno" => &[
            "-e",
            "--eval",
            "-p",
            "--print",
            "-r",
            "--require",
            "--import",
            "--loader",
            "--experimental-loader",
            "--experimental-policy",
            "--inspect-brk",
        ],
        "perl" => &["-e", "-E", "-M", "-m", "-i", "-n", "-p", "-S", "-d", "-D"],
        "ruby" => &["-e", "-i", "-r", "-n", "-p", "-S"],
        "php" => &["-r", "-B", "-R", "-E", "-F", "-S", "-d", "-c", "-t"],
        "lua" => &["-e", "-l"],
        _ => &["-e"],
    };
    if args
        .iter()
        .any(|a| matches!(a.text.as_str(), "--version" | "-V" | "-v" | "--help" | "-h"))
    {
        return;
    }
    if let Some(flag) = inline.iter().find(|f| has_flag(args, f)) {
        judged.ask(format!("`{name} {flag}` runs code that ai cannot check"));
        return;
    }
    let python = matches!(name, "python" | "python3" | "python2" | "pypy" | "pypy3");
    // `-m` also hides in a cluster (`-Im timeit`) or is glued to its module (`-mtimeit`).
    if python && let Some(module) = option_values(args, &["-m"]).into_iter().next() {
        let module = module.text.as_str();
        let after = args
            .iter()
            .position(|a| a.text == module || a.text.ends_with(&format!("m{module}")))
            .map_or(&[][..], |i| args.get(i + 1..).unwrap_or(&[]));
        let pip_read = module == "pip"
            && matches!(
                after.first().map(|w| w.text.as_str()),
                Some("list" | "show" | "freeze" | "check" | "--version")
            );
        let discover_elsewhere = module == "unittest"
            && !option_values(
                after,
                &["-s", "-t", "--start-directory", "--top-level-directory"],
            )
            .is_empty();
        if discover_elsewhere {
            judged.dirs.extend(option_values(
                after,
                &["-s", "-t", "--start-directory", "--top-level-directory"],
            ));
        }
        if module == "json.tool" && operands(after).count() > 1 {
            judged.outputs.extend(operands(after).nth(1).cloned());
        }
        if module == "pytest" {
            pytest(after, judged);
        }
        if module == "venv" {
            if ["--clear", "--upgrade", "--upgrade-deps"]
                .iter()
                .any(|flag| has_flag(after, flag))
            {
                judged.ask("`python -m venv --clear` deletes the directory it is given");
            }
            judged.outputs.extend(operands(after).cloned());
        }
        if !PYTHON_SAFE_MODULES.contains(&module) && !pip_read {
            judged.ask(format!(
                "`{name} -m {module}` runs a module ai does not know to be safe"
            ));
        }
        return;
    }
    if matches!(name, "deno" | "bun") {
        match subcommand(args) {
            Some("test" | "check" | "lint" | "fmt") if !has_flag(args, "--fix") => return,
            Some("run") => {
                let after = args
                    .iter()
                    .position(|a| a.text == "run")
                    .map_or(0, |i| i + 1);
                let rest = skip_options(args.get(after..).unwrap_or(&[]), &[]);
                match rest.first() {
                    Some(script) => judged.scripts.push(script.clone()),
                    None => judged.ask(format!("`{name} run` without a file")),
                }
                return;
            }
            _ => {
                judged.ask(format!("`{name}` runs code ai cannot check"));
                return;
            }
        }
    }
    script_operand(name, args, judged);
}

/// Shells: `-c` strings are parsed and judged; a script file must be the project's; stdin asks.
pub fn shell(name: &str, args: &[Word], judged: &mut Judged) {
    if matches!(name, "source" | ".") {
        match args.first() {
            Some(script) => judged.scripts.push(script.clone()),
            None => judged.ask(format!("`{name}` without a file")),
        }
        return;
    }
    if let Some(pos) = args
        .iter()
        .position(|a| a.text.starts_with('-') && !a.text.starts_with("--") && a.text.contains('c'))
    {
        match args.get(pos + 1) {
            Some(string) => judged.strings.push(string.clone()),
            None => judged.ask(format!("`{name} -c` without a command")),
        }
        return;
    }
    if args.iter().any(|a| a.text == "-s" || a.text == "-i") {
        judged.ask(format!("`{name} -s` runs the text given on its input"));
        return;
    }
    if args
        .iter()
        .any(|a| a.text.starts_with("--rcfile") || a.text.starts_with("--init-file"))
    {
        judged.ask(format!("`{name} --rcfile` runs another startup file"));
        return;
    }
    script_operand(name, args, judged);
}

/// pytest runs the project's tests; options that load plugins, read other configurations,
/// delete or write files, or upload results ask, and test paths must be the project's.
pub fn pytest(args: &[Word], judged: &mut Judged) {
    for flag in [
        "--basetemp",
        "--rootdir",
        "-c",
        "--config-file",
        "--confcutdir",
        "-p",
        "--junitxml",
        "--junit-xml",
        "--log-file",
        "--pastebin",
        "--result-log",
        "--debug",
        "--override-ini",
        "-o",
        "--cov-config",
        "--import-mode",
        "--pyargs",
    ] {
        if !option_values(args, &[flag]).is_empty() || has_flag(args, flag) {
            judged.ask(format!(
                "`pytest {flag}` loads, deletes, uploads or writes something outside its tests"
            ));
            return;
        }
    }
    for path in operands(args) {
        let file = path.text.split("::").next().unwrap_or("");
        if !file.is_empty() && !path.text.contains('=') {
            judged.scripts.push(Word {
                text: file.to_string(),
                ..path.clone()
            });
        }
    }
}

/// The script an interpreter runs: its first operand after the interpreter's own options, read
/// with the interpreter's own table of which one-letter options take a value (python's `-O`
/// does not, its `-W` does; a shell's `-o` does). No script, or `-`, means code from its input.
fn script_operand(name: &str, args: &[Word], judged: &mut Judged) {
    let takes_value = match name {
        "python" | "python2" | "python3" | "pypy" | "pypy3" => "WXQ",
        "perl" => "I",
        "ruby" => "ICFKEWT",
        "php" => "fz",
        "node" | "nodejs" => "",
        _ => "oO",
    };
    let mut i = 0;
    let script = loop {
        let Some(arg) = args.get(i) else { break None };
        let text = arg.text.as_str();
        if text == "--" {
            break args.get(i + 1);
        }
        let shell_plus = takes_value == "oO" && text.starts_with('+') && text.len() > 1;
        if text.starts_with("--") {
            if name == "node" || name == "nodejs" {
                let known = [
                    "--test",
                    "--enable-source-maps",
                    "--no-warnings",
                    "--trace-warnings",
                ];
                let tuned = ["--max-old-space-size=", "--stack-size="];
                if !known.contains(&text) && !tuned.iter().any(|t| text.starts_with(t)) {
                    judged.ask(format!("`{name} {text}` changes how or what it runs"));
                    return;
                }
            }
            i += 1;
            continue;
        }
        if (text.starts_with('-') && text.len() > 1) || shell_plus {
            let cluster = &text[1..];
            for (pos, c) in cluster.char_indices() {
                if takes_value.contains(c) {
                    if cluster[pos + c.len_utf8()..].is_empty() {
                        i += 1;
                    }
                    break;
                }
            }
            i += 1;
            continue;
        }
        break Some(arg);
    };
    match script {
        Some(script) if script.text != "-" => judged.scripts.push(script.clone()),
        _ => judged.ask(format!("`{name}` runs the code it reads on its input")),
    }
}
