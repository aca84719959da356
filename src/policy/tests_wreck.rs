//! Catastrophes are denied by what they do, not how they are spelled: abbreviated long options,
//! other programs that delete trees (`find -delete`, `rsync --delete`, `tar --remove-files`),
//! runners in front, globs naming devices, the whole system tree, every process, the files the
//! system needs. Everyday forms of the same programs are not denied.

use super::Verdict;
use super::tests_spelling::{all_denied, no_rule_approves, only_a_person, verdicts, world};

#[test]
fn catastrophes_are_denied_under_abbreviated_long_options() {
    all_denied(&[
        "rm --r -f ~",
        "rm --r -f /",
        "rm -f --r ~",
        "rm --re --f /",
        "rm --recursive=x /",
        "rm --n -rf /",
        "chown --rec x /",
        "chmod --recu 777 ~",
    ]);
}

#[test]
fn find_deleting_from_root_or_home_is_denied() {
    all_denied(&[
        "find / -delete",
        "find ~ -delete",
        "find ~/ -delete",
        "find $HOME -delete",
        "find / -depth -delete",
        "find -L / -delete",
        "find /. -delete",
        "find / -exec rm -rf {} +",
        "find ~ -exec rm -r {} +",
        "find / -type f -exec shred {} ;",
        "find /usr -execdir /bin/rm {} ;",
    ]);
}

#[test]
fn runners_in_front_of_a_catastrophe_do_not_hide_it() {
    all_denied(&[
        "busybox rm -rf ~",
        "flock /tmp/l rm -rf ~",
        "flock -w 3 /tmp/l -c 'rm -rf ~'",
        "script -c 'rm -rf ~'",
        "script -q -c 'rm -rf /' /dev/null",
        "chrt 1 rm -rf ~",
        "taskset 1 rm -rf ~",
        "unshare rm -rf ~",
        "setsid rm -rf ~",
        "stdbuf -o0 rm -rf ~",
        "ionice -c3 rm -rf ~",
        "nohup rm -rf ~",
        "parallel rm -rf ::: ~",
        "parallel -j2 rm -rf ::: build /",
        "env --s='rm -rf ~'",
        "env --s 'rm -rf ~'",
        "env --sp='rm -rf /usr'",
        "env -S 'rm\\_-rf\\_/usr'",
        "env -S 'rm\\_-rf\\_${HOME}'",
        "env -S 'bash -c \"rm\\_-rf\\_~\"'",
    ]);
}

#[test]
fn globs_naming_block_devices_are_denied() {
    all_denied(&[
        "dd if=/dev/zero of=/dev/sd?",
        "dd if=/dev/zero of=/dev/sd*",
        "dd if=/dev/zero of=/dev/sd[a]",
        "dd if=/dev/zero of=/dev/s?a",
        "mkfs.ext4 /dev/sd?",
        "wipefs -a /dev/sd*",
        "mkdosfs /dev/sda",
        "mkntfs /dev/sda",
    ]);
}

#[test]
fn the_system_tree_is_denied_by_category() {
    all_denied(&[
        "rm -rf /var/lib",
        "rm -rf /var/lib/dpkg",
        "rm -rf /boot/efi",
        "rm -rf /etc/systemd",
        "rm -rf /run",
        "rm -rf /nix",
        "rm -rf /snap",
        "rm -rf /var/log",
        "rm -rf /opt",
        "rm -rf /usr/share/doc",
        "rm -rf {/,}",
        "rm -rf {~,}",
        "rm {-rf,/}",
    ]);
}

#[test]
fn other_tree_wipes_every_process_and_system_files_are_denied() {
    all_denied(&[
        "rsync -a --delete /tmp/empty/ /",
        "rsync -r --del e/ ~",
        "rsync --remove-source-files -r ~ /tmp/x",
        "tar -cf /dev/null --remove-files /",
        "tar --remove-files -cf /tmp/x.tar ~",
        "kill -9 -1",
        "kill -s KILL -1",
        "kill -KILL -- -1",
        "echo c > /proc/sysrq-trigger",
        "echo 1 | tee /proc/sys/kernel/panic",
        "ln -sf /dev/null /bin/sh",
        "ln -sfT x /usr/bin/python3",
        "truncate -s0 /etc/passwd",
        "> /etc/passwd",
        "cp -a /dev/null /etc/passwd",
        "chmod 000 /",
        "chown nobody /usr",
        "zpool destroy tank",
        "lvremove -f vg/root",
        "nvme format /dev/nvme0n1",
    ]);
}

#[test]
fn everyday_forms_of_the_same_programs_are_not_denied() {
    let world = world();
    let denied: Vec<String> = verdicts(
        &world,
        &[
            "rm -rf target",
            "rm -rf build dist",
            "rm --force notes.txt",
            "find . -name '*.o' -delete",
            "find src -name '*.orig' -exec rm {} +",
            "find / -name passwd",
            "rsync -a --delete src/ backup/",
            "tar -cf out.tar --remove-files build",
            "kill -9 1234",
            "kill -1 1234",
            "ln -sf ../README.md docs/README.md",
            "echo hi > out.txt",
            "truncate -s0 log.txt",
            "flock /tmp/l cargo build",
            "taskset 1 cargo test",
            "chmod +x build.sh",
            "chmod 644 /tmp/x",
            "zpool status",
        ],
    )
    .into_iter()
    .filter(|(_, v, _, _)| *v == Verdict::Deny)
    .map(|(line, _, _, reasons)| format!("{line:?}: {reasons:?}"))
    .collect();
    assert!(denied.is_empty(), "denied:\n{}", denied.join("\n"));
}

#[test]
fn options_that_change_the_build_description_are_never_approved_by_a_rule() {
    let world = world();
    no_rule_approves(
        &world,
        &[
            "make deploy SHELL=/tmp/x",
            "make deploy -f /tmp/M",
            "make deploy --eval='$(shell id)'",
            "make deploy -C ~",
            "make deploy 'x!=rm -rf ~'",
            "make deploy MAKEFLAGS=--eval=x",
            "make CC='rm -rf ~'",
            "make -I /tmp deploy",
            "cargo test --manifest-path /tmp/x/Cargo.toml",
            "cargo test -Zunstable-options",
            "cargo +nightly test",
            "npm --prefix /tmp/x test",
            "npm test --prefix=/tmp/x",
        ],
    );
}

#[test]
fn positional_parameters_of_a_shell_string_carry_the_catastrophe() {
    all_denied(&[
        "sh -c 'rm -rf $0' ~",
        "sh -c 'rm -rf \"$1\"' _ ~",
        "bash -c 'rm -rf $1' x /",
        "bash -c 'rm -rf ${1}' x /usr",
        "sh -c 'rm -rf $@' x /",
        "sh -c 'rm -rf \"$@\"' x ~",
    ]);
    // The words after the string are `$1`, `$@` as given, options too (classifier round 10).
    all_denied(&[
        "sh -c 'rm -rf $@' x build /",
        "bash -c 'find ~ $1' _ -delete",
        "sh -c 'find ~ \"$@\"' _ -delete",
    ]);
    let world = world();
    let got = verdicts(&world, &["sh -c 'echo $0' hi", "bash -c 'ls $1' _ src"]);
    assert!(got.iter().all(|g| g.1 == Verdict::Allow), "{got:?}");
}

#[test]
fn every_deny_row_stays_denied_behind_every_runner() {
    let rows = [
        "rm -rf ~",
        "rm --r -f /",
        "rm -rf /var/lib",
        "find / -delete",
        "chmod -R 777 /",
        "dd if=/dev/zero of=/dev/sd?",
        "kill -9 -1",
        "rsync -a --delete e/ /",
        "ln -sf /dev/null /bin/sh",
    ];
    let prefixes = [
        "nohup ",
        "timeout 5 ",
        "nice -n 5 ",
        "env ",
        "env -i ",
        "stdbuf -o0 ",
        "setsid ",
        "ionice -c3 ",
        "busybox ",
        "flock /tmp/l ",
        "chrt 1 ",
        "taskset 1 ",
        "unshare ",
        "sudo ",
    ];
    let mut lines = Vec::new();
    for row in rows {
        lines.extend(prefixes.iter().map(|p| format!("{p}{row}")));
        for quoted in [
            "sh -c '{}'",
            "bash -c '{}'",
            "env -S '{}'",
            "script -c '{}'",
        ] {
            lines.push(quoted.replace("{}", row));
        }
    }
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    all_denied(&lines);
}

/// Emptying, shredding, trashing or re-permissioning home or `/` by other programs, and
/// wiping disks through links, numbered device names or erasing tools, is denied.
#[test]
fn other_ways_to_empty_or_wipe_home_root_or_a_disk_are_denied() {
    all_denied(&[
        "python3 -m venv --clear ~",
        "python3 -m venv --clear /",
        "python3 -m venv --clear $HOME",
        "python3 -m venv --clear ~/.",
        "python3 -m venv --clear homelink",
        "python3 -mvenv --clear ~",
        "python3 -Im venv --clear ~",
        "python3 -m venv ~ --clear",
        "python3 -m venv --cl /",
        "virtualenv --clear ~",
        "uv venv ~",
        "dd of=/dev/mtdblock0",
        "dd of=/dev/nbd0",
        "dd of=/dev/sg0",
        "dd of=/dev/sd$(echo a)",
        "cat /dev/zero > /dev/nbd1",
        "mdadm --zero-superblock /dev/sda",
        "mformat -i /dev/sda ::",
        "hdparm --security-erase x /dev/sda",
        "sg_format /dev/sda",
        "flashrom -w x",
        "find ~ -exec chmod 777 {} +",
        "find / -exec chown nobody {} +",
        "find HOMEDIR -execdir chgrp x {} ;",
        "shred -u ~/*",
        "truncate -s0 ~/*",
        "wipe -r ~",
        "srm -r ~",
        "gio trash ~",
        "trash-put ~",
        "tar -xf x.tar -C ~ --recursive-unlink",
        "git -C ~ clean -ffdx",
        "cd ~ && git clean -fdx",
    ]);
}

/// A project symlink to a block device is that device to every writer.
#[test]
fn writes_through_a_link_to_a_block_device_are_denied() {
    let world = world();
    let project = std::path::Path::new(&world.home).join("work/project");
    std::os::unix::fs::symlink("/dev/sda", project.join("disk")).expect("link");
    std::os::unix::fs::symlink("/dev/nbd0", project.join("nbd")).expect("link");
    std::os::unix::fs::symlink("/dev", project.join("devices")).expect("link");
    let lines = [
        "dd if=/dev/zero of=disk",
        "cat /dev/zero > disk",
        "cp /dev/zero disk",
        "mkfs.ext4 disk",
        "wipefs -a disk",
        "shred disk",
        "dd of=nbd",
        "dd of=devices/sdq",
        "cat /dev/zero > devices/nvme9n1",
    ];
    let wrong: Vec<String> = verdicts(&world, &lines)
        .into_iter()
        .filter(|(_, v, _, _)| *v != Verdict::Deny)
        .map(|(line, v, _, r)| format!("{line:?}: {v:?} {r:?}"))
        .collect();
    assert!(wrong.is_empty(), "not denied:\n{}", wrong.join("\n"));
}

/// Whatever runs a command under changed conditions, the command is judged: a catastrophe
/// under any of them is denied.
#[test]
fn what_a_harness_runs_is_judged() {
    let harnesses = [
        "fakeroot",
        "chroot /",
        "chroot --userspec=0:0 /",
        "setpriv --reuid=0",
        "prlimit --nofile=10",
        "runuser -u root --",
        "firejail",
        "nsenter -t 1 -m",
        "sg root",
        "cgexec -g cpu:x",
        "numactl -a",
        "numactl -N 0",
        "linux64",
        "setarch x86_64",
        "setarch x86_64 -R",
        "eatmydata",
        "catchsegv",
        "valgrind",
        "strace -f",
        "strace -o /tmp/x",
        "ltrace",
        "gdb --args",
        "torsocks",
        "proxychains",
        "dbus-run-session",
        "xvfb-run",
        "xvfb-run -s '-screen 0'",
        "bwrap --bind / /",
        "bwrap --dev /dev --",
    ];
    let lines: Vec<String> = harnesses.iter().map(|h| format!("{h} rm -rf ~")).collect();
    let mut all: Vec<&str> = lines.iter().map(String::as_str).collect();
    all.extend(["sg root 'rm -rf ~'", "runuser root -c 'rm -rf ~'"]);
    all_denied(&all);
}

/// Tools that remove a directory the line names (an option, the environment), archivers that
/// move what they archive, wrappers that run a command, and writers onto a disk.
#[test]
fn deletes_by_options_environment_wrappers_and_disk_writers_are_denied() {
    all_denied(&[
        "cargo clean --target-dir ~",
        "cargo clean --target-dir=/",
        "CARGO_TARGET_DIR=~ cargo clean",
        "export CARGO_TARGET_DIR=~; cargo clean",
        "pytest --basetemp ~",
        "pytest --basetemp=/",
        "python3 -m pytest --basetemp ~",
        "GOMODCACHE=~ go clean -modcache",
        "zip -rm /tmp/x.zip ~",
        "7z a -sdel /tmp/x.7z ~",
        "git --work-tree=~ clean -ffdx",
        "coreutils --coreutils-prog=rm -rf ~",
        "/lib64/ld-linux-x86-64.so.2 /bin/rm -rf ~",
        "toybox rm -rf ~",
        "rbash -c 'rm -rf ~'",
        "ssh-agent rm -rf ~",
        "systemd-inhibit rm -rf ~",
        "dbus-launch rm -rf ~",
        "xterm -e rm -rf ~",
        "install /dev/zero /dev/sda",
        "ddrescue -f /dev/zero /dev/sda",
        "dcfldd if=/dev/zero of=/dev/sda",
    ]);
}

/// A disk writer or recursive delete whose target is only known when it runs (names `xargs`
/// reads, a variable the line never set) could be home or a disk: a person decides, never
/// `--yes` or a rule. A program ai does not know, in front of a catastrophe, wraps it.
#[test]
fn catastrophes_on_targets_known_only_at_run_time_take_a_person() {
    let world = world();
    only_a_person(
        &world,
        &[
            "xargs rm -rf <<< ~",
            "echo ~ | xargs rm -rf",
            "pwd | xargs rm -rf",
            "realpath ~ | xargs rm -r --",
            "echo /dev/sda | xargs mkfs.ext4",
            "echo /dev/sda | xargs wipefs -a",
            "xargs -I% dd if=/dev/zero of=% <<< /dev/sda",
            "xargs chmod -R 000 <<< ~",
            "xargs -i shred {} <<< /dev/sda",
            "rm -rf \"$OLDPWD\"",
            "rm -r $PREFIX",
            "chmod -R 000 \"$TARGET\"",
            "dd if=/dev/zero of=$DISK",
        ],
    );
    all_denied(&[
        "faketime now rm -rf ~",
        "faketime -f +1d rm -rf /",
        "proot rm -rf ~",
        "proot -0 chmod -R 000 /",
        "firejail --quiet rm -rf ~",
        "somewrapper -x dd if=/dev/zero of=/dev/sda",
    ]);
}

/// `..` after a link is where the kernel takes it (`rootlink/..` is `/`), and `${HOME:?}`,
/// `${HOME:-}`, `${HOME%/}` are home: the same catastrophes, denied (classifier round 5).
/// Functions that reach themselves while starting processes are fork bombs in every shape.
#[test]
fn catastrophes_through_links_with_dots_variable_operators_and_recursion_are_denied() {
    all_denied(&[
        "rm -rf rootlink/../etc",
        "rm -rf homelink/../home",
        "rm -rf src/../homelink/../home",
        "chmod -R 000 rootlink/../usr",
        "find rootlink/../usr -delete",
        "cd rootlink/../etc && rm -rf *",
        "rm -rf \"${HOME:?}\"",
        "rm -rf \"${HOME:?}/\"",
        "rm -rf \"${HOME:-}\"/*",
        "rm -rf ${HOME%/}",
        "rm -rf ${HOME:+$HOME}",
        "rm -rf \"${HOME#x}\"",
        "chmod -R 000 \"${HOME:?}\"",
        "rm -rf \"${PWD:?}\"/../../../../..",
        "f(){ f & f; }; f",
        "f(){ f& f& }; f",
        "f(){ (f&); f; }; f",
        "f(){ f & f & wait; }; f",
        "f(){ g|g& }; g(){ f|f& }; f",
        "bash -c 'f(){ f & f; }; f'",
        // Through `eval` (classifier round 14).
        "f(){ eval \"f & f\"; }; f",
        "f(){ eval f \\& f; }; f",
        "f(){ eval 'f|f&'; }; f",
        "f(){ builtin eval \"f&f\"; }; f",
        ":(){ eval \":|:&\"; };:",
        "f(){ eval \"\\$FUNCNAME & \\$FUNCNAME\"; }; f",
    ]);
}

/// Text a shell reads as its script on standard input, spelled out in the line, is judged as
/// `bash -c TEXT` is: a catastrophe there is denied, whoever approves (classifier round 14).
#[test]
fn catastrophes_fed_to_a_shell_on_stdin_are_denied() {
    all_denied(&[
        "bash <<< \"rm -rf ~\"",
        "bash - <<< \"rm -rf ~\"",
        "bash /dev/stdin <<< \"rm -rf ~\"",
        "dash <<< 'rm -rf ~'",
        "echo \"rm -rf /\" | sh",
        "printf 'rm -rf ~' | bash",
        "sh -s <<< \"rm -rf --no-preserve-root /\"",
        "bash <<< \"mkfs.ext4 /dev/sda\"",
        "bash <<'EOF'\n:(){ :|:& };:\nEOF",
        "sh <<EOF\nrm -rf ~\nEOF",
        "bash -s <<EOF\nrm -rf /\nEOF",
        "source /dev/stdin <<< \":(){ :|:& };:\"",
        "echo \":(){ :|:& };:\" | bash",
        "env bash <<< 'rm -rf ~'",
        "echo 'rm -rf ~' | sh -x 2>&1",
        "bash <(echo \"rm -rf ~\")",
        "source <(echo \"rm -rf ~\")",
        ". <(printf 'rm -rf /')",
    ]);
}

/// Any program handed a block device, by any option spelling, is denied: one rule for every
/// writer (classifier round 6: `sort -o`, `tar -cf`, `xxd -r`, `script`, `gcc -o`, ...).
/// Programs that only describe a device are not.
#[test]
fn every_writer_handed_a_block_device_is_denied() {
    all_denied(&[
        "xxd -r -p - /dev/sda <<< 00",
        "uniq /dev/urandom /dev/sda",
        "sort -o /dev/sda /dev/urandom",
        "sort -o/dev/sda x",
        "shuf -o /dev/sda -i 1-9",
        "iconv -o /dev/sda src/main.rs",
        "tar -cf /dev/sda .",
        "tar --file=/dev/nvme0n1 -c .",
        "zip -r /dev/sda .",
        "zstd -f -o /dev/sda src/main.rs",
        "git log --output=/dev/sda",
        "cmake -E copy /dev/zero /dev/sda",
        "openssl rand -out /dev/sda 100000",
        "gcc -o /dev/sda src/main.rs",
        "pv -o /dev/sda /dev/zero",
        "script -q /dev/sda",
        "script -O /dev/vda -c true",
        "tune2fs -O ^has_journal /dev/sda",
        "cat /dev/sda",
    ]);
    let world = world();
    let allowed: Vec<_> = verdicts(
        &world,
        &["lsblk /dev/sda", "ls -la /dev/sda", "stat /dev/sda"],
    )
    .into_iter()
    .filter(|(_, v, _, _)| *v == Verdict::Deny)
    .collect();
    assert!(allowed.is_empty(), "{allowed:?}");
}

/// Options kept in a variable the line sets are the options bash hands the program, and a
/// name `find -execdir` deletes is taken in a start point's parent (classifier round 7).
#[test]
fn catastrophes_through_variables_and_execdir_are_denied() {
    all_denied(&[
        "f=-delete; find ~ $f",
        "f=-delete; find / $f",
        "f=-exec; find ~ $f rm -rf {} +",
        "f=-rf; rm $f ~",
        "f='-r -f'; rm $f ~",
        "f=-rf; t=/; rm $f $t",
        "f=-de; find / ${f}lete",
        "c=rm; $c -rf ~",
        "set -- -rf; rm \"$@\" ~",
        "find /tmp -maxdepth 0 -execdir rm -rf root \\;",
        "find /usr/x -maxdepth 0 -execdir rm -rf ../etc \\;",
        // A function's body with the call's words as its arguments.
        "f() { find ~ \"$1\"; }; f -delete",
        "f() { rm -rf \"$@\"; }; f ~",
        "wipe() { dd if=/dev/zero of=$1; }; wipe /dev/sda",
        // `~user` is the home the user database gives (round 9), a trap's `$1` a later `set --`.
        "rm -rf ~bin",
        "trap 'find ~ $1' EXIT; set -- -delete",
        "f() { shift; find ~ $1; }; f x -delete",
        // Fork bombs whose calls are quoted, escaped, computed or go through eval (round 13).
        "f(){ \"f\"|\"f\"& }; f",
        ":(){ \":\"|\":\"& };:",
        "f(){ \\f & \\f; }; f",
        "x=f; f(){ $x & $x; }; f",
        "f(){ eval f & eval f; }; f",
        "f(){ command f | command f & }; f",
    ]);
}

/// A target a second assignment may or may not have changed is only known at run time: a
/// person decides (classifier round 8).
#[test]
fn targets_assigned_twice_take_a_person() {
    only_a_person(
        &world(),
        &[
            "f=/; (f=x); rm -rf $f",
            "t=~; true || t=x; rm -rf $t",
            "d=/dev/sda; (d=x); dd if=/dev/zero of=$d",
            "a=/; a=b cat; rm -rf $a",
            "a=(/); rm -rf $a",
            "a=(/dev/sda); dd if=/dev/zero of=$a",
        ],
    );
}
