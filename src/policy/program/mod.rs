//! The table of programs known to be safe to run without asking, as data: read-only tools and the
//! build and test commands of common toolchains (project code the user already trusts), each with
//! the subcommands and flags that keep it so. A program that is not in this table asks.
//!
//! Review this file like code: every entry is a promise that the command cannot delete, overwrite,
//! upload, run code ai cannot see, or start something that outlives the call.

mod dev;
mod files;
mod git;
mod interp;
mod net;
mod sys;
mod text;
mod tools;

use super::args::{has_flag, operands, option_values, skip_options};
use super::judged::Judged;
use super::shell::Word;

/// How a table entry checks a command's arguments.
type Check = fn(&str, &[Word], &mut Judged);

/// Programs that only look names up (a secret path given to them is not read). `echo` and
/// `printf` are not here: what they print can be piped to a reader (`echo ~/.ssh/id_rsa | xargs cat`).
const NAMES_ONLY: &[&str] = &[
    "which", "whereis", "type", "true", "false", ":", "command", "alias", "unalias", "whatis",
    "apropos", "help",
];

const WRITES_FILE: &str = "writes its output to a file";

/// The table. Names are basenames; `python3.12`-style versions are folded before lookup.
const TABLE: &[(&[&str], Check)] = &[
    (
        &[
            "ls",
            "dir",
            "vdir",
            "cat",
            "head",
            "tail",
            "wc",
            "nl",
            "tac",
            "rev",
            "cut",
            "paste",
            "join",
            "comm",
            "fold",
            "fmt",
            "expand",
            "unexpand",
            "column",
            "tr",
            "grep",
            "egrep",
            "fgrep",
            "zgrep",
            "zcat",
            "bzcat",
            "xzcat",
            "zstdcat",
            "ag",
            "ack",
            "diff",
            "cmp",
            "diff3",
            "echo",
            "printf",
            "pwd",
            "whoami",
            "id",
            "groups",
            "uname",
            "arch",
            "nproc",
            "cal",
            "uptime",
            "free",
            "df",
            "du",
            "ps",
            "pgrep",
            "pidof",
            "lsof",
            "ss",
            "netstat",
            "which",
            "whereis",
            "type",
            "file",
            "stat",
            "readlink",
            "realpath",
            "basename",
            "dirname",
            "md5sum",
            "sha1sum",
            "sha224sum",
            "sha256sum",
            "sha384sum",
            "sha512sum",
            "b2sum",
            "cksum",
            "sum",
            "base32",
            "base64",
            "basenc",
            "od",
            "hexdump",
            "hd",
            "strings",
            "jq",
            "true",
            "false",
            "seq",
            "sleep",
            "printenv",
            "locale",
            "getconf",
            "lscpu",
            "lsblk",
            "lsusb",
            "lspci",
            "lsmod",
            "who",
            "w",
            "last",
            "tty",
            "nproc",
            "numfmt",
            "expr",
            "factor",
            "bc",
            "bat",
            "batcat",
            "zipinfo",
            "dirs",
            "wait",
            "exit",
            "return",
            "break",
            "continue",
            "shift",
            "getopts",
            ":",
            "set",
            "ulimit",
            "times",
            "whatis",
            "apropos",
            "help",
            "cd",
            "pushd",
            "popd",
            "mkdir",
            "fd",
            "fdfind",
            "exa",
            "eza",
            "lsd",
            "tokei",
            "cloc",
            "scc",
            "wc",
            "test",
            "[",
            "unset",
            "read",
            "let",
            "local",
            "declare",
            "typeset",
            "export",
            "readonly",
            "pstree",
            "vmstat",
            "iostat",
            "mpstat",
            "lsb_release",
            "env",
            "dmesg",
            "cargo-clippy",
            "clippy-driver",
            "pyright",
            "pycodestyle",
            "pydocstyle",
            "pytest",
            "rspec",
            "history",
            "py.test",
            "shellcheck",
            "hadolint",
            "yamllint",
            "markdownlint",
            "actionlint",
            "golangci-lint",
            "staticcheck",
            "gotestsum",
            "cargo-nextest",
            "du",
            "dust",
            "duf",
            "ncdu",
            "htop",
            "btop",
            "top",
            "procs",
            "ldd",
            "nm",
            "objdump",
            "readelf",
            "size",
            "addr2line",
            "c++filt",
            "file",
            "pdfinfo",
            "pdftotext",
            "wc",
            "uniq",
            "alias",
            "unalias",
            "shopt",
            "command",
            "builtin",
            "hostname",
            "date",
            "tree",
            "sort",
            "shuf",
            "iconv",
            "xxd",
            "sdiff",
            "rg",
            "yq",
            "sed",
            "awk",
            "gawk",
            "mawk",
            "nawk",
        ],
        table_check,
    ),
    (&["touch"], table_check),
    (&["tee"], files::tee),
    (&["cp", "mv"], files::copy),
    (&["chmod"], files::chmod),
    (&["zip"], files::zip),
    (&["find"], find),
    (&["xargs"], xargs),
    (&["git"], git::git),
    (&["cargo"], dev::cargo),
    (&["npm", "pnpm", "yarn", "bun"], dev::node_package),
    (&["go"], dev::go),
    (
        &["cmake", "ctest", "ninja", "less", "more", "man"],
        tools::build_driver,
    ),
    (&["coverage"], tools::coverage),
    (&["tox"], tools::tox),
    (&["make", "gmake"], dev::make),
    (&["mvn", "gradle", "gradlew", "dotnet"], dev::jvm_dotnet),
    (
        &[
            "ruff", "black", "isort", "prettier", "eslint", "gofmt", "biome", "rustfmt", "mypy",
            "flake8", "pylint", "tsc", "jest", "vitest",
        ],
        tools::formatter,
    ),
    (
        &[
            "python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "perl", "ruby",
            "php", "deno", "lua", "Rscript",
        ],
        interp::interpreter,
    ),
    (
        &[
            "sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "source", ".",
        ],
        interp::shell,
    ),
    (&["eval"], eval),
    (&["trap"], trap),
    (&["watch"], watch),
    (&["curl", "wget"], net::fetch),
    (
        &[
            "docker",
            "podman",
            "kubectl",
            "oc",
            "terraform",
            "tofu",
            "aws",
            "gcloud",
            "az",
            "gh",
        ],
        net::infra,
    ),
    (
        &[
            "systemctl",
            "journalctl",
            "service",
            "apt",
            "apt-get",
            "apt-cache",
            "dpkg",
            "dpkg-query",
            "pip",
            "pip3",
            "brew",
            "rustup",
            "crontab",
            "sysctl",
            "mount",
            "findmnt",
            "ip",
            "ifconfig",
            "ssh-keygen",
            "tar",
            "unzip",
            "gzip",
            "gunzip",
            "bzip2",
            "xz",
            "zstd",
        ],
        sys::system,
    ),
];

/// Judges one simple command by its program's basename and arguments.
pub(crate) fn judge(base: &str, args: &[Word]) -> Judged {
    let mut judged = Judged {
        names_only: NAMES_ONLY.contains(&base),
        ..Judged::default()
    };
    let name = fold_version(base);
    let Some((_, check)) = TABLE.iter().find(|(names, _)| names.contains(&name)) else {
        return judged;
    };
    judged.known = true;
    check(name, args, &mut judged);
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

/// The checks of the first entry's programs, by name.
fn table_check(name: &str, args: &[Word], judged: &mut Judged) {
    let ask_flags = |judged: &mut Judged, flags: &[(&str, &str)]| {
        for (flag, why) in flags {
            if has_flag(args, flag) {
                judged.ask(format!("`{name} {flag}` {why}"));
            }
        }
    };
    match name {
        "sort" => ask_flags(
            judged,
            &[
                ("-o", WRITES_FILE),
                ("--output", WRITES_FILE),
                ("--compress-program", "runs another program"),
                ("--files0-from", "reads file names computed at run time"),
            ],
        ),
        "shuf" | "iconv" => ask_flags(judged, &[("-o", WRITES_FILE), ("--output", WRITES_FILE)]),
        "tree" => ask_flags(judged, &[("-o", WRITES_FILE)]),
        "sdiff" => ask_flags(judged, &[("-o", WRITES_FILE), ("--output", WRITES_FILE)]),
        "rg" => ask_flags(
            judged,
            &[
                ("--pre", "runs a preprocessor program on every file"),
                ("-z", "runs decompression programs"),
                ("--search-zip", "runs decompression programs"),
            ],
        ),
        "wc" | "du" if args.iter().any(|a| a.text.starts_with("--files0-from")) => {
            judged.ask(format!(
                "`{name} --files0-from` reads file names computed at run time"
            ));
        }
        "pytest" | "py.test" => interp::pytest(args, judged),
        "bat" | "batcat" if args.iter().any(|a| a.text.starts_with("--pager")) => {
            judged.ask(format!("`{name} --pager` runs another program"));
        }
        "file" if has_flag(args, "-C") || has_flag(args, "--compile") => {
            judged.ask("`file -C` writes a compiled magic file");
        }
        // Creating files and directories in the project; any option changes times or modes.
        "touch" | "mkdir" => {
            let plain = |a: &&Word| {
                !a.text.starts_with('-')
                    || (name == "mkdir" && matches!(a.text.as_str(), "-p" | "-v" | "--parents"))
            };
            if !args.iter().all(|a| plain(&a)) {
                judged.ask(format!("`{name}` with options changes file times or modes"));
            }
            judged.outputs.extend(operands(args).cloned());
        }
        "jq" if args
            .iter()
            .any(|a| a.text.contains("include") || a.text.contains("import")) =>
        {
            judged.ask("the `jq` program loads modules from files");
        }
        "jq" if args.iter().any(|a| {
            a.text.contains("env") || a.text.contains("$ENV") || a.text.contains("input_filename")
        }) =>
        {
            judged.ask("the `jq` program reads the environment, tokens included");
        }
        "export" | "set" | "declare" | "typeset" | "readonly" | "alias"
            if operands(args).next().is_none()
                && !has_flag(args, "-e")
                && !has_flag(args, "-o") =>
        {
            judged.ask(format!(
                "`{name}` alone prints every variable, tokens included"
            ));
        }
        "declare" | "typeset" if has_flag(args, "-p") => {
            judged.ask(format!("`{name} -p` prints variables, tokens included"));
        }
        "ps" if args
            .iter()
            .any(|a| !a.text.starts_with('-') && a.text.contains('e')) =>
        {
            judged.ask("`ps e` prints other processes' environments, tokens included");
        }
        "printenv" => {
            if let Some(arg) = args.iter().find(|a| super::danger::secret_name(&a.text)) {
                judged.ask(format!("`printenv {}` prints a secret", arg.text));
            }
        }
        "dmesg" => ask_flags(
            judged,
            &[
                ("-C", "clears the kernel log"),
                ("-c", "clears the kernel log"),
                ("-D", "changes the console"),
                ("-E", "changes the console"),
                ("-n", "changes the console"),
                ("--clear", "clears the kernel log"),
                ("--read-clear", "clears the kernel log"),
                ("--console-off", "changes the console"),
                ("--console-on", "changes the console"),
                ("--console-level", "changes the console"),
            ],
        ),
        "ss" => ask_flags(
            judged,
            &[("-K", "kills connections"), ("--kill", "kills connections")],
        ),
        "shopt" if has_flag(args, "-s") || has_flag(args, "-u") => {
            judged.ask("`shopt` changes how the shell expands words and runs commands");
        }
        "printf" => {
            for var in option_values(args, &["-v"]) {
                if let Some(why) = super::danger::risky_variable(&var.text) {
                    judged.ask(format!("`printf -v {}` {why}", var.text));
                }
            }
        }
        "read" => {
            for var in operands(args) {
                if let Some(why) = super::danger::risky_variable(&var.text) {
                    judged.ask(format!("`read {}` {why}", var.text));
                }
            }
        }
        "declare" | "typeset" | "local" | "export" | "readonly"
            if has_flag(args, "-n") || has_flag(args, "-f") =>
        {
            judged.ask(format!(
                "`{name} -n`/`-f` makes a name stand for another variable or a function"
            ));
        }
        "yq" => ask_flags(
            judged,
            &[
                ("-i", "edits files in place"),
                ("--inplace", "edits files in place"),
            ],
        ),
        "uniq" | "xxd" if operands(args).count() > 1 => {
            judged.ask(format!("`{name}` with two files writes the second"));
        }
        "date" => ask_flags(
            judged,
            &[("-s", "sets the clock"), ("--set", "sets the clock")],
        ),
        "hostname" if operands(args).next().is_some() || has_flag(args, "-F") => {
            judged.ask("`hostname NAME` renames the machine");
        }
        "alias" if args.iter().any(|a| a.text.contains('=')) => {
            judged.ask("`alias` redefines what a command name runs");
        }
        "sed" => text::sed(args, judged),
        "awk" | "gawk" | "mawk" | "nawk" => text::awk(args, judged),
        "env" => sys::env(args, judged),
        "command" | "builtin"
            if !args
                .iter()
                .take_while(|a| a.text.starts_with('-'))
                .any(|a| a.text == "-v" || a.text == "-V") =>
        {
            judged.inner.push(skip_options(args, &[]).to_vec());
        }
        "set" | "ulimit" | "unset" => {}
        _ => {}
    }
    if matches!(
        name,
        "test"
            | "["
            | "let"
            | "printf"
            | "read"
            | "unset"
            | "declare"
            | "typeset"
            | "local"
            | "export"
            | "readonly"
            | "wait"
    ) && args
        .iter()
        .any(|a| !a.dynamic && (a.text.contains("$(") || a.text.contains('`')))
    {
        judged.ask(format!(
            "`{name}` evaluates text that can run commands (an array subscript)"
        ));
    }
    if matches!(
        name,
        "grep"
            | "egrep"
            | "fgrep"
            | "zgrep"
            | "rg"
            | "ag"
            | "ack"
            | "du"
            | "tree"
            | "fd"
            | "fdfind"
            | "ls"
            | "eza"
            | "exa"
            | "lsd"
            | "tokei"
            | "cloc"
            | "scc"
            | "diff"
    ) {
        let recursive = matches!(
            name,
            "rg" | "ag" | "ack" | "fd" | "fdfind" | "tree" | "tokei" | "cloc" | "scc"
        ) || has_flag(args, "-r")
            || has_flag(args, "-R")
            || has_flag(args, "--recursive")
            || has_flag(args, "--dereference-recursive");
        judged.recursive = recursive && name != "ls" && name != "du";
        judged.contents = judged.recursive
            && matches!(
                name,
                "grep" | "egrep" | "fgrep" | "zgrep" | "rg" | "ag" | "ack" | "diff"
            );
    }
}

fn find(_name: &str, args: &[Word], judged: &mut Judged) {
    judged.recursive = true;
    judged.contents = args
        .iter()
        .any(|a| matches!(a.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir"));
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        match arg.text.as_str() {
            "-delete" => judged.ask("`find -delete` deletes the files it finds"),
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let rest = &args[i + 1..];
                let end = rest
                    .iter()
                    .position(|w| w.text == ";" || w.text == "+")
                    .unwrap_or(rest.len());
                judged.inner.push(rest[..end].to_vec());
                i += end;
            }
            "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                judged.ask(format!("`find {}` writes to a file", arg.text));
            }
            _ => {}
        }
        i += 1;
    }
}

fn xargs(_name: &str, args: &[Word], judged: &mut Judged) {
    let rest = skip_options(
        args,
        &[
            "-I",
            "-L",
            "-n",
            "-P",
            "-s",
            "-d",
            "-E",
            "-a",
            "--max-args",
            "--max-procs",
            "--delimiter",
            "--arg-file",
        ],
    );
    if let Some(program) = rest.first().map(|w| super::danger::basename(&w.text))
        && super::kind::runs_code(program)
    {
        judged.ask(format!(
            "`xargs {program}` hands text from its input to {program} as arguments, which it may \
             run as code"
        ));
    }
    if !rest.is_empty() {
        // The arguments come from stdin: the inner command gets words nobody has seen, also
        // wherever the replacement string stands (`xargs -I{} sh -c '{}'`).
        let replace: Vec<String> = option_values(args, &["-I", "--replace", "-i"])
            .into_iter()
            .map(|w| w.text)
            .chain(has_flag(args, "-i").then(|| "{}".to_string()))
            .collect();
        let mut inner: Vec<Word> = rest
            .iter()
            .map(|w| {
                if replace
                    .iter()
                    .any(|r| !r.is_empty() && w.text.contains(r.as_str()))
                {
                    Word::computed(w.text.clone())
                } else {
                    w.clone()
                }
            })
            .collect();
        inner.push(Word::computed("<arguments from stdin>"));
        judged.inner.push(inner);
        judged.contents = true;
    }
}

fn eval(_name: &str, args: &[Word], judged: &mut Judged) {
    judged.strings.push(join(args));
}

/// `trap 'commands' SIGNAL`: the commands run later, when the signal comes.
fn trap(_name: &str, args: &[Word], judged: &mut Judged) {
    let rest = skip_options(args, &[]);
    if let Some(action) = rest.first()
        && rest.len() > 1
        && !action.text.is_empty()
        && action.text != "-"
    {
        judged.strings.push(action.clone());
    }
}

fn watch(_name: &str, args: &[Word], judged: &mut Judged) {
    let rest = skip_options(args, &["-n", "--interval"]);
    judged.strings.push(join(rest));
}

fn join(words: &[Word]) -> Word {
    let text = words
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    if words.iter().any(|w| w.dynamic) {
        Word::computed(text)
    } else {
        Word::literal(text)
    }
}
