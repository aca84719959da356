//! Programs that run a command under changed conditions (another root, user, group,
//! namespace, resource limit, CPU set, tracer, debugger, proxy, display or session): none is
//! trusted by itself, and what it runs is judged as a command of its own, so `chroot / rm -rf ~`
//! is denied like `rm -rf ~`.

use super::args::skip_options;
use super::shell::Word;

/// What a harness runs.
pub(super) enum Harnessed<'w> {
    /// The command in these words.
    Command(&'w [Word]),
    /// A shell string (`sg GROUP -c 'LINE'`, `runuser USER -c 'LINE'`).
    String(Option<&'w Word>),
}

/// Each harness: its names, how many words it takes before the command (a new root, an
/// architecture), and its options that take the next word.
const HARNESSES: &[(&[&str], usize, &[&str])] = &[
    (&["fakeroot"], 0, &["-l", "--lib", "--faked", "-s", "-i"]),
    (&["chroot"], 1, &["--userspec", "--groups"]),
    (
        &["setpriv"],
        0,
        &[
            "--reuid",
            "--regid",
            "--ruid",
            "--euid",
            "--rgid",
            "--egid",
            "--groups",
            "--inh-caps",
            "--ambient-caps",
            "--bounding-set",
            "--securebits",
            "--pdeathsig",
            "--selinux-label",
            "--apparmor-profile",
            "--landlock-access",
            "--landlock-rule",
        ],
    ),
    (&["prlimit"], 0, &["-p", "--pid", "-o", "--output"]),
    (&["firejail"], 0, &[]),
    (
        &["nsenter"],
        0,
        &[
            "-t", "--target", "-S", "--setuid", "-G", "--setgid", "-w", "--wd", "-r", "--root",
        ],
    ),
    (&["cgexec"], 0, &["-g"]),
    (
        &["numactl"],
        0,
        &[
            "-C",
            "--physcpubind",
            "-N",
            "--cpunodebind",
            "-m",
            "--membind",
            "-p",
            "--preferred",
            "-i",
            "--interleave",
            "-P",
            "--preferred-many",
        ],
    ),
    (&["setarch"], 1, &[]),
    (&["linux32", "linux64", "i386", "x86_64", "uname26"], 0, &[]),
    (&["eatmydata", "catchsegv", "valgrind"], 0, &[]),
    (
        &["strace"],
        0,
        &[
            "-o", "-e", "-p", "-s", "-u", "-E", "-P", "-a", "-b", "-I", "-O", "-S", "-X", "-U",
        ],
    ),
    (
        &["ltrace"],
        0,
        &[
            "-o", "-e", "-p", "-s", "-u", "-n", "-a", "-l", "-x", "-L", "-F", "-A", "-D",
        ],
    ),
    (
        &["torsocks"],
        0,
        &[
            "-u",
            "-p",
            "-a",
            "-P",
            "--user",
            "--pass",
            "--address",
            "--port",
        ],
    ),
    (&["proxychains", "proxychains4"], 0, &["-f"]),
    // Agents, session and inhibitor launchers: they run the command they are given.
    (&["ssh-agent"], 0, &["-a", "-E", "-t", "-P", "-O"]),
    (
        &["systemd-inhibit"],
        0,
        &["--what", "--who", "--why", "--mode"],
    ),
    (&["dbus-launch"], 0, &["--config-file", "--autolaunch"]),
    // Multi-call binaries (`toybox rm`) and the dynamic loader (`ld-linux.so.2 /bin/rm`).
    (&["toybox"], 0, &[]),
    (
        &[
            "ld.so",
            "ld-linux.so.2",
            "ld-linux-x86-64.so.2",
            "ld-linux-aarch64.so.1",
        ],
        0,
        &[
            "--library-path",
            "--preload",
            "--argv0",
            "--audit",
            "--inhibit-rpath",
        ],
    ),
    (
        &["dbus-run-session"],
        0,
        &["--config-file", "--dbus-daemon"],
    ),
    (
        &["xvfb-run"],
        0,
        &[
            "-n",
            "--server-num",
            "-s",
            "--server-args",
            "-e",
            "--error-file",
            "-f",
            "--auth-file",
            "-p",
            "--xauth-protocol",
            "-w",
            "--wait",
        ],
    ),
];

/// bubblewrap's options that take two words, and those that take one.
const BWRAP_TWO: &[&str] = &[
    "--bind",
    "--ro-bind",
    "--dev-bind",
    "--bind-try",
    "--ro-bind-try",
    "--dev-bind-try",
    "--symlink",
    "--setenv",
    "--file",
    "--bind-data",
    "--ro-bind-data",
    "--chmod",
];
const BWRAP_ONE: &[&str] = &[
    "--dir",
    "--tmpfs",
    "--proc",
    "--dev",
    "--chdir",
    "--uid",
    "--gid",
    "--hostname",
    "--unsetenv",
    "--lock-file",
    "--sync-fd",
    "--info-fd",
    "--seccomp",
    "--exec-label",
    "--file-label",
    "--remount-ro",
    "--mqueue",
    "--perms",
    "--size",
    "--userns",
    "--pidns",
    "--cap-add",
    "--cap-drop",
    "--argv0",
    "--json-status-fd",
    "--block-fd",
    "--userns-block-fd",
    "--add-seccomp-fd",
    "--args",
];

/// What `base` runs, when it is a harness.
pub(super) fn harnessed<'w>(base: &str, args: &'w [Word]) -> Option<Harnessed<'w>> {
    match base {
        "sg" | "runuser" => {
            if let Some(at) = args
                .iter()
                .position(|a| a.text == "-c" || a.text == "--command")
            {
                return Some(Harnessed::String(args.get(at + 1)));
            }
            let valued = [
                "-u",
                "--user",
                "-g",
                "--group",
                "-G",
                "--supp-group",
                "-s",
                "--shell",
            ];
            let rest = skip_options(args, &valued);
            let named_user = args.iter().any(|a| a.text == "-u" || a.text == "--user");
            let lead = usize::from(base == "sg" || !named_user);
            // `sg GROUP LINE`: the line is one word (several are read as one command).
            if base == "sg" && rest.len() <= lead + 1 {
                return Some(Harnessed::String(rest.get(lead)));
            }
            Some(Harnessed::Command(rest.get(lead..).unwrap_or(&[])))
        }
        "gdb" | "cgdb" => {
            let rest = match args.iter().position(|a| a.text == "--args") {
                Some(at) => args.get(at + 1..).unwrap_or(&[]),
                None => skip_options(args, &["-ex", "-x", "-ix", "-iex", "-p", "--pid", "-cd"]),
            };
            Some(Harnessed::Command(rest))
        }
        "bwrap" => Some(Harnessed::Command(bwrap(args))),
        // `xterm -e CMD ARGS`: everything after `-e` is the command.
        "xterm" | "uxterm" | "x-terminal-emulator" => {
            let at = args.iter().position(|a| a.text == "-e")?;
            Some(Harnessed::Command(args.get(at + 1..).unwrap_or(&[])))
        }
        _ if base.starts_with("ld-linux") || base.starts_with("ld-musl") => {
            let valued = ["--library-path", "--preload", "--argv0", "--audit"];
            Some(Harnessed::Command(skip_options(args, &valued)))
        }
        _ => {
            let (_, lead, valued) = HARNESSES
                .iter()
                .find(|(names, _, _)| names.contains(&base))?;
            let after_lead = if base == "setarch" || base == "chroot" {
                // The new root or architecture comes first, the options after it or before.
                let rest = skip_options(args, valued);
                rest.get(*lead..).map(|r| skip_options(r, valued))
            } else {
                Some(skip_options(args, valued))
            };
            Some(Harnessed::Command(after_lead.unwrap_or(&[])))
        }
    }
}

/// `bwrap OPTIONS [--] COMMAND`: options take zero, one or two words.
fn bwrap(args: &[Word]) -> &[Word] {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        if text == "--" {
            return args.get(i + 1..).unwrap_or(&[]);
        }
        if !text.starts_with("--") {
            break;
        }
        i += 1 + if BWRAP_TWO.contains(&text) {
            2
        } else {
            usize::from(BWRAP_ONE.contains(&text))
        };
    }
    args.get(i..).unwrap_or(&[])
}
