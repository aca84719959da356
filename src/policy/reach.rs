//! What a command's words can reach on this machine, judged before it runs: each word is expanded
//! the way the shell would (`~`, `$HOME`, braces, globs against the real file system, `..`) and
//! resolved (symlinks), so a secret is recognised by every spelling of its path.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use super::brace::expand_braces;
use super::brace::{self, MAX_EXPANSIONS};
use super::path::sensitive;
use super::shell::Word;
use crate::config::{home_secrets, system_secrets};

/// Stands for a part of a word only known at run time.
pub(super) const UNKNOWN: char = '\u{1}';

/// At most this many paths are produced from all the words of one line.
pub(crate) const LINE_EXPANSIONS: usize = 20_000;

/// Directories and entries one line's globs may read before its words ask.
const LINE_GLOB_WORK: usize = 200_000;

/// Where the command stands: paths are resolved against `cwd`.
#[derive(Debug, Clone)]
pub(crate) struct Place<'a> {
    pub(crate) home: Option<&'a Path>,
    pub(crate) cwd: PathBuf,
    /// Variables the line itself set to known text (`a=../.s; cat ${a}sh/id_rsa`).
    pub(crate) vars: HashMap<String, String>,
    /// Paths produced so far for the whole line (braces and globs): past [`LINE_EXPANSIONS`]
    /// words are no longer computed, so they ask.
    pub(crate) spent: std::cell::Cell<usize>,
    /// Directories and entries read so far for the whole line's globs: past
    /// [`LINE_GLOB_WORK`] a glob is no longer matched, so its word asks (a planted link to `/`
    /// under `*/*/*/...` would walk the whole file system for minutes: classifier round 14).
    pub(crate) glob_work: std::cell::Cell<usize>,
    /// Variables the line set, at any point, to something other than a number: in arithmetic
    /// bash reads such a value as an expression, and `a[$(cmd)]` there runs cmd.
    pub(crate) doubtful: std::collections::HashSet<String>,
}

impl Place<'_> {
    /// The paths a word can name, or `None` when its value is only known at run time.
    pub(crate) fn paths(&self, word: &Word) -> Option<Vec<PathBuf>> {
        if self.spent.get() > LINE_EXPANSIONS {
            return None;
        }
        let out = self.paths_unbudgeted(word)?;
        self.spent.set(self.spent.get() + out.len() + 1);
        Some(out)
    }

    /// Whether the line's braces and globs named more paths than are checked: its words past
    /// that were not looked at.
    pub(crate) fn over_budget(&self) -> bool {
        self.spent.get() > LINE_EXPANSIONS || self.glob_work.get() > LINE_GLOB_WORK
    }

    fn paths_unbudgeted(&self, word: &Word) -> Option<Vec<PathBuf>> {
        let text = self.expand_variables(&word.text, word.dynamic)?;
        if run_time_tilde(&text) {
            return None;
        }
        let mut out = Vec::new();
        for candidate in path_candidates(&text) {
            for braced in expand_braces(candidate) {
                for path in self.readings(&braced) {
                    if has_glob(&braced) {
                        // Unquoted, the shell expands it; quoted, the program takes it as a
                        // pattern.
                        if !word.quoted {
                            out.extend(expand_glob(&path, &self.glob_work)?);
                        }
                        continue;
                    }
                    out.push(path);
                }
                if out.len() >= MAX_EXPANSIONS {
                    return Some(out);
                }
            }
        }
        Some(out)
    }

    /// The absolute paths a word names before globs are matched (`/*` stays `/*`), or `None`
    /// when its value is only known at run time. A quoted word has no glob.
    pub(crate) fn patterns(&self, word: &Word) -> Option<Vec<PathBuf>> {
        let text = self.expand_variables(&word.text, word.dynamic)?;
        if run_time_tilde(&text) {
            return None;
        }
        if word.quoted {
            return Some(self.readings(&text));
        }
        Some(
            expand_braces(&text)
                .iter()
                .flat_map(|b| self.readings(b))
                .take(MAX_EXPANSIONS)
                .collect(),
        )
    }

    /// Why the word reaches a secret, if it does.
    pub(crate) fn secret(&self, word: &Word) -> Option<String> {
        let paths = self.paths(word)?;
        paths.iter().find_map(|path| self.secret_path(path))
    }

    /// Why a word is a secret when its path is resolved by the kernel as written, `..` after a
    /// symlink included (`/dev/fd/../environ` is this process's environment, not `/dev/environ`).
    pub(crate) fn secret_unnormalized(&self, word: &Word) -> Option<String> {
        let text = self.expand_variables(&word.text, word.dynamic)?;
        path_candidates(&text)
            .into_iter()
            .filter(|c| c.contains(".."))
            .filter_map(|c| std::fs::canonicalize(self.cwd.join(c)).ok())
            .find_map(|real| sensitive(&real, self.home))
    }

    /// Why a path is a secret, judged as written and as resolved through symlinks (as the
    /// kernel walks it: `/dev/fd/../environ` is this process's environment).
    pub(crate) fn secret_path(&self, path: &Path) -> Option<String> {
        let lexical = normalize(path);
        let why = sensitive(&lexical, self.home).or_else(|| {
            [path, lexical.as_path()]
                .iter()
                .filter_map(|p| std::fs::canonicalize(p).ok())
                .find_map(|real| sensitive(&real, self.home))
        })?;
        // A `.pem` that holds only certificates is public: read its start to tell.
        let certificate_only = why.contains("certificate store")
            && ["pem", "crt", "cer"].iter().any(|e| {
                lexical
                    .extension()
                    .is_some_and(|x| x.eq_ignore_ascii_case(e))
            })
            && crate::config::read_regular(&lexical)
                .ok()
                .is_some_and(|file| {
                    use std::io::Read;
                    let mut head = Vec::new();
                    file.take(64 * 1024).read_to_end(&mut head).is_ok()
                        && head.windows(11).any(|w| w == b"CERTIFICATE")
                        && !head.windows(11).any(|w| w == b"PRIVATE KEY")
                });
        (!certificate_only).then_some(why)
    }

    /// Variables expanded: `$HOME`, `$PWD` and what the line set are known; any other variable
    /// counts as unset (empty), as bash would take it unless the environment sets it (the
    /// sandbox's environment does not). A command substitution, an expansion with operators or a
    /// variable the line set to such a value leaves the value unknown.
    pub(super) fn expand_variables(&self, text: &str, dynamic: bool) -> Option<String> {
        let out = self.expand(text, dynamic);
        (!out.contains(UNKNOWN)).then_some(out)
    }

    /// The word's text with what is known expanded and each part only known at run time
    /// replaced by [`UNKNOWN`].
    pub(super) fn expand(&self, text: &str, dynamic: bool) -> String {
        if !dynamic {
            return text.to_string();
        }
        let mut out = String::with_capacity(text.len());
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '`' => {
                    chars.by_ref().take_while(|&c| c != '`').for_each(drop);
                    out.push(UNKNOWN);
                }
                // A process substitution is a pipe whose commands are judged on their own.
                '<' | '>' if chars.peek() == Some(&'(') => {
                    skip_group(&mut chars);
                    out.push_str("/dev/fd/63");
                }
                '$' => {
                    let name = match chars.peek() {
                        Some('(' | '[') => {
                            skip_group(&mut chars);
                            out.push(UNKNOWN);
                            continue;
                        }
                        Some('{') => {
                            chars.next();
                            let mut name = String::new();
                            for c in chars.by_ref() {
                                if c == '}' {
                                    break;
                                }
                                name.push(c);
                            }
                            if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                                match self.operator(&name) {
                                    Some(value) => out.push_str(&value),
                                    None => out.push(UNKNOWN),
                                }
                                continue;
                            }
                            name
                        }
                        Some(c) if c.is_ascii_alphabetic() || *c == '_' => {
                            let mut name = String::new();
                            while let Some(&c) = chars.peek() {
                                if !(c.is_ascii_alphanumeric() || c == '_') {
                                    break;
                                }
                                name.push(c);
                                chars.next();
                            }
                            name
                        }
                        // Special parameters: only positional ones a `-c` string was given
                        // are known (`sh -c 'rm -rf $0' ~`); the rest expand to nothing.
                        Some(&c) if c.is_ascii_digit() || "$!?#@*-".contains(c) => {
                            chars.next();
                            c.to_string()
                        }
                        _ => {
                            out.push('$');
                            continue;
                        }
                    };
                    out.push_str(&self.variable(&name));
                }
                c => out.push(c),
            }
        }
        out
    }

    /// Why a word whose value is only known at run time may reach a secret: an unknown part
    /// could stand for any text, so its pattern is matched against every secret location.
    pub(crate) fn may_reach_secret(&self, word: &Word) -> Option<String> {
        let text = self.expand(&word.text, word.dynamic);
        // A glob that matches nothing now could match a secret made before it runs.
        let glob_only = !text.contains(UNKNOWN);
        if glob_only && (word.quoted || !has_glob(&text)) {
            return None;
        }
        let anything = || {
            format!(
                "`{}` is computed at run time and could name any file, secrets included",
                word.text
            )
        };
        let secrets: Vec<PathBuf> = (self.home.iter())
            .flat_map(|h| home_secrets().map(|s| h.join(s)))
            .chain(system_secrets().map(PathBuf::from))
            .collect();
        for candidate in path_candidates(&text) {
            if candidate.starts_with(UNKNOWN) && !glob_only {
                return Some(anything());
            }
            let readings = (expand_braces(candidate).into_iter().take(64))
                .flat_map(|braced| self.readings(&braced));
            for path in readings {
                // A pattern under a secret directory (`/root/.[s]sh/x`, someone else's home).
                let fixed: PathBuf = path
                    .components()
                    .take_while(|c| {
                        let part = c.as_os_str().to_string_lossy();
                        !part.contains(['*', '?', '[', UNKNOWN])
                    })
                    .collect();
                if fixed.components().count() > 1
                    && let Some(what) = sensitive(&fixed, self.home)
                {
                    return Some(format!(
                        "`{}` is only known when it runs and lies in {what}, a secret",
                        word.text
                    ));
                }
                let pattern = path.to_string_lossy().replace(UNKNOWN, "*");
                let Ok(glob) = globset::GlobBuilder::new(&pattern).build() else {
                    return Some(anything());
                };
                let glob = glob.compile_matcher();
                let tail: String = (path.file_name().map(|n| n.to_string_lossy()))
                    .unwrap_or_default()
                    .chars()
                    .map(|c| {
                        if "*?[]{}".contains(c) || c == UNKNOWN {
                            'x'
                        } else {
                            c
                        }
                    })
                    .collect();
                let matches = |p: &Path| {
                    glob.is_match(p)
                        && sensitive(p, self.home).is_some()
                        && (!glob_only || dots_named(&path, p))
                };
                if let Some(secret) = secrets
                    .iter()
                    .find(|s| matches(s) || matches(&s.join(&tail)))
                {
                    return Some(format!(
                        "`{}` is only known when it runs and could name {}, a secret",
                        word.text,
                        secret.display()
                    ));
                }
            }
        }
        None
    }

    /// A word's value with the variables the line knows, or `None` when it is only known at
    /// run time.
    pub(crate) fn value(&self, word: &Word) -> Option<String> {
        self.expand_variables(&word.text, word.dynamic)
    }

    /// Marks a variable the line sets to a value only known at run time (`d=$(...)`, a loop's
    /// variable): words that use it are not computable.
    pub(crate) fn unknown(&mut self, name: &str) {
        self.vars.insert(name.to_string(), UNKNOWN.to_string());
        self.doubtful.insert(name.to_string());
    }

    /// Records a variable the line sets to known text.
    /// A variable assigned twice with different text (`f=-x; (f=a); cmd $f`, `f=a; false && f=b`)
    /// may hold either when a command uses it: a subshell's, a pipeline's, a skipped branch's or
    /// a prefix's assignment does not reach the rest of the line, so it is unknown.
    pub(crate) fn set(&mut self, name: &str, text: String) {
        // An array (`a=(x)`, `a[0]=x`): `$a` is an element ai does not follow.
        if text.starts_with('(') || name.contains('[') {
            return self.unknown(name.split('[').next().unwrap_or(name));
        }
        if !text
            .chars()
            .all(|c| c.is_ascii_digit() || ",{}-+ ".contains(c))
        {
            self.doubtful.insert(name.to_string());
        }
        if self.vars.get(name).is_some_and(|before| *before != text) {
            return self.unknown(name);
        }
        self.vars.insert(name.to_string(), text);
    }

    pub(super) fn variable(&self, name: &str) -> String {
        // What the line set is what it holds (`PWD=$HOME/.a; cat ${PWD}ws/credentials`).
        if matches!(name, "HOME" | "PWD")
            && let Some(value) = self.vars.get(name)
        {
            return value.clone();
        }
        match name {
            "HOME" => self
                .home
                .map(|h| h.to_string_lossy().into_owned())
                .unwrap_or_default(),
            "PWD" => self.cwd.to_string_lossy().into_owned(),
            // Set by bash from the line's own text (`: -p; git log $_`, `read <<< x; $REPLY`,
            // `[[ x =~ re ]]`, getopts): only the run knows them.
            "_" | "REPLY" | "OPTARG" | "MAPFILE" | "COPROC" | "FUNCNAME" | "PIPESTATUS"
            | "DIRSTACK" | "OLDPWD" | "READLINE_LINE" => UNKNOWN.to_string(),
            // `BASH_EXECUTION_STRING` is the line itself, `BASH_REMATCH` what `=~` matched.
            name if name.starts_with("BASH") => UNKNOWN.to_string(),
            // The arguments (`$1`, `$@`): what a `-c` string was given is set; the rest only the
            // run knows (`set -- -delete; a=$1`). `$$`, `$?`, `$#` are numbers.
            name if name.chars().all(|c| c.is_ascii_digit() || "@*".contains(c)) => self
                .vars
                .get(name)
                .cloned()
                .unwrap_or_else(|| UNKNOWN.to_string()),
            // What the environment gives the command: a variable the sandbox passes on
            // (`$XDG_CONFIG_HOME/gh/hosts.yml` names the GitHub CLI's token: classifier round
            // 14); others are empty in the sandbox. Lists (`PATH`) are not one path.
            _ => self.vars.get(name).cloned().unwrap_or_else(|| {
                crate::config::reaches_the_sandbox(name)
                    .then(|| std::env::var(name).ok())
                    .flatten()
                    .filter(|value| !value.contains(':'))
                    .unwrap_or_default()
            }),
        }
    }

    /// Where a path with `..` may lead: as written (`rootln/..` is the directory holding
    /// `rootln`, as bash's logical `cd` reads it) and, when a link comes before the `..`, as
    /// the kernel resolves it (`rootln/..` is `/` when `rootln` links to `/`). One or two.
    fn readings(&self, text: &str) -> Vec<PathBuf> {
        let Some(joined) = self.joined(text) else {
            return Vec::new();
        };
        let lexical = normalize(&joined);
        let physical = text.contains("..").then(|| physical(&joined));
        std::iter::once(lexical.clone())
            .chain(physical.filter(|p| *p != lexical))
            .collect()
    }

    /// `~`, `~/x`, `~user/x` and relative paths made absolute, with `.` and `..` as written.
    fn joined(&self, text: &str) -> Option<PathBuf> {
        if text.is_empty() {
            return None;
        }
        let path = if let Some(rest) = text.strip_prefix('~') {
            let (user, tail) = rest.split_once('/').unwrap_or((rest, ""));
            let base = match user {
                "" => self.home?.to_path_buf(),
                "+" => self.cwd.clone(),
                // The home the user database gives (`~sys` is `/dev`, `~systemd-network` may be
                // `/`); no such user, and bash leaves the word as it is.
                name => match passwd_home(name) {
                    Some(home) => home,
                    None if name == "root" => PathBuf::from("/root"),
                    // Not in `/etc/passwd` (a directory service may know it): unknown.
                    None => return None,
                },
            };
            // `~//.aws` is `~/.aws`: a path joined onto an absolute tail would lose the base.
            base.join(tail.trim_start_matches('/'))
        } else {
            self.cwd.join(text)
        };
        Some(path)
    }
}

/// `~-` (the previous directory) and `~N`, `~+N`, `~-N` (the directory stack): only the run
/// knows where they are.
fn run_time_tilde(text: &str) -> bool {
    let Some(rest) = text.strip_prefix('~') else {
        return false;
    };
    let user = rest.split('/').next().unwrap_or("");
    let digits = user.trim_start_matches(['+', '-']);
    let stack = user == "-" || (!digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()));
    let unknown_user =
        !user.is_empty() && user != "+" && !stack && user != "root" && passwd_home(user).is_none();
    stack || unknown_user
}

/// A user's home directory as the user database has it (`/etc/passwd`).
fn passwd_home(user: &str) -> Option<PathBuf> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd
        .lines()
        .map(|line| line.split(':').collect::<Vec<_>>())
        .find(|fields| fields.first() == Some(&user) && fields.len() >= 6)
        .map(|fields| PathBuf::from(fields[5]))
}

/// Where `path` really is, as far as it exists: its deepest existing ancestor with links
/// resolved, and the rest as written (`rootln/tmp/new` is `/tmp/new` when `rootln` links to
/// `/`, whether or not `new` exists yet).
pub(crate) fn resolved(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut at = path;
    loop {
        if let Ok(real) = std::fs::canonicalize(at) {
            return rest.iter().rev().fold(real, |p, part| p.join(part));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                at = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// The path as the kernel walks it: each `..` leaves the directory the path so far really is,
/// links followed (as far as it exists; past that, `..` is read as written).
fn physical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                if let Ok(real) = std::fs::canonicalize(&out) {
                    out = real;
                }
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    normalize(&out)
}

/// Whether every hidden name of `path` is matched by a pattern component that starts with a
/// dot (bash's globs match a leading `.` only so).
fn dots_named(pattern: &Path, path: &Path) -> bool {
    pattern.components().zip(path.components()).all(|(p, c)| {
        let (p, c) = (
            p.as_os_str().to_string_lossy(),
            c.as_os_str().to_string_lossy(),
        );
        !c.starts_with('.') || p.starts_with('.')
    })
}

/// Skips a balanced `(...)` (or `[...]`) group that starts at the next character.
fn skip_group(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    let mut depth = 0usize;
    for c in chars.by_ref() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return;
                }
            }
            _ => {}
        }
    }
}

/// The parts of a word that may be paths: the word itself, the value of `--opt=value` or
/// `key=value`, a `@file` argument, a `file://` URL, and a path glued to a short option.
fn path_candidates(text: &str) -> Vec<&str> {
    let mut out = vec![text];
    if let Some((_, value)) = text.split_once('=') {
        out.push(value);
    }
    if let Some(rest) = text.strip_prefix('@') {
        out.push(rest);
    }
    if let Some(rest) = text.strip_prefix("file://") {
        out.push(rest);
    }
    // `HEAD:.env` (git), `host:path`: the part after the colon may be a path too.
    if !text.contains("://")
        && let Some((_, path)) = text.rsplit_once(':')
    {
        out.push(path);
    }
    if text.starts_with('-')
        && !text.starts_with("--")
        && let Some((pos, _)) = text.char_indices().nth(2)
    {
        out.push(&text[pos..]);
    }
    out.retain(|c| !c.is_empty() && !c.starts_with('-'));
    out
}

pub(crate) fn has_glob(text: &str) -> bool {
    text.contains(['*', '?', '['])
}

/// The existing paths a glob matches, as bash would match them (a leading `.` only by a pattern
/// that starts with `.`), bounded.
/// `None` once the line's globs have done more than [`LINE_GLOB_WORK`].
fn expand_glob(pattern: &Path, glob_work: &std::cell::Cell<usize>) -> Option<Vec<PathBuf>> {
    let mut current = vec![PathBuf::from("/")];
    for component in pattern.components() {
        let Component::Normal(part) = component else {
            continue;
        };
        let part = part.to_string_lossy();
        let mut next = Vec::new();
        if !has_glob(&part) {
            next.extend(current.iter().map(|dir| dir.join(part.as_ref())));
        } else if let Ok(glob) = globset::GlobBuilder::new(&part)
            .literal_separator(true)
            .build()
        {
            let matcher = glob.compile_matcher();
            for dir in &current {
                glob_work.set(glob_work.get() + 1);
                if glob_work.get() > LINE_GLOB_WORK {
                    return None;
                }
                let Ok(entries) = std::fs::read_dir(dir) else {
                    continue;
                };
                for entry in entries.flatten().take(MAX_EXPANSIONS) {
                    glob_work.set(glob_work.get() + 1);
                    let name = entry.file_name();
                    let name = name.to_string_lossy();
                    if name.starts_with('.') && !part.starts_with('.') {
                        continue;
                    }
                    if matcher.is_match(name.as_ref()) {
                        next.push(dir.join(name.as_ref()));
                    }
                }
            }
        }
        next.truncate(MAX_EXPANSIONS);
        current = next;
        if current.is_empty() {
            break;
        }
    }
    Some(current)
}

/// Removes `.` and resolves `..` without touching the file system.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    if out.as_os_str().is_empty() {
        out.push("/");
    }
    out
}

/// Whether a word's braces are too many or too deeply nested to expand within the budget.
fn braces_too_big(text: &str) -> bool {
    const MAX_GROUPS: usize = 32;
    const MAX_DEPTH: usize = 8;
    let mut depth = 0usize;
    let mut deepest = 0usize;
    for c in text.chars() {
        match c {
            '{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    text.matches('{').count() > MAX_GROUPS || deepest > MAX_DEPTH
}

/// Words one command's brace expansion may make before it asks (bash builds them all first).
const MAX_BRACE_WORDS: u64 = 100_000;

/// Why `words` hold more brace expansion than ai checks (too many or too deep groups, or more
/// words than the budget: bash builds them all before it runs anything), if they do.
pub(super) fn too_much_brace<'w>(words: impl IntoIterator<Item = &'w Word>) -> Option<String> {
    let mut count = 0u64;
    let word = words.into_iter().find(|w| {
        !w.quoted
            && (braces_too_big(&w.text) || {
                count = count.saturating_add(brace::word_count(&w.text));
                count > MAX_BRACE_WORDS
            })
    })?;
    Some(format!(
        "`{}` holds more brace expansion than ai checks",
        word.text.chars().take(60).collect::<String>()
    ))
}

/// Why bash's brace expansion would build a command name or an option this reading never sees
/// (`python3 {-c,CODE}`, `sed s/a/b/ {-i,} f`, `{sh,-c,CMD}`), if it would.
pub(super) fn braces_make_words(name: &Word, args: &[Word]) -> Option<String> {
    if let Some(why) = too_much_brace(std::iter::once(name).chain(args)) {
        return Some(why);
    }
    let expands = |word: &Word| {
        if word.quoted || !word.text.contains('{') {
            return None;
        }
        let alternatives = expand_braces(&word.text);
        (alternatives != [word.text.as_str()]).then_some(alternatives)
    };
    if expands(name).is_some() {
        return Some(format!(
            "brace expansion builds the command `{}` at run time",
            name.text
        ));
    }
    args.iter().find_map(|arg| {
        let alternatives = expands(arg)?;
        alternatives
            .iter()
            .any(|a| a.starts_with('-') || a.is_empty())
            .then(|| {
                format!(
                    "brace expansion turns `{}` into options this check cannot read",
                    arg.text
                )
            })
    })
}

/// The arguments as bash passes them after brace expansion (`mkdir -p src/{a,b}` →
/// `src/a src/b`).
pub(super) fn expand_words(args: &[Word]) -> Vec<Word> {
    let mut out = Vec::new();
    for arg in args {
        let alternatives = if arg.quoted || !arg.text.contains('{') {
            vec![arg.text.clone()]
        } else {
            expand_braces(&arg.text)
        };
        out.extend(alternatives.into_iter().map(|text| Word {
            text,
            ..arg.clone()
        }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn braces_expand_and_are_bounded() {
        let mut got = expand_braces("~/{.ssh,x}/{a,b}");
        got.sort();
        assert_eq!(got, ["~/.ssh/a", "~/.ssh/b", "~/x/a", "~/x/b"]);
        assert!(expand_braces(&"{a,b}".repeat(40)).len() <= MAX_EXPANSIONS + 1);
    }

    #[test]
    fn secrets_are_found_through_every_spelling() {
        let dir = tempfile::tempdir().expect("temp dir");
        let home = dir.path().join("home");
        std::fs::create_dir_all(home.join(".ssh")).expect("mkdir");
        std::fs::create_dir_all(home.join("project")).expect("mkdir");
        std::fs::write(home.join(".ssh/id_rsa"), "key").expect("write");
        std::os::unix::fs::symlink(home.join(".ssh/id_rsa"), home.join("project/notes.txt"))
            .expect("symlink");
        let place = Place {
            home: Some(&home),
            cwd: home.join("project"),
            vars: HashMap::from([("a".to_string(), "../.s".to_string())]),
            spent: Default::default(),
            glob_work: Default::default(),
            doubtful: Default::default(),
        };
        for spelling in [
            "~/.ssh/id_rsa",
            "../.ssh/id_rsa",
            "~/.s*/*",
            "~/{.ssh,x}/id_rsa",
            "notes.txt",
            "--key=../.ssh/id_rsa",
            "@../.ssh/id_rsa",
            "-i../.ssh/id_rsa",
            "../.ssh/id_*",
        ] {
            assert!(
                place.secret(&Word::literal(spelling)).is_some(),
                "{spelling} should reach the key"
            );
        }
        let dynamic = Word::computed("$HOME/.ssh/id_rsa");
        assert!(place.secret(&dynamic).is_some());
        for spelling in [
            "${a}sh/id_rsa",
            "../.s${unset}sh/id_rsa",
            "/proc/$$/environ",
        ] {
            assert!(
                place.secret(&Word::computed(spelling)).is_some(),
                "{spelling}"
            );
        }
        assert!(place.secret(&Word::computed("$(cat x)/id_rsa")).is_none());
        assert!(place.secret(&Word::literal("src/main.rs")).is_none());
        assert!(
            place.secret(&Word::literal("*")).is_some(),
            "through the symlink"
        );
        let quoted = Word {
            quoted: true,
            ..Word::literal("*.pem")
        };
        assert!(place.secret(&quoted).is_none());
    }
}
