//! Options and variables that make a command run another program of the caller's choosing
//! (`git push --receive-pack=CMD`, `git -c core.sshCommand=CMD`, `ssh -o ProxyCommand=CMD`,
//! `rsync -e CMD`, `GIT_SSH_COMMAND=CMD git ...`). What they name is judged as a command line of
//! its own, and no allow rule or "always" answer covers a command that carries one.

use super::args::{has_flag, option_values, subcommand};
use super::shell::Word;

/// What one simple command makes run besides itself.
#[derive(Debug, Default)]
pub(crate) struct Runs {
    /// Command lines given to options or variables: judged as lines of their own.
    pub(crate) lines: Vec<Word>,
    /// Why no rule may approve the command (the option that runs a program), if one is given.
    pub(crate) why: Option<String>,
    /// The option's program is text ai does not read as a line (`cargo --config
    /// target.X.runner=...`, `go test -exec`): only a person approves it (classifier round 18).
    pub(crate) unread: bool,
}

/// Options whose value names a program in a form ai does not judge as a command line.
const UNREAD: &[&str] = &[
    "--config",
    "-Z",
    "--script-shell",
    "--node-options",
    "-exec",
    "-toolexec",
    "-vettool",
    "-overlay",
    "-modfile",
];

/// Variables whose value is a program a command runs.
const PROGRAM_VARIABLES: &[&str] = &[
    "GIT_SSH_COMMAND",
    "GIT_SSH",
    "GIT_EXTERNAL_DIFF",
    "GIT_PAGER",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_PROXY_COMMAND",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "RSYNC_RSH",
    "CVS_RSH",
    "PAGER",
    "MANPAGER",
    "EDITOR",
    "VISUAL",
    "BROWSER",
    "LESSOPEN",
    "LESSCLOSE",
    "BASH_ENV",
    "ENV",
    "PROMPT_COMMAND",
];

/// `git -c` keys whose value is a program (`core.sshCommand`, `alias.x=!cmd`, `diff.x.command`).
fn program_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    key.starts_with("core.")
        || key.starts_with("alias.")
        || key.starts_with("credential")
        || key.starts_with("pager.")
        || [
            "command", "cmd", "program", "helper", "editor", "pager", "tool", "textconv", "clean",
            "smudge", "process", "driver", "proxy", "external", "filter", "hook", "browser",
        ]
        .iter()
        .any(|end| key.ends_with(end))
}

/// Why a builtin makes later text run that ai does not read, if it does: an alias, a hashed
/// path, a completion's command or word list, `mapfile`'s callback, a loaded builtin, a key
/// binding (classifier round 15: `hash -p /bin/rm ls; ls -rf ~` ran under `--yes`).
pub(crate) fn stored_code(base: &str, args: &[Word]) -> Option<String> {
    let has = |flag: &str| {
        args.iter()
            .any(|a| a.text == flag || a.text.starts_with(flag))
    };
    let stores = match base {
        "alias" => args.iter().any(|a| a.text.contains('=')),
        "hash" => has("-p"),
        "enable" => !args.is_empty(),
        "compgen" | "complete" => has("-C") || has("-F") || has("-W"),
        "mapfile" | "readarray" => has("-C"),
        "bind" => has("-x"),
        _ => false,
    };
    // Glob settings that let a pattern match what ai expanded otherwise (`shopt -s dotglob;
    // cat ?env`: classifier round 18).
    let globs = base == "shopt"
        && args.iter().any(|a| {
            matches!(
                a.text.as_str(),
                "dotglob" | "nocaseglob" | "nocasematch" | "extglob" | "globasciiranges"
            )
        });
    if globs {
        return Some("`shopt` changes what later globs match, which ai does not follow".into());
    }
    stores.then(|| format!("`{base}` makes later text run that ai does not read"))
}

/// Why a program runs shell text written inside its own script or options, which ai does not
/// read, if it does: sed's `e` command and `s///e`, awk's `system()` and pipes, tar's
/// checkpoint actions and compress programs, git's difftool, `submodule foreach` and `bisect
/// run`, zip's test command, and history replayed (`fc -s`, `history -s`). An approval naming
/// the program (`--allow 'sed*'`) never covers it (classifier round 17).
pub(crate) fn embedded_code(base: &str, args: &[Word]) -> Option<String> {
    let texts = || args.iter().map(|a| a.text.as_str());
    let has = |flag: &str| texts().any(|a| a == flag || a.starts_with(&format!("{flag}=")));
    let runs = match base {
        "sed" | "gsed" => texts().any(sed_executes),
        "awk" | "gawk" | "mawk" | "nawk" | "busybox" => texts().any(|t| {
            t.contains("system") || t.contains("|&") || (t.contains('|') && t.contains('"'))
        }),
        "tar" | "gtar" | "bsdtar" => {
            texts().any(|a| a.starts_with("--checkpoint-action") || a.starts_with("-I"))
                || [
                    "--use-compress-program",
                    "--to-command",
                    "--info-script",
                    "-F",
                ]
                .iter()
                .any(|f| has(f))
                || ["--new-volume-script", "--rsh-command", "--rmt-command"]
                    .iter()
                    .any(|f| has(f))
        }
        "git" => {
            let words: Vec<&str> = texts().collect();
            let pair = |a: &str, b: &str| words.windows(2).any(|w| w[0] == a && w[1] == b);
            (words.contains(&"difftool") && (has("-x") || has("--extcmd")))
                || pair("submodule", "foreach")
                || pair("bisect", "run")
        }
        "zip" => has("-TT") || has("--unzip-command"),
        // Round 18: programs whose options or commands run shell text.
        "split" => has("--filter"),
        "sqlite3" => texts().any(|t| t.contains(".shell") || t.contains(".system")),
        "gdb" | "lldb" => ["-ex", "--eval-command", "-x", "-o", "-s"]
            .iter()
            .any(|f| has(f)),
        "vim" | "vi" | "nvim" | "ex" | "view" | "gvim" | "rvim" => {
            texts().any(|t| t.starts_with('+') || matches!(t, "-c" | "-S" | "--cmd"))
        }
        "less" => texts().any(|t| t.starts_with('+') && t.contains('!')),
        "man" => {
            texts().any(|t| t.starts_with("-P") || t.starts_with("-H"))
                || has("--html")
                || has("--pager")
        }
        // A preprocessor per file, and decompressors found on PATH (round 20).
        "rg" => has("--pre") || has("-z") || has("--search-zip"),
        "dc" => texts().any(|t| t.contains('!')),
        "sort" => has("--compress-program"),
        // Round 19: make code written on the line (`--eval`, `$(shell ...)` in a variable,
        // a makefile read from standard input), and a coprocess's command.
        "make" | "gmake" => {
            has("--eval")
                || has("-E")
                || texts()
                    .any(|t| t.contains("$(shell") || t.contains("${shell") || t.contains("$(eval"))
                || args.windows(2).any(|w| {
                    matches!(w[0].text.as_str(), "-f" | "--file" | "--makefile") && w[1].text == "-"
                })
        }
        "coproc" => true,
        _ if interpreter(base) => texts().any(runs_shell_text),
        "fc" => has("-s") || has("-e"),
        "history" => has("-s") || has("-r") || has("-n"),
        "set" => has("-H") || texts().any(|a| a == "history" || a == "histexpand"),
        _ => false,
    };
    runs.then(|| format!("`{base}` runs shell text of its own that ai does not read"))
}

/// Interpreters whose inline code (`-c`, `-e`) may hand text to a shell.
fn interpreter(base: &str) -> bool {
    ["python", "pypy", "perl", "ruby", "node", "php", "lua"]
        .iter()
        .any(|p| base.starts_with(p))
        || matches!(
            base,
            "bun" | "deno" | "Rscript" | "julia" | "tclsh" | "wish" | "expect"
        )
}

/// Whether interpreter code hands text to a shell (`os.system`, `subprocess`, `execSync`,
/// backquotes): what runs then is not what ai read (classifier round 18).
fn runs_shell_text(code: &str) -> bool {
    [
        "system",
        "exec",
        "popen",
        "subprocess",
        "spawn",
        "`",
        "%x",
        "pty.",
        "shell",
    ]
    .iter()
    .any(|p| code.contains(p))
}

/// Whether a sed script runs a command: the `e` command (`1e id`, `e id`) or `s///e`.
fn sed_executes(script: &str) -> bool {
    let command_e = script.split([';', '\n', '{', '}']).any(|part| {
        let part = part.trim_start_matches(|c: char| {
            c.is_ascii_digit() || c.is_whitespace() || matches!(c, '$' | ',' | '!')
        });
        part == "e" || part.starts_with("e ")
    });
    let substitute_e = script.starts_with('s')
        && script.chars().nth(1).is_some_and(|d| !d.is_alphanumeric())
        && script
            .rsplit(script.chars().nth(1).unwrap_or('/'))
            .next()
            .is_some_and(|flags| flags.contains('e'));
    command_e || substitute_e
}

/// A `NAME=value` prefix that names a program: its value as a line.
pub(crate) fn assignment(name: &str, value: &Word) -> Option<Word> {
    PROGRAM_VARIABLES.contains(&name).then(|| value.clone())
}

/// The programs a simple command's options make it run.
pub(crate) fn options(base: &str, args: &[Word]) -> Runs {
    let mut runs = Runs::default();
    let mut given = |flag: &str, lines: Vec<Word>| {
        if runs.why.is_none() {
            runs.why = Some(format!(
                "`{base} {flag}` runs a program of its own choosing"
            ));
        }
        runs.lines.extend(lines);
    };
    match base {
        "git" => {
            git(args, &mut given);
            push_runs_hooks(args, &mut given);
        }
        "make" | "gmake" | "cargo" | "npm" | "pnpm" | "yarn" => {
            if let Some(flag) = build_description(base, args) {
                given(&flag, recipe_lines(base, args));
            }
            // pnpm's `--config.KEY=VALUE` sets any setting (`script-shell`, `node-options`);
            // yarn's `--use-yarnrc FILE` reads another rc (`yarn-path` runs its JS file).
            let settings = args
                .iter()
                .find(|a| a.text.starts_with("--config.") || a.text.starts_with("--use-yarnrc"));
            if base != "make"
                && let Some(setting) = settings
            {
                given(&setting.text, Vec::new());
            }
        }
        "ssh" | "scp" | "sftp" | "sshfs" | "rsync" | "autossh" => {
            remote_shell(base, args, &mut given)
        }
        "pytest" | "py.test" => pytest(args, &mut given),
        "go" => go(args, &mut given),
        _ if base.starts_with("python") || base.starts_with("pypy") => {
            let module = args
                .iter()
                .position(|a| a.text == "pytest")
                .filter(|&i| i > 0 && args[i - 1].text.ends_with('m'));
            if let Some(at) = module {
                pytest(args.get(at + 1..).unwrap_or(&[]), &mut given);
            }
        }
        _ => {}
    }
    // What the line passes on to a project script lands among its program's options.
    if runs.why.is_none() && matches!(base, "npm" | "pnpm" | "yarn" | "bun") {
        runs.why = super::script_args::passed_to_script(base, args);
    }
    if runs.why.is_none()
        && args
            .iter()
            .any(|a| a.text == "--config" || a.text.starts_with("--config="))
    {
        runs.why = Some(format!("`{base} --config` can name programs it runs"));
    }
    runs.unread = (runs.why.as_deref())
        .is_some_and(|why| UNREAD.iter().any(|flag| why.contains(&format!(" {flag}`"))));
    runs
}

/// A `NAME=value` operand that names the program make runs for a recipe or a tool
/// (`SHELL=`, `CC=`, `MAKEFLAGS=`); values that run code (`x!=cmd`, `$(shell ...)`) ask in
/// make's own row. `CFLAGS=-O2`, `V=1`, `PREFIX=...` are everyday.
pub(crate) const MAKE_PROGRAM_NAMES: &[&str] = &[
    "SHELL",
    ".SHELLFLAGS",
    "MAKESHELL",
    "MAKE",
    "MAKEFLAGS",
    "MFLAGS",
    "GNUMAKEFLAGS",
    "CC",
    "CXX",
    "CPP",
    "LD",
    "AR",
    "AS",
    "FC",
    "RM",
    "RANLIB",
    "STRIP",
    "OBJCOPY",
    "INSTALL",
    "PATH",
    "LEX",
    "YACC",
    "M4",
    "PKG_CONFIG",
    "PYTHON",
    "PERL",
    "GO",
    "CARGO",
    "MAKEFILES",
    "VPATH",
    "MAKEOVERRIDES",
    // The programs of make's built-in rules (`AS=./x make y.o`).
    "CO",
    "GET",
    "PC",
    "M2C",
    "TEX",
    "WEAVE",
    "CWEAVE",
    "TANGLE",
    "CTANGLE",
    "MAKEINFO",
    "TEXI2DVI",
    "LINT",
    "OBJC",
];

/// An option or operand that changes which build description is read, where, or with which
/// toolchain or shell (`make -f`, `make SHELL=`, `cargo --manifest-path`, `npm --prefix`).
fn build_description(base: &str, args: &[Word]) -> Option<String> {
    let names: &[&str] = match base {
        "make" | "gmake" => &[
            "-f",
            "--file",
            "--makefile",
            "-C",
            "--directory",
            "-I",
            "--include-dir",
            "-E",
            "--eval",
        ],
        "cargo" => &["--manifest-path", "-Z", "-C", "--config"],
        _ => &[
            "--script-shell",
            "--node-options",
            "--prefix",
            "-C",
            "--dir",
            "--userconfig",
            "--globalconfig",
            "--cwd",
        ],
    };
    if let Some(name) = names.iter().find(|n| !option_values(args, &[n]).is_empty()) {
        return Some((*name).to_string());
    }
    if base == "cargo" && args.first().is_some_and(|a| a.text.starts_with('+')) {
        return Some("+toolchain".into());
    }
    let make = matches!(base, "make" | "gmake");
    // Any variable may reach a recipe's shell line (`test: ; pytest $(ARGS)`): a value with
    // shell syntax in it (`ARGS='; rm -rf ~'`) runs there, under any name.
    let runs_code = |text: &str| {
        let (name, value) = text.split_once('=').unwrap_or((text, ""));
        name.ends_with('!') || name.contains(['$', '`']) || make_value_reason(value).is_some()
    };
    super::args::operands(args)
        .filter(|a| make && a.text.contains('='))
        .find_map(|a| {
            let name = a.text.split('=').next().unwrap_or("");
            let bare = name.trim_end_matches([':', '+', '?', '!']);
            (MAKE_PROGRAM_NAMES.contains(&bare) || runs_code(&a.text)).then(|| format!("{bare}="))
        })
}

/// Why a make variable's value (given on the command line or in the environment) asks: it
/// reaches a recipe's shell line, where shell syntax runs, quotes, `(`, `#`, `~` and globs change
/// how the line parses, and options (`ARGS='discover -s /tmp/x'`) steer the recipe's tool past
/// its own checks. Everyday compiler flags (`CFLAGS='-O2 -g'`) are plain.
pub(crate) fn make_value_reason(value: &str) -> Option<&'static str> {
    const SYNTAX: &[char] = &[
        ';', '&', '|', '<', '>', '\n', '$', '`', '\'', '"', '(', ')', '#', '~', '*', '?', '[',
        '\\', '{',
    ];
    if value.contains(SYNTAX) {
        return Some("holds shell syntax, which make may put in a recipe line");
    }
    if value
        .split_whitespace()
        .any(|w| w.starts_with('-') && !plain_flag(w))
    {
        return Some("holds an option, which make may hand to a recipe's tool");
    }
    // `CFLAGS=@opts.txt`: compilers and binutils read options from the file (`-wrapper`).
    if value.split_whitespace().any(|w| w.starts_with('@')) {
        return Some("names a file of options, which make may hand to a recipe's tool");
    }
    None
}

/// A compiler flag that only tunes the build (`-O2`, `-g`, `-Wall`, `-DNAME=1`, `-Iinclude`),
/// or a runner's `-v`/`-q`.
fn plain_flag(word: &str) -> bool {
    let Some(rest) = word.strip_prefix('-') else {
        return false;
    };
    // `-v`, `-vv`, `-q`, `--verbose`: how much a test runner prints.
    if !rest.is_empty() && (rest.chars().all(|c| c == 'v') || rest.chars().all(|c| c == 'q'))
        || matches!(rest, "-verbose" | "-quiet")
    {
        return true;
    }
    let word_chars = |t: &str| {
        t.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    };
    let (head, tail) = rest.split_at(rest.chars().next().map_or(0, char::len_utf8));
    match head {
        "O" | "g" => tail.len() <= 1 && word_chars(tail),
        "W" | "f" | "m" => !tail.is_empty() && word_chars(tail) && !tail.starts_with("l-"),
        "D" => {
            let (name, value) = tail.split_once('=').unwrap_or((tail, ""));
            !name.is_empty() && word_chars(name) && (value.is_empty() || word_chars(value))
        }
        "I" | "L" => !tail.is_empty() && !tail.starts_with('/') && !tail.contains(".."),
        _ => matches!(
            rest,
            "pedantic"
                | "std=c99"
                | "std=c11"
                | "std=c17"
                | "std=gnu11"
                | "std=gnu17"
                | "std=c++17"
                | "std=c++20"
                | "ansi"
                | "pipe"
                | "Wall"
                | "Wextra"
                | "Werror"
        ),
    }
}

/// make's `NAME=value` operands with shell syntax, as the recipe line they may end up in
/// (`ARGS='&& rm -rf ~'` is judged as `: && rm -rf ~`).
fn recipe_lines(base: &str, args: &[Word]) -> Vec<Word> {
    if !matches!(base, "make" | "gmake") {
        return Vec::new();
    }
    super::args::operands(args)
        .filter_map(|a| a.text.split_once('=').map(|(_, value)| value))
        .filter(|value| value.contains([';', '&', '|', '<', '>', '\n']))
        .map(|value| Word::literal(format!(": {value}")))
        .collect()
}

/// pytest's options that load a plugin (`-p NAME`, not `-p no:NAME`) or read configuration from
/// elsewhere (`-c`, `--rootdir`, `-o`): code or settings the line chooses.
fn pytest(args: &[Word], given: &mut dyn FnMut(&str, Vec<Word>)) {
    // A value glued to an option that takes one is not a cluster of flags (`-Werror` is not
    // `-o rror`).
    let args: Vec<Word> = args
        .iter()
        .filter(|a| {
            !["-W", "-k", "-m", "-r"]
                .iter()
                .any(|o| a.text.starts_with(o) && a.text.len() > 2)
                // pytest's own short names, not abbreviations of `--config-file`.
                && !matches!(a.text.as_str(), "--co" | "--collect-only" | "--collectonly")
        })
        .cloned()
        .collect();
    let args = args.as_slice();
    let plugins = option_values(args, &["-p"]);
    if plugins.iter().any(|p| !p.text.starts_with("no:")) {
        given("-p", Vec::new());
    }
    for flag in [
        "--basetemp",
        "-c",
        "--config-file",
        "--rootdir",
        "--confcutdir",
        "-o",
        "--override-ini",
        "--pyargs",
    ] {
        let takes_value = flag != "--pyargs";
        let named = if takes_value {
            !option_values(args, &[flag]).is_empty()
        } else {
            has_flag(args, flag)
        };
        if named {
            given(flag, Vec::new());
            return;
        }
    }
}

/// git's options that run programs: `--receive-pack`, `--upload-pack`, `--exec`, `-c` settings.
fn git(args: &[Word], given: &mut dyn FnMut(&str, Vec<Word>)) {
    for (flag, names) in [
        ("--receive-pack", &["--receive-pack"][..]),
        ("--upload-pack", &["--upload-pack"]),
        ("--exec", &["--exec"]),
        ("--extcmd", &["--extcmd"]),
    ] {
        let values = option_values(args, names);
        if !values.is_empty() {
            given(flag, values);
        }
    }
    let at = |sub: &[&str]| subcommand(args).is_some_and(|s| sub.contains(&s));
    let (short, names): (&str, &[&str]) = if at(&["clone", "fetch", "ls-remote", "pull"]) {
        ("-u", &["-u"])
    } else if at(&["rebase"]) {
        ("-x", &["-x"])
    } else {
        ("", &[])
    };
    let values = option_values(args, names);
    if !values.is_empty() {
        given(short, values);
    }
    let mut settings = option_values(args, &["-c", "--config"]);
    if at(&["switch", "branch"]) {
        // There `-c` makes or copies a branch; a setting is still `key=value`.
        settings.retain(|w| w.text.contains('='));
    }
    let programs: Vec<Word> = settings
        .iter()
        .filter_map(|w| w.text.split_once('=').map(|(k, v)| (k, v, w)))
        .filter(|(key, _, _)| program_key(key))
        .map(|(_, value, w)| Word {
            text: value.trim_start_matches('!').to_string(),
            ..w.clone()
        })
        .collect();
    if !settings.is_empty() || has_flag(args, "--config-env") {
        given("-c", programs);
    }
    for flag in ["--ext-diff", "--textconv", "--filters"] {
        if args.iter().any(|a| a.text == flag) {
            given(flag, Vec::new());
        }
    }
}

/// ssh and its relatives: `-o ProxyCommand=`, `rsync -e`, `scp -S`, another config file.
fn remote_shell(base: &str, args: &[Word], given: &mut dyn FnMut(&str, Vec<Word>)) {
    let commands: Vec<Word> = option_values(args, &["-o"])
        .iter()
        .filter_map(|w| {
            let (key, value) = w.text.split_once(['=', ' '])?;
            let key = key.to_ascii_lowercase();
            matches!(
                key.as_str(),
                "proxycommand" | "localcommand" | "knownhostscommand"
            )
            .then(|| Word {
                text: value.trim().to_string(),
                ..w.clone()
            })
        })
        .collect();
    if !commands.is_empty() {
        given("-o ProxyCommand", commands);
    }
    let (names, flag): (&[&str], &str) = match base {
        "rsync" => (&["-e", "--rsh", "--rsync-path"], "-e"),
        "scp" | "sftp" => (&["-S"], "-S"),
        _ => (&["-F"], "-F"),
    };
    let values = option_values(args, names);
    if !values.is_empty() {
        let lines = if flag == "-F" { Vec::new() } else { values };
        given(flag, lines);
    }
}

/// go's options that run another program: `-exec`, `-toolexec`, `-vettool`, gccgo's flags
/// (`-wrapper`), and an external linker named in `-ldflags` (`-extld`).
fn go(args: &[Word], given: &mut dyn FnMut(&str, Vec<Word>)) {
    let mut named = args.iter().enumerate().map(|(i, arg)| {
        let bare = arg.text.trim_start_matches('-');
        let (name, inline) = bare
            .split_once('=')
            .map_or((bare, None), |(n, v)| (n, Some(v)));
        let value = inline
            .map(str::to_string)
            .or_else(|| args.get(i + 1).map(|w| w.text.clone()));
        (arg.text.starts_with('-'), name, value.unwrap_or_default())
    });
    let runs = named.find(|(option, name, value)| {
        *option
            && (matches!(
                *name,
                "exec" | "toolexec" | "vettool" | "gccgoflags" | "overlay" | "modfile"
            ) || *name == "ldflags" && value.contains("extld"))
    });
    if let Some((_, name, _)) = runs {
        given(&format!("-{name}"), Vec::new());
    }
}

/// `git push` to a repository on this machine (a path, `file://`) runs that repository's
/// hooks (`pre-receive`, `post-receive`).
fn push_runs_hooks(args: &[Word], given: &mut dyn FnMut(&str, Vec<Word>)) {
    if subcommand(args) != Some("push") {
        return;
    }
    let local = |t: &str| {
        t.starts_with(['/', '.', '~'])
            || t.starts_with("file:")
            || !t.contains(':') && t.contains('/')
    };
    let after: Vec<&Word> = args
        .iter()
        .skip_while(|a| a.text != "push")
        .skip(1)
        .collect();
    let remote = (after.iter())
        .filter(|a| !a.text.starts_with('-'))
        .find(|a| !a.text.is_empty());
    if let Some(remote) = remote.filter(|r| r.dynamic || local(&r.text)) {
        given(&format!("push {}", remote.text), Vec::new());
    }
    // `--repo=PATH` (or `--repo PATH`, abbreviated): the repository pushed to, named by option.
    for (i, arg) in after.iter().enumerate() {
        let (name, value) = arg.text.split_once('=').unwrap_or((arg.text.as_str(), ""));
        if name.len() >= 4 && "--repo".starts_with(name) {
            let value = if value.is_empty() {
                after.get(i + 1).map_or("", |w| w.text.as_str())
            } else {
                value
            };
            if arg.dynamic || value.is_empty() || local(value) {
                given(&format!("push --repo={value}"), Vec::new());
            }
        }
    }
}
