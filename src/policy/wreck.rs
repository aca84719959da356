//! The few forms so destructive that nothing may approve them (a recursive delete or
//! re-permissioning of `/`, home, a system directory or a directory holding the project; moving
//! them away; writing onto block devices), read the way the programs read them: options through
//! the option reader (`args`: clusters, abbreviations, `--`, options after operands) and targets
//! through the path resolution secrets use (`reach`: `~`, `$HOME`, quotes, `..`, `/./`, globs,
//! trailing slashes, symlinks), so no spelling turns a deny into a question.

use std::path::{Path, PathBuf};

use super::args::{has_flag, operands, option_values};
use super::reach::{Place, normalize};
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

/// Block device names, for devices that do not exist here (the check is also made on the file
/// type of those that do).
const BLOCK_PREFIXES: &[&str] = &[
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
    "/dev/block/",
    "/dev/root",
];

/// What a target word names: the paths it resolves to, or nothing knowable before it runs.
enum Target {
    Known(Vec<PathBuf>),
    Computed,
}

/// Where the command runs and what must survive it.
pub(super) struct Ground<'a> {
    pub(super) place: &'a Place<'a>,
    pub(super) project: Option<&'a Path>,
}

impl Ground<'_> {
    /// The deny (and computed-target) findings for one simple command.
    pub(super) fn judge(&self, base: &str, args: &[Word]) -> Vec<Finding> {
        let mut out = Vec::new();
        let recursive = |short: &[&str]| {
            short.iter().any(|f| has_flag(args, f)) || has_flag(args, "--recursive")
        };
        match base {
            "rm" => {
                if has_flag(args, "--no-preserve-root") {
                    out.push(deny("`rm --no-preserve-root` can delete the whole system"));
                }
                if recursive(&["-r", "-R"]) {
                    self.wrecks(operands(args), "`rm -r` of", &mut out);
                }
            }
            "chmod" | "chown" | "chgrp" | "chattr" | "setfacl" if recursive(&["-R"]) => {
                let verb = format!("a recursive `{base}` of");
                self.wrecks(operands(args), &verb, &mut out);
            }
            "mv" | "cp" => self.moves(base, args, &mut out),
            "dd" => {
                for word in args.iter().filter_map(|a| value_of(a, "of=")) {
                    self.onto_device(&word, "`dd` would overwrite", &mut out);
                }
            }
            "tee" | "shred" | "wipe" | "srm" | "mke2fs" | "mkswap" | "wipefs" | "fdisk"
            | "sfdisk" | "cfdisk" | "gdisk" | "sgdisk" | "parted" | "blkdiscard" | "badblocks" => {
                let verb = format!("`{base}` would rewrite");
                for word in operands(args) {
                    self.onto_device(word, &verb, &mut out);
                }
            }
            name if name.starts_with("mkfs") => {
                let verb = format!("`{name}` would rewrite");
                for word in operands(args) {
                    self.onto_device(word, &verb, &mut out);
                }
            }
            _ => {}
        }
        out
    }

    /// `mv` moving a catastrophic target away (or `cp`/`mv` writing over `/`, a system
    /// directory, a block device, or recursively over home).
    fn moves(&self, base: &str, args: &[Word], out: &mut Vec<Finding>) {
        let mut all: Vec<&Word> = operands(args).collect();
        let target_dir = option_values(args, &["-t", "--target-directory"]);
        let destination = match target_dir.first() {
            Some(dir) => dir.clone(),
            None => match all.pop() {
                Some(last) => last.clone(),
                None => return,
            },
        };
        if base == "mv" {
            self.wrecks(all.into_iter(), "`mv` of", out);
        }
        let recursive = ["-r", "-R", "-a", "--recursive", "--archive"]
            .iter()
            .any(|f| has_flag(args, f));
        self.onto_device(&destination, &format!("`{base}` would overwrite"), out);
        match self.target(&destination) {
            Target::Known(paths) => {
                if let Some(path) = paths.iter().find(|p| {
                    system(p) || (base == "mv" || recursive) && self.catastrophic(p).is_some()
                }) {
                    out.push(deny(format!(
                        "`{base}` would write over {}, a whole system or home directory",
                        path.display()
                    )));
                }
            }
            Target::Computed => out.push(computed(base, &destination)),
        }
    }

    /// Denies when one of `words` is catastrophic to delete or re-permission recursively.
    fn wrecks<'w>(
        &self,
        words: impl Iterator<Item = &'w Word>,
        verb: &str,
        out: &mut Vec<Finding>,
    ) {
        for word in words {
            match self.target(word) {
                Target::Known(paths) => {
                    if let Some(why) = paths.iter().find_map(|p| self.catastrophic(p)) {
                        out.push(deny(format!(
                            "{verb} {} would wreck a whole system or home directory: {why}",
                            word.text
                        )));
                        return;
                    }
                }
                Target::Computed => out.push(computed(verb, word)),
            }
        }
    }

    /// Denies a write onto a block device, by any spelling of its path.
    pub(super) fn onto_device(&self, word: &Word, verb: &str, out: &mut Vec<Finding>) {
        if let Target::Known(paths) = self.target(word)
            && let Some(device) = paths.iter().find(|p| block_device(p))
        {
            out.push(deny(format!(
                "{verb} the block device {}",
                device.display()
            )));
        }
    }

    /// The paths a word names, as written and through symlinks; a glob that matches everything
    /// in a directory (`/*`, `~/.*`) names the directory too.
    fn target(&self, word: &Word) -> Target {
        let Some(mut paths) = self.place.paths(word) else {
            return Target::Computed;
        };
        if let Some(patterns) = self.place.patterns(word) {
            for pattern in patterns {
                let whole = pattern
                    .file_name()
                    .is_some_and(|n| matches_all(&n.to_string_lossy()));
                if whole && let Some(parent) = pattern.parent() {
                    paths.push(parent.to_path_buf());
                }
            }
        }
        let real: Vec<PathBuf> = paths
            .iter()
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .collect();
        paths.extend(real);
        Target::Known(paths)
    }

    /// Why deleting `path` recursively would be a catastrophe, if it would.
    fn catastrophic(&self, path: &Path) -> Option<String> {
        let path = normalize(path);
        if system(&path) {
            return Some(format!("{} (the system)", path.display()));
        }
        if self.place.home.is_some_and(|h| h.starts_with(&path)) {
            return Some(format!("{} (it holds a home directory)", path.display()));
        }
        let holds = |dir: &Path| dir.starts_with(&path) && dir != path;
        if holds(&self.place.cwd) || self.project.is_some_and(holds) {
            return Some(format!("{} (it holds the project)", path.display()));
        }
        None
    }
}

/// `/`, a system directory or a directory right inside `/usr`.
fn system(path: &Path) -> bool {
    let text = path.to_string_lossy();
    path == Path::new("/")
        || SYSTEM_DIRS.contains(&text.as_ref())
        || path.parent() == Some(Path::new("/usr"))
}

/// Whether a glob component matches every name (`*`, `.*`, `?*`, `[!.]*`): no literal text.
fn matches_all(component: &str) -> bool {
    let mut in_class = false;
    component.contains(['*', '?', '['])
        && component.chars().all(|c| match c {
            '[' => {
                in_class = true;
                true
            }
            ']' => {
                in_class = false;
                true
            }
            _ => in_class || matches!(c, '*' | '?' | '.'),
        })
}

fn block_device(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    let lexical = normalize(path);
    let text = lexical.to_string_lossy();
    BLOCK_PREFIXES.iter().any(|p| text.starts_with(p))
        || std::fs::metadata(path).is_ok_and(|m| m.file_type().is_block_device())
}

/// The value of a `key=value` operand (`of=/dev/sda`), as a word of its own.
fn value_of(word: &Word, key: &str) -> Option<Word> {
    word.text.strip_prefix(key).map(|value| Word {
        text: value.to_string(),
        ..word.clone()
    })
}

fn deny(reason: impl Into<String>) -> Finding {
    Finding::new(Verdict::Deny, reason)
}

/// A target nobody can know before it runs: only a person may approve it.
fn computed(verb: &str, word: &Word) -> Finding {
    Finding::person(format!(
        "{verb} `{}`, a path computed at run time that could be anything (only a person can \
         approve it)",
        word.text
    ))
}
