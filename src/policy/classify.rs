//! Judges a whole command line: each simple command the parser found is looked up in the safe
//! table (unwrapping `sudo`, `nice`, `xargs`, `find -exec`, `bash -c` strings, ...), its words are
//! checked for secrets by every spelling, and the result is one verdict per simple command. A line
//! runs without asking only when every one of them is `allow`.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::args::operands;
use super::danger::{self, basename};
use super::fetch::{self, Fetches};
use super::glob::{as_expanded, glob_makes_options, loop_splits_names, xargs_makes_options};
use super::judged::Judged;
use super::kind::{in_system_bin, is_descriptor, is_source, named_at_run_time};
use super::own_text::own_text_and_background;
use super::path::{holds_secrets, secret_below};
use super::program;
use super::reach::{Place, braces_make_words, expand_words, has_glob, too_much_brace};
use super::runs;
use super::shell::{self, Redirect, RedirectKind, Word};
use super::wreck::Ground;
use super::{Approver, Finding, Verdict};
use crate::config::Fetcher;

/// How deep `bash -c "bash -c '...'"` strings are followed before giving up and asking.
const MAX_STRING_DEPTH: usize = 6;
/// How long one line may take to check before it asks instead.
const MAX_TIME: std::time::Duration = std::time::Duration::from_secs(2);
/// How long a line may be before it asks at once (nothing a person types is longer).
pub(crate) const MAX_LINE: usize = 16 * 1024;
/// How many wrappers (`nice timeout sudo env ...`) are unwrapped before giving up and asking.
const MAX_WRAPPERS: usize = 16;

/// Where a command runs.
#[derive(Debug, Clone)]
pub(crate) struct Scope<'a> {
    pub(crate) home: Option<&'a Path>,
    pub(crate) cwd: PathBuf,
    /// The project root (canonical); `None` when there is no project (home, `/`, a system dir).
    pub(crate) project: Option<&'a Path>,
    pub(crate) temp: &'a Path,
}

/// The verdict on one simple command (or one redirection, or one assignment) of a line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Unit {
    pub(crate) command: String,
    #[serde(rename = "decision")]
    pub(crate) verdict: Verdict,
    pub(crate) reasons: Vec<String>,
    /// Who may approve it when it asks (left out when anyone may).
    #[serde(rename = "approvable_by", skip_serializing_if = "Approver::is_anyone")]
    pub(crate) approver: Approver,
}

/// Everything known about a line before it runs.
#[derive(Debug, Clone, Default)]
pub(crate) struct Judgement {
    pub(crate) units: Vec<Unit>,
    /// It reads something from outside the project (a file, the network): its output is untrusted.
    pub(crate) untrusted: Option<String>,
    /// The package managers it runs, and what else runs beside them.
    pub(crate) fetch: Fetches,
    /// Some command of it prints the environment.
    pub(crate) prints_environment: bool,
}

pub(crate) fn judge_line(line: &str, scope: &Scope<'_>) -> Judgement {
    if line.len() > MAX_LINE {
        let mut out = Judgement::default();
        let why = format!(
            "the command is {} bytes long, more than ai checks ({MAX_LINE})",
            line.len()
        );
        out.units.push(Unit {
            command: line.to_string(),
            verdict: Verdict::Ask,
            reasons: vec![why],
            approver: Approver::YesOrPerson,
        });
        out.fetch.others = true;
        return out;
    }
    let mut judge = Judge {
        place: Place {
            home: scope.home,
            cwd: scope.cwd.clone(),
            vars: Default::default(),
            spent: Default::default(),
            glob_work: Default::default(),
            doubtful: Default::default(),
        },
        deadline: std::time::Instant::now() + MAX_TIME,
        walked: Default::default(),
        histories: Default::default(),
        project: scope.project,
        temp: scope.temp,
        out: Judgement::default(),
        written: Vec::new(),
        set_args: Vec::new(),
        functions: Vec::new(),
        at_end: false,
    };
    judge.line(line, 0);
    judge.out
}

pub(super) struct Judge<'a> {
    pub(super) place: Place<'a>,
    /// When checking stops and the line asks instead.
    deadline: std::time::Instant,
    /// The secret walk of each directory, shared by the commands of the line.
    walked: std::collections::HashMap<PathBuf, Option<PathBuf>>,
    /// Why each repository's history may hold a secret, listed once per line.
    pub(super) histories: std::collections::HashMap<PathBuf, Option<String>>,
    pub(super) project: Option<&'a Path>,
    pub(super) temp: &'a Path,
    pub(super) out: Judgement,
    /// Files the line writes (what they hold now is not what a later command runs).
    pub(super) written: Vec<PathBuf>,
    /// The shell's arguments as `set -- WORDS` set them, when a glob is among them.
    pub(super) set_args: Vec<Word>,
    /// The functions the line defines, by name, with their bodies.
    pub(super) functions: Vec<(String, String)>,
    /// The line's commands are all judged (scopes left now have nothing after them).
    pub(super) at_end: bool,
}

impl Judge<'_> {
    pub(super) fn unit(&mut self, command: &str, findings: Vec<Finding>) {
        let verdict = findings
            .iter()
            .map(|f| f.verdict)
            .max()
            .unwrap_or(Verdict::Allow);
        let mut reasons: Vec<String> = Vec::new();
        let mut approver = Approver::Anyone;
        for finding in findings.into_iter().filter(|f| f.verdict == verdict) {
            approver = approver.max(finding.approver);
            if !reasons.contains(&finding.reason) {
                reasons.push(finding.reason);
            }
        }
        self.out.units.push(Unit {
            command: command.to_string(),
            verdict,
            reasons,
            approver,
        });
    }

    /// Whether the time to check the line is up; the first time, the line asks for it.
    pub(super) fn expired(&mut self, text: &str) -> bool {
        if std::time::Instant::now() < self.deadline {
            return false;
        }
        let why = format!("checking the command took longer than {MAX_TIME:?}");
        if !self.out.units.iter().any(|u| u.reasons.contains(&why)) {
            self.unit(text, vec![ask(why).narrowed(Approver::YesOrPerson)]);
        }
        true
    }

    /// The first secret below `dir`, walked once per line.
    fn secret_below(&mut self, dir: &Path) -> Option<PathBuf> {
        let home = self.place.home;
        (self.walked.entry(dir.to_path_buf()))
            .or_insert_with(|| secret_below(dir, home))
            .clone()
    }

    pub(super) fn ground(&self) -> Ground<'_> {
        Ground {
            place: &self.place,
            project: self.project,
        }
    }

    pub(super) fn line(&mut self, text: &str, depth: usize) {
        if depth > MAX_STRING_DEPTH {
            self.unit(
                text,
                vec![
                    ask("shell strings are nested too deeply to check")
                        .narrowed(Approver::YesOrPerson),
                ],
            );
            return;
        }
        if self.expired(text) {
            return;
        }
        let script = shell::parse(text);
        // What ai cannot read (a line parsed only in part) is for a person to read: `--yes`
        // approves what ai judged, and this it could not (classifier round 15: `cat <<EOF;
        // rm -rf ~` and `for i in 1; { ...; }` ran under `--yes`).
        if let Some(why) = script.unreadable {
            self.unit(text, vec![ask(why).narrowed(Approver::Person)]);
        }
        for name in &script.fork_bombs {
            let reason = format!(
                "the function `{name}` calls itself while starting processes (a pipeline or `&`): a fork bomb"
            );
            self.unit(text, vec![deny(reason)]);
        }
        for (name, value) in &script.assignments {
            let mut findings = Vec::new();
            self.assignment(name, value, &mut findings);
            self.unit(&format!("{name}={}", value.text), findings);
        }
        for expansion in &script.indirect {
            let reason = format!("`{expansion}` expands a value ai cannot see, which can run code");
            self.unit(expansion, vec![ask(reason).narrowed(Approver::Person)]);
        }
        self.loose(&script);
        // Redirections are judged from where the line starts and again after its `cd`s.
        for redirect in &script.redirects {
            self.redirect(redirect);
        }
        if !self.commands(&script, depth) {
            return;
        }
        for redirect in script
            .redirects
            .iter()
            .filter(|r| r.kind == RedirectKind::Input)
        {
            self.redirect(redirect);
        }
        if self.place.over_budget() {
            let why = "its globs and braces name more paths than ai checks";
            self.unit(text, vec![ask(why).narrowed(Approver::YesOrPerson)]);
        }
        self.second_reading(text, &script);
        self.moved_writes(&script);
    }

    /// Loop variables, and the words that name things outside any command (`for f in WORDS`).
    fn loose(&mut self, script: &shell::Script) {
        let assigned = script.assignments.iter().map(|(_, value)| value);
        if let Some(why) = too_much_brace(script.loose_words.iter().chain(assigned)) {
            self.unit("{...}", vec![ask(why)]);
        }
        for (name, values) in &script.loop_variables {
            self.loop_assigns(name, values);
            self.loop_variable(name, values);
            // `for f in *; do sort "$f"; done` passes each name where it may be read as an option.
            let why = glob_makes_options(values, &self.place.cwd, &self.written)
                .or_else(|| loop_splits_names(values, &self.place));
            if let Some(why) = why {
                self.unit(&format!("for {name} in"), vec![ask(why)]);
            }
        }
        for word in &script.loose_words {
            let mut findings = Vec::new();
            self.definite_secret(word, &mut findings);
            if !word.dynamic && (word.text.contains("$(") || word.text.contains('`')) {
                findings.push(ask("feeds in text the shell can later run as a command"));
            }
            if !findings.is_empty() {
                let whole = findings
                    .into_iter()
                    .map(|f| f.narrowed(Approver::YesOrPerson));
                self.unit(&word.text, whole.collect());
            }
        }
    }

    /// Notes the package manager a simple command runs (or that something else runs).
    fn fetch(&mut self, base: &str, args: &[Word], findings: &mut Vec<Finding>) {
        // A fetch run first would run somewhere else than the command after a `cd`.
        self.out.fetch.moves |= matches!(base, "cd" | "pushd" | "popd");
        match fetch::manager_of(base, args) {
            Some((manager, fetches)) => {
                self.out.fetch.manager(manager, fetches);
                if fetches {
                    self.out.fetch.forms.push(fetch::fetch_form(base, args));
                }
                // `npm test`, `npm run` run the project's scripts: they must not share a fetch's
                // network (`npm ci && npm run x`).
                if manager == Fetcher::Node && !fetches {
                    self.out.fetch.others = true;
                }
                if let Some(why) = fetch::elsewhere(base, args).filter(|_| fetches) {
                    self.out.fetch.elsewhere = true;
                    findings.push(ask(why));
                }
            }
            None if fetch::harmless(base) => {}
            None => self.out.fetch.others = true,
        }
    }

    fn redirect(&mut self, redirect: &Redirect) {
        let target = &redirect.target;
        let mut findings = Vec::new();
        match redirect.kind {
            RedirectKind::Duplicate => return,
            RedirectKind::Input => {
                self.secret(target, &mut findings);
                if target.text.starts_with("/dev/tcp/") || target.text.starts_with("/dev/udp/") {
                    findings.push(ask(format!(
                        "`{}` opens a network connection",
                        redirect.text
                    )));
                }
                self.note_untrusted(target);
            }
            RedirectKind::Output => {
                self.note_written(target);
                let path = target.text.as_str();
                self.ground()
                    .onto_device(target, "a redirection writes onto", &mut findings);
                if findings.is_empty()
                    && !matches!(
                        path,
                        "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty"
                    )
                    && !is_descriptor(path, target.dynamic)
                {
                    self.write_target(target, &format!("`{}`", redirect.text), &mut findings);
                }
            }
        }
        if !findings.is_empty() {
            self.unit(&redirect.text, findings);
        }
    }

    /// Judges one simple command into `findings`.
    pub(super) fn simple(
        &mut self,
        words: &[Word],
        assignments: &[(String, Word)],
        context: Context,
        wraps: usize,
        findings: &mut Vec<Finding>,
    ) {
        for (name, value) in assignments {
            self.assignment(name, value, findings);
        }
        // What bash hands the program: the line's own variables put in, unquoted ones split
        // (`f=-delete; find ~ $f` is `find ~ -delete`).
        let words = &self.with_line_values(words);
        let Some((name, args)) = words.split_first() else {
            return;
        };
        if wraps > MAX_WRAPPERS {
            findings.push(ask("the command is wrapped too deeply to check"));
            return;
        }
        if let Some(why) = braces_make_words(name, args) {
            self.out.fetch.others = true;
            findings.push(ask(why));
            // What it wrecks in every expansion still denies (`rm -rf {/,}`).
            let base = basename(&name.text);
            findings.extend(self.ground().judge(base, &expand_words(args)));
            return;
        }
        let args = &expand_words(args);
        let seen = as_expanded(args, &self.place, &self.set_args);
        if let Some(why) = glob_makes_options(&seen, &self.place.cwd, &self.written) {
            findings.push(ask(why));
        }
        if name.dynamic || has_glob(&name.text) {
            self.out.fetch.others = true;
            // What runs is for a person to read: `${x:-rm} -rf ~` (classifier round 16).
            findings.push(
                ask(format!(
                    "the command name `{}` is computed at run time",
                    name.text
                ))
                .narrowed(Approver::Person),
            );
            self.secrets_in(args, true, findings);
            return;
        }
        if name.text.contains('/') && !in_system_bin(&name.text) {
            self.out.fetch.others = true;
            if self.path_program(name, args, context, findings) {
                return;
            }
        }
        let base = basename(&name.text);
        if wraps == 0 && self.function_call(&name.text, base, args, context, findings) {
            return;
        }
        own_text_and_background(base, args, context.background && wraps == 0, findings);
        if let Some(inner) = self.wrapper(base, args, context, findings) {
            self.nested(inner, &[], context, wraps, findings);
            return;
        }
        self.programs(base, args, findings);
        self.make_environment(base, assignments, findings);
        let vars: Vec<(String, String)> = (assignments.iter())
            .map(|(n, v)| (n.clone(), v.text.clone()))
            .chain(self.place.vars.iter().map(|(n, v)| (n.clone(), v.clone())))
            .collect();
        let vars = vars.iter().map(|(n, v)| (n.as_str(), v.as_str()));
        self.ground()
            .wipes_by_environment(base, args, vars, findings);
        self.fetch(base, args, findings);
        self.sets(base, args, findings);
        self.out.prints_environment |= program::prints_environment(base, args);
        self.by_tables(base, args, context, wraps, findings);
    }

    /// The program's own rows: its record's verdict and what it follows, writes and
    /// reads; the deny rules; and, for a program no table knows, a question.
    fn by_tables(
        &mut self,
        base: &str,
        args: &[Word],
        context: Context,
        wraps: usize,
        findings: &mut Vec<Finding>,
    ) {
        let judged = program::judge(base, args);
        let explained = danger::explain(base, args);
        // A program with a record has its own reasons; only the deny rules still apply.
        findings.extend(
            explained
                .into_iter()
                .filter(|f| !judged.known || f.verdict == Verdict::Deny),
        );
        findings.extend(self.ground().judge(base, args));
        if !judged.known {
            findings.extend(self.wrapped_wrecks(args));
        }
        if !judged.known && !findings.iter().any(|f| f.verdict > Verdict::Allow) {
            findings.push(ask(danger::category(base).unwrap_or_else(|| {
                format!("`{base}` is not a program ai knows to be safe to run unasked")
            })));
        }
        findings.extend(judged.asks.iter().cloned().map(ask));
        self.follow(&judged, context, wraps, findings);
        self.writes(base, &judged, findings);
        if !judged.names_only {
            // `echo` and `printf` print their words and open none.
            self.secrets_in(args, !program::prints_words(base), findings);
            self.reads(base, args, &judged, findings);
        }
        if judged.repository {
            self.own_repository(&judged.dirs, findings);
        }
        if judged.history {
            self.history_secrets(&judged.dirs, findings);
        }
        if let Some(why) = self.picks_up_written(base, &judged) {
            findings.push(ask(why).narrowed(Approver::Person));
        }
        if judged.project_code && !self.in_project(&self.place.cwd.clone()) {
            let why = format!(
                "`{base}` runs the build, test or lint code of {}, which is not the project",
                self.place.cwd.display()
            );
            findings.push(ask(why).narrowed(Approver::YesOrPerson));
        } else if judged.project_code
            && let Some(file) = self.build_file_elsewhere(&self.place.cwd.clone())
        {
            let why = format!(
                "`{base}` reads {}, which is not the project's own (a link out of it, or another user's above it)",
                file.display()
            );
            findings.push(ask(why).narrowed(Approver::YesOrPerson));
        }
    }

    /// What options that run programs make the command run: judged as lines of their own.
    fn programs(&mut self, base: &str, args: &[Word], findings: &mut Vec<Finding>) {
        self.note_edited_in_place(base, args);
        findings.extend(xargs_makes_options(base, &self.place.cwd).map(ask));
        let runs = runs::options(base, args);
        for line in &runs.lines {
            self.program_line(line, findings);
        }
        // What an option makes run in a form ai does not read is for a person (round 18:
        // `cargo --config target.X.runner=...`, `go test -exec`).
        if let Some(why) = runs.why {
            let who = if runs.unread {
                Approver::Person
            } else {
                Approver::YesOrPerson
            };
            findings.push(ask(why).narrowed(who));
        }
    }

    /// Builtins that change what later words mean: `cd` moves, `read` and friends set
    /// variables to what they read (unknown, so words using them are not computable).
    fn sets(&mut self, base: &str, args: &[Word], findings: &mut Vec<Finding>) {
        // pushd's and popd's directory stack is not followed: a bare `pushd`, `pushd +N` and
        // `popd` go to a directory ai does not know.
        let stack = base == "popd"
            || (base == "pushd"
                && operands(args)
                    .next()
                    .is_none_or(|w| w.text.starts_with(['+', '-'])));
        if stack {
            findings.push(ask(format!(
                "`{base}` goes to a directory of its stack, which ai does not follow"
            )));
        } else if matches!(base, "cd" | "pushd") {
            self.cd(args, findings);
        }
        self.names_set(base, args, findings);
        // Reached as a command (`builtin declare`, `command export`), not parsed as one.
        if matches!(
            base,
            "declare" | "typeset" | "local" | "export" | "readonly"
        ) {
            self.declares(args, findings);
        }
        // `set -- WORDS` gives the line its own `$@`, `$1`, ... (judged where they are used);
        // `shift [N]` drops the first ones.
        if base == "set" {
            self.set_args = operands(args).cloned().collect();
        }
        if base == "shift" {
            let n = args
                .first()
                .map_or(Some(1), |a| a.text.parse::<usize>().ok());
            match n {
                Some(n) => drop(self.set_args.drain(..n.min(self.set_args.len()))),
                None => self.set_args.clear(),
            }
        }
    }

    /// A command another one runs (`sudo X`, `xargs X`, `find -exec X`): judged into the same
    /// unit, and no rule that names the outer command approves what it runs.
    pub(super) fn nested(
        &mut self,
        words: &[Word],
        assignments: &[(String, Word)],
        context: Context,
        wraps: usize,
        findings: &mut Vec<Finding>,
    ) {
        let mut inner = Vec::new();
        self.simple(words, assignments, context, wraps + 1, &mut inner);
        findings.extend(inner.into_iter().map(|f| f.narrowed(Approver::YesOrPerson)));
    }

    /// A program an option or a variable names, judged as a command line of its own.
    pub(super) fn program_line(&mut self, line: &Word, findings: &mut Vec<Finding>) {
        if line.dynamic {
            findings.push(Finding::person(format!(
                "runs a program computed at run time: {}",
                line.text
            )));
        } else {
            self.line(&line.text, 1);
        }
    }

    /// What a command runs or touches besides itself: inner commands, strings, scripts, files.
    pub(super) fn follow(
        &mut self,
        judged: &Judged,
        context: Context,
        wraps: usize,
        findings: &mut Vec<Finding>,
    ) {
        let cwd = self.place.cwd.clone();
        if let Some(dir) = &judged.inner_dir {
            self.cd(std::slice::from_ref(dir), findings);
        }
        for inner in &judged.inner {
            self.nested(inner, &judged.inner_assignments, context, wraps, findings);
        }
        self.place.cwd = cwd;
        // Paths handed over at run time (`xargs cat`): a secret in the tree could be one of them.
        if judged.contents
            && !judged.recursive
            && let Some(secret) = self.secret_below(&self.place.cwd.clone())
        {
            findings.push(ask(format!(
                "it reads files named at run time, and {} (a secret) is here",
                secret.display()
            )));
        }
        for string in &judged.strings {
            if string.dynamic {
                // `xargs sh -c` fed its script: for a person to read (classifier round 16).
                findings.push(
                    ask(format!(
                        "runs a shell string computed at run time: {}",
                        string.text
                    ))
                    .narrowed(Approver::Person),
                );
            } else {
                self.shell_string(&string.text, &judged.positional, context);
            }
        }
        for script in &judged.scripts {
            self.project_file(script, findings);
        }
        for module in &judged.imports {
            self.project_module(module, findings);
        }
        for script in &judged.shell_scripts {
            self.shell_script(script, context, findings);
        }
        for dir in &judged.dirs {
            self.inside(dir, false, "works in", findings);
        }
        for output in &judged.outputs {
            self.inside(output, true, "writes", findings);
            self.note_written(output);
        }
        for read in &judged.reads {
            self.secret(read, findings);
            self.note_untrusted(read);
        }
        if judged.network {
            self.out
                .untrusted
                .get_or_insert_with(|| "the network".into());
        }
    }

    /// Reading programs: computed paths ask, whole-home reads ask, outside files taint.
    fn reads(&mut self, base: &str, args: &[Word], judged: &Judged, findings: &mut Vec<Finding>) {
        if judged.known
            && !program::prints_words(base)
            && args
                .iter()
                .any(|a| a.dynamic && (a.text.contains("$(") || a.text.contains('`')))
        {
            findings.push(ask(format!(
                "`{base}` is given a path computed at run time, which ai cannot check"
            )));
        }
        // The trees it walks: its path operands (after the pattern, for the grep family; before
        // the expression, for find), else where it runs.
        let record = program::find(base);
        let own = record.map_or(args, |p| p.own_args(args));
        let all: Vec<&Word> = match record {
            Some(program) => program.operands(own),
            None => operands(own).collect(),
        };
        let paths: &[&Word] = all
            .get(record.map_or(0, |p| p.paths_start(own))..)
            .unwrap_or(&[]);
        let mut targets: Vec<PathBuf> = paths
            .iter()
            .filter_map(|w| self.place.paths(w))
            .flatten()
            .filter(|p| p.is_dir())
            .collect();
        if judged.recursive {
            if paths.is_empty() {
                targets.push(self.place.cwd.clone());
            }
            // rg, ag, fd and git grep skip hidden and ignored files unless told otherwise.
            let skips_hidden = record.is_some_and(|p| p.skips_hidden(own));
            let walk: Vec<PathBuf> = (targets.iter())
                .filter(|d| {
                    judged.contents
                        && !skips_hidden
                        && d.is_dir()
                        && !holds_secrets(d, self.place.home)
                })
                .cloned()
                .collect();
            if let Some(secret) = walk.iter().find_map(|d| self.secret_below(d)) {
                findings.push(ask(format!(
                    "`{base}` reads everything below, {} included (a secret)",
                    secret.display()
                )));
            }
            // A walk that prints only names (`find / -perm /u=s`) reads no secret.
            if let Some(dir) = (targets.iter())
                .filter(|_| judged.contents)
                .find(|d| d.is_dir() && holds_secrets(d, self.place.home))
            {
                findings.push(ask(format!(
                    "`{base}` reads all of {}, secrets included",
                    dir.display()
                )));
            }
        }
        for arg in operands(args) {
            self.note_untrusted(arg);
        }
    }

    pub(super) fn in_project(&self, dir: &Path) -> bool {
        let real = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        self.project.is_some_and(|p| real.starts_with(p))
    }

    /// A program or script run from a file: safe only when the file is the project's own.
    pub(super) fn project_file(&mut self, word: &Word, findings: &mut Vec<Finding>) {
        if let Some(why) = named_at_run_time(word) {
            findings.push(ask(why));
            return;
        }
        // Whatever its extension, a file the line writes first is not what it holds now.
        let paths = self.place.paths(word).unwrap_or_default();
        let git = self.project.map(|p| p.join(".git"));
        let in_git = paths.iter().find(|p| {
            let real = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
            git.as_ref().is_some_and(|g| real.starts_with(g))
        });
        if let Some(path) = in_git {
            let why = format!("runs {}, a file of git's own directory", path.display());
            findings.push(ask(why));
            return;
        }
        let written = paths.iter().find_map(|path| self.written_here(path));
        if let Some(why) = written {
            findings.push(ask(why).narrowed(Approver::Person));
            return;
        }
        self.inside(word, false, "runs", findings);
    }

    /// Asks unless `word` names a path inside the project (or temp, when `temp_ok`).
    fn inside(&mut self, word: &Word, temp_ok: bool, verb: &str, findings: &mut Vec<Finding>) {
        self.secret(word, findings);
        if word.text.contains("://") {
            findings.push(ask(format!("{verb} code from a URL: {}", word.text)));
            return;
        }
        if matches!(
            word.text.as_str(),
            "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0"
        ) {
            findings.push(ask(format!("{verb} code it reads on its input")));
            return;
        }
        let Some(paths) = self.place.paths(word) else {
            findings.push(ask(format!(
                "{verb} `{}`, a path computed at run time",
                word.text
            )));
            return;
        };
        for path in paths {
            let real = super::reach::resolved(&path);
            let in_project = self.project.is_some_and(|p| real.starts_with(p));
            let in_temp = temp_ok && real.starts_with(self.temp);
            let in_git = self
                .project
                .is_some_and(|p| real.starts_with(p.join(".git")));
            if temp_ok && (in_git || is_source(&real, real.exists())) {
                findings.push(ask(format!(
                    "{verb} over {}, which changes the project or runs later",
                    real.display()
                )));
                return;
            }
            if !in_project && !in_temp {
                let project = self.project.map_or("there is no project here".into(), |p| {
                    format!("the project is {}", p.display())
                });
                let why = format!("{verb} {}, outside the project ({project})", real.display());
                // Code or settings from outside are never run on a rule's word.
                let approver = if temp_ok {
                    Approver::Anyone
                } else {
                    Approver::YesOrPerson
                };
                findings.push(ask(why).narrowed(approver));
                return;
            }
        }
    }
}

/// What a simple command's surroundings say about it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Context {
    pub(super) background: bool,
    pub(super) depth: usize,
}

pub(super) fn ask(reason: impl Into<String>) -> Finding {
    Finding::new(Verdict::Ask, reason)
}

pub(super) fn deny(reason: impl Into<String>) -> Finding {
    Finding::new(Verdict::Deny, reason)
}
