//! How the classifier reads the words of a command for what they reach: secrets by every
//! spelling (or a person's approval when a word is only known at run time), the variables a line
//! or a loop sets, and `cd`.

use super::args::operands;
use super::classify::{Judge, ask, deny};
use super::danger;
use super::declare::{self, Declared};
use super::shell::Word;
use super::{Approver, Finding, Verdict};

impl Judge<'_> {
    /// A loop's variable takes each of its values: known values become alternatives
    /// (`{a,b}`), anything else leaves it unknown.
    pub(super) fn loop_variable(&mut self, name: &str, values: &[Word]) {
        let known: Option<Vec<String>> = values
            .iter()
            .map(|v| self.place.value(v).filter(|t| !t.contains([',', '{', '}'])))
            .collect();
        // The loop's values replace what `loop_assigns` left: one variable, every value.
        self.place.vars.remove(name);
        match known {
            Some(texts) if texts.len() == 1 => {
                self.place.set(name, texts[0].clone());
            }
            Some(texts) if !texts.is_empty() && texts.len() <= 64 => {
                let joined = format!("{{{}}}", texts.join(","));
                self.place.set(name, joined);
            }
            _ => self.place.unknown(name),
        }
    }

    /// `for NAME in WORDS` and `select NAME in WORDS` assign each word to NAME in turn: each is
    /// judged like `NAME=WORD` (`for PATH in /tmp` is `PATH=/tmp`); with no words, the values
    /// are the arguments, which ai cannot see.
    pub(super) fn loop_assigns(&mut self, name: &str, values: &[Word]) {
        let mut findings = Vec::new();
        if values.is_empty()
            && let Some(why) = danger::risky_assignment(name, "")
        {
            findings.push(ask(format!("`{name}=` {why}")));
        }
        for value in values {
            // One value at a time, each judged (the loop's own handling of several values is
            // `loop_variable`'s): not two assignments that contradict each other.
            self.place.vars.remove(name);
            self.assignment(name, value, &mut findings);
        }
        if findings.iter().any(|f| f.verdict > Verdict::Allow) {
            self.unit(&format!("for {name} in"), findings);
        }
    }

    /// The arguments of `declare`, `export`, ... run as a command: each is an assignment like
    /// the parser's (`command export 'PATH=/tmp'`), its subscripts arithmetic.
    pub(super) fn declares(&mut self, args: &[Word], findings: &mut Vec<Finding>) {
        for arg in args
            .iter()
            .filter(|a| a.quoted || !a.text.starts_with(['-', '+']))
        {
            self.arithmetic(&declare::subscripts(&arg.text), findings);
            match declare::declared(&arg.text, &arg.text, arg.dynamic) {
                Declared::Assignment(name, text) => {
                    let value = Word {
                        text,
                        ..arg.clone()
                    };
                    self.assignment(&name, &value, findings);
                }
                Declared::Computed => findings.push(
                    ask(format!(
                        "`{}` assigns a variable whose name is computed at run time",
                        arg.text
                    ))
                    .narrowed(Approver::YesOrPerson),
                ),
                Declared::Plain => {}
            }
        }
    }

    /// make reads its environment as variables too: a value with shell syntax set before it
    /// (`ARGS='; id' make test`, `export ARGS='; id'; make`) reaches recipes like `make ARGS=`.
    pub(super) fn make_environment(
        &mut self,
        base: &str,
        assignments: &[(String, Word)],
        findings: &mut Vec<Finding>,
    ) {
        if !matches!(base, "make" | "gmake") {
            return;
        }
        let prefixed = assignments
            .iter()
            .map(|(n, v)| (n.as_str(), v.text.as_str()));
        let set = self
            .place
            .vars
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()));
        let reads = |n: &str| matches!(n, "MAKEFILES" | "VPATH" | "MAKEOVERRIDES");
        let shell = |n: &str, v: &str| reads(n) || super::runs::make_value_reason(v).is_some();
        if let Some((name, value)) = prefixed.chain(set).find(|(n, v)| shell(n, v)) {
            let why = super::runs::make_value_reason(value)
                .unwrap_or("names makefiles or directories make reads rules from");
            findings.push(ask(format!("`{name}` {why}")).narrowed(Approver::YesOrPerson));
        }
    }

    /// `cd DIR`: a secret directory is denied; later relative paths resolve from the new place.
    pub(super) fn cd(&mut self, args: &[Word], findings: &mut Vec<Finding>) {
        let target = operands(args)
            .next()
            .cloned()
            .unwrap_or_else(|| Word::literal("~"));
        // The previous directory (`cd -`, `$OLDPWD`, which the line can set): not followed.
        // What runs after it runs where ai does not know: for a person (classifier round 16).
        if target.text == "-" {
            let why = "`cd -` goes back to a directory ai does not follow";
            findings.push(ask(why).narrowed(super::Approver::Person));
            return;
        }
        // With CDPATH set, `cd home` may go to a `home` elsewhere (`CDPATH=/`).
        let relative = !target.text.starts_with(['/', '.', '~', '$']);
        let cdpath = std::env::var_os("CDPATH").is_some_and(|v| !v.is_empty());
        if relative && cdpath {
            let why = format!("`cd {}` may go elsewhere by CDPATH", target.text);
            findings.push(ask(why).narrowed(super::Approver::Person));
        }
        self.secret(&target, findings);
        let paths = self.place.paths(&target);
        // `rootln/../x`: bash's `cd` reads it as written when that directory exists then, else
        // as the kernel does through the link; which one, only the run knows.
        if paths.as_ref().is_some_and(|p| p.len() > 1) && target.text.contains("..") {
            findings.push(ask(format!(
                "`cd {}` goes through a link and `..`, which may lead out of where it seems",
                target.text
            )));
        }
        match paths.and_then(|p| p.into_iter().last()) {
            Some(dir) => self.place.cwd = dir,
            None => findings.push(
                ask(format!(
                    "`cd {}` goes to a directory computed at run time",
                    target.text
                ))
                .narrowed(super::Approver::Person),
            ),
        }
    }

    /// Secrets in a command's words; `opens`: it may open them (a word only known at run time
    /// then asks a person).
    pub(super) fn secrets_in(&mut self, args: &[Word], opens: bool, findings: &mut Vec<Finding>) {
        for arg in args {
            if self.expired(&arg.text) {
                return;
            }
            if opens {
                self.secret(arg, findings);
            } else {
                self.definite_secret(arg, findings);
            }
            // `echo $AWS_SECRET_ACCESS_KEY`: a secret variable's value would reach the model.
            if arg.dynamic
                && let Some(name) = secret_variable(&arg.text)
            {
                findings.push(ask(format!("it expands `${name}`, which holds a secret")));
            }
        }
    }

    /// A word the command opens: denied when it reaches a secret; when its value is only known
    /// at run time and could be a secret, only a person may approve it.
    pub(super) fn secret(&self, word: &Word, findings: &mut Vec<Finding>) {
        if !self.definite_secret(word, findings)
            && let Some(why) = self.place.may_reach_secret(word)
        {
            findings.push(Finding::person(format!(
                "{why} (only a person can approve it)"
            )));
        }
    }

    /// Denies a word that reaches a secret by any spelling; whether it did.
    pub(super) fn definite_secret(&self, word: &Word, findings: &mut Vec<Finding>) -> bool {
        let found = self
            .place
            .secret(word)
            .or_else(|| self.place.secret_unnormalized(word));
        if let Some(what) = &found {
            findings.push(deny(format!("it reaches {what}, a secret")));
        }
        found.is_some()
    }
}

/// The first variable a word expands whose name says it holds a secret (`$GITHUB_TOKEN`).
pub(super) fn secret_variable(text: &str) -> Option<String> {
    text.split('$').skip(1).find_map(|rest| {
        let name: String = rest
            // `${#TOKEN}` (its length) and `${TOKEN:0:3}` tell about the secret too.
            .trim_start_matches(['{', '#'])
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        (!name.is_empty() && danger::secret_name(&name)).then_some(name)
    })
}
