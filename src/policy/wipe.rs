//! More ways to destroy a whole tree or a disk than deleting it: emptying it
//! (`python -m venv --clear ~`, `git -C ~ clean -ffdx`, `tar --recursive-unlink -C ~`),
//! shredding or truncating every file of it (`shred -u ~/*`, `truncate -s0 ~/*`), trashing it,
//! re-permissioning it through `find -exec chmod`, and wiping disks or firmware by tools that
//! name them in options (`mdadm --zero-superblock`, `hdparm --security-erase`, `flashrom -w`).
//! Each target is judged like `rm -r`'s, so the same spellings deny.

use super::Finding;
use super::args::{has_flag, has_long, operands, option_values, subcommand};
use super::shell::Word;
use super::wreck::Ground;

/// Programs that destroy the files they are given, one by one or whole trees.
const DESTROYERS: &[&str] = &[
    "shred",
    "truncate",
    "wipe",
    "srm",
    "trash-put",
    "trash",
    "rmtrash",
];

/// Tools that erase a disk or firmware outright.
const ERASERS: &[(&str, &[&str])] = &[
    ("mdadm", &["--zero-superblock", "--create", "-C"]),
    (
        "hdparm",
        &[
            "--security-erase",
            "--security-erase-enhanced",
            "--trim-sector-ranges",
            "--write-sector",
            "--dco-restore",
        ],
    ),
    ("flashrom", &["-w", "--write", "-E", "--erase"]),
    ("sg_format", &[]),
    ("mformat", &[]),
];

impl Ground<'_> {
    /// The deny findings of the programs above.
    pub(super) fn wipes(&self, base: &str, args: &[Word], out: &mut Vec<Finding>) {
        if DESTROYERS.contains(&base) {
            self.wrecks(operands(args), &format!("`{base}` of"), out);
        }
        if let Some((name, flags)) = ERASERS.iter().find(|(name, _)| *name == base)
            && (flags.is_empty() || flags.iter().any(|f| has_flag(args, f)))
        {
            out.push(super::classify::deny(format!(
                "`{name}` erases a disk or the firmware of a device"
            )));
        }
        match base {
            "gio" if subcommand(args) == Some("trash") => {
                self.wrecks(operands(args).skip(1), "`gio trash` of", out);
            }
            "tar" if has_long(args, "--recursive-unlink", &[]) => {
                let dirs = option_values(args, &["-C", "--directory"]);
                let here = [Word::literal(".")];
                let dirs: &[Word] = if dirs.is_empty() { &here } else { &dirs };
                self.wrecks(dirs.iter(), "`tar --recursive-unlink` into", out);
            }
            "git" => self.git_clean(args, out),
            "virtualenv" if has_long(args, "--clear", &[]) => {
                self.wrecks(operands(args), "`virtualenv --clear` of", out);
            }
            "uv" if subcommand(args) == Some("venv") => {
                self.wrecks(operands(args).skip(1), "`uv venv` over", out);
            }
            "find" => self.find_permissions(args, out),
            "cargo" if subcommand(args) == Some("clean") => {
                let dirs = option_values(args, &["--target-dir"]);
                self.wrecks(dirs.iter(), "`cargo clean --target-dir` of", out);
            }
            "pytest" | "py.test" | "python" | "python3"
                if base.starts_with("py.")
                    || base == "pytest"
                    || args.iter().any(|a| a.text == "pytest") =>
            {
                let dirs = option_values(args, &["--basetemp"]);
                self.wrecks(dirs.iter(), "`pytest --basetemp` (removed first) of", out);
            }
            "zip" if has_flag(args, "-m") || has_long(args, "--move", &[]) => {
                self.wrecks(
                    operands(args).skip(1),
                    "`zip -m` (moves into the archive) of",
                    out,
                );
            }
            "7z" | "7za" | "7zz" | "7zr" if args.iter().any(|a| a.text == "-sdel") => {
                self.wrecks(
                    operands(args).skip(2),
                    "`7z -sdel` (deletes what it archives) of",
                    out,
                );
            }
            "install" | "ddrescue" | "dcfldd" => self.disk_writers(base, args, out),
            _ if base.starts_with("python") || base.starts_with("pypy") => {
                self.venv_clear(args, out);
            }
            _ => {}
        }
    }

    /// `install SRC /dev/sda`, `ddrescue IN /dev/sda`, `dcfldd of=/dev/sda`: onto a disk.
    fn disk_writers(&self, base: &str, args: &[Word], out: &mut Vec<Finding>) {
        match base {
            "install" => {
                let last = operands(args)
                    .last()
                    .filter(|w| !w.text.starts_with("/usr"));
                for word in last.into_iter().filter(|_| operands(args).count() > 1) {
                    self.onto_device(word, "`install` would overwrite", out);
                }
            }
            "ddrescue" => {
                for word in operands(args).skip(1) {
                    self.onto_device(word, "`ddrescue` would overwrite", out);
                }
            }
            "dcfldd" => {
                for word in args.iter().filter_map(|a| {
                    a.text.strip_prefix("of=").map(|v| Word {
                        text: v.to_string(),
                        ..a.clone()
                    })
                }) {
                    self.onto_device(&word, "`dcfldd` would overwrite", out);
                }
            }
            _ => {}
        }
    }

    /// `git clean -f` (with `-x`/`-d`) empties the tree it runs in: home or `/` is denied.
    fn git_clean(&self, args: &[Word], out: &mut Vec<Finding>) {
        let at = args.iter().position(|a| a.text == "clean");
        let Some(at) = at else { return };
        let (global, own) = args.split_at(at);
        if !has_flag(own, "-f") && !has_long(own, "--force", &[]) {
            return;
        }
        let dirs = option_values(global, &["-C", "--work-tree"]);
        let here = [Word::literal(".")];
        let dirs: &[Word] = if dirs.is_empty() { &here } else { &dirs };
        self.wrecks(dirs.iter(), "`git clean -f` in", out);
    }

    /// `find ROOT -exec chmod|chown|chgrp ...`: a recursive re-permissioning of each root.
    fn find_permissions(&self, args: &[Word], out: &mut Vec<Finding>) {
        let changes = args.windows(2).any(|pair| {
            matches!(
                pair[0].text.as_str(),
                "-exec" | "-execdir" | "-ok" | "-okdir"
            ) && matches!(
                super::danger::basename(&pair[1].text),
                "chmod" | "chown" | "chgrp" | "setfacl" | "chattr" | "truncate"
            )
        });
        if changes {
            let roots = super::wreck::find_roots(args);
            self.wrecks(roots.iter(), "`find -exec chmod/chown` over", out);
        }
    }

    /// `python -m venv --clear DIR` deletes everything in DIR first.
    fn venv_clear(&self, args: &[Word], out: &mut Vec<Finding>) {
        let venv = args
            .iter()
            .position(|a| a.text == "venv" || a.text == "-mvenv")
            .filter(|&i| i == 0 || args[i - 1].text.ends_with('m') || args[i].text == "-mvenv");
        let Some(at) = venv else { return };
        let after = args.get(at + 1..).unwrap_or(&[]);
        if has_long(after, "--clear", &["--copies"]) {
            self.wrecks(operands(after), "`venv --clear` of", out);
        }
    }
}

impl Ground<'_> {
    /// Directories named by the environment that a command removes outright
    /// (`CARGO_TARGET_DIR=~ cargo clean`, `GOMODCACHE=~ go clean -modcache`).
    pub(super) fn wipes_by_environment<'v>(
        &self,
        base: &str,
        args: &[Word],
        vars: impl Iterator<Item = (&'v str, &'v str)>,
        out: &mut Vec<Finding>,
    ) {
        let name = match base {
            "cargo" if subcommand(args) == Some("clean") => "CARGO_TARGET_DIR",
            "go" if subcommand(args) == Some("clean") && has_flag(args, "-modcache") => {
                "GOMODCACHE"
            }
            _ => return,
        };
        for (_, value) in vars.filter(|(n, _)| *n == name) {
            let verb = format!("`{base} clean` with `{name}` of");
            self.wrecks([Word::literal(value)].iter(), &verb, out);
        }
    }
}
