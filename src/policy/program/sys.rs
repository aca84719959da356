//! Records of the programs that read the machine: who, what runs, what is mounted and free,
//! its environment (`env`, `printenv`), its clock and name, each asking where it would change one.

use super::Program;
use crate::policy::args::{has_flag, operands, option_values, skip_options};
use crate::policy::danger::secret_name;
use crate::policy::judged::Judged;
use crate::policy::shell::Word;

pub(super) const PROGRAMS: &[Program] = &[
    // The machine and its processes, read.
    Program::new(&["whoami"]),
    Program::new(&["id"]),
    Program::new(&["groups"]),
    Program::new(&["uname"]),
    Program::new(&["arch"]),
    Program::new(&["nproc"]),
    Program::new(&["cal"]),
    Program::new(&["uptime"]),
    Program::new(&["free"]),
    Program::new(&["df"]),
    Program::new(&["ps"]).checked(ps),
    Program::new(&["pgrep"]),
    Program::new(&["pidof"]),
    Program::new(&["lsof"]),
    Program::new(&["ss"]).asking(&[
        ("-K", "kills connections"),
        ("--kill", "kills connections"),
        ("-D", "writes raw socket data to a file"),
        ("--diag", "writes raw socket data to a file"),
    ]),
    Program::new(&["netstat"]),
    Program::new(&["printenv"])
        .printing_env(|_| true)
        .checked(printenv),
    Program::new(&["env"]).printing_env(env_prints).checked(env),
    Program::new(&["locale"]),
    Program::new(&["getconf"]),
    Program::new(&["lscpu"]),
    Program::new(&["lsblk"]),
    Program::new(&["lsusb"]),
    Program::new(&["lspci"]),
    Program::new(&["lsmod"]),
    Program::new(&["who"]),
    Program::new(&["w"]),
    Program::new(&["last"]),
    Program::new(&["tty"]),
    Program::new(&["dmesg"]).asking(&[
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
    ]),
    Program::new(&["pstree"]),
    Program::new(&["vmstat"]),
    Program::new(&["iostat"]),
    Program::new(&["mpstat"]),
    Program::new(&["lsb_release"]),
    Program::new(&["htop"]),
    Program::new(&["btop"]),
    Program::new(&["top"]),
    Program::new(&["procs"]),
    Program::new(&["hostname"]).checked(hostname),
    Program::new(&["date"]).asking(&[("-s", "sets the clock"), ("--set", "sets the clock")]),
];

fn ps(_name: &str, args: &[Word], judged: &mut Judged) {
    if args
        .iter()
        .any(|a| !a.text.starts_with('-') && a.text.contains('e'))
    {
        judged.ask("`ps e` prints other processes' environments, tokens included");
    }
}

fn printenv(_name: &str, args: &[Word], judged: &mut Judged) {
    if let Some(arg) = args.iter().find(|a| secret_name(&a.text)) {
        judged.ask(format!("`printenv {}` prints a secret", arg.text));
    }
}

/// `env` runs its first operand that is not `NAME=VALUE`; with none it prints.
fn env_prints(args: &[Word]) -> bool {
    let mut rest = args.iter().map(|w| w.text.as_str());
    while let Some(word) = rest.next() {
        if matches!(word, "-u" | "--unset" | "-C" | "--chdir") {
            rest.next();
        } else if !word.starts_with('-') && !word.contains('=') {
            return false;
        }
    }
    true
}

fn hostname(_name: &str, args: &[Word], judged: &mut Judged) {
    if operands(args).next().is_some() || has_flag(args, "-F") {
        judged.ask("`hostname NAME` renames the machine");
    }
}

/// `env [-i] [NAME=value]... [command]`: the command is judged, and so are the assignments.
pub(crate) fn env(_name: &str, args: &[Word], judged: &mut Judged) {
    let strings = env_split(args);
    if !strings.is_empty() {
        judged.strings.extend(strings);
        return;
    }
    if let Some(odd) = args
        .iter()
        .take_while(|a| a.text.starts_with('-'))
        .find(|a| {
            let name = a.text.split_once('=').map_or(a.text.as_str(), |(n, _)| n);
            name.starts_with("--")
                && name.len() > 2
                && !ENV_LONGS.iter().any(|l| l.starts_with(name))
        })
    {
        judged.ask(format!("`env {}` is an option ai does not know", odd.text));
    }
    judged.dirs.extend(option_values(args, &["-C", "--chdir"]));
    judged.inner_dir = env_chdir(args);
    let rest = skip_options(args, &["-u", "--unset", "-C", "--chdir"]);
    let start = rest
        .iter()
        .position(|a| !a.text.contains('='))
        .unwrap_or(rest.len());
    // Judged as `NAME=value` before the command: the checks of risky values, of programs a
    // variable names and of make variables that reach a recipe (`env ARGS=';id' make`).
    judged.inner_assignments = rest[..start]
        .iter()
        .filter_map(|a| {
            let (name, value) = a.text.split_once('=')?;
            let value = Word {
                text: value.to_string(),
                ..a.clone()
            };
            Some((name.to_string(), value))
        })
        .collect();
    // Alone it prints the environment: the sandbox gives commands an allowlisted one, with
    // no token, key or credential in it.
    if start < rest.len() {
        judged.inner.push(rest[start..].to_vec());
    }
}

/// The directory `env -C DIR`, `-CDIR`, `-iC DIR`, `--chdir=DIR` or `--ch DIR` runs its command in.
fn env_chdir(args: &[Word]) -> Option<Word> {
    let mut dir = None;
    let mut rest = args.iter();
    let with = |arg: &Word, text: &str| Word {
        text: text.to_string(),
        ..arg.clone()
    };
    while let Some(arg) = rest.next() {
        let text = arg.text.as_str();
        if text == "--" || !text.starts_with('-') || text == "-" {
            break;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (name, value) = long
                .split_once('=')
                .map_or((long, None), |(n, v)| (n, Some(v)));
            let takes = ["unset", "split-string"]
                .iter()
                .any(|l| !name.is_empty() && l.starts_with(name));
            if !name.is_empty() && "chdir".starts_with(name) {
                dir = match value {
                    Some(v) => Some(with(arg, v)),
                    None => rest.next().cloned(),
                };
            } else if takes && value.is_none() {
                rest.next();
            }
            continue;
        }
        for (i, c) in text.char_indices().skip(1) {
            let tail = &text[i + c.len_utf8()..];
            if matches!(c, 'C' | 'u' | 'S') {
                let value = if tail.is_empty() {
                    rest.next().cloned()
                } else {
                    Some(with(arg, tail))
                };
                if c == 'C' {
                    dir = value;
                }
                break;
            }
        }
    }
    dir
}

/// env's long options, so an abbreviation reads as env reads it (`--s` is `--split-string`).
const ENV_LONGS: &[&str] = &[
    "--ignore-environment",
    "--null",
    "--unset",
    "--chdir",
    "--split-string",
    "--block-signal",
    "--default-signal",
    "--ignore-signal",
    "--list-signal-handling",
    "--debug",
    "--help",
    "--version",
];

/// The command lines `env -S` / `--split-string` (any abbreviation: `--s`) runs, with env's
/// own separator `\_` read as the space it stands for.
fn env_split(args: &[Word]) -> Vec<Word> {
    let mut strings = option_values(args, &["-S", "--split-string"]);
    for (i, arg) in args.iter().enumerate() {
        let (name, value) = match arg.text.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (arg.text.as_str(), None),
        };
        if name.len() == 3 && "--split-string".starts_with(name) {
            strings.push(match value {
                Some(value) => Word {
                    text: value.to_string(),
                    ..arg.clone()
                },
                None => args
                    .get(i + 1)
                    .cloned()
                    .unwrap_or_else(|| Word::computed("")),
            });
        }
    }
    for string in &mut strings {
        string.text = string.text.replace("\\_", " ");
    }
    strings
}
