//! Wrappers that run another command (`sudo`, `nice`, `timeout`, `uv run`, `npx`, ...): the
//! command they run, and the wrapper's own reasons to ask.

use super::args::{option_values, skip_options, subcommand};
use super::classify::{Context, Judge, ask};
use super::danger::basename;
use super::harness::Harnessed;
use super::judged::Judged;
use super::shell::Word;
use super::{Finding, Verdict};

impl Judge<'_> {
    /// The command that a wrapper runs, with the wrapper's own reasons to ask.
    pub(super) fn wrapper<'w>(
        &mut self,
        base: &str,
        args: &'w [Word],
        context: Context,
        findings: &mut Vec<Finding>,
    ) -> Option<&'w [Word]> {
        let inner = match base {
            "sudo" | "doas" | "pkexec" | "run0" => {
                findings.push(ask(format!(
                    "`{base}` runs a command with elevated privileges"
                )));
                skip_options(
                    args,
                    &[
                        "-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "--user", "--group",
                    ],
                )
            }
            "su" => {
                findings.push(ask("`su` runs commands as another user"));
                if let Some(pos) = args
                    .iter()
                    .position(|a| a.text == "-c" || a.text == "--command")
                    && let Some(string) = args.get(pos + 1)
                {
                    self.follow(
                        &Judged {
                            strings: vec![string.clone()],
                            ..Judged::default()
                        },
                        context,
                        0,
                        findings,
                    );
                }
                return None;
            }
            "setsid" | "disown" => {
                findings.push(ask(format!(
                    "`{base}` starts a process that keeps running after ai"
                )));
                skip_options(args, &[])
            }
            "nohup" => {
                if context.background {
                    findings.push(ask("`nohup ... &` keeps running after ai"));
                }
                skip_options(args, &[])
            }
            "nice" => skip_options(args, &["-n", "--adjustment"]),
            "ionice" => {
                if !option_values(args, &["-p", "-P", "-u", "--pid"]).is_empty() {
                    findings.push(ask("`ionice -p` changes another process"));
                }
                skip_options(args, &["-c", "-n", "-p", "--class", "--classdata"])
            }
            "time" => {
                if !option_values(args, &["-o", "--output"]).is_empty() {
                    findings.push(ask(
                        "`time -o` writes text of the command's choosing to a file",
                    ));
                }
                skip_options(args, &["-o", "--output", "-f", "--format"])
            }
            "exec" | "stdbuf" | "unbuffer" | "chronic" => skip_options(args, &["-a"]),
            // Runners of the project's own environment: the command they run is judged.
            "uv" | "poetry" | "pipenv" | "pdm" | "hatch" | "rye"
                if subcommand(args) == Some("run") =>
            {
                // Only options that change nothing but how quietly or how offline it runs.
                let run_at = args.iter().position(|a| a.text == "run").unwrap_or(0);
                let program_at = args[run_at + 1..]
                    .iter()
                    .position(|a| !a.text.starts_with('-'))
                    .map_or(args.len(), |i| run_at + 1 + i);
                if args[..program_at].iter().any(|a| {
                    a.text.starts_with('-')
                        && !matches!(
                            a.text.as_str(),
                            "--frozen"
                                | "--locked"
                                | "--offline"
                                | "--no-sync"
                                | "-q"
                                | "--quiet"
                                | "-v"
                                | "--verbose"
                        )
                }) {
                    findings.push(ask(format!(
                        "`{base} run` with other packages or another interpreter runs code from \
                         outside the project"
                    )));
                }
                let at = args
                    .iter()
                    .position(|a| a.text == "run")
                    .map_or(0, |i| i + 1);
                skip_options(args.get(at..).unwrap_or(&[]), &["--with", "--python", "-p"])
            }
            "bundle" if subcommand(args) == Some("exec") => {
                let at = args
                    .iter()
                    .position(|a| a.text == "exec")
                    .map_or(0, |i| i + 1);
                args.get(at..).unwrap_or(&[])
            }
            // `yarn jest`, `pnpm exec tsc`, `yarn run build`: one of the project's scripts, or a
            // tool it installed, judged as that tool (`yarn node -e` is `node -e`).
            "yarn" | "pnpm" | "bun" => return self.node_runner(base, args, findings),
            "npx" | "pnpx" | "bunx" => return self.npx(base, args, findings),
            "busybox" => {
                findings.push(ask(
                    "`busybox` runs its own versions of the programs it names",
                ));
                skip_options(args, &[])
            }
            "coreutils" => return self.coreutils(args, context, findings),
            "unshare" => skip_options(args, &[]),
            // These take one word (a lock file, a priority, a CPU mask) before the command.
            "flock" | "chrt" | "taskset" => {
                let rest = skip_options(args, &["-w", "--timeout", "-E", "--conflict-exit-code"]);
                let rest = rest.get(1..).unwrap_or(&[]);
                if let Some(first) = rest.first()
                    && matches!(first.text.as_str(), "-c" | "--command")
                {
                    self.command_string(rest.get(1), context, findings);
                    return Some(&[]);
                }
                rest
            }
            "parallel" => {
                findings.push(ask("`parallel` runs a command once for each of its inputs"));
                let judged = Judged {
                    inner: vec![parallel_command(args)],
                    ..Judged::default()
                };
                self.follow(&judged, context, 0, findings);
                return Some(&[]);
            }
            "script" => {
                self.script(args, context, findings);
                return Some(&[]);
            }
            "timeout" => {
                let rest = skip_options(args, &["-s", "--signal", "-k", "--kill-after"]);
                rest.get(1..).unwrap_or(&[])
            }
            _ => match super::harness::harnessed(base, args)? {
                Harnessed::Command(inner) => {
                    findings.push(ask(format!(
                        "`{base}` runs a command under another root, user, namespace, limit, \
                         tracer or proxy"
                    )));
                    inner
                }
                Harnessed::String(line) => {
                    findings.push(ask(format!(
                        "`{base}` runs a command as another group or user"
                    )));
                    self.command_string(line, context, findings);
                    return Some(&[]);
                }
            },
        };
        Some(inner)
    }

    /// `coreutils --coreutils-prog=rm -rf ~`: the named program is judged with the words after.
    fn coreutils<'w>(
        &mut self,
        args: &[Word],
        context: Context,
        findings: &mut Vec<Finding>,
    ) -> Option<&'w [Word]> {
        findings.push(ask(
            "`coreutils` runs its own versions of the programs it names",
        ));
        let (at, program) = args.iter().enumerate().find_map(|(i, a)| {
            let value = a.text.strip_prefix("--coreutils-prog=")?;
            Some((i, value.to_string()))
        })?;
        let mut inner = vec![Word {
            text: program,
            ..args[at].clone()
        }];
        inner.extend(args.iter().skip(at + 1).cloned());
        self.nested(&inner, &[], context, 0, findings);
        Some(&[])
    }

    /// A `-c` string judged with its positional parameters set to the words after it (as the
    /// outer shell expanded them), which stay in the string.
    pub(super) fn shell_string(&mut self, text: &str, positional: &[Word], context: Context) {
        if positional.is_empty() {
            self.line(text, context.depth + 1);
            return;
        }
        let place = self.place.clone();
        let mut all = Vec::new();
        for (i, word) in positional.iter().enumerate() {
            let paths = self.place.paths(word).filter(|p| p.len() == 1);
            match paths {
                Some(p) => {
                    let value = p[0].to_string_lossy().into_owned();
                    all.push(value.clone());
                    self.place.set(&i.to_string(), value);
                }
                None => self.place.unknown(&i.to_string()),
            }
        }
        // `$@` of one word is that word; of several, words this reading does not split.
        if all.len() == positional.len() && all.len() <= 2 {
            let rest = all.get(1..).unwrap_or(&[]).join(" ");
            self.place.set("@", rest.clone());
            self.place.set("*", rest);
        } else {
            self.place.unknown("@");
            self.place.unknown("*");
        }
        // `$1`, `$@` in the string are the words given after it as bash hands them over
        // (`bash -c 'find ~ $1' _ -delete` is `find ~ -delete`), options too.
        let outer = std::mem::replace(
            &mut self.set_args,
            positional.get(1..).unwrap_or(&[]).to_vec(),
        );
        self.line(text, context.depth + 1);
        self.set_args = outer;
        self.place = place;
    }

    /// A command line given as one word (`script -c LINE`, `flock FILE -c LINE`): judged.
    fn command_string(&mut self, line: Option<&Word>, context: Context, f: &mut Vec<Finding>) {
        if let Some(string) = line {
            let judged = Judged {
                strings: vec![string.clone()],
                ..Judged::default()
            };
            self.follow(&judged, context, 0, f);
        }
    }

    /// `npx NAME ...`: a tool the project installed (`node_modules/.bin`) is judged as itself,
    /// or as project code when the table does not know it; anything else downloads a package.
    fn npx<'w>(
        &mut self,
        base: &str,
        args: &'w [Word],
        findings: &mut Vec<Finding>,
    ) -> Option<&'w [Word]> {
        self.out.fetch.others = true;
        let rest = skip_options(args, &["-p", "--package", "-c", "--call"]);
        // Only npx's own options count: the tool's (`tsc --noEmit`) are the tool's.
        let own = &args[..args.len() - rest.len()];
        let plain = own
            .iter()
            .all(|a| matches!(a.text.as_str(), "--no-install" | "--no" | "-q" | "--quiet"));
        let local = rest.first().filter(|bin| {
            !bin.dynamic
                && self.project.is_some_and(|p| {
                    self.place.cwd.starts_with(p) && super::kind::project_bin(p, &bin.text)
                })
        });
        match local {
            Some(bin) if plain => {
                if super::program::judge(&bin.text, &rest[1..]).known {
                    Some(rest)
                } else {
                    Some(&[])
                }
            }
            _ => {
                findings.push(ask(format!(
                    "`{base}` downloads and runs a package unless the project has it"
                )));
                Some(&[])
            }
        }
    }
}

/// What `parallel CMD ... ::: A B` runs: the command with every input after `:::` (or, read
/// from a file or stdin, inputs nobody has seen).
fn parallel_command(args: &[Word]) -> Vec<Word> {
    let rest = skip_options(
        args,
        &["-j", "--jobs", "-S", "--sshlogin", "--joblog", "-a"],
    );
    let end = rest
        .iter()
        .position(|w| w.text.starts_with(":::"))
        .unwrap_or(rest.len());
    let mut words = rest[..end].to_vec();
    let inputs = rest.get(end..).unwrap_or(&[]);
    if inputs.iter().all(|w| w.text == ":::") && !inputs.is_empty() {
        words.extend(inputs.iter().filter(|w| w.text != ":::").cloned());
    } else {
        words.extend(
            inputs
                .iter()
                .filter(|w| !w.text.starts_with(":::"))
                .cloned(),
        );
        words.push(Word::from_input());
    }
    words
}

impl Judge<'_> {
    /// A program ai does not know may run the rest of its words as a command (`faketime now rm
    /// -rf ~`, `proot rm -rf ~`): what would wreck the system there is denied as if run bare.
    pub(super) fn wrapped_wrecks(&self, args: &[Word]) -> Vec<Finding> {
        let ground = self.ground();
        // Only where a program that can wreck stands (a long line is not judged again at
        // every word).
        (0..args.len())
            .filter(|&at| !args[at].dynamic && !args[at].text.starts_with('-'))
            .filter(|&at| super::wreck::can_wreck(basename(&args[at].text)))
            .flat_map(|at| ground.judge(basename(&args[at].text), &args[at + 1..]))
            .filter(|f| f.verdict == Verdict::Deny)
            .take(1)
            .collect()
    }

    /// `script [-c CMD] [FILE]`: the command is judged; without one it runs a shell that
    /// reads what comes on its input (`echo 'rm -rf ~' | script -q /dev/null`). The typescript
    /// and the logs are files it writes, judged like any write (a disk is denied).
    fn script(&mut self, args: &[Word], context: Context, findings: &mut Vec<Finding>) {
        let strings = option_values(args, &["-c", "--command"]);
        if strings.is_empty() {
            findings.push(ask(
                "`script` without `-c` runs a shell that reads commands from its input",
            ));
        }
        self.command_string(strings.first(), context, findings);
        let logs = option_values(
            args,
            &[
                "-O",
                "-B",
                "-T",
                "-I",
                "--log-out",
                "--log-io",
                "--log-in",
                "--log-timing",
                "--timing",
            ],
        );
        let valued = ["-c", "--command", "-E", "--echo", "-m", "--logging-format"];
        let mut typescript = Vec::new();
        let mut words = args.iter();
        while let Some(arg) = words.next() {
            let text = arg.text.as_str();
            let takes = valued
                .iter()
                .chain(["-O", "-B", "-T", "-I"].iter())
                .any(|o| *o == text);
            if takes {
                words.next();
            } else if !text.starts_with('-') {
                typescript.push(arg.clone());
            }
        }
        for file in logs
            .iter()
            .chain(&typescript)
            .filter(|f| f.text != "/dev/null")
        {
            self.write_target(file, "`script`", findings);
        }
    }
}
