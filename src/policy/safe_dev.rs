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
            "branch" => {
                sub_args.is_empty()
                    || sub_args.iter().all(|a| {
                        matches!(
                            a.text.as_str(),
                            "-a" | "-r"
                                | "-v"
                                | "-vv"
                                | "--list"
                                | "-l"
                                | "--all"
                                | "--remotes"
                                | "--verbose"
                                | "--show-current"
                                | "--merged"
                                | "--no-merged"
                                | "--contains"
                        ) || a.text.starts_with("--sort")
                            || a.text.starts_with("--format")
                    })
                    || has_flag(sub_args, "--list")
            }
            "tag" => {
                sub_args.is_empty() || has_flag(sub_args, "-l") || has_flag(sub_args, "--list")
            }
            "remote" => sub_args.is_empty() || sub_args.iter().all(|a| a.text == "-v"),
            "stash" => matches!(subcommand(sub_args), Some("list" | "show")),
            "reflog" => matches!(subcommand(sub_args), None | Some("show")),
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
            "submodule" => matches!(subcommand(sub_args), Some("status" | "summary")),
            "notes" => matches!(subcommand(sub_args), None | Some("list" | "show")),
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
    for flag in ["--config", "-Z"] {
        if has_flag(args, flag) {
            judged.ask(format!("`cargo {flag}` changes what cargo runs"));
        }
    }
    judged
        .scripts
        .extend(option_values(args, &["--manifest-path"]));
    judged.dirs.extend(option_values(args, &["-C"]));
    if has_flag(args, "--fix") || has_flag(args, "--allow-dirty") {
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
    if has_flag(args, "-g") || has_flag(args, "--global") {
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
            "-coverprofile",
            "-cpuprofile",
            "-memprofile",
            "-blockprofile",
            "-mutexprofile",
            "-trace",
        ],
    ));
    if subcommand(args) == Some("run")
        && let Some(target) = operands(args).nth(1)
        && !(target.text.starts_with('.')
            || target.text.starts_with('/')
            || target.text.ends_with(".go"))
    {
        judged.ask(format!(
            "`go run {}` downloads and runs a module",
            target.text
        ));
    }
    match subcommand(args).unwrap_or("") {
        "build" | "test" | "vet" | "list" | "version" | "doc" | "run" | "help" | "" => {}
        "env" if !has_flag(args, "-w") && !has_flag(args, "-u") => {}
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

/// Linters and formatters: checking is safe, rewriting files asks.
pub fn formatter(name: &str, args: &[Word], judged: &mut Judged) {
    let checks = match name {
        _ if args
            .iter()
            .any(|a| a.text.starts_with("--fix") || a.text.starts_with("--unsafe-fix")) =>
        {
            false
        }
        "ruff" => match subcommand(args) {
            Some("check") => !has_flag(args, "--fix"),
            Some("format") => has_flag(args, "--check") || has_flag(args, "--diff"),
            Some("version") | None => true,
            _ => false,
        },
        "black" | "isort" => {
            has_flag(args, "--check") || has_flag(args, "--diff") || has_flag(args, "--version")
        }
        "prettier" if has_flag(args, "--write") || has_flag(args, "-w") => false,
        "prettier" => {
            has_flag(args, "--check")
                || has_flag(args, "-c")
                || has_flag(args, "--list-different")
                || has_flag(args, "-l")
                || !has_flag(args, "--write") && !has_flag(args, "-w")
        }
        "eslint" => {
            !has_flag(args, "--fix")
                && !has_flag(args, "--fix-dry-run")
                && !has_flag(args, "-o")
                && !has_flag(args, "--output-file")
        }
        "gofmt" => !has_flag(args, "-w"),
        "rustfmt" => {
            has_flag(args, "--check") || has_flag(args, "--version") || has_flag(args, "-V")
        }
        "biome" => {
            matches!(subcommand(args), Some("check" | "lint" | "ci" | "format"))
                && !has_flag(args, "--write")
                && !has_flag(args, "--apply")
                && !has_flag(args, "--fix")
        }
        _ => false,
    };
    if !checks {
        judged.ask(format!(
            "`{name}` rewrites files this way (checking without --fix/--write runs without asking)"
        ));
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
    "tox",
    "nox",
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
        "perl" => &["-e", "-E", "-M", "-i", "-n", "-p"],
        "ruby" => &["-e", "-i", "-r", "-n", "-p"],
        "php" => &["-r", "-B", "-R", "-E", "-F"],
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
    script_operand(name, args, judged);
}

/// The script an interpreter runs: its first operand (after the interpreter's own options).
fn script_operand(name: &str, args: &[Word], judged: &mut Judged) {
    let rest = skip_options(args, &["-W", "-X", "-O", "--stack-size", "-I", "-x"]);
    match rest.first() {
        Some(script) if script.text != "-" => judged.scripts.push(script.clone()),
        _ => judged.ask(format!("`{name}` runs the code it reads on its input")),
    }
}
