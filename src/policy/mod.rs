//! The policy engine: every tool call gets a verdict (allow, ask or deny) with short human reasons.
//! Tools never decide for themselves; the agent asks here, then asks the user if needed.
//!
//! Commands are judged as an allowlist: a line runs without asking only when every simple command
//! in it has a record that says it is safe (`program`), nothing in it reaches a secret by any
//! spelling (`reach`), and no rule of the user's says otherwise (`rules`). Data flows one way:
//! `shell` parses, `classify` walks what was parsed, the program records (`program`) and
//! `danger` judge one command at a time.

mod args;
mod bash;
mod brace;
mod classify;
mod danger;
mod declare;
mod fed;
mod fetch;
mod functions;
mod git_query;
mod glob;
mod harness;
mod heredoc;
mod history;
mod judged;
mod kind;
mod node;
mod own_text;
mod path;
mod program;
mod project;
mod py_module;
mod reach;
mod rules;
mod runner;
mod runs;
mod script_args;
mod sequence;
mod shell;
mod untrusted;
mod values;
mod variables;
mod wipe;
mod word_of;
mod words;
mod wrap;
mod wreck;
mod write;

use std::path::PathBuf;

use serde::Serialize;

pub(crate) use classify::Unit;
pub(crate) use path::{Roots, sensitive};
pub(crate) use rules::Rules;

use crate::config::FetchNeeds;
use crate::protocol::Action;

/// The three outcomes, ordered from least to most restrictive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Verdict {
    Allow,
    Ask,
    Deny,
}

/// Who may approve a command that asks, from the widest to the narrowest.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Approver {
    /// `--yes`, an allow rule, an "always" answer or a person.
    #[default]
    Anyone,
    /// `--yes` or a person, never an allow rule or "always": it is more than one simple command,
    /// or it runs a program an option, a variable or a wrapper names (judged on its own too).
    YesOrPerson,
    /// Only a person at the terminal: it may reach a secret or wreck the system by a path
    /// nobody can compute before it runs.
    Person,
}

impl Approver {
    fn is_anyone(&self) -> bool {
        *self == Approver::Anyone
    }
}

impl Finding {
    /// The same finding, approvable by no one wider than `approver`.
    pub(crate) fn narrowed(mut self, approver: Approver) -> Self {
        self.approver = self.approver.max(approver);
        self
    }
}

/// One thing a part of a command calls for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finding {
    pub(crate) verdict: Verdict,
    pub(crate) reason: String,
    /// Who may approve it, when it asks.
    pub(crate) approver: Approver,
}

impl Finding {
    pub(crate) fn new(verdict: Verdict, reason: impl Into<String>) -> Self {
        Finding {
            verdict,
            reason: reason.into(),
            approver: Approver::Anyone,
        }
    }

    /// A question only a person at the terminal may answer yes to.
    pub(crate) fn person(reason: impl Into<String>) -> Self {
        Finding {
            approver: Approver::Person,
            ..Finding::new(Verdict::Ask, reason)
        }
    }
}

/// The decision on one action and why (`ai --check-command --json` prints exactly this).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Assessment {
    #[serde(rename = "decision")]
    pub(crate) verdict: Verdict,
    pub(crate) reasons: Vec<String>,
    /// For commands: the verdict on each simple command (approvals match these one by one).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) commands: Vec<Unit>,
    /// For commands: what untrusted input it takes in (a file outside the project, the network).
    #[serde(skip)]
    pub(crate) untrusted: Option<String>,
    /// For commands: the package managers it runs and whether the sandbox opens the network to
    /// their fetch (decided on the parse, nowhere else).
    #[serde(skip)]
    pub(crate) fetch: FetchNeeds,
    /// For commands: it prints the environment (`env`, `printenv`, `make -p`): harmless in the
    /// sandbox, which passes an allowlisted environment, and a question outside it.
    #[serde(skip)]
    pub(crate) prints_environment: bool,
}

impl Assessment {
    fn from_units(units: Vec<Unit>, allow_reason: &str) -> Self {
        let verdict = units
            .iter()
            .map(|u| u.verdict)
            .max()
            .unwrap_or(Verdict::Allow);
        let mut reasons: Vec<String> = Vec::new();
        for unit in units.iter().filter(|u| u.verdict == verdict) {
            for reason in &unit.reasons {
                if !reasons.contains(reason) {
                    reasons.push(reason.clone());
                }
            }
        }
        if reasons.is_empty() {
            reasons.push(allow_reason.to_string());
        }
        Assessment {
            verdict,
            reasons,
            commands: units,
            untrusted: None,
            fetch: FetchNeeds::default(),
            prints_environment: false,
        }
    }

    pub(crate) fn allow(reason: &str) -> Self {
        Assessment::single(Verdict::Allow, reason.to_string())
    }

    fn single(verdict: Verdict, reason: String) -> Self {
        Assessment {
            verdict,
            reasons: vec![reason],
            commands: Vec::new(),
            untrusted: None,
            fetch: FetchNeeds::default(),
            prints_environment: false,
        }
    }

    /// The same line asking for `reason`, every one of its commands needing approval (it is to
    /// run outside the sandbox, so what was safe inside it must be approved too).
    pub(crate) fn escalated(&self, reason: String) -> Assessment {
        let commands = self
            .commands
            .iter()
            .cloned()
            .map(|mut unit| {
                unit.verdict = unit.verdict.max(Verdict::Ask);
                unit
            })
            .collect();
        Assessment {
            verdict: self.verdict.max(Verdict::Ask),
            reasons: vec![reason],
            commands,
            untrusted: self.untrusted.clone(),
            fetch: self.fetch.clone(),
            prints_environment: self.prints_environment,
        }
    }

    /// Who may approve the line: the narrowest of its commands that ask.
    pub(crate) fn approver(&self) -> Approver {
        self.commands
            .iter()
            .filter(|u| u.verdict == Verdict::Ask)
            .map(|u| u.approver)
            .max()
            .unwrap_or_default()
    }

    /// The simple commands a person (or an approval rule) must approve for the line to run.
    pub(crate) fn to_approve(&self) -> Vec<String> {
        self.commands
            .iter()
            .filter(|u| u.verdict == Verdict::Ask)
            .map(|u| u.command.clone())
            .collect()
    }
}

/// Decides on the actions of tool calls.
#[derive(Debug, Clone)]
pub(crate) struct Policy {
    pub(crate) roots: Roots,
    pub(crate) home: Option<PathBuf>,
    /// Where commands start.
    pub(crate) cwd: PathBuf,
    /// The project root (canonical), or none when commands run from home, `/` or a system dir.
    pub(crate) project: Option<PathBuf>,
    pub(crate) temp: PathBuf,
    /// The user's `[policy]` rules from config.toml.
    pub(crate) rules: Rules,
}

impl Policy {
    pub(crate) fn new(
        roots: Roots,
        home: Option<PathBuf>,
        cwd: PathBuf,
        temp: PathBuf,
        rules: Rules,
    ) -> Self {
        let project = crate::config::project_root(&cwd, home.as_deref())
            .ok()
            .map(|p| std::fs::canonicalize(&p).unwrap_or(p));
        let temp = std::fs::canonicalize(&temp).unwrap_or(temp);
        Policy {
            roots,
            home,
            cwd,
            project,
            temp,
            rules,
        }
    }

    pub(crate) fn decide(&self, action: &Action) -> Assessment {
        match action {
            Action::Read {
                requested,
                resolved,
            } => self.read(requested, resolved),
            Action::Exec { command } => self.command(command),
            Action::Network { .. } => Assessment::allow("a web search only reads public pages"),
            Action::External {
                server,
                allowed: true,
                ..
            } => Assessment::allow(&format!("in the allowed_tools of the MCP server {server}")),
            Action::External {
                tool,
                server,
                allowed: false,
            } => Assessment::single(
                Verdict::Ask,
                format!("`{tool}` comes from the MCP server {server}; what it does is unknown"),
            ),
        }
    }

    /// The verdict on a shell command line, simple command by simple command.
    pub(crate) fn command(&self, command: &str) -> Assessment {
        let scope = classify::Scope {
            home: self.home.as_deref(),
            cwd: self.cwd.clone(),
            project: self.project.as_deref(),
            temp: &self.temp,
        };
        let judgement = classify::judge_line(command, &scope);
        let units = self.rules.apply(judgement.units);
        let mut assessment = Assessment::from_units(
            units,
            "every part of it is a read-only or build command ai knows to be safe",
        );
        assessment.untrusted = judgement.untrusted;
        assessment.fetch = judgement.fetch.needs();
        assessment.prints_environment = judgement.prints_environment;
        if assessment.fetch.network {
            // What comes back over the network (a dependency's build script, a registry's
            // answer) is not the project's: the turn is tainted after it.
            assessment
                .untrusted
                .get_or_insert_with(|| "a package manager's fetch from the network".into());
        }
        assessment
    }

    fn read(&self, requested: &std::path::Path, resolved: &std::path::Path) -> Assessment {
        let home = self.home.as_deref();
        if let Some(what) = sensitive(requested, home).or_else(|| sensitive(resolved, home)) {
            return Assessment::single(
                Verdict::Deny,
                format!("{} is sensitive: {what}", requested.display()),
            );
        }
        if self.roots.contains(resolved) {
            let mut assessment = Assessment::allow("inside the allowed roots");
            // The temp root is allowed but not the project's: what it holds is untrusted.
            let project = self.project.as_deref().unwrap_or(&self.cwd);
            if !resolved.starts_with(project) {
                assessment.untrusted = Some(resolved.display().to_string());
            }
            assessment
        } else {
            let mut assessment = Assessment::single(
                Verdict::Ask,
                format!(
                    "{} is outside the allowed roots ({})",
                    resolved.display(),
                    self.roots.label
                ),
            );
            assessment.untrusted = Some(resolved.display().to_string());
            assessment
        }
    }
}

#[cfg(test)]
mod props;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_approvals;
#[cfg(test)]
mod tests_assign;
#[cfg(test)]
mod tests_changes;
#[cfg(test)]
mod tests_code;
#[cfg(test)]
mod tests_elsewhere;
#[cfg(test)]
mod tests_everyday;
#[cfg(test)]
mod tests_fetch;
#[cfg(test)]
mod tests_found;
#[cfg(test)]
mod tests_history;
#[cfg(test)]
mod tests_parse;
#[cfg(test)]
mod tests_readings;
#[cfg(test)]
mod tests_runs;
#[cfg(test)]
mod tests_secrets;
#[cfg(test)]
mod tests_spelling;
#[cfg(test)]
mod tests_walks;
#[cfg(test)]
mod tests_wreck;
#[cfg(test)]
mod tests_writes;
