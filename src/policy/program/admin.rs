//! Records of system administration tools: services, packages, kernel and network settings,
//! keys and archives, each safe only in its read-only forms (`systemctl status`, `apt list`,
//! `ip addr`, `tar -t`, `crontab -l`); any other form asks, saying what it changes.

use super::Program;
use crate::policy::args::{has_flag, operands, subcommand};
use crate::policy::judged::Judged;
use crate::policy::shell::Word;

pub(super) const PROGRAMS: &[Program] = &[
    Program::new(&["systemctl"]).checked(systemctl),
    Program::new(&["journalctl"]).checked(journalctl),
    Program::new(&["service"]).checked(service),
    Program::new(&["apt"]).checked(apt),
    Program::new(&["apt-get"]).checked(apt_get),
    Program::new(&["apt-cache"]),
    Program::new(&["dpkg"]).checked(dpkg),
    Program::new(&["dpkg-query"]),
    Program::new(&["pip", "pip3"]).checked(pip),
    Program::new(&["brew"]).checked(brew),
    Program::new(&["rustup"]).checked(rustup),
    Program::new(&["crontab"]).checked(crontab),
    Program::new(&["sysctl"]).checked(sysctl),
    Program::new(&["mount"]).checked(mount),
    Program::new(&["findmnt"]),
    Program::new(&["ip"]).checked(ip),
    Program::new(&["ifconfig"]).checked(ifconfig),
    Program::new(&["ssh-keygen"]).checked(ssh_keygen),
    Program::new(&["tar"]).checked(tar),
    Program::new(&["unzip"]).checked(unzip),
    Program::new(&["gzip"]).checked(compressor),
    Program::new(&["gunzip"]).checked(compressor),
    Program::new(&["bzip2"]).checked(compressor),
    Program::new(&["xz"]).checked(compressor),
    Program::new(&["zstd"]).checked(compressor),
];

const SERVICES: &str = "controls system services";
const PACKAGES: &str = "changes the system's packages";
const NETWORK: &str = "changes the network configuration";
const FILES: &str = "creates, extracts or replaces files";

/// Asks unless `safe` says the command (its subcommand, its arguments) is a read-only form,
/// with what the other forms do.
fn read_only(
    name: &str,
    args: &[Word],
    judged: &mut Judged,
    what: &str,
    safe: fn(&str, &[Word]) -> bool,
) {
    let sub = subcommand(args).unwrap_or("");
    if !safe(sub, args) {
        judged.ask(if sub.is_empty() {
            format!("`{name}` {what}")
        } else {
            format!("`{name} {sub}` {what}")
        });
    }
}

/// No operands: only options (`mount`, `ifconfig` list what there is).
fn flags_only(args: &[Word]) -> bool {
    operands(args).next().is_none()
}

fn systemctl(name: &str, args: &[Word], judged: &mut Judged) {
    read_only(name, args, judged, SERVICES, |sub, _| {
        matches!(
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
        )
    });
}

fn journalctl(name: &str, args: &[Word], judged: &mut Judged) {
    let what = "deletes or rotates system logs";
    read_only(name, args, judged, what, |_, args| {
        !args.iter().any(|a| {
            a.text.starts_with("--vacuum")
                || matches!(
                    a.text.as_str(),
                    "--rotate" | "--flush" | "--sync" | "--setup-keys" | "--relinquish-var"
                )
        })
    });
}

fn service(name: &str, args: &[Word], judged: &mut Judged) {
    read_only(name, args, judged, SERVICES, |_, args| {
        args.iter()
            .any(|a| a.text == "status" || a.text == "--status-all")
    });
}

fn apt(name: &str, args: &[Word], judged: &mut Judged) {
    read_only(name, args, judged, PACKAGES, |sub, _| {
        matches!(
            sub,
            "list" | "search" | "show" | "policy" | "depends" | "rdepends"
        )
    });
    judged.network |= subcommand(args) == Some("search");
}

fn apt_get(name: &str, args: &[Word], judged: &mut Judged) {
    read_only(name, args, judged, PACKAGES, |sub, args| {
        matches!(sub, "check" | "changelog") || has_flag(args, "--simulate")
    });
}

fn dpkg(name: &str, args: &[Word], judged: &mut Judged) {
    read_only(name, args, judged, PACKAGES, |_, args| {
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
        }) && !flags_only(args)
    });
}

fn pip(name: &str, args: &[Word], judged: &mut Judged) {
    let what = "installs or removes packages (and runs their code)";
    read_only(name, args, judged, what, |sub, args| {
        let elsewhere = args.iter().any(|a| {
            a.text.contains("index-url")
                || a.text.starts_with("--find-links")
                || a.text == "-i"
                || a.text.starts_with("--trusted-host")
                || a.text.starts_with("--proxy")
        });
        !elsewhere
            && (matches!(sub, "list" | "show" | "freeze" | "check" | "help")
                || args.len() == 1 && matches!(args[0].text.as_str(), "--version" | "-V"))
    });
    judged.network |= subcommand(args) == Some("search");
}

fn brew(name: &str, args: &[Word], judged: &mut Judged) {
    read_only(name, args, judged, PACKAGES, |sub, _| {
        matches!(
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
        )
    });
    judged.network |= subcommand(args) == Some("search");
}

fn rustup(name: &str, args: &[Word], judged: &mut Judged) {
    read_only(name, args, judged, PACKAGES, |sub, args| {
        matches!(sub, "show" | "--version" | "-V" | "which" | "doc")
            || (sub == "toolchain" || sub == "target" || sub == "component")
                && operands(args).nth(1).is_some_and(|w| w.text == "list")
    });
}

fn crontab(name: &str, args: &[Word], judged: &mut Judged) {
    let what = "changes scheduled jobs that run later, outside ai";
    read_only(name, args, judged, what, |_, args| {
        args.iter().all(|a| a.text == "-l")
    });
}

fn sysctl(name: &str, args: &[Word], judged: &mut Judged) {
    read_only(name, args, judged, "changes kernel settings", |_, args| {
        !has_flag(args, "-w") && !args.iter().any(|a| a.text.contains('=')) && !has_flag(args, "-p")
    });
}

/// `mount`, `ifconfig` with options only list; `-a` mounts or brings up everything.
fn lists(_: &str, args: &[Word]) -> bool {
    flags_only(args) && !args.iter().any(|a| a.text == "-a")
}

fn mount(name: &str, args: &[Word], judged: &mut Judged) {
    read_only(name, args, judged, "changes mounted file systems", lists);
}

fn ifconfig(name: &str, args: &[Word], judged: &mut Judged) {
    read_only(name, args, judged, NETWORK, lists);
}

fn ip(name: &str, args: &[Word], judged: &mut Judged) {
    read_only(name, args, judged, NETWORK, |_, args| ip_reads(args));
}

fn ssh_keygen(name: &str, args: &[Word], judged: &mut Judged) {
    let what = "creates or changes keys and certificates";
    read_only(name, args, judged, what, |_, args| has_flag(args, "-l"));
}

fn tar(name: &str, args: &[Word], judged: &mut Judged) {
    if creates(args) {
        super::files::tar_create(args, judged);
    } else {
        read_only(name, args, judged, FILES, |_, args| tar_lists_only(args));
    }
}

fn unzip(name: &str, args: &[Word], judged: &mut Judged) {
    read_only(name, args, judged, FILES, |_, args| {
        ["-l", "-t", "-v", "-p", "-Z"]
            .iter()
            .any(|flag| has_flag(args, flag))
    });
}

/// gzip, bzip2, xz, zstd: to stdout, listing or testing only; never `-o FILE`.
fn compressor(name: &str, args: &[Word], judged: &mut Judged) {
    read_only(name, args, judged, FILES, |_, args| {
        !(has_flag(args, "-o") || has_flag(args, "--output"))
            && (["-c", "--stdout", "-l", "-t", "--list", "--test"]
                .iter()
                .any(|flag| has_flag(args, flag))
                || flags_only(args))
    });
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
