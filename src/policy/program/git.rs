//! Records of git: read-only subcommands without options that run programs, write files or
//! read another configuration; listing forms of `branch` and `tag` read exactly.

use super::Program;
use crate::policy::args::{has_flag, operands, option_values, subcommand};
use crate::policy::judged::Judged;
use crate::policy::shell::Word;

pub(super) const PROGRAMS: &[Program] = &[
    // `git grep PATTERN DIR`: paths after the subcommand and the pattern; hidden files skipped.
    Program::new(&["git"])
        .paths_after(2)
        .pattern_options(&["-e", "-f"])
        .skipping_hidden(&[])
        .checked(git),
];

/// git subcommands that only read the repository.
const GIT_READ: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "blame",
    "annotate",
    "grep",
    "describe",
    "rev-parse",
    "rev-list",
    "ls-files",
    "ls-tree",
    "cat-file",
    "shortlog",
    "name-rev",
    "merge-base",
    "for-each-ref",
    "show-ref",
    "show-branch",
    "count-objects",
    "whatchanged",
    "cherry",
    "range-diff",
    "diff-tree",
    "diff-files",
    "diff-index",
    "version",
    "help",
    "check-ignore",
    "check-attr",
    "var",
    "verify-commit",
    "verify-tag",
];

/// Global options of git that run programs or read another configuration.
const GIT_UNSAFE_GLOBAL: &[&str] = &[
    "-c",
    "--config-env",
    "--exec-path",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--super-prefix",
    "-p",
    "--paginate",
];

/// Options of read-only subcommands that write files or run programs.
const GIT_UNSAFE_OPTIONS: &[(&str, &str)] = &[
    ("--filters", "runs the repository's filter programs"),
    ("--output", "writes to a file"),
    ("--ext-diff", "runs an external diff program"),
    ("--textconv", "runs text conversion programs"),
    ("--upload-pack", "runs a program on the remote side"),
    ("--receive-pack", "runs a program on the remote side"),
    ("--exec", "runs a program"),
    ("--open-files-in-pager", "runs a pager program"),
    ("-O", "runs a pager program"),
    ("--run", "runs a program"),
];

pub(crate) fn git(_name: &str, args: &[Word], judged: &mut Judged) {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        if !text.starts_with('-') {
            break;
        }
        if let Some(flag) = GIT_UNSAFE_GLOBAL
            .iter()
            .find(|f| text == **f || text.starts_with(&format!("{f}=")))
        {
            judged.ask(format!(
                "`git {flag}` changes git's configuration or what it runs"
            ));
            return;
        }
        if text == "-C" {
            i += 1;
        }
        i += 1;
    }
    judged.repository = true;
    judged
        .dirs
        .extend(option_values(args.get(..i).unwrap_or(&[]), &["-C"]));
    let rest = args.get(i..).unwrap_or(&[]);
    let Some((sub, sub_args)) = rest.split_first() else {
        return;
    };
    let sub_text = sub.text.as_str();
    let read_only = GIT_READ.contains(&sub_text)
        || match sub_text {
            "branch" => lists_refs(sub_args, "dDmMcCfut", BRANCH_WRITES),
            "tag" => lists_refs(sub_args, "asufdmFe", TAG_WRITES),
            "remote" => {
                sub_args.is_empty()
                    || sub_args.iter().all(|a| a.text == "-v")
                    || subcommand(sub_args) == Some("get-url")
            }
            "stash" => matches!(subcommand(sub_args), Some("list" | "show")),
            "reflog" => !matches!(subcommand(sub_args), Some("expire" | "delete" | "drop")),
            "worktree" => matches!(subcommand(sub_args), Some("list")),
            // `git config user.email` (one name, no value) reads, like `--get`.
            // Never a file of the line's choosing, nor the files it includes (`--includes -f
            // c.txt -l` reads whatever `c.txt` names).
            "config"
                if sub_args.iter().any(|a| {
                    matches!(a.text.as_str(), "--includes" | "-f" | "--file" | "--blob")
                        || a.text.starts_with("--file=")
                        || a.text.starts_with("--blob=")
                }) =>
            {
                false
            }
            "config" => {
                sub_args.iter().any(|a| {
                    matches!(
                        a.text.as_str(),
                        "--get" | "--get-all" | "--get-regexp" | "-l" | "--list"
                    )
                }) || sub_args.first().is_some_and(|a| a.text == "get")
                    || operands(sub_args).count() == 1
                        && operands(sub_args).all(|k| k.text.contains('.'))
                        && sub_args.iter().all(|a| {
                            !a.text.starts_with('-')
                                || matches!(a.text.as_str(), "--global" | "--local" | "--system")
                        })
            }
            "submodule" => matches!(subcommand(sub_args), None | Some("status" | "summary")),
            "notes" => sub_args
                .first()
                .is_some_and(|a| matches!(a.text.as_str(), "list" | "show")),
            _ => false,
        };
    if !read_only {
        judged.ask(git_reason(sub_text, sub_args));
        return;
    }
    judged.history = prints_history(sub_text, sub_args);
    for (flag, why) in GIT_UNSAFE_OPTIONS {
        // `--text` is an option of its own, not short for `--textconv`.
        if sub_args
            .iter()
            .any(|a| a.text != "--text" && crate::policy::args::flag_matches(&a.text, flag))
        {
            judged.ask(format!("`git {sub_text} {flag}` {why}"));
        }
    }
    if sub_text == "help"
        && sub_args.iter().any(|a| {
            matches!(
                a.text.as_str(),
                "-m" | "-i" | "-w" | "--man" | "--info" | "--web"
            )
        })
    {
        judged.ask("`git help -m/-i/-w` starts a viewer or a browser, which config can replace");
    }
    // `git grep` reads every tracked file below where it runs (`--no-index`: every file).
    judged.recursive |= sub_text == "grep";
    judged.contents |= sub_text == "grep";
}

/// `git branch`/`git tag` options that create, delete, move or sign refs.
const BRANCH_WRITES: &[&str] = &[
    "--delete",
    "--move",
    "--copy",
    "--force",
    "--set-upstream-to",
    "--unset-upstream",
    "--edit-description",
    "--track",
    "--no-track",
    "--create-reflog",
    "--recurse-submodules",
];
const TAG_WRITES: &[&str] = &[
    "--annotate",
    "--sign",
    "--local-user",
    "--force",
    "--delete",
    "--message",
    "--file",
    "--edit",
    "--create-reflog",
    "--cleanup",
    "--trailer",
];
/// Options that make `git branch`/`git tag` list (their operands are then patterns or commits).
const REF_LISTING: &[&str] = &[
    "-l",
    "--list",
    "-a",
    "--all",
    "-r",
    "--remotes",
    "-v",
    "-vv",
    "--verbose",
    "--contains",
    "--no-contains",
    "--merged",
    "--no-merged",
    "--points-at",
    "--show-current",
    "--sort",
    "--format",
    "--column",
    "--no-column",
    "-n",
    "-i",
    "--ignore-case",
];

/// Whether `git branch`/`git tag` with these arguments only lists: no option that writes (as
/// written, or as one of `write_letters` inside a cluster), and operands only when a listing
/// option says they are patterns or commits.
fn lists_refs(args: &[Word], write_letters: &str, writes: &[&str]) -> bool {
    let writing = args.iter().any(|a| {
        let text = a.text.as_str();
        let name = text.split_once('=').map_or(text, |(n, _)| n);
        writes.contains(&name)
            || (text.starts_with('-')
                && !text.starts_with("--")
                && text[1..]
                    .chars()
                    .take_while(char::is_ascii_alphabetic)
                    .any(|c| write_letters.contains(c)))
    });
    let listing = args.iter().any(|a| {
        let name = a.text.split_once('=').map_or(a.text.as_str(), |(n, _)| n);
        REF_LISTING.contains(&name) || name.starts_with("-n")
    });
    !writing && (operands(args).next().is_none() || listing)
}

/// Why a git subcommand that is not read-only asks, in words a person understands.
fn git_reason(sub: &str, args: &[Word]) -> String {
    match sub {
        "push" => "`git push` sends commits to a remote".into(),
        "config" => {
            "`git config` changes settings that run programs later (hooks, aliases, fsmonitor)"
                .into()
        }
        "reset" if has_flag(args, "--hard") => {
            "`git reset --hard` discards uncommitted changes".into()
        }
        "clean" => "`git clean` deletes untracked files".into(),
        "checkout" | "switch" | "branch"
            if ["-b", "-B", "-c", "-C", "--create", "--orphan"]
                .iter()
                .any(|f| args.iter().any(|a| a.text == *f))
                || sub == "branch" =>
        {
            format!(
                "`git {sub}` makes a branch: it writes the repository's refs, which the sandbox \
                 keeps read-only"
            )
        }
        "checkout" | "restore" | "switch" => format!("`git {sub}` can discard changes to files"),
        "fetch" | "pull" | "clone" => format!("`git {sub}` downloads from a remote"),
        "filter-branch" | "filter-repo" => "rewrites the repository's history".into(),
        _ => format!(
            "`git {sub}` changes the repository (only read-only git commands run without asking)"
        ),
    }
}

/// Whether `git SUB ARGS` prints file contents from history.
pub(crate) fn prints_history(sub: &str, args: &[Word]) -> bool {
    let any = |flags: &[&str]| flags.iter().any(|f| has_flag(args, f));
    // Every option that prints a patch, or implies one (`-U3`, `--binary`, `--remerge-diff`),
    // and the pickaxe searches, which answer yes or no about what a change held.
    let patch = any(&[
        "-p",
        "-u",
        "-U",
        "--unified",
        "--patch",
        "--patch-with-stat",
        "--patch-with-raw",
        // Prints every line of a change with a whitespace error (a CRLF `.env`: all of it).
        "--check",
        "--binary",
        "--remerge-diff",
        "--cc",
        "-c",
        "--dd",
        "-m",
        "--diff-merges",
        "--word-diff",
        "--word-diff-regex",
        "--color-words",
        "-W",
        "--function-context",
        "-G",
        "-S",
        "--pickaxe-regex",
        "--pickaxe-all",
    ]);
    let summary_only = any(&[
        "-s",
        "--no-patch",
        "--stat",
        "--name-only",
        "--name-status",
        "--shortstat",
        "--numstat",
        "--summary",
    ]);
    match sub {
        "log" | "whatchanged" | "reflog" | "stash" => patch,
        // range-diff prints the differences of matched commits' patches unless told not to.
        "range-diff" => patch || !summary_only,
        // The plumbing diffs print raw listings unless asked for a patch.
        "diff-tree" | "diff-index" => patch,
        "show" | "diff" | "diff-files" => patch || !summary_only,
        "grep" | "blame" | "annotate" => true,
        "cat-file" => !any(&["-t", "-s", "-e"]),
        _ => false,
    }
}
