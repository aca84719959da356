//! Approval of ask-class calls: `SWEBASH_AI_TOOLS_CONFIRM=false`, `--yes`, allow rules (`--allow
//! PATTERN`, `[policy] allow`) and "always" answers decide first; otherwise a person at the
//! terminal is asked. Rules and "always" approve a command line only when every simple command in
//! it that asks is covered. With no terminal the answer is no: we fail closed, never silently
//! approve and never hang.

use crate::policy::Rules;
use crate::protocol::{Answer, ApprovalRequest, Asker, NoTerminal};
use std::collections::HashSet;

/// An asker for runs where nobody can answer.
pub(crate) struct NobodyAsker;

impl Asker for NobodyAsker {
    fn ask(&mut self, _request: &ApprovalRequest) -> Result<Answer, NoTerminal> {
        Err(NoTerminal)
    }
}

/// Who gave the answer (for the audit log and the user).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DecidedBy {
    User,
    YesFlag,
    AllowPattern,
    /// An `allow` rule of the `[policy]` table in config.toml.
    PolicyRule,
    Config,
    Session,
    NoTerminal,
}

impl DecidedBy {
    pub(crate) fn name(self) -> &'static str {
        match self {
            DecidedBy::User => "user",
            DecidedBy::YesFlag => "--yes",
            DecidedBy::AllowPattern => "--allow",
            DecidedBy::PolicyRule => "[policy] allow",
            DecidedBy::Config => "SWEBASH_AI_TOOLS_CONFIRM=false",
            DecidedBy::Session => "always (this session)",
            DecidedBy::NoTerminal => "no terminal",
        }
    }
}

/// The gate's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum GateAnswer {
    /// Run it; `edited` replaces the command when the person edited it.
    Approved {
        by: DecidedBy,
        edited: Option<String>,
    },
    Denied {
        by: DecidedBy,
    },
}

pub(crate) struct Gate {
    confirm: bool,
    yes: bool,
    rules: Rules,
    always: HashSet<String>,
    asker: Box<dyn Asker>,
}

impl Gate {
    /// `rules` hold the allow patterns (`git push*`), matched against each simple command.
    pub(crate) fn new(confirm: bool, yes: bool, rules: Rules, asker: Box<dyn Asker>) -> Self {
        Gate {
            confirm,
            yes,
            rules,
            always: HashSet::new(),
            asker,
        }
    }

    /// What must be covered: each simple command that asks, or the whole subject.
    fn parts(request: &ApprovalRequest) -> Vec<String> {
        if request.commands.is_empty() {
            vec![request.subject.clone()]
        } else {
            request.commands.clone()
        }
    }

    pub(crate) fn decide(&mut self, request: &ApprovalRequest) -> GateAnswer {
        // Leaving the sandbox is a person's decision: no flag, rule or "always" settles it.
        if !request.person_only
            && let Some(answer) = self.settled(request)
        {
            return answer;
        }
        let reply = self.asker.ask(request);
        self.answered(request, reply)
    }

    /// The answer when no person needs asking: approvals by setting, flag, rule or "always".
    fn settled(&self, request: &ApprovalRequest) -> Option<GateAnswer> {
        let approved = |by| Some(GateAnswer::Approved { by, edited: None });
        if !self.confirm {
            return approved(DecidedBy::Config);
        }
        if self.yes {
            return approved(DecidedBy::YesFlag);
        }
        if !request.by_rule {
            return None;
        }
        let parts = Self::parts(request);
        match self.rules.approve_all(&parts) {
            Some("--allow") => return approved(DecidedBy::AllowPattern),
            Some(_) => return approved(DecidedBy::PolicyRule),
            None => {}
        }
        if parts.iter().all(|p| self.always.contains(p)) {
            return approved(DecidedBy::Session);
        }
        None
    }

    /// The gate's answer from a person's reply, remembering "always".
    fn answered(
        &mut self,
        request: &ApprovalRequest,
        reply: Result<Answer, NoTerminal>,
    ) -> GateAnswer {
        let approved = |by| GateAnswer::Approved { by, edited: None };
        let parts = Self::parts(request);
        match reply {
            Ok(Answer::Yes) => approved(DecidedBy::User),
            // "Always" remembers only what a rule could approve: one simple command each.
            Ok(Answer::Always) => {
                if request.by_rule {
                    self.always.extend(parts);
                }
                approved(DecidedBy::User)
            }
            Ok(Answer::Edit(command)) => GateAnswer::Approved {
                by: DecidedBy::User,
                edited: Some(command),
            },
            Ok(Answer::No) => GateAnswer::Denied {
                by: DecidedBy::User,
            },
            Err(NoTerminal) => GateAnswer::Denied {
                by: DecidedBy::NoTerminal,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    struct Scripted(Vec<Answer>);

    impl Asker for Scripted {
        fn ask(&mut self, _request: &ApprovalRequest) -> Result<Answer, NoTerminal> {
            self.0.pop().ok_or(NoTerminal)
        }
    }

    fn request(subject: &str) -> ApprovalRequest {
        ApprovalRequest {
            tool: "execute_command".into(),
            subject: subject.into(),
            commands: subject.split("; ").map(String::from).collect(),
            reasons: vec!["`rm` deletes files".into()],
            cwd: PathBuf::from("/w"),
            unconfined: true,
            person_only: false,
            by_rule: true,
        }
    }

    fn gate(confirm: bool, yes: bool, allow: &[&str], answers: Vec<Answer>) -> Option<Gate> {
        let allow: Vec<String> = allow.iter().map(|s| s.to_string()).collect();
        let rules = Rules::new(&allow, &crate::config::PolicyConfig::default()).ok()?;
        Some(Gate::new(confirm, yes, rules, Box::new(Scripted(answers))))
    }

    #[test]
    fn without_a_terminal_the_answer_is_no() {
        let mut g = gate(true, false, &[], vec![]);
        let answer = g.as_mut().map(|g| g.decide(&request("rm x")));
        assert_eq!(
            answer,
            Some(GateAnswer::Denied {
                by: DecidedBy::NoTerminal
            })
        );
    }

    #[test]
    fn flags_and_patterns_approve_before_anyone_is_asked() {
        let yes = gate(true, true, &[], vec![]).map(|mut g| g.decide(&request("rm x")));
        assert_eq!(
            yes,
            Some(GateAnswer::Approved {
                by: DecidedBy::YesFlag,
                edited: None
            })
        );
        let mut g = gate(true, false, &["git push*"], vec![]);
        assert_eq!(
            g.as_mut()
                .map(|g| g.decide(&request("git push --force origin main"))),
            Some(GateAnswer::Approved {
                by: DecidedBy::AllowPattern,
                edited: None
            })
        );
        assert_eq!(
            g.as_mut().map(|g| g.decide(&request("rm x"))),
            Some(GateAnswer::Denied {
                by: DecidedBy::NoTerminal
            })
        );
        // A pattern approves a line only when it covers every command in it that asks.
        assert_eq!(
            g.as_mut()
                .map(|g| g.decide(&request("git push origin main; rm -rf src"))),
            Some(GateAnswer::Denied {
                by: DecidedBy::NoTerminal
            })
        );
        let off = gate(false, false, &[], vec![]).map(|mut g| g.decide(&request("rm x")));
        assert_eq!(
            off,
            Some(GateAnswer::Approved {
                by: DecidedBy::Config,
                edited: None
            })
        );
    }

    #[test]
    fn always_approves_the_same_subject_for_the_session_only() {
        let mut g = gate(true, false, &[], vec![Answer::No, Answer::Always]);
        let first = g.as_mut().map(|g| g.decide(&request("rm x")));
        let again = g.as_mut().map(|g| g.decide(&request("rm x")));
        let other = g.as_mut().map(|g| g.decide(&request("rm y")));
        assert_eq!(
            first,
            Some(GateAnswer::Approved {
                by: DecidedBy::User,
                edited: None
            })
        );
        assert_eq!(
            again,
            Some(GateAnswer::Approved {
                by: DecidedBy::Session,
                edited: None
            })
        );
        assert_eq!(
            other,
            Some(GateAnswer::Denied {
                by: DecidedBy::User
            })
        );
    }
}
