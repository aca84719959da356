//! Linters and test runners that only read, with the options known to change nothing but what
//! they check and print. Any other option asks: each of these programs has some that run a
//! program (`gotestsum --raw-command`, `actionlint -shellcheck=`), load code (`rspec -r`,
//! `markdownlint -r`), pick an interpreter (`pyright --pythonpath`) or read a configuration that
//! loads plugins (`golangci-lint -c`) (classifier round 6). Names ending in `=` take a value.

use super::Program;
use super::tools::read_options;
use crate::policy::judged::Judged;
use crate::policy::shell::Word;

pub(super) const PROGRAMS: &[Program] = &[
    Program::new(&["cargo-clippy", "cargo-nextest"]).checked(cargo_subcommand),
    Program::new(&["clippy-driver"]).checked(compiler),
    Program::new(&["pyright"]).checked(pyright),
    Program::new(&["pycodestyle"]).checked(pycodestyle),
    Program::new(&["pydocstyle"]).checked(pydocstyle),
    Program::new(&["rspec"]).checked(rspec),
    Program::new(&["shellcheck"]).checked(shellcheck),
    Program::new(&["hadolint"]).checked(hadolint),
    Program::new(&["yamllint"]).checked(yamllint),
    Program::new(&["markdownlint"]).checked(markdownlint),
    Program::new(&["actionlint"]).checked(actionlint),
    Program::new(&["golangci-lint"]).checked(golangci_lint),
    Program::new(&["staticcheck"]).checked(staticcheck),
    Program::new(&["gotestsum"]).checked(gotestsum),
];

/// Asks unless every option is on `allowed`; the tool runs over the project's code.
fn only(name: &str, args: &[Word], judged: &mut Judged, allowed: &[&str]) {
    judged.project_code = true;
    // A word only known when it runs could be any option.
    if let Some(word) = args.iter().find(|a| a.dynamic) {
        return judged.ask(format!(
            "`{name} {}` is a word computed at run time, which could be any option",
            word.text
        ));
    }
    if let Err(why) = read_options(name, args, allowed) {
        judged.ask(why);
    }
}

/// `cargo-clippy clippy ...`, `cargo-nextest nextest run ...`: cargo's subcommands by their own
/// names, judged as `cargo clippy ...` with all of cargo's checks (`--manifest-path`, `--config`).
fn cargo_subcommand(_name: &str, args: &[Word], judged: &mut Judged) {
    let mut inner = vec![Word::literal("cargo")];
    inner.extend_from_slice(args);
    judged.inner.push(inner);
}

/// `clippy-driver` is a whole rustc: it links, and `-C linker=` runs any program.
fn compiler(name: &str, _args: &[Word], judged: &mut Judged) {
    judged.ask(format!(
        "`{name}` is a compiler: its options choose linkers and plugins it runs"
    ));
}

fn pyright(name: &str, args: &[Word], judged: &mut Judged) {
    let allowed = &[
        "--outputjson",
        "--verbose",
        "--version",
        "--help",
        "-h",
        "--stats",
        "--warnings",
        "--level=",
        "--pythonversion=",
        "--pythonplatform=",
        "--skipunannotated",
        "--threads=",
        "--verifytypes=",
        "--ignoreexternal",
        "-p=",
        "--project=",
    ];
    only(name, args, judged, allowed);
    // A configuration elsewhere chooses the interpreter pyright runs: the project's only.
    judged.dirs.extend(crate::policy::args::option_values(
        args,
        &["-p", "--project"],
    ));
}

fn pycodestyle(name: &str, args: &[Word], judged: &mut Judged) {
    let allowed = &[
        "-v",
        "--verbose",
        "-q",
        "--quiet",
        "--version",
        "-h",
        "--help",
        "--count",
        "--statistics",
        "--show-source",
        "--show-pep8",
        "--first",
        "--hang-closing",
        "--max-line-length=",
        "--max-doc-length=",
        "--indent-size=",
        "--ignore=",
        "--select=",
        "--exclude=",
        "--filename=",
        "--format=",
    ];
    only(name, args, judged, allowed);
}

fn pydocstyle(name: &str, args: &[Word], judged: &mut Judged) {
    let allowed = &[
        "-v",
        "--verbose",
        "-d",
        "--debug",
        "-e",
        "--explain",
        "-s",
        "--source",
        "--count",
        "--version",
        "-h",
        "--help",
        "--convention=",
        "--select=",
        "--ignore=",
        "--add-select=",
        "--add-ignore=",
        "--match=",
        "--match-dir=",
        "--ignore-decorators=",
    ];
    only(name, args, judged, allowed);
}

fn rspec(name: &str, args: &[Word], judged: &mut Judged) {
    let allowed = &[
        "--fail-fast",
        "--only-failures",
        "--next-failure",
        "--color",
        "--no-color",
        "-b",
        "--backtrace",
        "--dry-run",
        "--profile",
        "--warnings",
        "-w",
        "--version",
        "-v",
        "-h",
        "--help",
        "-f=",
        "--format=",
        "-e=",
        "--example=",
        "-t=",
        "--tag=",
        "--seed=",
        "--order=",
    ];
    only(name, args, judged, allowed);
}

fn shellcheck(name: &str, args: &[Word], judged: &mut Judged) {
    let allowed = &[
        "-x",
        "--external-sources",
        "-a",
        "--check-sourced",
        "--norc",
        "-V",
        "--version",
        "-h",
        "--help",
        "-s=",
        "--shell=",
        "-S=",
        "--severity=",
        "-e=",
        "--exclude=",
        "-i=",
        "--include=",
        "-f=",
        "--format=",
        "-o=",
        "--enable=",
        "-C=",
        "--color=",
        "-W=",
        "--wiki-link-count=",
        "-P=",
        "--source-path=",
    ];
    only(name, args, judged, allowed);
}

fn hadolint(name: &str, args: &[Word], judged: &mut Judged) {
    let allowed = &[
        "--no-fail",
        "--no-color",
        "--strict-labels",
        "-V",
        "--version",
        "-h",
        "--help",
        "-f=",
        "--format=",
        "--ignore=",
        "-t=",
        "--failure-threshold=",
        "--error=",
        "--warning=",
        "--info=",
        "--style=",
        "--trusted-registry=",
    ];
    only(name, args, judged, allowed);
}

fn yamllint(name: &str, args: &[Word], judged: &mut Judged) {
    let allowed = &[
        "-s",
        "--strict",
        "--no-warnings",
        "-v",
        "--version",
        "-h",
        "--help",
        "-f=",
        "--format=",
        "-d=",
        "--config-data=",
        "--list-files",
    ];
    only(name, args, judged, allowed);
}

fn markdownlint(name: &str, args: &[Word], judged: &mut Judged) {
    let allowed = &[
        "-s",
        "--stdin",
        "-j",
        "--json",
        "--dot",
        "-q",
        "--quiet",
        "-V",
        "--version",
        "-h",
        "--help",
        "-i=",
        "--ignore=",
        "-p=",
        "--ignore-path=",
        "--disable=",
        "--enable=",
    ];
    only(name, args, judged, allowed);
}

fn actionlint(name: &str, args: &[Word], judged: &mut Judged) {
    let allowed = &[
        "-color",
        "-no-color",
        "-oneline",
        "-verbose",
        "-debug",
        "-version",
        "-h",
        "--help",
        "-format=",
        "-ignore=",
        "-config-file=",
        "-stdin-filename=",
    ];
    only(name, args, judged, allowed);
}

fn golangci_lint(name: &str, args: &[Word], judged: &mut Judged) {
    let allowed = &[
        "-v",
        "--verbose",
        "--fast",
        "--fast-only",
        "--disable-all",
        "--enable-all",
        "--tests",
        "--new",
        "--no-config",
        "--print-issued-lines",
        "--sort-results",
        "--color=",
        "--allow-parallel-runners",
        "--timeout=",
        "--out-format=",
        "--output.text.path=",
        "-E=",
        "--enable=",
        "-D=",
        "--disable=",
        "-j=",
        "--concurrency=",
        "--new-from-rev=",
        "--issues-exit-code=",
        "--build-tags=",
        "--max-issues-per-linter=",
        "--max-same-issues=",
        "--path-prefix=",
        "--skip-dirs=",
        "--version",
        "-h",
        "--help",
    ];
    only(name, args, judged, allowed);
}

fn staticcheck(name: &str, args: &[Word], judged: &mut Judged) {
    let allowed = &[
        "-tests",
        "-show-ignored",
        "-version",
        "-h",
        "-help",
        "-checks=",
        "-f=",
        "-fail=",
        "-go=",
        "-explain=",
        "-tags=",
        "-matrix",
    ];
    only(name, args, judged, allowed);
}

/// gotestsum runs `go test`: what comes after `--` is `go test`'s own arguments, judged as
/// that command (`-exec`, `-toolexec` ask there).
fn gotestsum(name: &str, args: &[Word], judged: &mut Judged) {
    let split = args
        .iter()
        .position(|a| a.text == "--")
        .unwrap_or(args.len());
    let allowed = &[
        "--rerun-fails",
        "--hide-summary=",
        "--format-hide-empty-pkg",
        "--no-color",
        "--debug",
        "--version",
        "-h",
        "--help",
        "-f=",
        "--format=",
        "--packages=",
        "--rerun-fails-max-failures=",
    ];
    only(name, &args[..split], judged, allowed);
    let mut go_test = vec![Word::literal("go"), Word::literal("test")];
    go_test.extend(crate::policy::args::option_values(
        &args[..split],
        &["--packages"],
    ));
    go_test.extend_from_slice(args.get(split + 1..).unwrap_or(&[]));
    judged.inner.push(go_test);
}
