//! The user's own rules: `--allow PATTERN` and the `[policy]` table of config.toml (`allow`, `ask`,
//! `deny`), glob patterns matched against each simple command of a line. Deny rules beat
//! everything; ask rules make a safe command ask; allow rules approve only a line whose every
//! command that would ask matches one of them.
//!
//! Patterns match whole words: a `*` right after a word or name (`make*`, `git push*`,
//! `cargo test*`) means "then any further words", so `make*` covers `make` and `make test` but
//! not `makepkg`, and `git push*` not `git pushx`. A `*` anywhere else (`npm run test:*`,
//! `git push * main`) is a plain glob.

use globset::{Glob, GlobMatcher};

use super::Verdict;
use super::classify::Unit;
use crate::config::PolicyConfig;

/// A pattern that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{source_name} pattern {pattern:?}: {message}")]
pub(crate) struct RulesError {
    pub(crate) source_name: &'static str,
    pub(crate) pattern: String,
    pub(crate) message: String,
}

#[derive(Debug, Clone)]
struct Rule {
    pattern: String,
    matcher: GlobMatcher,
    /// For a pattern ending in a word then `*`: the word alone (`make` for `make*`).
    exact: Option<String>,
    /// Where it was written: `--allow` or `[policy] allow` in config.toml.
    source: &'static str,
}

impl Rule {
    fn matches(&self, command: &str) -> bool {
        let command = command.trim();
        self.exact.as_deref() == Some(command) || self.matcher.is_match(command)
    }

    fn describe(&self) -> String {
        format!("{} {:?}", self.source, self.pattern)
    }
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Rules {
    allow: Vec<Rule>,
    ask: Vec<Rule>,
    deny: Vec<Rule>,
}

impl Rules {
    pub(crate) fn new(allow_flags: &[String], file: &PolicyConfig) -> Result<Self, RulesError> {
        let compile =
            |patterns: &[String], source: &'static str| -> Result<Vec<Rule>, RulesError> {
                patterns
                    .iter()
                    .map(|pattern| {
                        let (glob, exact) = whole_words(pattern.trim());
                        Glob::new(&glob)
                            .map(|glob| Rule {
                                pattern: pattern.clone(),
                                matcher: glob.compile_matcher(),
                                exact,
                                source,
                            })
                            .map_err(|err| RulesError {
                                source_name: source,
                                pattern: pattern.clone(),
                                message: err.kind().to_string(),
                            })
                    })
                    .collect()
            };
        let mut allow = compile(allow_flags, "--allow")?;
        allow.extend(compile(&file.allow, "[policy] allow")?);
        Ok(Rules {
            allow,
            ask: compile(&file.ask, "[policy] ask")?,
            deny: compile(&file.deny, "[policy] deny")?,
        })
    }

    /// The units with the deny and ask rules applied.
    pub(crate) fn apply(&self, units: Vec<Unit>) -> Vec<Unit> {
        units
            .into_iter()
            .map(|mut unit| {
                if let Some(rule) = self.deny.iter().find(|r| r.matches(&unit.command)) {
                    unit.verdict = Verdict::Deny;
                    unit.reasons = vec![format!("it matches the deny rule {}", rule.describe())];
                } else if unit.verdict == Verdict::Allow
                    && let Some(rule) = self.ask.iter().find(|r| r.matches(&unit.command))
                {
                    unit.verdict = Verdict::Ask;
                    unit.reasons = vec![format!("it matches the ask rule {}", rule.describe())];
                }
                unit
            })
            .collect()
    }

    /// The allow rule that approves `command`, described, if one does.
    pub(crate) fn approving(&self, command: &str) -> Option<String> {
        self.allow
            .iter()
            .find(|r| r.matches(command))
            .map(Rule::describe)
    }

    /// Where the rules that approve every one of `commands` were written (`--allow` or
    /// `[policy] allow`), when allow rules cover them all (and there is at least one).
    pub(crate) fn approve_all(&self, commands: &[String]) -> Option<&'static str> {
        let mut source = None;
        for command in commands {
            let rule = self.allow.iter().find(|r| r.matches(command))?;
            source.get_or_insert(rule.source);
        }
        source
    }
}

/// `WORD*` as the glob `WORD *` and the exact command `WORD`; any other pattern as it is.
fn whole_words(pattern: &str) -> (String, Option<String>) {
    let word_star = pattern.strip_suffix('*').filter(|head| {
        head.chars()
            .last()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    });
    match word_star {
        Some(head) => (format!("{head} *"), Some(head.to_string())),
        None => (pattern.to_string(), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(command: &str, verdict: Verdict) -> Unit {
        Unit {
            command: command.into(),
            verdict,
            reasons: vec!["why".into()],
            approver: Default::default(),
        }
    }

    #[test]
    fn allow_rules_approve_only_when_every_command_matches() {
        let rules = Rules::new(&["git push*".into()], &PolicyConfig::default()).expect("rules");
        assert_eq!(
            rules.approve_all(&["git push origin main".into()]),
            Some("--allow")
        );
        assert_eq!(
            rules.approve_all(&["git push origin main".into(), "rm -rf src".into()]),
            None
        );
        assert_eq!(rules.approve_all(&[]), None);
    }

    #[test]
    fn a_pattern_covers_whole_words_only() {
        let allow = ["make*".into(), "git push*".into(), "cargo test*".into()];
        let rules = Rules::new(&allow, &PolicyConfig::default()).expect("rules");
        for covered in [
            "make",
            "make test",
            "git push",
            "git push origin main",
            "cargo test",
        ] {
            assert!(rules.approving(covered).is_some(), "{covered}");
        }
        for other in [
            "makepkg -si",
            "make-x",
            "git pushx",
            "git push.sh",
            "cargo testx",
            "cargo test-foo",
        ] {
            assert!(rules.approving(other).is_none(), "{other}");
        }
    }

    #[test]
    fn deny_beats_everything_and_ask_makes_safe_commands_ask() {
        let file = PolicyConfig {
            allow: vec!["terraform *".into()],
            ask: vec!["cat *".into()],
            deny: vec!["terraform destroy*".into()],
        };
        let rules = Rules::new(&[], &file).expect("rules");
        let units = rules.apply(vec![
            unit("terraform destroy -auto-approve", Verdict::Ask),
            unit("cat notes.txt", Verdict::Allow),
            unit("ls", Verdict::Allow),
        ]);
        let verdicts: Vec<Verdict> = units.iter().map(|u| u.verdict).collect();
        assert_eq!(verdicts, [Verdict::Deny, Verdict::Ask, Verdict::Allow]);
        assert!(units[0].reasons[0].contains("[policy] deny"));
    }
}
