//! Why a command that is not known safe asks, in words a person understands, and the few forms so
//! destructive that nothing may approve them (`rm -rf /`, writes onto block devices, recursive
//! re-permissioning of system directories). These reasons decorate the allowlist's answer; they
//! never make a command safe.

use super::shell::Word;
use super::{Finding, Verdict};

const SYSTEM_DIRS: &[&str] = &[
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/home",
    "/lib",
    "/lib32",
    "/lib64",
    "/opt",
    "/proc",
    "/root",
    "/sbin",
    "/srv",
    "/sys",
    "/usr",
    "/var",
    "/Users",
    "/System",
    "/Library",
    "/Applications",
];

pub(crate) fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

pub(crate) fn is_block_device(path: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "/dev/sd",
        "/dev/hd",
        "/dev/vd",
        "/dev/xvd",
        "/dev/nvme",
        "/dev/mmcblk",
        "/dev/disk",
        "/dev/rdisk",
        "/dev/md",
        "/dev/dm-",
        "/dev/mapper/",
        "/dev/loop",
        "/dev/sr",
    ];
    PREFIXES.iter().any(|p| path.starts_with(p))
}

/// Short options of one cluster (`-rf` → `rf`); empty for long options and plain words.
fn short_flags(arg: &str) -> &str {
    match arg.strip_prefix('-') {
        Some(rest) if !rest.starts_with('-') => rest,
        _ => "",
    }
}

fn has_short(args: &[Word], flag: char) -> bool {
    args.iter().any(|a| short_flags(&a.text).contains(flag))
}

fn has_long(args: &[Word], name: &str) -> bool {
    args.iter()
        .any(|a| a.text == name || a.text.starts_with(&format!("{name}=")))
}

fn subcommand(args: &[Word]) -> Option<&str> {
    operands(args).next().map(|w| w.text.as_str())
}

fn operands(args: &[Word]) -> impl Iterator<Item = &Word> {
    args.iter()
        .filter(|a| !a.text.starts_with('-') || a.text == "-")
}

/// Whether deleting or re-permissioning `target` recursively would wreck the system or home.
pub(crate) fn catastrophic_target(target: &str, home: Option<&str>) -> bool {
    let trimmed = target.trim_end_matches("/*").trim_end_matches('/');
    let trimmed = if trimmed.is_empty() { "/" } else { trimmed };
    matches!(
        trimmed,
        "/" | "/." | "~" | "$HOME" | "${HOME}" | "~/." | "/*"
    ) || SYSTEM_DIRS.contains(&trimmed)
        || home.is_some_and(|h| trimmed == h.trim_end_matches('/'))
}

/// The tables: commands that delete, overwrite, escalate, install or control the system.
pub(crate) fn explain(base: &str, args: &[Word], home: Option<&str>) -> Vec<Finding> {
    let mut walker = Findings {
        home,
        out: Vec::new(),
    };
    let walker = &mut walker;
    let ask = |walker: &mut Findings<'_>, reason: String| walker.find(Verdict::Ask, reason);
    match base {
        "rm" => {
            let recursive =
                has_short(args, 'r') || has_short(args, 'R') || has_long(args, "--recursive");
            if has_long(args, "--no-preserve-root") {
                walker.find(
                    Verdict::Deny,
                    "`rm --no-preserve-root` can delete the whole system",
                );
            }
            let fatal = operands(args).find(|t| catastrophic_target(&t.text, walker.home));
            match (recursive, fatal) {
                (true, Some(target)) => walker.find(
                    Verdict::Deny,
                    format!(
                        "`rm -r {}` would delete a whole system or home directory",
                        target.text
                    ),
                ),
                (true, None) => ask(walker, "`rm -r` deletes files recursively".into()),
                (false, _) => ask(walker, "`rm` deletes files".into()),
            }
        }
        "rmdir" | "unlink" => ask(walker, format!("`{base}` deletes files")),
        "shred" | "wipe" | "srm" => {
            if operands(args).any(|t| is_block_device(&t.text)) {
                walker.find(
                    Verdict::Deny,
                    format!("`{base}` would destroy a whole disk"),
                );
            } else {
                ask(walker, format!("`{base}` destroys files beyond recovery"));
            }
        }
        "truncate" => ask(walker, "`truncate` cuts files short".into()),
        "mv" => ask(
            walker,
            "`mv` moves files and can overwrite the destination".into(),
        ),
        "cp" => ask(walker, "`cp` can overwrite the destination".into()),
        "ln" if has_short(args, 'f') || has_long(args, "--force") => {
            ask(walker, "`ln -f` replaces existing files".into());
        }
        "tee" => {
            if operands(args).any(|t| t.text != "/dev/null" && t.text != "-") {
                ask(walker, "`tee` writes to files".into());
            }
        }
        "dd" => {
            let target = args.iter().find_map(|a| a.text.strip_prefix("of="));
            if target.is_some_and(is_block_device) {
                walker.find(Verdict::Deny, "`dd` would overwrite a block device");
            } else {
                ask(walker, "`dd` writes raw data".into());
            }
        }
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
            if operands(args).any(|t| is_block_device(&t.text)) {
                walker.find(
                    Verdict::Deny,
                    format!("`{name}` would rewrite a block device"),
                );
            } else {
                ask(walker, format!("`{name}` formats or repartitions disks"));
            }
        }
        "chmod" | "chown" | "chgrp" | "chattr" | "setfacl" => {
            let recursive = has_short(args, 'R') || has_long(args, "--recursive");
            if recursive && operands(args).any(|t| catastrophic_target(&t.text, walker.home)) {
                walker.find(
                    Verdict::Deny,
                    format!("a recursive `{base}` of a system or home directory"),
                );
            } else if recursive {
                ask(walker, format!("`{base} -R` changes a whole tree"));
            } else if matches!(base, "chattr" | "setfacl") {
                ask(walker, format!("`{base}` changes file attributes"));
            }
        }
        "kill" | "pkill" | "killall" | "xkill" | "skill" => {
            ask(walker, format!("`{base}` sends signals to processes"));
        }
        "sed" if has_short(args, 'i') || has_long(args, "--in-place") => {
            ask(walker, "`sed -i` edits files in place".into());
        }
        "perl" | "ruby" if has_short(args, 'i') => {
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

/// Collects findings with the home directory at hand.
struct Findings<'a> {
    home: Option<&'a str>,
    out: Vec<Finding>,
}

impl Findings<'_> {
    fn find(&mut self, verdict: Verdict, reason: impl Into<String>) {
        self.out.push(Finding {
            verdict,
            reason: reason.into(),
        });
    }
}

/// Why a program that is not in the safe table asks, for the categories a person recognises.
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
        | "CARGO_BUILD_RUSTFLAGS" => !CHOOSES_PROGRAMS.iter().any(|p| value.contains(p)),
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
    if tunes { None } else { risky_variable(name) }
}

/// Why setting an environment variable of this name before a command is not safe, if it is not:
/// it changes which programs, libraries, configuration or startup code the command loads.
pub(crate) fn risky_variable(name: &str) -> Option<&'static str> {
    const HARMLESS: &[&str] = &[
        "RUST_BACKTRACE",
        "RUST_LOG",
        "RUST_TEST_THREADS",
        "CARGO_TERM_COLOR",
        "CARGO_INCREMENTAL",
        "CARGO_TARGET_DIR",
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
    const RISKY: &[&str] = &[
        "LD_", "DYLD_", "PATH", "ENV", "HOME", "CONFIG", "OPT", "EDITOR", "VISUAL", "PAGER",
        "SHELL", "COMMAND", "CMD", "WRAPPER", "PROMPT", "IFS", "PS4", "GIT_", "LIB", "PRELOAD",
        "STARTUP", "RUSTC", "LINKER", "CC", "CXX", "HOOK", "EXEC", "BROWSER", "SSH", "PYTHON",
        "PERL", "RUBY", "NODE", "BASH", "DIR", "FLAGS", "RC", "LESS", "PROGRAM", "RUNNER",
        "PLUGIN", "INCLUDE", "PROXY", "TOOL", "MAKE", "GLOB",
    ];
    let upper = name.to_ascii_uppercase();
    if HARMLESS.contains(&upper.as_str()) || upper.starts_with("LC_") {
        return None;
    }
    RISKY
        .iter()
        .any(|fragment| upper.contains(fragment))
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
