//! What a line's variables do to the commands after them: assignments judged by the value
//! bash gives them, and the words a program is handed with the line's own values put in.

use super::args::{operands, option_values};
use super::classify::{Judge, ask};
use super::danger::risky_assignment;
use super::shell::Word;
use super::{Approver, Finding};
use super::{fetch, runs};

impl Judge<'_> {
    /// Variables a builtin sets to what only the run knows (`read x`, `printf -v x`, `wait -p
    /// x`): unknown from now on. A name with a subscript runs the subscript's code when it is
    /// set (`read 'x[$(cmd)]'`), which is for a person to read (classifier round 16).
    pub(super) fn names_set(&mut self, base: &str, args: &[Word], findings: &mut Vec<Finding>) {
        let names: Vec<Word> = match base {
            "read" | "mapfile" | "readarray" | "getopts" => operands(args).cloned().collect(),
            "printf" => option_values(args, &["-v"]),
            "wait" => option_values(args, &["-p"]),
            _ => return,
        };
        for name in names {
            if name.text.contains('[') && name.text.contains(['$', '`']) {
                let why = format!("`{base}` sets `{}`, whose subscript runs code", name.text);
                findings.push(ask(why).narrowed(Approver::Person));
            }
            self.place.unknown(&name.text);
        }
    }

    /// `NAME=value` (before a command, alone, or in `export`/`declare`): what it points
    /// package managers at, loads or runs, and what later words see of it.
    pub(super) fn assignment(&mut self, name: &str, value: &Word, findings: &mut Vec<Finding>) {
        // `a=$1` in a function called with arguments (or after `set --`): the argument's text.
        let given = self.with_arguments(value);
        let value = given.as_ref().unwrap_or(value);
        if fetch::points_elsewhere(name) {
            self.out.fetch.elsewhere = true;
            findings.push(ask(format!(
                "`{name}=` points package managers at another index or proxy"
            )));
        }
        // Judged by what bash assigns: the line's own variables put in; a value only known at
        // run time could be anything (`RUSTFLAGS=$f`, `PYTHONPATH=$HOME/x`).
        let assigned = match self.place.line_value(value) {
            Some(text) => text,
            None if value.dynamic => "/ -B".to_string(),
            None => value.text.clone(),
        };
        // bash's tables of what a name runs (`BASH_CMDS[ls]=/bin/rm`, `BASH_ALIASES[ls]=...`):
        // the later command is not the one ai read (classifier round 15).
        let base_name = name.split('[').next().unwrap_or(name);
        // bash's functions from the environment (`BASH_FUNC_ls%%`), git's settings from it
        // (`GIT_CONFIG_KEY_0=core.fsmonitor`): round 16.
        let renames = matches!(base_name, "BASH_CMDS" | "BASH_ALIASES")
            || name.starts_with("BASH_FUNC_")
            || name.starts_with("GIT_CONFIG_KEY_")
            || name.starts_with("GIT_CONFIG_VALUE_")
            || matches!(name, "GIT_CONFIG_COUNT" | "GIT_CONFIG_PARAMETERS")
            // Where git works (`GIT_WORK_TREE=~ git clean -ffdx`: round 17).
            || matches!(name, "GIT_WORK_TREE" | "GIT_DIR" | "GIT_COMMON_DIR" | "GIT_INDEX_FILE");
        if renames {
            let why = format!("`{name}=` makes a command name run something else");
            findings.push(ask(why).narrowed(Approver::Person));
        }
        // Code bash runs on its own (before traced commands, at prompts), and where `cd`
        // goes: what runs is not what ai read.
        if matches!(
            name,
            "PS4" | "PS0" | "PS1" | "PROMPT_COMMAND" | "CDPATH" | "GLOBIGNORE"
        ) {
            let why = format!("`{name}=` changes what bash runs or where `cd` goes");
            findings.push(ask(why).narrowed(Approver::Person));
        }
        if let Some(why) = risky_assignment(name, &assigned) {
            findings.push(ask(format!("`{name}=` {why}")));
        } else if matches!(name, "PYTHONPATH" | "NODE_PATH") {
            self.search_path_inside(name, &assigned, findings);
        }
        if let Some(program) = runs::assignment(name, value) {
            let why = format!("`{name}=` names a program the command runs");
            findings.push(ask(why).narrowed(Approver::YesOrPerson));
            self.program_line(&program, findings);
        }
        if !value.dynamic && (value.text.contains("$(") || value.text.contains('`')) {
            findings.push(ask(format!(
                "`{name}=` stores text the shell can later run as a command"
            )));
        }
        self.definite_secret(value, findings);
        match self.place.value(value) {
            Some(text) => self.place.set(name, text),
            None => self.place.unknown(name),
        }
    }

    /// Each directory of a module search path is the project's, links resolved
    /// (`PYTHONPATH=rootln/tmp/x`): else code from elsewhere is imported.
    fn search_path_inside(&mut self, name: &str, value: &str, findings: &mut Vec<Finding>) {
        let Some(project) = self.project else { return };
        let project = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
        for part in value.split(':').filter(|p| !p.is_empty()) {
            let paths = self.place.paths(&Word::literal(part)).unwrap_or_default();
            let outside = paths
                .iter()
                .find(|p| !super::reach::resolved(p).starts_with(&project));
            if let Some(path) = outside {
                findings.push(ask(format!(
                    "`{name}=` imports code from {}, outside the project",
                    path.display()
                )));
                return;
            }
        }
    }

    /// `words` with each one whose value the line set put in: a quoted one stays one word, an
    /// unquoted one is split where bash splits it, and one that expands to nothing is gone.
    pub(super) fn with_line_values(&self, words: &[Word]) -> Vec<Word> {
        let mut out = Vec::with_capacity(words.len());
        for word in words {
            // `$@`/`$*` are all the arguments, `$N` the N-th (none: nothing).
            if super::glob::is_positional(&word.text) && !self.set_args.is_empty() {
                match positional_number(&word.text) {
                    None => out.extend(self.set_args.iter().cloned()),
                    Some(0) => out.push(word.clone()),
                    Some(n) => out.extend(self.set_args.get(n - 1).cloned()),
                }
                continue;
            }
            // `$1`..`$9` inside a word (`of=$1`): the argument given, when it is known text.
            if let Some(word) = self.with_arguments(word) {
                out.push(word);
                continue;
            }
            match self.place.line_value(word) {
                Some(text) if word.quoted => out.push(Word {
                    text,
                    dynamic: false,
                    quoted: true,
                }),
                Some(text) => out.extend(text.split_whitespace().map(Word::literal)),
                None => out.push(word.clone()),
            }
        }
        out
    }

    /// The word with each `$N`/`${N}` in it replaced by the N-th argument the line gave (a
    /// function call's, `set --`'s), when there are some and all it names are plain text.
    fn with_arguments(&self, word: &Word) -> Option<Word> {
        if self.set_args.is_empty() || !word.dynamic {
            return None;
        }
        let mut text = word.text.clone();
        for (n, arg) in self.set_args.iter().enumerate().take(9).rev() {
            if arg.dynamic {
                return None;
            }
            let n = n + 1;
            text = text.replace(&format!("${{{n}}}"), &arg.text);
            text = text.replace(&format!("${n}"), &arg.text);
        }
        let plain = text != word.text && !text.contains('$') && !text.contains('`');
        plain.then_some(Word {
            text,
            dynamic: false,
            quoted: word.quoted,
        })
    }
}

/// The number of a positional parameter (`$2`, `${2}`); `None` for `$@` and `$*`.
fn positional_number(text: &str) -> Option<usize> {
    let inner = text.strip_prefix('$').unwrap_or(text);
    let inner = inner
        .strip_prefix('{')
        .and_then(|i| i.strip_suffix('}'))
        .unwrap_or(inner);
    inner.parse().ok()
}
