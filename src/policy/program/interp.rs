//! Records of interpreters and shells: a script from the project is project code; inline
//! code, code on stdin and scripts from elsewhere ask. Options are read with each interpreter's own
//! table of which one-letter options take a value.

use super::Program;
use crate::policy::args::{has_flag, operands, option_values, skip_options, subcommand};
use crate::policy::judged::Judged;
use crate::policy::shell::Word;

pub(super) const PROGRAMS: &[Program] = &[
    Program::new(&["python", "python2", "python3"]).checked(python),
    Program::new(&["pypy", "pypy3"]).checked(python),
    Program::new(&["node", "nodejs"]).checked(node),
    Program::new(&["perl"]).checked(perl),
    Program::new(&["ruby"]).checked(ruby),
    Program::new(&["php"]).checked(php),
    Program::new(&["deno"]).checked(deno),
    Program::new(&["lua"]).checked(lua),
    Program::new(&["Rscript"]).checked(rscript),
    Program::new(&["sh"]).checked(shell),
    Program::new(&["bash", "rbash"]).checked(shell),
    Program::new(&["zsh"]).checked(shell),
    Program::new(&["dash"]).checked(shell),
    Program::new(&["ksh", "mksh"]).checked(shell),
    Program::new(&["fish"]).checked(shell),
    Program::new(&["csh", "tcsh"]).checked(shell),
    Program::new(&["source", "."]).checked(shell),
];

/// Python modules whose `-m` run is a test runner or a read-only tool.
const PYTHON_SAFE_MODULES: &[&str] = &[
    "pytest",
    "unittest",
    "doctest",
    "mypy",
    "pyflakes",
    "pylint",
    "flake8",
    "tabnanny",
    "json.tool",
    "venv",
    "site",
    "platform",
    "sysconfig",
    "this",
];

/// What runs inline code, per interpreter: these options take code (or a module or a loader
/// that runs it) rather than a file.
const NODE_INLINE: &[&str] = &[
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
];

/// Version and help only as the whole command (`python3 -c '...' -v` still runs the code); an
/// option of `inline` asks. Whether the command is left to judge further.
fn interpret(name: &str, args: &[Word], judged: &mut Judged, inline: &[&str]) -> bool {
    if args.len() == 1
        && matches!(
            args[0].text.as_str(),
            "--version" | "-V" | "-v" | "--help" | "-h"
        )
    {
        return false;
    }
    if let Some(flag) = inline.iter().find(|f| has_flag(args, f)) {
        judged.ask(format!("`{name} {flag}` runs code that ai cannot check"));
        return false;
    }
    true
}

/// An interpreter that runs its script operand, with `inline` as its code-taking options.
fn scripted(name: &str, args: &[Word], judged: &mut Judged, inline: &[&str]) {
    if interpret(name, args, judged, inline) {
        script_operand(name, args, judged);
    }
}

/// python, pypy: `-c` asks; `-m MODULE` runs only modules known to be safe, with their options
/// read (`-m` also hides in a cluster, `-Im timeit`, or is glued to its module, `-mtimeit`).
pub(crate) fn python(name: &str, args: &[Word], judged: &mut Judged) {
    if !interpret(name, args, judged, &["-c"]) {
        return;
    }
    match option_values(args, &["-m"]).into_iter().next() {
        Some(module) => python_module(name, &module.text, args, judged),
        None => script_operand(name, args, judged),
    }
}

fn python_module(name: &str, module: &str, args: &[Word], judged: &mut Judged) {
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
        pytest("pytest", after, judged);
    }
    crate::policy::py_module::options(name, module, after, judged);
    if module == "venv" {
        // A new environment directory named like one; into an existing directory it would
        // overwrite files (`venv .` replaces the project's `bin/`), `--clear` deletes.
        let named_like_one = operands(after).all(|w| {
            let name = w.text.trim_end_matches('/');
            matches!(name, ".venv" | "venv" | "env" | ".env-py") || name.starts_with(".venv")
        });
        if !named_like_one
            || ["--clear", "--upgrade", "--upgrade-deps"]
                .iter()
                .any(|flag| has_flag(after, flag))
        {
            judged.ask("`python -m venv` here would overwrite or delete a directory");
        }
        judged.dirs.extend(operands(after).cloned());
    }
    if !PYTHON_SAFE_MODULES.contains(&module) && !pip_read {
        judged.ask(format!(
            "`{name} -m {module}` runs a module ai does not know to be safe"
        ));
    }
}

fn node(name: &str, args: &[Word], judged: &mut Judged) {
    scripted(name, args, judged, NODE_INLINE);
}

fn perl(name: &str, args: &[Word], judged: &mut Judged) {
    let inline = &["-e", "-E", "-M", "-m", "-i", "-n", "-p", "-S", "-d", "-D"];
    scripted(name, args, judged, inline);
    // Library directories: a module the script loads is found there first (`-I/tmp`).
    judged.dirs.extend(option_values(args, &["-I"]));
}

fn ruby(name: &str, args: &[Word], judged: &mut Judged) {
    scripted(
        name,
        args,
        judged,
        &["-e", "-i", "-r", "-n", "-p", "-S", "-x"],
    );
    // Library directories and the directory it runs in (`-C DIR script` runs DIR's script).
    judged.dirs.extend(option_values(args, &["-I", "-C"]));
}

fn php(name: &str, args: &[Word], judged: &mut Judged) {
    let inline = &["-r", "-B", "-R", "-E", "-F", "-S", "-d", "-c", "-t"];
    scripted(name, args, judged, inline);
}

fn lua(name: &str, args: &[Word], judged: &mut Judged) {
    scripted(name, args, judged, &["-e", "-l"]);
}

fn rscript(name: &str, args: &[Word], judged: &mut Judged) {
    scripted(name, args, judged, &["-e"]);
}

/// deno: its checking subcommands, or `run` with a file (judged as a script).
fn deno(name: &str, args: &[Word], judged: &mut Judged) {
    if !interpret(name, args, judged, NODE_INLINE) {
        return;
    }
    // An import map or config remaps imports to code it names: the project's own only.
    let maps = crate::policy::args::option_values(args, &["--import-map", "--config", "-c"]);
    judged.scripts.extend(maps);
    match subcommand(args) {
        Some("test" | "check" | "lint" | "fmt") if !has_flag(args, "--fix") => {}
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
        }
        _ => judged.ask(format!("`{name}` runs code ai cannot check")),
    }
}

/// Shells: `-c` strings are parsed and judged; a script file must be the project's; stdin asks.
pub(crate) fn shell(name: &str, args: &[Word], judged: &mut Judged) {
    if matches!(name, "source" | ".") {
        match args.first() {
            Some(script) => judged.shell_scripts.push(script.clone()),
            None => judged.ask(format!("`{name}` without a file")),
        }
        return;
    }
    if super::builtin::keywords(args) {
        return judged.ask(format!(
            "`{name} -k` makes every `NAME=value` word of a command part of its environment"
        ));
    }
    // `-c` counts only among the options before the script: `bash x.sh -c true` runs x.sh.
    let options_end = args
        .iter()
        .position(|a| !a.text.starts_with('-') && !a.text.starts_with('+'))
        .unwrap_or(args.len());
    if let Some(pos) = args[..options_end]
        .iter()
        .position(|a| a.text.starts_with('-') && !a.text.starts_with("--") && a.text.contains('c'))
    {
        match args.get(pos + 1) {
            Some(string) => {
                judged.strings.push(string.clone());
                judged.positional = args.get(pos + 2..).unwrap_or(&[]).to_vec();
            }
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
    // What ai reads is bash; a script for another shell's syntax is not something it can check.
    if matches!(name, "sh" | "bash" | "rbash" | "dash") {
        judged.shell_scripts.append(&mut judged.scripts);
    } else if !judged.scripts.is_empty() {
        judged.ask(format!("`{name}` scripts are not something ai reads"));
    }
}

/// pytest runs the project's tests, with the options known to change only which tests run
/// and what it prints. Every other option asks: pytest and its plugins have many that load
/// plugins or modules by name (`-p`, `--pdbcls`, `-W error::mod.Cls`), read other
/// configurations, or write reports where they are told (`--junitxml`, `--report-log`).
pub(crate) fn pytest(_name: &str, args: &[Word], judged: &mut Judged) {
    judged.project_code = true;
    let mut words = args.iter();
    while let Some(arg) = words.next() {
        let text = arg.text.as_str();
        if text == "--" || !text.starts_with('-') || text == "-" {
            continue;
        }
        let (option, value) = match text.split_once('=') {
            Some((o, v)) => (o, Some(v)),
            None => (text, None),
        };
        let takes_value = PYTEST_VALUED.contains(&option);
        let glued = (!option.starts_with("--") && option.len() > 2 && option.is_char_boundary(2))
            .then(|| option.split_at(2))
            .filter(|(short, _)| PYTEST_VALUED.contains(short));
        let (option, value) = match glued {
            Some((short, rest)) => (short, Some(rest)),
            None => (option, value),
        };
        let value = match value {
            Some(v) => Some(v.to_string()),
            // A word that is itself an option is not a value (`--cov -p evil`).
            None if takes_value => match words.clone().next() {
                Some(next) if !next.text.starts_with('-') => words.next().map(|w| w.text.clone()),
                _ => None,
            },
            None => None,
        };
        let flags_only = !option.starts_with("--")
            && option.len() > 2
            && option[1..].chars().all(|c| PYTEST_FLAGS_SHORT.contains(c));
        let known = flags_only
            || PYTEST_FLAGS.contains(&option)
            || PYTEST_VALUED.contains(&option) && pytest_value_is_plain(option, value.as_deref());
        if !known {
            judged.ask(format!(
                "`pytest {text}` loads, deletes, uploads or writes something outside its tests \
                 (ai knows only the options that choose tests and what they print)"
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

/// pytest's one-letter flags that take no value (`-vx`, `-ra` is `-r` with a value).
const PYTEST_FLAGS_SHORT: &str = "vqxslh";

/// pytest options that take no value and change only which tests run or what it prints.
const PYTEST_FLAGS: &[&str] = &[
    "-v",
    "-vv",
    "-vvv",
    "-q",
    "-qq",
    "-x",
    "-s",
    "-l",
    "-h",
    "--help",
    "--version",
    "-V",
    "--verbose",
    "--quiet",
    "--exitfirst",
    "--showlocals",
    "--lf",
    "--last-failed",
    "--ff",
    "--failed-first",
    "--nf",
    "--new-first",
    "--sw",
    "--stepwise",
    "--sw-skip",
    "--stepwise-skip",
    "--co",
    "--collect-only",
    "--collectonly",
    "--no-header",
    "--no-summary",
    "--disable-warnings",
    "--disable-pytest-warnings",
    "--doctest-modules",
    "--strict-markers",
    "--strict-config",
    "--strict",
    "--runxfail",
    "--setup-show",
    "--setup-only",
    "--setup-plan",
    "--fixtures",
    "--funcargs",
    "--fixtures-per-test",
    "--markers",
    "--full-trace",
    "--cache-show",
    "--no-cov",
    "--cov-branch",
    "--no-cov-on-fail",
    "--lfnf",
    "--last-failed-no-failures",
    "--doctest-continue-on-failure",
    "--benchmark-skip",
    "--benchmark-only",
    "--benchmark-disable",
    "--forked",
    "--trace",
    "--pdb",
    "--keep-duplicates",
];

/// pytest options that take a value, judged by [`pytest_value_is_plain`].
const PYTEST_VALUED: &[&str] = &[
    "-k",
    "-m",
    "-r",
    "--tb",
    "--maxfail",
    "--durations",
    "--durations-min",
    "-n",
    "--numprocesses",
    "--dist",
    "--capture",
    "--color",
    "--code-highlight",
    "--deselect",
    "--ignore",
    "--ignore-glob",
    "--timeout",
    "--count",
    "--reruns",
    "--reruns-delay",
    "--cov",
    "--cov-report",
    "--cov-fail-under",
    "--doctest-glob",
    "--asyncio-mode",
    "--log-level",
    "--log-cli-level",
    "--show-capture",
    "-p",
    "-W",
    "--pythonwarnings",
    "--import-mode",
    "--verbosity",
    "--random-order-seed",
    "-c",
    "--rootdir",
];

/// Whether an option's value keeps pytest to its own tests: `-p no:NAME` disables a plugin
/// (any other `-p` loads one), `-W` with a category of Python's own (a dotted category is
/// imported by name), a coverage report printed or written in the project, the project's
/// own paths, never an import mode other than the default or a settings file.
fn pytest_value_is_plain(option: &str, value: Option<&str>) -> bool {
    let Some(value) = value else {
        return false;
    };
    let inside = |path: &str| {
        !path.starts_with('/') && !path.starts_with('~') && !path.split('/').any(|p| p == "..")
    };
    match option {
        "-p" => value.starts_with("no:"),
        "-W" | "--pythonwarnings" => value
            .split(':')
            .nth(2)
            .is_none_or(|category| !category.contains('.')),
        "--cov-report" => value.split_once(':').is_none_or(|(_, path)| inside(path)),
        "--cov" | "--deselect" | "--ignore" | "--ignore-glob" | "--doctest-glob" => inside(value),
        "--import-mode" => value == "prepend",
        "-c" | "--rootdir" => false,
        _ => !value.contains(['/', '$', '`']),
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
