//! The simple commands of one line in order, with the directories the line visits: a `trap`
//! body or a function runs later, after any `cd`, so it is judged again in every directory the
//! line visits.

use std::path::PathBuf;

use super::classify::{Context, Judge, ask};
use super::danger::basename;
use super::program;
use super::shell::{Script, Word};

impl Judge<'_> {
    /// Judges the line's commands in order; false when checking ran out of time.
    pub(super) fn commands(&mut self, script: &Script, depth: usize) -> bool {
        let mut visited: Vec<PathBuf> = vec![self.place.cwd.clone()];
        // Functions run wherever they are called: judged like trap bodies.
        let mut traps: Vec<Word> = (script.function_bodies.iter())
            .map(|body| Word::literal(body.as_str()))
            .collect();
        for command in &script.commands {
            if self.expired(&command.text) {
                return false;
            }
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
        self.traps_everywhere(&traps, &visited, depth);
        true
    }

    /// Each trap body judged again in every directory the line visits (`trap make EXIT;
    /// cd /tmp` runs /tmp's Makefile).
    fn traps_everywhere(&mut self, traps: &[Word], visited: &[PathBuf], depth: usize) {
        if traps.is_empty() || visited.len() < 2 {
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
}
