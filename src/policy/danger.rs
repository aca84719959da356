//! Why a command that is not known safe asks, in words a person understands. These reasons
//! decorate the allowlist's answer; they never make a command safe. (What nothing may approve is
//! `wreck`'s, read through the same option reader and path resolution as the rest.)

use super::args::{has_flag, operands, subcommand};
use super::shell::Word;
use super::{Finding, Verdict};

pub(crate) fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The tables: commands that delete, overwrite, escalate, install or control the system.
pub(crate) fn explain(base: &str, args: &[Word]) -> Vec<Finding> {
    let mut walker = Findings { out: Vec::new() };
    let walker = &mut walker;
    let ask = |walker: &mut Findings, reason: String| walker.find(Verdict::Ask, reason);
    match base {
        "rm" => {
            let recursive =
                has_flag(args, "-r") || has_flag(args, "-R") || has_flag(args, "--recursive");
            let reason = if recursive {
                "`rm -r` deletes files recursively"
            } else {
                "`rm` deletes files"
            };
            ask(walker, reason.into());
        }
        "rmdir" | "unlink" => ask(walker, format!("`{base}` deletes files")),
        "shred" | "wipe" | "srm" => ask(walker, format!("`{base}` destroys files beyond recovery")),
        "truncate" => ask(walker, "`truncate` cuts files short".into()),
        "mv" => ask(
            walker,
            "`mv` moves files and can overwrite the destination".into(),
        ),
        "cp" => ask(walker, "`cp` can overwrite the destination".into()),
        "ln" if has_flag(args, "-f") || has_flag(args, "--force") => {
            ask(walker, "`ln -f` replaces existing files".into());
        }
        "tee" => {
            if operands(args).any(|t| t.text != "/dev/null" && t.text != "-") {
                ask(walker, "`tee` writes to files".into());
            }
        }
        "dd" => ask(walker, "`dd` writes raw data".into()),
        name if name.starts_with("mkfs")
            || matches!(
                name,
                "mke2fs"
                    | "mkswap"
                    | "wipefs"
                    | "fdisk"
                    | "sfdisk"
                    | "cfdisk"
                    | "gdisk"
                    | "sgdisk"
                    | "parted"
            ) =>
        {
            ask(walker, format!("`{name}` formats or repartitions disks"));
        }
        "chmod" | "chown" | "chgrp" | "chattr" | "setfacl" => {
            let recursive = has_flag(args, "-R") || has_flag(args, "--recursive");
            if recursive {
                ask(walker, format!("`{base} -R` changes a whole tree"));
            } else if matches!(base, "chattr" | "setfacl") {
                ask(walker, format!("`{base}` changes file attributes"));
            }
        }
        "kill" | "pkill" | "killall" | "xkill" | "skill" => {
            ask(walker, format!("`{base}` sends signals to processes"));
        }
        "sed" if has_flag(args, "-i") || has_flag(args, "--in-place") => {
            ask(walker, "`sed -i` edits files in place".into());
        }
        "perl" | "ruby" if has_flag(args, "-i") => {
            ask(walker, format!("`{base} -i` edits files in place"))
        }
        "rsync"
            if args
                .iter()
                .any(|a| a.text.starts_with("--delete") || a.text == "--remove-source-files") =>
        {
            ask(
                walker,
                "`rsync --delete` deletes files at the destination".into(),
            );
        }
        _ => {
            if let Some(reason) = package_or_system(base, args) {
                ask(walker, reason);
            }
        }
    }
    std::mem::take(&mut walker.out)
}

/// Collects findings.
struct Findings {
    out: Vec<Finding>,
}

impl Findings {
    fn find(&mut self, verdict: Verdict, reason: impl Into<String>) {
        self.out.push(Finding::new(verdict, reason));
    }
}

/// Why a program that is without a record (`program`) asks, for the categories a person recognises.
pub(crate) fn category(base: &str) -> Option<String> {
    const CATEGORIES: &[(&[&str], &str)] = &[
        (
            &[
                "tmux",
                "screen",
                "systemd-run",
                "at",
                "batch",
                "nohup",
                "setsid",
                "disown",
                "daemonize",
                "start-stop-daemon",
                "dbus-send",
                "busctl",
                "gdbus",
                "launchctl",
                "open",
                "xdg-open",
                "osascript",
            ],
            "starts something that keeps running outside ai, or asks another program to run it",
        ),
        (
            &[
                "ssh",
                "scp",
                "sftp",
                "rsync",
                "nc",
                "ncat",
                "netcat",
                "socat",
                "telnet",
                "ftp",
                "lftp",
                "rclone",
                "mosh",
                "sshpass",
                "ssh-copy-id",
                "tftp",
                "smbclient",
                "ping",
                "dig",
                "nslookup",
                "host",
                "traceroute",
                "tracepath",
                "mtr",
                "whois",
            ],
            "connects to other machines and can send files or run commands there",
        ),
        (
            &[
                "chmod", "chown", "chgrp", "chattr", "setfacl", "setcap", "umask", "touch",
            ],
            "changes permissions, owners or times of files",
        ),
        (
            &[
                "kill", "pkill", "killall", "xkill", "skill", "renice", "taskset", "chrt", "gdb",
                "strace", "ltrace", "perf",
            ],
            "controls or inspects other processes",
        ),
        (
            &[
                "python",
                "python2",
                "python3",
                "node",
                "nodejs",
                "perl",
                "ruby",
                "php",
                "deno",
                "bun",
                "lua",
                "Rscript",
                "julia",
                "pwsh",
                "powershell",
                "tclsh",
                "expect",
                "irb",
                "ghci",
                "R",
            ],
            "runs code that ai cannot check",
        ),
    ];
    CATEGORIES
        .iter()
        .find(|(names, _)| names.contains(&base))
        .map(|(_, why)| format!("`{base}` {why}"))
}

/// Whether a variable's name says it holds a secret (`GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`).
pub(crate) fn secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    [
        "KEY",
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "CREDENTIAL",
        "AUTH",
        "COOKIE",
        "SESSION",
    ]
    .iter()
    .any(|fragment| upper.contains(fragment))
        || secret_suffix(&upper)
}

/// Names that hold passwords, connection strings, signed tokens or keys without saying
/// "secret": `DB_PASS`, `MYSQL_PWD` (not the shell's `PWD`), `DATABASE_URL`, `REDIS_URL`,
/// `MONGODB_URI`, `SENTRY_DSN`, `CI_JOB_JWT`, `GH_PAT`, `STRIPE_SK`, a wallet's `MNEMONIC`.
fn secret_suffix(upper: &str) -> bool {
    const SUFFIXES: &[&str] = &[
        "_PASS",
        "PASSPHRASE",
        "_PW",
        "_DSN",
        "JWT",
        "WEBHOOK",
        "WEBHOOK_URL",
        "_PAT",
        "_SK",
        "MNEMONIC",
    ];
    // Connection strings of databases and brokers carry their password.
    const STORES: &[&str] = &[
        "DATABASE", "DB", "REDIS", "MONGO", "MONGODB", "POSTGRES", "PG", "MYSQL", "AMQP",
        "RABBITMQ", "KAFKA", "ELASTIC", "BROKER",
    ];
    let connection = ["_URL", "_URI", "_DSN"].iter().any(|end| {
        upper
            .strip_suffix(end)
            .is_some_and(|stem| STORES.iter().any(|s| stem.ends_with(s)))
    });
    SUFFIXES.iter().any(|s| upper.ends_with(s))
        || connection
        || upper.ends_with("PWD") && !matches!(upper, "PWD" | "OLDPWD")
        || matches!(
            upper,
            "PGPASS" | "DATABASE_URL" | "DSN" | "PASS" | "MNEMONIC" | "WEBHOOK"
        )
}

/// Why `NAME=value` before a command is not safe, if it is not. Build settings that only tune
/// (`RUSTFLAGS='-D warnings'`, `PYTHONPATH=src`, `NODE_OPTIONS=--max-old-space-size=4096`) are
/// fine; values that choose programs, plugins or code from elsewhere are not.
pub(crate) fn risky_assignment(name: &str, value: &str) -> Option<&'static str> {
    const CHOOSES_PROGRAMS: &[&str] = &[
        "linker",
        "plugin",
        "-B",
        "specs",
        "wrapper",
        "-Z",
        "toolexec",
        "exec",
        "overlay",
        "vettool",
        "link-arg",
        "ld=",
        "--require",
        "--import",
        "--loader",
        "-r ",
    ];
    let tunes = match name {
        "RUSTFLAGS"
        | "RUSTDOCFLAGS"
        | "CFLAGS"
        | "CXXFLAGS"
        | "CPPFLAGS"
        | "LDFLAGS"
        | "GOFLAGS"
        | "CARGO_BUILD_RUSTFLAGS" => {
            // `@FILE` reads more options from a file (`-Clinker=./x` among them).
            !CHOOSES_PROGRAMS.iter().any(|p| value.contains(p))
                && !value.split_whitespace().any(|w| w.starts_with('@'))
        }
        // Where cargo writes its build: inside the project only.
        "CARGO_TARGET_DIR" => {
            !value.starts_with('/') && !value.starts_with('~') && !value.contains("..")
        }
        "PYTHONPATH" | "NODE_PATH" => value
            .split(':')
            .all(|part| !part.starts_with('/') && !part.starts_with('~') && !part.contains("..")),
        "NODE_OPTIONS" => value.split_whitespace().all(|option| {
            option.starts_with("--max-old-space-size=")
                || matches!(
                    option,
                    "--enable-source-maps" | "--trace-warnings" | "--no-warnings"
                )
        }),
        _ => false,
    };
    if tunes {
        return None;
    }
    // A build setting read whole by the compiler (`RUSTDOCFLAGS=@file`) asks whatever its name.
    let setting =
        name.ends_with("FLAGS") || matches!(name, "PYTHONPATH" | "NODE_PATH" | "NODE_OPTIONS");
    risky_variable(name)
        .or(setting.then_some("changes which programs, libraries or settings the command loads"))
}

/// Variables known only to tune output or behaviour, never what loads.
const HARMLESS: &[&str] = &[
    "RUST_BACKTRACE",
    "RUST_LOG",
    "RUST_TEST_THREADS",
    "CARGO_TERM_COLOR",
    "CARGO_INCREMENTAL",
    "NODE_ENV",
    "CI",
    "NO_COLOR",
    "FORCE_COLOR",
    "CLICOLOR",
    "TERM",
    "LANG",
    "LANGUAGE",
    "TZ",
    "DEBUG",
    "GOOS",
    "GOARCH",
    "CGO_ENABLED",
    "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONHASHSEED",
    "PYTHONIOENCODING",
    "COLUMNS",
    "LINES",
    "PORT",
    "HOST",
    "VERBOSE",
    "LOG_LEVEL",
    "TEST",
    "TESTS",
    "JOBS",
    "RUSTDOCFLAGS",
];

/// Parts of a name that choose programs, libraries, configuration or startup code.
const RISKY: &[&str] = &[
    "LD_",
    "DYLD_",
    "PATH",
    "ENV",
    "HOME",
    "CONFIG",
    "OPT",
    "EDITOR",
    "VISUAL",
    "PAGER",
    "SHELL",
    "COMMAND",
    "CMD",
    "WRAPPER",
    "PROMPT",
    "IFS",
    "PS4",
    "GIT_",
    "LIB",
    "PRELOAD",
    "STARTUP",
    "RUSTC",
    "LINKER",
    "CC",
    "CXX",
    "HOOK",
    "EXEC",
    "BROWSER",
    "SSH",
    "PYTHON",
    "PERL",
    "RUBY",
    "NODE",
    "BASH",
    "DIR",
    "FLAGS",
    "RC",
    "LESS",
    "PROGRAM",
    "RUNNER",
    "PLUGIN",
    "INCLUDE",
    "PROXY",
    "TOOL",
    "MAKE",
    "GLOB",
    "RUSTDOC",
    "CARGO_ALIAS",
    // OpenSSL's configuration loads providers and engines from any path (classifier round 15).
    "CONF",
    "MODULE",
    "ENGINE",
];

/// Why setting an environment variable of this name before a command is not safe, if it is not:
/// it changes which programs, libraries, configuration or startup code the command loads.
pub(crate) fn risky_variable(name: &str) -> Option<&'static str> {
    let upper = name.to_ascii_uppercase();
    if HARMLESS.contains(&upper.as_str()) || upper.starts_with("LC_") {
        return None;
    }
    // make's built-in rules run the program these name (`AS=./x make y.o`), cargo reads its
    // aliases and rustdoc from the environment (`CARGO_ALIAS_B`, `RUSTDOC`).
    let program = super::runs::MAKE_PROGRAM_NAMES.contains(&upper.as_str());
    (program || RISKY.iter().any(|fragment| upper.contains(fragment)))
        .then_some("changes which programs, libraries or settings the command loads")
}

fn package_or_system(base: &str, args: &[Word]) -> Option<String> {
    let sub = subcommand(args).unwrap_or("");
    let installs = |subs: &[&str]| subs.contains(&sub);
    let reason = match base {
        "apt" | "apt-get" | "aptitude"
            if installs(&[
                "install",
                "reinstall",
                "remove",
                "purge",
                "upgrade",
                "dist-upgrade",
                "full-upgrade",
                "autoremove",
                "build-dep",
            ]) =>
        {
            format!("`{base} {sub}` changes the system's packages")
        }
        "dpkg"
            if args.iter().any(|a| {
                matches!(
                    a.text.as_str(),
                    "-i" | "-r"
                        | "-P"
                        | "--install"
                        | "--remove"
                        | "--purge"
                        | "--unpack"
                        | "--configure"
                )
            }) =>
        {
            "`dpkg` changes the system's packages".to_string()
        }
        "yum" | "dnf" | "zypper" | "apk" | "brew" | "port" | "snap" | "flatpak" | "nix-env"
        | "emerge" | "pkg"
            if installs(&[
                "install",
                "in",
                "reinstall",
                "remove",
                "rm",
                "erase",
                "uninstall",
                "upgrade",
                "update",
                "add",
                "del",
                "purge",
                "autoremove",
            ]) || base == "emerge"
                || base == "nix-env" =>
        {
            format!("`{base}` changes the system's packages")
        }
        "pacman" | "yay" | "paru"
            if args.iter().any(|a| {
                a.text.starts_with("-S") || a.text.starts_with("-R") || a.text.starts_with("-U")
            }) =>
        {
            format!("`{base}` changes the system's packages")
        }
        "pip" | "pip3" | "pipx" | "uv" | "poetry" | "conda" | "mamba"
            if installs(&["install", "uninstall", "remove", "add", "pip", "sync"]) =>
        {
            format!("`{base} {sub}` installs or removes packages (and runs their code)")
        }
        "python" | "python3"
            if args.windows(3).any(|w| {
                w[0].text == "-m"
                    && w[1].text == "pip"
                    && matches!(w[2].text.as_str(), "install" | "uninstall")
            }) =>
        {
            "`python -m pip install` installs packages (and runs their code)".to_string()
        }
        "npm" | "pnpm" | "yarn" | "bun"
            if installs(&[
                "install",
                "i",
                "add",
                "ci",
                "remove",
                "rm",
                "uninstall",
                "un",
                "update",
                "up",
                "upgrade",
                "link",
            ]) =>
        {
            format!("`{base} {sub}` installs or removes packages (and runs their scripts)")
        }
        "npx" | "pnpx" | "bunx" => format!("`{base}` downloads and runs a package"),
        "cargo" | "gem" | "go" | "composer" | "rustup"
            if installs(&["install", "uninstall", "remove", "update"])
                && !(base == "cargo" && sub == "update") =>
        {
            format!("`{base} {sub}` installs or removes software")
        }
        "systemctl"
            if installs(&[
                "start",
                "stop",
                "restart",
                "reload",
                "try-restart",
                "enable",
                "disable",
                "mask",
                "unmask",
                "kill",
                "isolate",
                "poweroff",
                "reboot",
                "halt",
                "suspend",
                "hibernate",
                "daemon-reload",
                "set-default",
                "edit",
                "emergency",
                "rescue",
            ]) =>
        {
            format!("`systemctl {sub}` controls system services")
        }
        "service"
            if args.iter().any(|a| {
                matches!(
                    a.text.as_str(),
                    "start" | "stop" | "restart" | "reload" | "force-reload"
                )
            }) =>
        {
            "`service` controls system services".to_string()
        }
        "launchctl"
            if installs(&[
                "load",
                "unload",
                "bootout",
                "bootstrap",
                "kill",
                "remove",
                "stop",
                "start",
                "disable",
                "enable",
            ]) =>
        {
            format!("`launchctl {sub}` controls system services")
        }
        "shutdown" | "reboot" | "halt" | "poweroff" | "init" | "telinit" => {
            format!("`{base}` stops or restarts the machine")
        }
        "crontab"
            if !args
                .iter()
                .all(|a| a.text == "-l" || a.text == "-u" || !a.text.starts_with('-'))
                || args.iter().any(|a| a.text == "-r" || a.text == "-e") =>
        {
            "`crontab` changes scheduled jobs".to_string()
        }
        "mount" | "umount" | "swapon" | "swapoff" | "losetup" | "cryptsetup" => {
            format!("`{base}` changes mounted file systems")
        }
        "modprobe" | "insmod" | "rmmod" => format!("`{base}` changes kernel modules"),
        "sysctl" if args.iter().any(|a| a.text == "-w" || a.text.contains('=')) => {
            "`sysctl` changes kernel settings".to_string()
        }
        "iptables" | "ip6tables" | "nft" | "ufw" | "firewall-cmd" => {
            format!("`{base}` changes the firewall")
        }
        "useradd" | "userdel" | "usermod" | "groupadd" | "groupdel" | "groupmod" | "passwd"
        | "chpasswd" | "visudo" | "adduser" | "deluser" => {
            format!("`{base}` changes users or credentials")
        }
        _ => return None,
    };
    Some(reason)
}
