//! The few forms so destructive that nothing may approve them (a recursive delete or
//! re-permissioning of `/`, home, a system directory or a directory holding the project; moving
//! them away; writing onto block devices), read the way the programs read them: options through
//! the option reader (`args`: clusters, abbreviations, `--`, options after operands) and targets
//! through the path resolution secrets use (`reach`: `~`, `$HOME`, quotes, `..`, `/./`, globs,
//! trailing slashes, symlinks), so no spelling turns a deny into a question.

use std::path::{Path, PathBuf};

use super::args::{has_flag, has_long, operands, option_values};
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

/// Directories of the system at any depth: deleting anything under them recursively wrecks it.
const SYSTEM_TREES: &[&str] = &[
    "/bin", "/boot", "/etc", "/lib", "/lib32", "/lib64", "/nix", "/sbin", "/usr", "/var/lib",
    "/System", "/snap",
];

/// More directories of the system, only as a whole.
const SYSTEM_TOPS: &[&str] = &[
    "/run",
    "/mnt",
    "/media",
    "/var/log",
    "/var/cache",
    "/var/spool",
    "/private",
    "/opt",
    "/srv",
];

/// rm's long options, so an abbreviation reads as rm reads it (`--r` is `--recursive`).
const RM_LONGS: &[&str] = &[
    "--force",
    "--interactive",
    "--one-file-system",
    "--no-preserve-root",
    "--preserve-root",
    "--recursive",
    "--dir",
    "--verbose",
    "--help",
    "--version",
];

/// The long options chmod, chown and chgrp share.
const CHMOD_LONGS: &[&str] = &[
    "--changes",
    "--dereference",
    "--no-dereference",
    "--from",
    "--silent",
    "--quiet",
    "--verbose",
    "--no-preserve-root",
    "--preserve-root",
    "--reference",
    "--recursive",
    "--help",
    "--version",
];

/// Files and trees whose overwriting breaks the system.
const SYSTEM_FILES: &[&str] = &[
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/boot",
    "/usr/bin",
    "/usr/sbin",
    "/usr/lib",
    "/usr/libexec",
    "/etc/passwd",
    "/etc/shadow",
    "/etc/group",
    "/etc/sudoers",
    "/etc/fstab",
    "/etc/pam.d",
    "/etc/ld.so.preload",
    "/etc/ld.so.conf",
];

/// Whether `base` is a program the deny rules know how it wrecks (`rm`, `chmod`, `dd`, `mkfs.*`,
/// ...): where a wrapper ai does not know may hide one.
pub(super) fn can_wreck(base: &str) -> bool {
    REWRITERS.contains(&base)
        || base.starts_with("mkfs")
        || matches!(
            base,
            "rm" | "chmod"
                | "chown"
                | "chgrp"
                | "chattr"
                | "setfacl"
                | "mv"
                | "cp"
                | "ln"
                | "find"
                | "rsync"
                | "tar"
                | "kill"
                | "dd"
                | "zfs"
                | "lvremove"
                | "vgremove"
                | "pvremove"
                | "dmsetup"
                | "git"
                | "cargo"
                | "pytest"
                | "python3"
                | "python"
                | "zip"
                | "7z"
                | "go"
                | "install"
                | "ddrescue"
                | "dcfldd"
        )
}

/// Programs that rewrite the devices they are given.
const REWRITERS: &[&str] = &[
    "tee",
    "truncate",
    "shred",
    "wipe",
    "srm",
    "mke2fs",
    "mkswap",
    "wipefs",
    "fdisk",
    "sfdisk",
    "cfdisk",
    "gdisk",
    "sgdisk",
    "parted",
    "blkdiscard",
    "badblocks",
    "mkdosfs",
    "mkntfs",
    "mkexfatfs",
    "nvme",
    "zpool",
    "cryptsetup",
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
        match base {
            "rm" => {
                if has_long(args, "--no-preserve-root", RM_LONGS) {
                    out.push(deny("`rm --no-preserve-root` can delete the whole system"));
                }
                if has_flag(args, "-r") || has_flag(args, "-R") || recursive(args, RM_LONGS) {
                    self.wrecks(operands(args), "`rm -r` of", &mut out);
                }
            }
            "chmod" | "chown" | "chgrp" | "chattr" | "setfacl"
                if has_flag(args, "-R") || recursive(args, CHMOD_LONGS) =>
            {
                let verb = format!("a recursive `{base}` of");
                self.wrecks(operands(args), &verb, &mut out);
            }
            "chmod" | "chown" | "chgrp" => {
                if let Some(word) = operands(args).find(|w| self.is_system(w)) {
                    out.push(deny(format!("`{base}` of {} breaks the system", word.text)));
                }
            }
            "zpool" | "zfs" | "nvme" | "lvremove" | "vgremove" | "pvremove" | "dmsetup" => {
                let sub = operands(args).next().map_or("", |w| w.text.as_str());
                if base.ends_with("remove")
                    || matches!(sub, "destroy" | "format" | "sanitize" | "remove_all")
                {
                    out.push(deny(format!("`{base} {sub}` destroys storage")));
                }
            }
            "mv" | "cp" => self.moves(base, args, &mut out),
            "ln" => self.links(args, &mut out),
            "find" => self.find(args, &mut out),
            "rsync" => self.rsync(args, &mut out),
            "tar" if has_long(args, "--remove-files", &[]) => {
                self.wrecks(operands(args), "`tar --remove-files` of", &mut out);
            }
            "kill" if kills_everything(args) => {
                out.push(deny("`kill -1` signals every process the user may signal"));
            }
            "dd" => {
                for word in args.iter().filter_map(|a| value_of(a, "of=")) {
                    self.onto_device(&word, "`dd` would overwrite", &mut out);
                    self.unknown_device(&word, "`dd` would overwrite", &mut out);
                }
            }
            name if REWRITERS.contains(&name) || name.starts_with("mkfs") => {
                let verb = format!("`{name}` would rewrite");
                for word in operands(args) {
                    self.onto_device(word, &verb, &mut out);
                    if !matches!(name, "tee" | "truncate") {
                        self.unknown_device(word, &verb, &mut out);
                    }
                }
            }
            _ => {}
        }
        self.wipes(base, args, &mut out);
        if !out.iter().any(|f| f.verdict == super::Verdict::Deny) {
            self.names_a_device(base, args, &mut out);
        }
        out
    }

    /// A disk writer's target known only at run time (`xargs mkfs.ext4`, `dd of=$DEV`) could be
    /// any disk: only a person can approve it.
    fn unknown_device(&self, word: &Word, verb: &str, out: &mut Vec<Finding>) {
        if matches!(self.target(word), Target::Computed) {
            out.push(computed(verb, word));
        }
    }

    /// Whether a word names `/` or a system directory itself.
    fn is_system(&self, word: &Word) -> bool {
        matches!(self.target(word), Target::Known(paths) if paths.iter().any(|p| system(&normalize(p))))
    }

    /// `find ROOT... -delete` or `-exec rm ...`: a recursive delete of each root.
    fn find(&self, args: &[Word], out: &mut Vec<Finding>) {
        let deletes = args.iter().enumerate().any(|(i, a)| {
            a.text == "-delete"
                || matches!(a.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")
                    && args.get(i + 1).is_some_and(|p| {
                        matches!(
                            super::danger::basename(&p.text),
                            "rm" | "shred" | "unlink" | "rmdir" | "srm" | "wipe"
                        )
                    })
        });
        if deletes {
            self.wrecks(find_roots(args).iter(), "`find -delete` over", out);
        }
        // `-execdir rm -rf NAME`: NAME is taken in each found file's directory, a start point's
        // parent among them (`find /tmp -maxdepth 0 -execdir rm -rf root` is `rm -rf /root`).
        for (i, a) in args.iter().enumerate() {
            if !matches!(a.text.as_str(), "-execdir" | "-okdir") {
                continue;
            }
            let Some(program) = args.get(i + 1) else {
                continue;
            };
            if !matches!(
                super::danger::basename(&program.text),
                "rm" | "shred" | "chmod" | "chown"
            ) {
                continue;
            }
            let named: Vec<&Word> = args[i + 2..]
                .iter()
                .take_while(|w| !matches!(w.text.as_str(), ";" | "+"))
                .filter(|w| !w.text.starts_with('-') && !w.text.contains("{}"))
                .collect();
            for root in find_roots(args) {
                let Some(paths) = self.place.paths(&root) else {
                    continue;
                };
                for dir in paths.iter().flat_map(|p| {
                    [
                        p.clone(),
                        p.parent().map(Path::to_path_buf).unwrap_or_default(),
                    ]
                }) {
                    let words: Vec<Word> = named
                        .iter()
                        .map(|w| Word::literal(dir.join(&w.text).to_string_lossy()))
                        .collect();
                    self.wrecks(words.iter(), "`find -execdir` deleting", out);
                }
            }
        }
    }

    /// `rsync --delete SRC DEST` empties DEST; `--remove-source-files` empties the sources.
    fn rsync(&self, args: &[Word], out: &mut Vec<Finding>) {
        let mut all: Vec<&Word> = operands(args).collect();
        let Some(dest) = all.pop() else { return };
        if args
            .iter()
            .any(|a| a.text.starts_with("--del") || a.text.starts_with("--remove-s"))
        {
            let verb = "`rsync --delete` or `--remove-source-files` over";
            self.wrecks(all.into_iter().chain([dest]), verb, out);
        }
    }

    /// `ln -sf X /bin/sh`: replacing a file of the system.
    fn links(&self, args: &[Word], out: &mut Vec<Finding>) {
        let target_dir = option_values(args, &["-t", "--target-directory"]);
        let Some(dest) = target_dir.first().or(operands(args).last()) else {
            return;
        };
        if let Target::Known(paths) = self.target(dest)
            && let Some(path) = paths.iter().find(|p| self.system_file(p))
        {
            out.push(deny(format!(
                "`ln` would replace {}, a file of the system",
                path.display()
            )));
        }
    }

    /// Writing over this file breaks the system: a program or library of the system, the
    /// account files, a `/proc/sys*` or `/sys` control file (outside the project and home).
    fn system_file(&self, path: &Path) -> bool {
        let path = normalize(path);
        let mine = |dir: &Path| path.starts_with(dir);
        if mine(&self.place.cwd)
            || self.project.is_some_and(mine)
            || self.place.home.is_some_and(mine)
        {
            return false;
        }
        let text = path.to_string_lossy();
        SYSTEM_FILES.iter().any(|t| path.starts_with(t))
            || text.starts_with("/proc/sys")
            || text.starts_with("/sys/")
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
    pub(super) fn wrecks<'w>(
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

    /// Denies a write onto a block device (or a file of the system), by any spelling of its
    /// path.
    pub(super) fn onto_device(&self, word: &Word, verb: &str, out: &mut Vec<Finding>) {
        let known = match self.target(word) {
            Target::Known(paths) => paths,
            Target::Computed => Vec::new(),
        };
        if let Some(file) = known.iter().find(|p| self.system_file(p)) {
            out.push(deny(format!(
                "{verb} {}, a file the system needs",
                file.display()
            )));
        } else if let Some(device) = known.iter().find(|p| block_device(p)) {
            out.push(deny(format!(
                "{verb} the block device {}",
                device.display()
            )));
        } else if word.dynamic && BLOCK_PREFIXES.iter().any(|p| word.text.starts_with(p)) {
            out.push(deny(format!(
                "{verb} `{}`, a block device whatever the rest of its name",
                word.text
            )));
        } else if let Some(patterns) = self.place.patterns(word)
            && let Some(glob) = patterns.iter().find(|p| device_glob(p))
        {
            out.push(deny(format!(
                "{verb} {}, a pattern that may name a block device",
                glob.display()
            )));
        }
    }

    /// Any word of a command naming a block device (an operand, `--output=/dev/sda`, `-o/dev/sda`,
    /// a link to one): written, the disk is wiped (`sort -o`, `tar -cf`, `xxd -r`, `script`);
    /// read, every file permission is bypassed. Programs that only look at what a device is
    /// (`lsblk`, `blkid`, `stat`) are spared.
    pub(super) fn names_a_device(&self, base: &str, args: &[Word], out: &mut Vec<Finding>) {
        const LOOKERS: &[&str] = &[
            "lsblk", "blkid", "ls", "stat", "file", "udevadm", "findmnt", "df", "realpath",
            "readlink", "test", "[", "echo", "printf", "smartctl", "mount", "umount",
        ];
        if LOOKERS.contains(&base) {
            return;
        }
        for arg in args {
            let text = arg.text.as_str();
            let glued = text
                .strip_prefix('-')
                .filter(|rest| !rest.starts_with('-') && rest.len() > 1)
                .map(|rest| &rest[rest.char_indices().nth(1).map_or(rest.len(), |(i, _)| i)..]);
            let candidates = [Some(text), text.split_once('=').map(|(_, v)| v), glued];
            for candidate in candidates.into_iter().flatten() {
                let word = Word {
                    text: candidate.to_string(),
                    ..arg.clone()
                };
                let Target::Known(paths) = self.target(&word) else {
                    continue;
                };
                if let Some(device) = paths.iter().find(|p| block_device(p)) {
                    out.push(deny(format!(
                        "`{base}` names the block device {}: writing it wipes the disk, reading \
                         it passes every file permission",
                        device.display()
                    )));
                    return;
                }
            }
        }
    }

    /// The paths a word names, as written and through symlinks; a glob that matches everything
    /// in a directory (`/*`, `~/.*`) names the directory too.
    fn target(&self, word: &Word) -> Target {
        if word.is_from_input() {
            return Target::Computed;
        }
        let Some(mut paths) = self.place.paths(word) else {
            return Target::Computed;
        };
        // A variable the line never set (`rm -rf "$OLDPWD"`) expands to nothing here, and to
        // whatever the environment holds when it runs.
        if paths.is_empty() && word.dynamic {
            return Target::Computed;
        }
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
        // A link to a device that is not there to canonicalize (`disk -> /dev/sda`) still
        // names it.
        let linked: Vec<PathBuf> = paths.iter().flat_map(|p| link_chain(p)).collect();
        paths.extend(real);
        paths.extend(linked);
        Target::Known(paths)
    }

    /// Why deleting `path` recursively would be a catastrophe, if it would.
    fn catastrophic(&self, path: &Path) -> Option<String> {
        let path = normalize(path);
        let ours = |dir: &Path| path.starts_with(dir) && dir != Path::new("/");
        let inside = ours(&self.place.cwd) || self.project.is_some_and(ours);
        if system(&path) || under_system(&path) && !inside {
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

/// Under a system tree, or one of the system's top directories.
fn under_system(path: &Path) -> bool {
    let text = path.to_string_lossy();
    SYSTEM_TOPS.contains(&text.as_ref()) || SYSTEM_TREES.iter().any(|t| path.starts_with(t))
}

/// `--recursive` in any spelling the program accepts.
fn recursive(args: &[Word], longs: &[&str]) -> bool {
    has_long(args, "--recursive", longs)
}

/// `kill -9 -1`, `kill -s KILL -1`, `kill -- -1`: process -1 is every process.
fn kills_everything(args: &[Word]) -> bool {
    let mut rest = args;
    if let Some(first) = rest.first() {
        let text = first.text.as_str();
        if matches!(text, "-s" | "-n" | "--signal") {
            rest = rest.get(2..).unwrap_or(&[]);
        } else if text.starts_with('-') && text != "--" {
            rest = &rest[1..];
        }
    }
    rest.iter().any(|a| a.text == "-1")
}

/// The starting points of `find`: the words after its leading options (`-H`, `-L`, `-P`,
/// `-D x`, `-O3`) up to the first expression; none means `.`.
pub(super) fn find_roots(args: &[Word]) -> Vec<Word> {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        match a.text.as_str() {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            t if t.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    let roots: Vec<Word> = args[i.min(args.len())..]
        .iter()
        .take_while(|a| !a.text.starts_with('-') && !matches!(a.text.as_str(), "(" | "!"))
        .cloned()
        .collect();
    if roots.is_empty() {
        vec![Word::literal(".")]
    } else {
        roots
    }
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

/// Where a chain of symlinks leads, link by link (at most a few), read without following; the
/// directory resolved first (`devlink/sda`, `devlink -> /dev`).
fn link_chain(path: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut at = path.to_path_buf();
    if let (Some(dir), Some(name)) = (path.parent(), path.file_name())
        && let Ok(real) = std::fs::canonicalize(dir)
    {
        at = real.join(name);
        out.push(at.clone());
    }
    for _ in 0..8 {
        let Ok(next) = std::fs::read_link(&at) else {
            break;
        };
        let next = match at.parent() {
            Some(dir) if next.is_relative() => normalize(&dir.join(next)),
            _ => next,
        };
        out.push(next.clone());
        at = next;
    }
    out
}

/// A glob under `/dev` (`/dev/sd?`, `/dev/s*a`): it may name any device there.
fn device_glob(path: &Path) -> bool {
    let text = normalize(path).to_string_lossy().into_owned();
    text.starts_with("/dev/") && text.contains(['*', '?', '['])
}

/// Block devices named by a prefix and a number (`/dev/nbd0`, `/dev/sg0`, `/dev/mtdblock0`).
const NUMBERED_BLOCKS: &[&str] = &[
    "/dev/nbd",
    "/dev/sg",
    "/dev/mtdblock",
    "/dev/mtd",
    "/dev/rbd",
    "/dev/zd",
    "/dev/pmem",
    "/dev/drbd",
    "/dev/bcache",
    "/dev/ubiblock",
    "/dev/zram",
    "/dev/ram",
];

fn block_device(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    let lexical = normalize(path);
    let text = lexical.to_string_lossy();
    let numbered = |p: &&str| {
        text.strip_prefix(*p)
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
    };
    BLOCK_PREFIXES.iter().any(|p| text.starts_with(p))
        || NUMBERED_BLOCKS.iter().any(numbered)
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
