//! Denies hold under every spelling: tables by category (several spellings each) and a property
//! test that generates option and path spellings of each deny row. Also who may approve what asks
//! (a computed path that may reach a secret: a person only; an option that runs a program: never
//! a rule).

use proptest::prelude::*;

use super::{Approver, Policy, Roots, Rules, Verdict};

pub(super) struct World {
    _dir: tempfile::TempDir,
    pub(super) policy: Policy,
    pub(super) home: String,
}

pub(super) fn world() -> World {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = std::fs::canonicalize(dir.path()).expect("canonical");
    let home = root.join("home");
    let project = home.join("work/project");
    std::fs::create_dir_all(project.join("src")).expect("mkdir");
    std::fs::create_dir_all(project.join(".git")).expect("mkdir");
    std::os::unix::fs::symlink("/", project.join("rootlink")).expect("link");
    std::os::unix::fs::symlink(&home, project.join("homelink")).expect("link");
    let roots = Roots::new(&["cwd".into()], &project, &root, Some(&home));
    let policy = Policy::new(roots, Some(home.clone()), project, root, Rules::default());
    World {
        _dir: dir,
        policy,
        home: home.display().to_string(),
    }
}

pub(super) fn verdicts(
    world: &World,
    table: &[&str],
) -> Vec<(String, Verdict, Approver, Vec<String>)> {
    table
        .iter()
        .map(|line| {
            let line = line.replace("HOMEDIR", &world.home);
            let got = world.policy.command(&line);
            (line, got.verdict, got.approver(), got.reasons)
        })
        .collect()
}

/// No line of `table` is one a rule (`--allow`, `[policy] allow`, "always") could approve: each
/// is denied, or asks `--yes` or a person.
pub(super) fn no_rule_approves(world: &World, table: &[&str]) {
    let wrong: Vec<String> = verdicts(world, table)
        .into_iter()
        .filter(|(_, v, a, _)| *v == Verdict::Allow || *v == Verdict::Ask && *a == Approver::Anyone)
        .map(|(line, v, a, reasons)| format!("{line:?}: {v:?} {a:?} {reasons:?}"))
        .collect();
    assert!(
        wrong.is_empty(),
        "a rule could approve:\n{}",
        wrong.join("\n")
    );
}

/// Each line of `table` is denied, or asks a person (never `--yes` or a rule).
pub(super) fn only_a_person(world: &World, table: &[&str]) {
    let wrong: Vec<String> = verdicts(world, table)
        .into_iter()
        .filter(|(_, v, a, _)| {
            !(*v == Verdict::Deny || *v == Verdict::Ask && *a == Approver::Person)
        })
        .map(|(line, v, a, reasons)| format!("{line:?}: {v:?} {a:?} {reasons:?}"))
        .collect();
    assert!(
        wrong.is_empty(),
        "approvable without a person:\n{}",
        wrong.join("\n")
    );
}

pub(super) fn all_denied(table: &[&str]) {
    let world = world();
    let wrong: Vec<String> = verdicts(&world, table)
        .into_iter()
        .filter(|(_, v, _, _)| *v != Verdict::Deny)
        .map(|(line, v, _, reasons)| format!("{line:?}: {v:?} {reasons:?}"))
        .collect();
    assert!(wrong.is_empty(), "not denied:\n{}", wrong.join("\n"));
}

#[test]
fn recursive_delete_of_root_home_parent_and_system_dirs_is_denied_by_any_spelling() {
    all_denied(&[
        "rm --recur -f ~",
        "rm --recursive --force /",
        "rm -r -f /",
        "rm -f / -r",
        "rm -Rf -- /",
        "rm -fr //",
        "rm -rf /./",
        "rm -rf '/'",
        "rm -rf \"/\"",
        "rm -rf /usr/..",
        "rm -rf /*",
        "rm -rf ~/",
        "rm -rf ~/..",
        "rm -rf ~/.",
        "rm -rf ~/*",
        "rm -rf ~/.*",
        "rm -rf $HOME",
        "rm -rf \"${HOME}/\"",
        "rm -rf HOMEDIR/src/..",
        "rm -rf ..",
        "rm -rf ../",
        "rm -rf $PWD/..",
        "rm -rf /etc/",
        "rm -rf /usr/lib",
        "rm -rf rootlink/",
        "rm -rf homelink/",
        "d=/; rm -rf $d",
        "rm -rf {/,x}",
        "rm --no-pres -rf /",
    ]);
}

#[test]
fn recursive_chmod_and_chown_of_root_and_home_are_denied_by_any_spelling() {
    all_denied(&[
        "chmod --recurs 777 /",
        "chmod -R 777 /",
        "chmod 777 / -R",
        "chmod -fR a+rwx ~",
        "chmod --recursive=yes 000 $HOME",
        "chown -R nobody /",
        "chown -hR nobody: ~/",
        "chgrp --recur users /etc",
        "chmod -R 700 /usr/..",
    ]);
}

#[test]
fn moves_and_copies_over_root_home_or_devices_are_denied() {
    all_denied(&[
        "mv / /dev/null",
        "mv ~ /tmp/x",
        "mv -- $HOME x",
        "mv -t /tmp ~",
        "mv /etc /tmp/e",
        "cp -r x /",
        "cp -a x /usr",
        "cp -r dotfiles/. ~",
        "cp x /dev/sda",
        "cp x /dev/../dev/sdb",
    ]);
}

#[test]
fn writes_onto_block_devices_are_denied_by_any_spelling() {
    all_denied(&[
        "dd if=/dev/zero of=/dev/sda",
        "dd of=/dev//sda if=/dev/zero bs=1M",
        "dd if=x of=/dev/./nvme0n1",
        "mkfs.ext4 /dev/sdb1",
        "mkfs -t ext4 /dev/vdb",
        "wipefs -a /dev/sda",
        "wipefs --all -- /dev/sda",
        "shred -n 3 /dev/sda",
        "echo x > /dev//sda",
        "cat x | tee /dev/sda",
    ]);
}

#[test]
fn reading_secrets_by_computed_paths_never_runs_without_a_person() {
    let world = world();
    only_a_person(
        &world,
        &[
            "cat ~/.ss''h/id_rsa",
            "cat $HOME/.ssh/id_*",
            "cat ~/.ssh/*",
            "d=~/.ssh; cat $d/id_rsa",
            "d=$HOME/.ssh; cat $d/id_rsa",
            "d=$(echo ~/.ssh); cat $d/id_rsa",
            "cat $(echo ~/.ssh)/id_rsa",
            "cat ~/.s?h/id_rsa",
            "cat ~/.[s]sh/id_rsa",
            "for x in .ssh; do cat ~/$x/id_rsa; done",
            "for x in .ssh .aws; do cat ~/$x/*; done",
            "read d < f; cat ~/$d/id_rsa",
            "cat `echo ~`/.ssh/id_rsa",
            "cat \"$(ls -d ~/.ss*)\"/id_rsa",
        ],
    );
}

#[test]
fn options_and_variables_that_run_programs_are_never_approved_by_a_rule() {
    let world = world();
    no_rule_approves(
        &world,
        &[
            "git push --receive-pack='touch x; git-receive-pack' origin",
            "git push --receive=x origin",
            "git fetch --upload-pack=x origin",
            "git clone -u 'touch x' repo",
            "git -c core.sshCommand='touch x' push",
            "git -c alias.p='!touch x' p",
            "git -c diff.x.command=touch diff",
            "git --config-env=core.pager=X log",
            "GIT_SSH_COMMAND='touch x' git push",
            "env GIT_SSH_COMMAND='touch x' git push",
            "ssh -o ProxyCommand='touch x' host",
            "ssh -oProxyCommand=x host",
            "rsync -e 'touch x' a b:",
            "scp -S ./x a b:",
            "sudo git push",
            "xargs git push < list",
            "git diff --ext-diff",
        ],
    );
}

#[test]
fn everyday_commands_with_loops_and_substitutions_stay_unasked() {
    let world = world();
    std::fs::write(world.policy.cwd.join("a.rs"), "").expect("write");
    let wrong: Vec<String> = verdicts(
        &world,
        &[
            "for f in *.rs; do wc -l $f; done",
            "for f in src/*.rs; do echo \"$f\"; done",
            "v=$(git rev-parse HEAD); echo $v",
            "diff <(ls src) <(ls .)",
            "rm -rf target",
            "ls ~",
        ],
    )
    .into_iter()
    .filter(|(line, v, _, _)| *v != Verdict::Allow && !line.starts_with("rm"))
    .map(|(line, v, _, reasons)| format!("{line:?}: {v:?} {reasons:?}"))
    .collect();
    assert!(wrong.is_empty(), "asked:\n{}", wrong.join("\n"));
}

/// Deny rows with `FLAGS` and `TARGET` holes: each spelling of the options and of the target
/// must keep the deny.
const ROWS: &[(&str, &[&str], &[&str])] = &[
    (
        "rm FLAGS TARGET",
        &[
            "-rf",
            "-fr",
            "-Rf",
            "-r -f",
            "--recursive",
            "--recur -f",
            "--rec",
            "-v -r",
        ],
        &["/", "~", "HOMEDIR", "/etc", "..", "/usr"],
    ),
    (
        "chmod FLAGS 777 TARGET",
        &["-R", "--recursive", "--recurs", "-fR", "-Rv"],
        &["/", "~", "HOMEDIR", "/etc"],
    ),
    (
        "chown FLAGS root TARGET",
        &["-R", "--recursive", "--recur", "-hR"],
        &["/", "~", "HOMEDIR"],
    ),
];

/// Spellings of one path: quotes, trailing slashes, `/./`, `..` round trips, `$HOME`.
fn spell(target: &str, how: usize, home: &str) -> String {
    let expanded = match target {
        "~" => home.to_string(),
        other => other.replace("HOMEDIR", home),
    };
    match how % 9 {
        0 => target.replace("HOMEDIR", home),
        1 => format!("'{expanded}'"),
        2 => format!("\"{expanded}/\""),
        3 => format!("{expanded}/."),
        4 => format!("{}/./", expanded.trim_end_matches('/')),
        5 if target == "~" => "$HOME".into(),
        5 => format!("{}//", expanded.trim_end_matches('/')),
        6 if expanded.starts_with('/') => format!("/usr/..{expanded}"),
        7 if target == "~" => "${HOME}/".into(),
        8 => format!("{}/x/..", expanded.trim_end_matches('/')),
        _ => expanded,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn deny_holds_under_every_option_and_path_spelling(
        row in 0..ROWS.len(),
        flag in 0usize..16,
        target in 0usize..16,
        how in 0usize..9,
        place in 0usize..3,
    ) {
        let world = world();
        let (template, flags, targets) = ROWS[row];
        let flags = flags[flag % flags.len()];
        let target = spell(targets[target % targets.len()], how, &world.home);
        let line = match place {
            0 => template.replace("FLAGS", flags).replace("TARGET", &target),
            1 => template.replace("FLAGS ", "").replace("TARGET", &format!("{target} {flags}")),
            _ => template.replace("FLAGS", flags).replace("TARGET", &format!("-- {target}")),
        };
        let got = world.policy.command(&line);
        prop_assert_eq!(got.verdict, Verdict::Deny, "{}: {:?}", line, got.reasons);
    }
}

/// Globs through a link to `/` stop at the line's budget and ask, in a moment rather than the
/// minutes a walk of the whole file system takes (classifier round 14).
#[test]
fn globs_past_the_lines_budget_ask() {
    let world = world();
    let mut line = String::from("cat");
    for depth in 20..50 {
        line.push_str(&format!(" rootlink/{}x", "*/".repeat(depth)));
    }
    line.push_str(" rootlink/*/.env");
    no_rule_approves(&world, &[&line]);
}
