//! Records of system tools: service, package, network and archive programs, each safe only
//! in its read-only forms (`systemctl status`, `apt list`, `ip addr`, `tar -t`, `crontab -l`).

use super::Program;
use crate::policy::args::{has_flag, operands, option_values, skip_options, subcommand};
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
    Program::new(&["ss"]).asking(&[("-K", "kills connections"), ("--kill", "kills connections")]),
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
    // Services, packages, network and archives: read-only forms only (`system`).
    Program::new(&["systemctl"]).checked(system),
    Program::new(&["journalctl"]).checked(system),
    Program::new(&["service"]).checked(system),
    Program::new(&["apt"]).checked(system),
    Program::new(&["apt-get"]).checked(system),
    Program::new(&["apt-cache"]).checked(system),
    Program::new(&["dpkg"]).checked(system),
    Program::new(&["dpkg-query"]).checked(system),
    Program::new(&["pip", "pip3"]).checked(system),
    Program::new(&["brew"]).checked(system),
    Program::new(&["rustup"]).checked(system),
    Program::new(&["crontab"]).checked(system),
    Program::new(&["sysctl"]).checked(system),
    Program::new(&["mount"]).checked(system),
    Program::new(&["findmnt"]).checked(system),
    Program::new(&["ip"]).checked(system),
    Program::new(&["ifconfig"]).checked(system),
    Program::new(&["ssh-keygen"]).checked(system),
    Program::new(&["tar"]).checked(system),
    Program::new(&["unzip"]).checked(system),
    Program::new(&["gzip"]).checked(system),
    Program::new(&["gunzip"]).checked(system),
    Program::new(&["bzip2"]).checked(system),
    Program::new(&["xz"]).checked(system),
    Program::new(&["zstd"]).checked(system),
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

pub(crate) fn system(name: &str, args: &[Word], judged: &mut Judged) {
    let sub = subcommand(args).unwrap_or("");
    let flags_only = operands(args).next().is_none();
    let safe = match name {
        "systemctl" => matches!(
            sub,
            "status"
                | "is-active"
                | "is-enabled"
                | "is-failed"
                | "list-units"
                | "list-unit-files"
                | "list-timers"
                | "list-sockets"
                | "cat"
                | "list-dependencies"
                | ""
        ),
        "journalctl" => !args.iter().any(|a| {
            a.text.starts_with("--vacuum")
                || matches!(
                    a.text.as_str(),
                    "--rotate" | "--flush" | "--sync" | "--setup-keys" | "--relinquish-var"
                )
        }),
        "service" => args
            .iter()
            .any(|a| a.text == "status" || a.text == "--status-all"),
        "apt" => matches!(
            sub,
            "list" | "search" | "show" | "policy" | "depends" | "rdepends"
        ),
        "apt-get" => matches!(sub, "check" | "changelog") || has_flag(args, "--simulate"),
        "apt-cache" | "dpkg-query" => true,
        "dpkg" => {
            args.iter().all(|a| {
                matches!(
                    a.text.as_str(),
                    "-l" | "-L"
                        | "-s"
                        | "-S"
                        | "--list"
                        | "--listfiles"
                        | "--status"
                        | "--search"
                        | "--print-architecture"
                        | "--version"
                ) || !a.text.starts_with('-')
            }) && !flags_only
        }
        "pip" | "pip3"
            if args.iter().any(|a| {
                a.text.contains("index-url")
                    || a.text.starts_with("--find-links")
                    || a.text == "-i"
                    || a.text.starts_with("--trusted-host")
                    || a.text.starts_with("--proxy")
            }) =>
        {
            false
        }
        "pip" | "pip3" => {
            matches!(sub, "list" | "show" | "freeze" | "check" | "help")
                || args.len() == 1 && matches!(args[0].text.as_str(), "--version" | "-V")
        }
        "brew" => matches!(
            sub,
            "list"
                | "ls"
                | "info"
                | "search"
                | "config"
                | "doctor"
                | "deps"
                | "outdated"
                | "--version"
        ),
        "rustup" => {
            matches!(sub, "show" | "--version" | "-V" | "which" | "doc")
                || (sub == "toolchain" || sub == "target" || sub == "component")
                    && operands(args).nth(1).is_some_and(|w| w.text == "list")
        }
        "crontab" => args.iter().all(|a| a.text == "-l"),
        "sysctl" => {
            !has_flag(args, "-w")
                && !args.iter().any(|a| a.text.contains('='))
                && !has_flag(args, "-p")
        }
        "mount" | "ifconfig" => flags_only && !args.iter().any(|a| a.text == "-a"),
        "findmnt" => true,
        "ip" => ip_reads(args),
        "ssh-keygen" => has_flag(args, "-l"),
        "openssl" => {
            matches!(
                sub,
                "version" | "x509" | "req" | "dgst" | "verify" | "ciphers" | "crl" | "asn1parse"
            ) && !args
                .iter()
                .any(|a| matches!(a.text.as_str(), "-out" | "-keyout" | "-signkey" | "-new"))
        }
        "tar" if creates(args) => {
            return super::files::tar_create(args, judged);
        }
        "tar" => tar_lists_only(args),
        "unzip" => {
            has_flag(args, "-l")
                || has_flag(args, "-t")
                || has_flag(args, "-v")
                || has_flag(args, "-p")
                || has_flag(args, "-Z")
        }
        "gzip" | "gunzip" | "bzip2" | "xz" | "zstd"
            if has_flag(args, "-o") || has_flag(args, "--output") =>
        {
            false
        }
        "gzip" | "gunzip" | "bzip2" | "xz" | "zstd" => {
            has_flag(args, "-c")
                || has_flag(args, "--stdout")
                || has_flag(args, "-l")
                || has_flag(args, "-t")
                || has_flag(args, "--list")
                || has_flag(args, "--test")
                || flags_only
        }
        _ => false,
    };
    if !safe {
        judged.ask(system_reason(name, sub));
    }
    judged.network |= matches!(name, "apt" | "pip" | "pip3" | "brew") && sub == "search"
        || name == "openssl" && sub == "s_client";
}

/// `tar -tzf x.tgz`: only listing, with only the options that choose the archive and its
/// compression (no `-I`/`--use-compress-program`, `--to-command`, `--checkpoint-action`, `-F`,
/// `--rsh-command`, which run programs).
fn tar_lists_only(args: &[Word]) -> bool {
    const LONG: &[&str] = &[
        "--list",
        "--file",
        "--gzip",
        "--gunzip",
        "--bzip2",
        "--xz",
        "--zstd",
        "--verbose",
        "--wildcards",
        "--exclude",
        "--no-same-owner",
        "--numeric-owner",
        "--full-time",
    ];
    let mut lists = false;
    for (i, arg) in args.iter().enumerate() {
        let text = arg.text.as_str();
        if let Some(long) = text.strip_prefix("--") {
            let name = long.split_once('=').map_or(long, |(name, _)| name);
            if !LONG.iter().any(|l| l.trim_start_matches("--") == name) {
                return false;
            }
            lists |= name == "list";
        } else if text.starts_with('-') || i == 0 {
            let cluster = text.trim_start_matches('-');
            if !cluster.chars().all(|c| "tvfzjJaw".contains(c)) {
                return false;
            }
            lists |= cluster.contains('t');
            // The archive named after `f` is a plain file to read: `f` must end the cluster.
            if cluster.contains('f') && !cluster.ends_with('f') {
                return false;
            }
        }
    }
    lists
}

/// `tar czf`, `tar -cf`, `tar --create`: it makes an archive (and does nothing else).
fn creates(args: &[Word]) -> bool {
    let first = args.first().map_or("", |w| w.text.trim_start_matches('-'));
    let cluster = !first.is_empty() && !args[0].text.starts_with("--");
    (cluster && first.contains('c') && !first.contains(['t', 'x', 'r', 'u', 'A', 'd']))
        || args.iter().any(|a| a.text == "--create")
}

/// `ip addr`, `ip -br link show`, `ip route get 1.1.1.1`: objects shown, not changed.
fn ip_reads(args: &[Word]) -> bool {
    let ops: Vec<&str> = operands(args).map(|w| w.text.as_str()).collect();
    let Some(object) = ops.first() else {
        return true;
    };
    const OBJECTS: &[&str] = &[
        "a",
        "addr",
        "address",
        "r",
        "route",
        "l",
        "link",
        "n",
        "neigh",
        "neighbour",
        "rule",
        "maddr",
        "monitor",
        "-br",
    ];
    OBJECTS.contains(object)
        && ops
            .get(1)
            .is_none_or(|verb| matches!(*verb, "show" | "list" | "ls" | "get" | "lst"))
}

/// Why a system tool outside its read-only forms asks.
fn system_reason(name: &str, sub: &str) -> String {
    let what = match name {
        "systemctl" | "service" => "controls system services",
        "journalctl" => "deletes or rotates system logs",
        "apt" | "apt-get" | "dpkg" | "brew" | "rustup" => "changes the system's packages",
        "pip" | "pip3" => "installs or removes packages (and runs their code)",
        "crontab" => "changes scheduled jobs that run later, outside ai",
        "sysctl" => "changes kernel settings",
        "mount" => "changes mounted file systems",
        "ip" | "ifconfig" => "changes the network configuration",
        "ssh-keygen" | "openssl" => "creates or changes keys and certificates",
        "tar" | "unzip" | "gzip" | "gunzip" | "bzip2" | "xz" | "zstd" => {
            "creates, extracts or replaces files"
        }
        _ => "changes the system",
    };
    if sub.is_empty() {
        format!("`{name}` {what}")
    } else {
        format!("`{name} {sub}` {what}")
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
    let rest = skip_options(args, &["-u", "--unset", "-C", "--chdir"]);
    let start = rest
        .iter()
        .position(|a| !a.text.contains('='))
        .unwrap_or(rest.len());
    for assignment in &rest[..start] {
        if let Some((name, value)) = assignment.text.split_once('=')
            && let Some(why) = crate::policy::danger::risky_assignment(name, value)
        {
            judged.ask(format!("`{name}=` {why}"));
        }
        if let Some((name, _)) = assignment.text.split_once('=')
            && crate::policy::runs::assignment(name, assignment).is_some()
        {
            // The program it names is judged on its own (`env GIT_SSH_COMMAND=CMD git ...`).
            let value = assignment.text[name.len() + 1..].to_string();
            judged.strings.push(Word {
                text: value,
                ..assignment.clone()
            });
        }
    }
    // Alone it prints the environment: the sandbox gives commands an allowlisted one, with
    // no token, key or credential in it.
    if start < rest.len() {
        judged.inner.push(rest[start..].to_vec());
    }
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
