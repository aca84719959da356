//! The policy engine: every tool call gets a verdict (allow, ask or deny) with short human reasons.
//! Tools never decide for themselves; the agent asks here, then asks the user if needed.

mod command;
mod path;
mod rules;
pub mod sandbox;

use std::path::PathBuf;

use serde::Serialize;

pub use path::{Roots, sensitive};

use crate::protocol::Action;

/// The three outcomes, ordered from least to most restrictive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Allow,
    Ask,
    Deny,
}

/// One thing a part of a command calls for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub verdict: Verdict,
    pub reason: String,
}

/// The decision on one action and why (`ai --check-command --json` prints exactly this).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Assessment {
    #[serde(rename = "decision")]
    pub verdict: Verdict,
    pub reasons: Vec<String>,
}

impl Assessment {
    fn from_findings(findings: Vec<Finding>, allow_reason: &str) -> Self {
        let verdict = findings
            .iter()
            .map(|f| f.verdict)
            .max()
            .unwrap_or(Verdict::Allow);
        let mut reasons: Vec<String> = Vec::new();
        for finding in findings.into_iter().filter(|f| f.verdict == verdict) {
            if !reasons.contains(&finding.reason) {
                reasons.push(finding.reason);
            }
        }
        if reasons.is_empty() {
            reasons.push(allow_reason.to_string());
        }
        Assessment { verdict, reasons }
    }

    pub fn allow(reason: &str) -> Self {
        Assessment {
            verdict: Verdict::Allow,
            reasons: vec![reason.to_string()],
        }
    }
}

/// The verdict on a shell command, from its parsed parts.
pub fn assess_command(command: &str, home: Option<&str>) -> Assessment {
    Assessment::from_findings(
        command::findings(command, home),
        "nothing in it deletes, overwrites, escalates privileges or writes files",
    )
}

/// Decides on the actions of tool calls.
#[derive(Debug, Clone)]
pub struct Policy {
    pub roots: Roots,
    pub home: Option<PathBuf>,
}

impl Policy {
    pub fn decide(&self, action: &Action) -> Assessment {
        match action {
            Action::Read {
                requested,
                resolved,
            } => self.read(requested, resolved),
            Action::Exec { command } => {
                let home = self.home.as_ref().map(|h| h.to_string_lossy().into_owned());
                assess_command(command, home.as_deref())
            }
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
            } => Assessment {
                verdict: Verdict::Ask,
                reasons: vec![format!(
                    "`{tool}` comes from the MCP server {server}; what it does is unknown"
                )],
            },
        }
    }

    fn read(&self, requested: &std::path::Path, resolved: &std::path::Path) -> Assessment {
        let home = self.home.as_deref();
        if let Some(what) = sensitive(requested, home).or_else(|| sensitive(resolved, home)) {
            return Assessment {
                verdict: Verdict::Deny,
                reasons: vec![format!("{} is sensitive: {what}", requested.display())],
            };
        }
        if self.roots.contains(resolved) {
            Assessment::allow("inside the allowed roots")
        } else {
            Assessment {
                verdict: Verdict::Ask,
                reasons: vec![format!(
                    "{} is outside the allowed roots ({})",
                    resolved.display(),
                    self.roots.label
                )],
            }
        }
    }
}

#[cfg(test)]
mod tests;
