//! The simple commands of one line in order, with the directories the line visits: a `trap`
//! body or a function runs later, after any `cd`, so it is judged again in every directory the
//! line visits.

use std::path::PathBuf;

use super::classify::{Context, Judge, ask};
use super::danger::basename;
use super::fed;
use super::program;
use super::shell::{Script, Word};

impl Judge<'_> {
    /// Judges the line's commands in order; false when checking ran out of time.
    pub(super) fn commands(&mut self, script: &Script, depth: usize) -> bool {
        let mut visited: Vec<PathBuf> = vec![self.place.cwd.clone()];
        // Functions run wherever they are called: judged like trap bodies.
        let mut traps: Vec<Word> = (script.function_bodies.iter())
            .map(|(_, body)| Word::literal(body.as_str()))
            .collect();
        // A call of one is judged as its body with the call's words for `$1`, `$@`.
        self.functions
            .extend(script.function_bodies.iter().cloned());
        // The scopes entered so far, each with the directory it was entered in.
        let mut entered: Vec<((usize, bool), PathBuf)> = Vec::new();
        for command in &script.commands {
            if self.expired(&command.text) {
                return false;
            }
            self.leave_scopes(&mut entered, &command.scopes);
            let mut findings = Vec::new();
            if command.inline_input
                && let Some(name) = command.words.first()
                && !program::is_filter(basename(&name.text))
            {
                findings.push(ask(format!(
                    "`{}` is fed input written in the command line, which it may run as code",
                    name.text
                )));
            }
            // What a shell reads as its script from the line is judged as `bash -c` text is;
            // a script it reads from elsewhere (`cat <<EOF | bash`, `{ bash; } <<< ...`,
            // `exec 0<<< ...; bash`) is for a person to read (classifier round 15).
            if fed::reads_script_from_stdin(&command.words) {
                match &command.fed {
                    Some(text) => self.line(text, depth + 1),
                    None => findings.push(
                        ask(format!(
                            "`{}` reads its script from its input, which ai does not read",
                            command.words.first().map_or("", |w| w.text.as_str())
                        ))
                        .narrowed(super::Approver::Person),
                    ),
                }
            }
            if let Some((name, args)) = command.words.split_first()
                && basename(&name.text) == "trap"
            {
                traps.extend(program::judge("trap", args).strings);
            }
            let context = Context {
                background: command.background,
                depth,
            };
            self.simple(
                &command.words,
                &command.assignments,
                context,
                0,
                &mut findings,
            );
            self.unit(&command.text, findings);
            if !visited.contains(&self.place.cwd) {
                visited.push(self.place.cwd.clone());
            }
        }
        self.at_end = true;
        self.leave_scopes(&mut entered, &[]);
        self.at_end = false;
        self.traps_everywhere(&traps, &visited, depth);
        true
    }

    /// Leaves the scopes the next command is not in and enters its own. A `cd` inside a
    /// subshell, `$(...)` or pipeline does not move what comes after (`(cd /x); make` runs
    /// here); one inside a branch or an `&&`/`||` chain may or may not have run, so what comes
    /// after runs where only the run knows (`cd /x; if false; then cd ~/p; fi; make`): that
    /// asks when either place is outside the project.
    fn leave_scopes(
        &mut self,
        entered: &mut Vec<((usize, bool), PathBuf)>,
        scopes: &[(usize, bool)],
    ) {
        let kept = entered
            .iter()
            .zip(scopes)
            .take_while(|((scope, _), next)| scope == *next)
            .count();
        let left: Vec<((usize, bool), PathBuf)> = entered.drain(kept..).collect();
        // Leaving a subshell, pipeline or `$(...)` undoes every `cd` inside it, conditional or
        // not: back where it was entered.
        let undone = left.iter().position(|((_, conditional), _)| !conditional);
        if let Some(at) = undone {
            self.place.cwd = left[at].1.clone();
        }
        let follows = !scopes.is_empty() || kept > 0 || !self.at_end;
        for ((_, _), cwd) in left[..undone.unwrap_or(left.len())].iter().rev() {
            // Commands follow that may run in either place (`[ -d sub ] && cd sub; rm -rf
            // ../x` deletes next to the project when `sub` is not there). At the end of the
            // line nothing follows.
            if self.place.cwd != *cwd && follows {
                let why = format!(
                    "a `cd` that may or may not run leaves later commands in {} or {}",
                    cwd.display(),
                    self.place.cwd.display()
                );
                self.unit("cd", vec![ask(why)]);
            }
        }
        for scope in &scopes[kept..] {
            entered.push((*scope, self.place.cwd.clone()));
        }
    }

    /// Each trap body judged again in every directory the line visits (`trap make EXIT;
    /// cd /tmp` runs /tmp's Makefile), with the arguments the line ends with.
    fn traps_everywhere(&mut self, traps: &[Word], visited: &[PathBuf], depth: usize) {
        // Judged again where the line ends too when `set --` gave it arguments by then: a
        // trap body's `$1` is what they are when it runs (`trap 'find ~ $1' EXIT; set -- -delete`).
        if traps.is_empty() || visited.len() < 2 && self.set_args.is_empty() {
            return;
        }
        let place = self.place.clone();
        for dir in visited {
            for body in traps.iter().filter(|b| !b.dynamic) {
                self.place = place.clone();
                self.place.cwd = dir.clone();
                self.line(&body.text, depth + 1);
            }
        }
        self.place = place;
    }

    /// A direct call of a function the line defines: judged as its body, and, when no record
    /// knows a program of that name, done (else the program is judged too: the definition may
    /// not be in force where it is called, `(rm(){ :; }); rm -rf ~`).
    pub(super) fn function_call(
        &mut self,
        name: &str,
        base: &str,
        args: &[Word],
        context: Context,
        findings: &mut Vec<super::Finding>,
    ) -> bool {
        if !self.called_function(name, args, context) || program::judge(base, args).known {
            return false;
        }
        findings.extend(super::danger::explain(base, args));
        findings.extend(self.ground().judge(base, args));
        true
    }

    /// A call of a function the line defines: its body, with this call's words as its
    /// arguments (`f() { find ~ "$1"; }; f -delete` is `find ~ -delete`). False for any other
    /// command.
    fn called_function(&mut self, name: &str, args: &[Word], context: Context) -> bool {
        // The last definition is the one in force (`f(){ :; }; f(){ find ~ "$1"; }; f -delete`).
        let Some((_, body)) = self
            .functions
            .iter()
            .rev()
            .find(|(f, _)| f == name)
            .cloned()
        else {
            return false;
        };
        let outer = std::mem::replace(&mut self.set_args, args.to_vec());
        self.line(&body, context.depth + 1);
        self.set_args = outer;
        true
    }
}
