//! JavaScript package managers as runners (`yarn jest`, `pnpm exec tsc`, `yarn run build`): a
//! package.json script runs as project code, an installed tool is judged as itself, anything else
//! asks.

use super::Finding;
use super::classify::{Judge, ask};
use super::kind::{package_script, project_bin};
use super::program;
use super::shell::Word;

impl Judge<'_> {
    /// `yarn NAME ...` / `pnpm exec NAME ...`: a package.json script runs as project code; a tool
    /// in `node_modules/.bin` is judged as that tool; anything else asks. `None` leaves the
    /// package manager's own subcommands (install, add, ...) to their records.
    pub(super) fn node_runner<'w>(
        &mut self,
        base: &str,
        args: &'w [Word],
        findings: &mut Vec<Finding>,
    ) -> Option<&'w [Word]> {
        const MANAGER: &[&str] = &[
            "install",
            "i",
            "ci",
            "add",
            "remove",
            "rm",
            "up",
            "upgrade",
            "update",
            "dlx",
            "create",
            "init",
            "version",
            "publish",
            "pack",
            "link",
            "unlink",
            "global",
            "config",
            "set",
            "plugin",
            "policies",
            "workspace",
            "workspaces",
            "self-update",
            "setup",
            "dist-tag",
            "owner",
            "deprecate",
            "login",
            "logout",
            "cache",
            "store",
            "audit",
            "outdated",
            "why",
            "info",
            "view",
            "ls",
            "list",
            "licenses",
            "patch",
            "rebuild",
            "prune",
            "dedupe",
            "import",
            "env",
            "bin",
            "root",
            "prefix",
            "help",
            "doctor",
            "test",
            "t",
            "start",
            "node",
            "x",
            "--version",
            "-v",
        ];
        if let Some(why) = super::runs::options(base, args).why {
            findings.push(ask(why).narrowed(super::Approver::YesOrPerson));
        }
        let at = args.iter().position(|a| !a.text.starts_with('-'))?;
        let sub = args[at].text.as_str();
        let (at, explicit) = match sub {
            "run" | "run-script" | "exec" => {
                let name = args[at + 1..]
                    .iter()
                    .position(|a| !a.text.starts_with('-'))?;
                (at + 1 + name, sub == "exec")
            }
            _ if MANAGER.contains(&sub) => return None,
            _ => (at, false),
        };
        let name = &args[at];
        let Some(project) = self.project.filter(|p| self.place.cwd.starts_with(p)) else {
            findings.push(ask(format!(
                "`{base} {}` runs code of a directory that is not the project",
                name.text
            )));
            return Some(&[]);
        };
        if name.dynamic {
            findings.push(ask(format!("`{base}` runs a name computed at run time")));
            return Some(&[]);
        }
        if !explicit && package_script(project, &name.text) {
            return Some(&[]); // the project's own script: project code
        }
        if project_bin(project, &name.text) {
            let rest = &args[at..];
            // A tool with a record is judged as itself; one without is project code.
            return if program::judge(&name.text, &rest[1..]).known {
                Some(rest)
            } else {
                Some(&[])
            };
        }
        findings.push(ask(format!(
            "`{base} {}` is neither a script nor an installed tool of this project",
            name.text
        )));
        Some(&[])
    }
}
