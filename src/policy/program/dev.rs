//! Records of package managers and build tools: the build and test commands of cargo,
//! npm/pnpm/yarn, go, make and maven/gradle/dotnet (project code the user already trusts), never
//! pointed outside the project or at another registry.

use super::Program;
use crate::policy::args::{has_flag, operands, option_values, subcommand};
use crate::policy::judged::Judged;
use crate::policy::shell::Word;

pub(super) const PROGRAMS: &[Program] = &[
    Program::new(&["cargo"]).checked(cargo),
    Program::new(&["npm"])
        .printing_env(runs_env_script)
        .checked(node_package),
    Program::new(&["pnpm"])
        .printing_env(runs_env_script)
        .checked(node_package),
    Program::new(&["yarn"])
        .printing_env(runs_env_script)
        .checked(node_package),
    Program::new(&["bun"]).checked(node_package),
    Program::new(&["go"]).checked(go),
    Program::new(&["make", "gmake"])
        .printing_env(prints_data_base)
        .checked(make),
    Program::new(&["mvn"]).checked(jvm_dotnet),
    Program::new(&["gradle", "gradlew"]).checked(jvm_dotnet),
    Program::new(&["dotnet"]).checked(jvm_dotnet),
];

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

pub(crate) fn cargo(_name: &str, args: &[Word], judged: &mut Judged) {
    judged.project_code = true;
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
    // nextest's configurations define setup scripts and wrappers it runs: the project's only.
    judged
        .scripts
        .extend(option_values(args, &["--config-file"]));
    for tool in option_values(args, &["--tool-config-file"]) {
        let path = tool.text.split_once(':').map_or("", |(_, p)| p).to_string();
        judged.scripts.push(Word { text: path, ..tool });
    }
    judged.dirs.extend(option_values(args, &["-C"]));
    if subcommand(args) == Some("clean") {
        // `cargo clean --target-dir DIR` removes DIR outright: the project's own only.
        judged.dirs.extend(option_values(args, &["--target-dir"]));
    }
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

pub(crate) fn node_package(name: &str, args: &[Word], judged: &mut Judged) {
    judged.project_code = true;
    if args
        .iter()
        .any(|a| a.text.contains("registry") || a.text.contains("proxy"))
    {
        judged.ask(format!("`{name}` pointed at another registry or proxy"));
    }
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
        // npm's `-w` is `--workspace` (pnpm's takes no value: the next word is then judged as
        // a directory too, which only asks more).
        &[
            "--prefix",
            "-C",
            "--dir",
            "--cwd",
            "--workspace-root",
            "--workspace",
            "-w",
        ],
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
        "version" => name == "npm" && ops.len() == 1 && args.len() == 1,
        "pack" => has_flag(args, "--dry-run"),
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

pub(crate) fn go(_name: &str, args: &[Word], judged: &mut Judged) {
    judged.project_code = true;
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
pub(crate) fn make(_name: &str, args: &[Word], judged: &mut Judged) {
    judged.project_code = true;
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
            // A path in a value reaches the recipe's tool: only the project's own runs unasked.
            let paths = value
                .split_whitespace()
                .map(|w| w.rsplit('=').next().unwrap_or(w));
            for path in paths.filter(|w| w.starts_with('/') || w.split('/').any(|p| p == "..")) {
                judged.dirs.push(Word::literal(path));
            }
            if let Some(why) = make_variable_reason(var, value) {
                judged.ask(format!("`make {text}` {why}"));
            } else if let Some(why) = crate::policy::danger::risky_assignment(var, value) {
                judged.ask(format!("`make {var}=` {why}"));
            }
        } else if !dry_run && let Some(what) = make_target_reason(text) {
            judged.ask(format!("`make {text}` {what}"));
        }
    }
}

/// Why a command-line variable asks: make runs `NAME!=cmd` through the shell as it reads the
/// line (`-n` or not), and expands `$(shell ...)`, `$(eval ...)`, `$(file ...)` in `:=` values
/// at once and in `=` values wherever they are used (a recipe, a built-in rule).
fn make_variable_reason(var: &str, value: &str) -> Option<&'static str> {
    if var.ends_with('!') {
        return Some("runs its value as a shell command when make reads it, even with `-n`");
    }
    let code = |t: &str| t.contains("$(") || t.contains("${") || t.contains('`');
    (code(var) || code(value))
        .then_some("expands make functions (`$(shell ...)`, `$(eval ...)`) or shell code")
}

/// Why a make target asks: it installs, publishes or deletes.
fn make_target_reason(target: &str) -> Option<&'static str> {
    match target {
        "install" | "uninstall" => Some("installs or removes files outside the project"),
        "deploy" | "publish" | "release" | "upload" | "push" => Some("publishes the project"),
        "clean" | "distclean" => Some("deletes files (what the Makefile says, not only the build)"),
        _ => None,
    }
}

pub(crate) fn jvm_dotnet(name: &str, args: &[Word], judged: &mut Judged) {
    judged.project_code = true;
    // Options that only change how much they print or how they schedule; any other option may
    // load an init script, a settings file, another project or a plugin property.
    const QUIET: &[&str] = &[
        "-q",
        "--quiet",
        "-B",
        "--batch-mode",
        "-o",
        "--offline",
        "--no-daemon",
        "--info",
        "--stacktrace",
        "-s",
        "--warn",
        "--console=plain",
        "--parallel",
        "-v",
        "--version",
        "--nologo",
        "--no-restore",
        "--no-build",
    ];
    if let Some(option) = args
        .iter()
        .find(|a| a.text.starts_with('-') && !QUIET.contains(&a.text.as_str()))
    {
        judged.ask(format!(
            "`{name} {}` is an option ai does not know to be safe (init scripts, settings, \
             other projects)",
            option.text
        ));
        return;
    }
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

/// `make -p`, `make --print-data-base`: the data base holds every variable.
fn prints_data_base(args: &[Word]) -> bool {
    args.iter().any(|w| {
        w.text == "--print-data-base"
            || (w.text.starts_with('-') && !w.text.starts_with("--") && w.text.contains('p'))
    })
}

/// `npm run env`, `npm env`: the environment npm gives scripts.
fn runs_env_script(args: &[Word]) -> bool {
    let mut rest = args.iter().filter(|w| !w.text.starts_with('-'));
    match rest.next().map(|w| w.text.as_str()) {
        Some("run" | "run-script") => rest.next().is_some_and(|w| w.text == "env"),
        Some("env") => true,
        _ => false,
    }
}
