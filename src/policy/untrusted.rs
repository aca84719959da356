//! Untrusted input: what a command reads from outside the project and the system taints the
//! conversation (its output may carry instructions the model then follows).

use super::classify::Judge;
use super::shell::Word;

impl Judge<'_> {
    /// Remembers the first existing file or directory read from outside the project and the
    /// system.
    pub(super) fn note_untrusted(&mut self, word: &Word) {
        if self.out.untrusted.is_some() {
            return;
        }
        let Some(paths) = self.place.paths(word) else {
            return;
        };
        // A directory too: what `grep -r`, `find -exec cat` or `ls` read there is not the project's.
        for path in paths.into_iter().filter(|p| p.exists()) {
            let real = std::fs::canonicalize(&path).unwrap_or(path);
            let trusted = self.project.is_some_and(|p| real.starts_with(p))
                || [
                    "/usr/", "/etc/", "/proc/", "/sys/", "/lib", "/bin/", "/opt/", "/dev/",
                ]
                .iter()
                .any(|dir| real.starts_with(dir));
            if !trusted {
                self.out.untrusted = Some(real.display().to_string());
                return;
            }
        }
    }
}
