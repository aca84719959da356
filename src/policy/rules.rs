//! What one simple command (its words, quotes removed) calls for: the tables of risky commands and
//! the wrappers (`sudo`, `env`, `xargs`, `bash -c`, ...) whose inner command is checked in turn.

use super::Verdict;
use super::command::Walker;

/// One shell word as far as it is known before running.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub text: String,
    /// Holds an expansion or substitution: its value is only known at run time.
    pub dynamic: bool,
}

impl Word {
    pub fn literal(text: impl Into<String>) -> Self {
        Word {
            text: text.into(),
            dynamic: false,
        }
    }
}

/// Programs that run the program text they are given on stdin.
pub const INTERPRETERS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "mksh",
    "fish",
    "csh",
    "tcsh",
    "python",
    "python2",
    "python3",
    "perl",
    "ruby",
    "node",
    "nodejs",
    "deno",
    "bun",
    "php",
    "lua",
    "pwsh",
    "osascript",
];

const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh",
];

/// Top-level directories whose recursive deletion or re-permissioning wrecks a system.
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

pub fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

pub fn is_block_device(path: &str) -> bool {
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

fn operands(args: &[Word]) -> impl Iterator<Item = &Word> {
    args.iter()
        .filter(|a| !a.text.starts_with('-') || a.text == "-")
}

/// Whether deleting or re-permissioning `target` recursively would wreck the system or home.
fn catastrophic_target(target: &str, home: Option<&str>) -> bool {
    let trimmed = target.trim_end_matches("/*").trim_end_matches('/');
    let trimmed = if trimmed.is_empty() { "/" } else { trimmed };
    matches!(
        trimmed,
        "/" | "/." | "~" | "$HOME" | "${HOME}" | "~/." | "/*"
    ) || SYSTEM_DIRS.contains(&trimmed)
        || home.is_some_and(|h| trimmed == h.trim_end_matches('/'))
}

/// Skips a wrapper's options: `with_value` lists the options that take the next word.
fn skip_options<'a>(args: &'a [Word], with_value: &[&str]) -> &'a [Word] {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        if text == "--" {
            return &args[i + 1..];
        }
        if !text.starts_with('-') || text == "-" {
            break;
        }
        i += if with_value.contains(&text) { 2 } else { 1 };
    }
    args.get(i..).unwrap_or(&[])
}

/// Classifies one simple command.
pub(super) fn classify(walker: &mut Walker<'_>, words: &[Word], depth: usize) {
    let Some((name, args)) = words.split_first() else {
        return;
    };
    if name.dynamic {
        walker.find(
            Verdict::Ask,
            format!("the command name `{}` is computed at run time", name.text),
        );
        return;
    }
    let base = basename(&name.text);
    if wrapper(walker, base, args, depth) {
        return;
    }
    for arg in args {
        if let Some(what) = super::path::sensitive_mention(&arg.text, walker.home) {
            walker.find(Verdict::Ask, format!("it touches {what}"));
        }
    }
    simple(walker, base, args);
}

/// Wrappers run another command; returns true when `base` is one (the inner command is classified).
fn wrapper(walker: &mut Walker<'_>, base: &str, args: &[Word], depth: usize) -> bool {
    let inner: &[Word] = match base {
        "sudo" | "doas" | "pkexec" | "run0" => {
            walker.find(
                Verdict::Ask,
                format!("`{base}` runs a command with elevated privileges"),
            );
            skip_options(
                args,
                &[
                    "-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "--user", "--group",
                ],
            )
        }
        "su" => {
            walker.find(Verdict::Ask, "`su` runs commands as another user");
            if let Some(pos) = args
                .iter()
                .position(|a| a.text == "-c" || a.text == "--command")
            {
                shell_string(walker, args.get(pos + 1), depth);
            }
            return true;
        }
        "env" => {
            if let Some(pos) = args
                .iter()
                .position(|a| a.text == "-S" || a.text == "--split-string")
            {
                shell_string(walker, args.get(pos + 1), depth);
                return true;
            }
            let rest = skip_options(args, &["-u", "--unset", "-C", "--chdir"]);
            let start = rest
                .iter()
                .position(|a| !a.text.contains('='))
                .unwrap_or(rest.len());
            &rest[start..]
        }
        "nice" => skip_options(args, &["-n", "--adjustment"]),
        "ionice" => skip_options(args, &["-c", "-n", "-p", "--class", "--classdata"]),
        "nohup" | "exec" | "builtin" | "time" | "setsid" | "unbuffer" | "stdbuf" | "chronic" => {
            skip_options(args, &["-a"])
        }
        "command" => {
            if args.iter().any(|a| a.text == "-v" || a.text == "-V") {
                return true; // a lookup, not a run
            }
            skip_options(args, &[])
        }
        "timeout" => {
            let rest = skip_options(args, &["-s", "--signal", "-k", "--kill-after"]);
            rest.get(1..).unwrap_or(&[])
        }
        "xargs" => {
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
            if rest.is_empty() {
                return true; // runs echo
            }
            rest
        }
        "watch" => {
            let rest = skip_options(args, &["-n", "--interval", "-d"]);
            let joined = Word {
                text: rest
                    .iter()
                    .map(|w| w.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
                dynamic: rest.iter().any(|w| w.dynamic),
            };
            shell_string(walker, Some(&joined), depth);
            return true;
        }
        "eval" => {
            let joined = Word {
                text: args
                    .iter()
                    .map(|w| w.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
                dynamic: args.iter().any(|w| w.dynamic),
            };
            shell_string(walker, Some(&joined), depth);
            return true;
        }
        shell if SHELLS.contains(&shell) => {
            let Some(pos) = args.iter().position(|a| short_flags(&a.text).contains('c')) else {
                return false;
            };
            shell_string(walker, args.get(pos + 1), depth);
            return true;
        }
        "find" => {
            find(walker, args, depth);
            return true;
        }
        _ => return false,
    };
    classify(walker, inner, depth);
    true
}

/// The program string of `bash -c`, `eval`, `su -c`, `watch`: parsed and checked in turn.
fn shell_string(walker: &mut Walker<'_>, string: Option<&Word>, depth: usize) {
    match string {
        Some(word) if word.dynamic => walker.find(
            Verdict::Ask,
            format!("runs a shell string computed at run time: {}", word.text),
        ),
        Some(word) => walker.source(&word.text, depth + 1),
        None => {}
    }
}

fn find(walker: &mut Walker<'_>, args: &[Word], depth: usize) {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        match arg.text.as_str() {
            "-delete" => walker.find(Verdict::Ask, "`find -delete` deletes the files it finds"),
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let rest = &args[i + 1..];
                let end = rest
                    .iter()
                    .position(|w| w.text == ";" || w.text == "+")
                    .unwrap_or(rest.len());
                classify(walker, &rest[..end], depth);
                i += end;
            }
            "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                walker.find(
                    Verdict::Ask,
                    format!("`find {}` writes to a file", arg.text),
                );
            }
            _ => {}
        }
        i += 1;
    }
}

/// The tables: commands that delete, overwrite, escalate, install or control the system.
fn simple(walker: &mut Walker<'_>, base: &str, args: &[Word]) {
    let ask = |walker: &mut Walker<'_>, reason: String| walker.find(Verdict::Ask, reason);
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
        "git" => git(walker, args),
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
}

fn subcommand(args: &[Word]) -> Option<&str> {
    operands(args).next().map(|w| w.text.as_str())
}

fn git(walker: &mut Walker<'_>, args: &[Word]) {
    let rest = skip_options(
        args,
        &["-C", "-c", "--git-dir", "--work-tree", "--namespace"],
    );
    let Some((sub, sub_args)) = rest.split_first() else {
        return;
    };
    let reason = match sub.text.as_str() {
        "reset" if has_long(sub_args, "--hard") || has_long(sub_args, "--merge") => {
            "`git reset --hard` discards uncommitted changes"
        }
        "clean" if has_short(sub_args, 'f') || has_long(sub_args, "--force") => {
            "`git clean -f` deletes untracked files"
        }
        "push"
            if has_short(sub_args, 'f')
                || has_long(sub_args, "--force")
                || has_long(sub_args, "--force-with-lease")
                || has_long(sub_args, "--mirror")
                || has_long(sub_args, "--delete")
                || has_short(sub_args, 'd')
                || operands(sub_args)
                    .any(|w| w.text.starts_with('+') || w.text.starts_with(':')) =>
        {
            "a forced or deleting `git push` rewrites the remote"
        }
        "branch"
            if has_short(sub_args, 'D')
                || (has_long(sub_args, "--delete") && has_long(sub_args, "--force")) =>
        {
            "`git branch -D` deletes a branch that may be unmerged"
        }
        "checkout"
            if sub_args.iter().any(|a| a.text == "--" || a.text == ".")
                || has_short(sub_args, 'f') =>
        {
            "`git checkout -- <paths>` discards changes to files"
        }
        // Only `--staged` alone just unstages; touching the worktree discards edits.
        "restore"
            if !(has_long(sub_args, "--staged") || has_short(sub_args, 'S'))
                || has_long(sub_args, "--worktree")
                || has_short(sub_args, 'W') =>
        {
            "`git restore` discards changes to files"
        }
        "stash" if matches!(subcommand(sub_args), Some("drop" | "clear")) => {
            "`git stash drop` deletes stashed work"
        }
        "filter-branch" | "filter-repo" => "rewrites the repository's history",
        "update-ref" if has_short(sub_args, 'd') => "`git update-ref -d` deletes a ref",
        "reflog" if matches!(subcommand(sub_args), Some("expire" | "delete")) => {
            "deletes reflog entries"
        }
        "gc" if sub_args.iter().any(|a| a.text.starts_with("--prune")) => {
            "`git gc --prune` deletes unreachable objects"
        }
        _ => return,
    };
    walker.find(Verdict::Ask, reason);
}

/// Package installs and system or service control.
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
