//! Approval of ask-class calls: `SWEBASH_AI_TOOLS_CONFIRM=false`, `--yes`, `--allow PATTERN` and
//! "always" answers decide first; otherwise a person at the terminal is asked. With no terminal
//! the answer is no: we fail closed, never silently approve and never hang.

use std::collections::HashSet;
use std::path::PathBuf;

use globset::{Glob, GlobSet, GlobSetBuilder};

/// What the person is asked about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalRequest {
    pub tool: String,
    /// The command, or the path, the call acts on.
    pub subject: String,
    pub reasons: Vec<String>,
    pub cwd: PathBuf,
}

/// A person's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Yes,
    No,
    /// Yes, and the same subject is approved for the rest of the session.
    Always,
    /// Run this (edited) command instead.
    Edit(String),
}

/// There is no terminal to ask on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoTerminal;

/// Asks a person; the terminal front end implements it.
pub trait Asker {
    fn ask(&mut self, request: &ApprovalRequest) -> Result<Answer, NoTerminal>;
}

/// An asker for runs where nobody can answer.
pub struct NobodyAsker;

impl Asker for NobodyAsker {
    fn ask(&mut self, _request: &ApprovalRequest) -> Result<Answer, NoTerminal> {
        Err(NoTerminal)
    }
}

/// Who gave the answer (for the audit log and the user).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecidedBy {
    Policy,
    User,
    YesFlag,
    AllowPattern,
    Config,
    Session,
    NoTerminal,
}

impl DecidedBy {
    pub fn name(self) -> &'static str {
        match self {
            DecidedBy::Policy => "policy",
            DecidedBy::User => "user",
            DecidedBy::YesFlag => "--yes",
            DecidedBy::AllowPattern => "--allow",
            DecidedBy::Config => "SWEBASH_AI_TOOLS_CONFIRM=false",
            DecidedBy::Session => "always (this session)",
            DecidedBy::NoTerminal => "no terminal",
        }
    }
}

/// The gate's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GateAnswer {
    /// Run it; `edited` replaces the command when the person edited it.
    Approved {
        by: DecidedBy,
        edited: Option<String>,
    },
    Denied {
        by: DecidedBy,
    },
}

pub struct Gate {
    confirm: bool,
    yes: bool,
    allow: GlobSet,
    always: HashSet<String>,
    asker: Box<dyn Asker>,
}

impl Gate {
    /// `allow` are glob patterns (`git push*`) matched against the whole command.
    pub fn new(
        confirm: bool,
        yes: bool,
        allow: &[String],
        asker: Box<dyn Asker>,
    ) -> Result<Self, String> {
        let mut builder = GlobSetBuilder::new();
        for pattern in allow {
            let glob = Glob::new(pattern).map_err(|err| format!("--allow {pattern:?}: {err}"))?;
            builder.add(glob);
        }
        let allow = builder.build().map_err(|err| err.to_string())?;
        Ok(Gate {
            confirm,
            yes,
            allow,
            always: HashSet::new(),
            asker,
        })
    }

    pub fn decide(&mut self, request: &ApprovalRequest) -> GateAnswer {
        let approved = |by| GateAnswer::Approved { by, edited: None };
        if !self.confirm {
            return approved(DecidedBy::Config);
        }
        if self.yes {
            return approved(DecidedBy::YesFlag);
        }
        if self.allow.is_match(&request.subject) {
            return approved(DecidedBy::AllowPattern);
        }
        if self.always.contains(&request.subject) {
            return approved(DecidedBy::Session);
        }
        match self.asker.ask(request) {
            Ok(Answer::Yes) => approved(DecidedBy::User),
            Ok(Answer::Always) => {
                self.always.insert(request.subject.clone());
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
            reasons: vec!["`rm` deletes files".into()],
            cwd: PathBuf::from("/w"),
        }
    }

    fn gate(confirm: bool, yes: bool, allow: &[&str], answers: Vec<Answer>) -> Option<Gate> {
        let allow: Vec<String> = allow.iter().map(|s| s.to_string()).collect();
        Gate::new(confirm, yes, &allow, Box::new(Scripted(answers))).ok()
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
