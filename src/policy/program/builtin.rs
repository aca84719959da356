//! Records of the shell's own words and name look-ups: `echo`, `printf`, `read`, `export`,
//! `test`, `cd`, `command`, `type`, `eval`, `trap`, ... Those that set or list variables ask when
//! they would print tokens or make a name run code; those that run strings hand them back to be
//! judged as command lines.

use super::Program;
use crate::policy::args::{has_flag, operands, option_values, skip_options};
use crate::policy::danger::risky_variable;
use crate::policy::judged::Judged;
use crate::policy::shell::Word;

pub(super) const PROGRAMS: &[Program] = &[
    // Printers of their words: a secret path among them is printed, not opened.
    Program::new(&["echo"]).printing_words().data_filter(),
    Program::new(&["printf"])
        .printing_words()
        .data_filter()
        .evaluating_subscripts()
        .checked(printf),
    // Name look-ups: a secret path given to them is not read.
    Program::new(&["which"]).looking_names_up(),
    Program::new(&["whereis"]).looking_names_up(),
    Program::new(&["type"]).looking_names_up(),
    Program::new(&["whatis"]).looking_names_up(),
    Program::new(&["apropos"]).looking_names_up(),
    Program::new(&["help"]).looking_names_up(),
    Program::new(&["true"]).looking_names_up().data_filter(),
    Program::new(&[":"]).looking_names_up().data_filter(),
    Program::new(&["false"]).looking_names_up(),
    Program::new(&["command"])
        .looking_names_up()
        .checked(command),
    Program::new(&["builtin"]).checked(command),
    Program::new(&["alias"]).looking_names_up().checked(alias),
    Program::new(&["unalias"]).looking_names_up(),
    // Variables: listing them prints tokens; some spellings make a name run code.
    Program::new(&["export"])
        .evaluating_subscripts()
        .printing_env(lists_variables)
        .checked(variables),
    Program::new(&["readonly"])
        .evaluating_subscripts()
        .checked(variables),
    Program::new(&["declare"])
        .evaluating_subscripts()
        .printing_env(lists_variables)
        .checked(variables),
    Program::new(&["typeset"])
        .evaluating_subscripts()
        .printing_env(lists_variables)
        .checked(variables),
    Program::new(&["local"])
        .evaluating_subscripts()
        .checked(variables),
    Program::new(&["set"])
        .printing_env(lists_variables)
        .checked(variables),
    Program::new(&["unset"]).evaluating_subscripts(),
    Program::new(&["read"])
        .data_filter()
        .evaluating_subscripts()
        .checked(read),
    Program::new(&["shopt"]).checked(shopt),
    // Arithmetic and tests.
    Program::new(&["test"]).evaluating_subscripts(),
    Program::new(&["["]).evaluating_subscripts(),
    Program::new(&["let"]).evaluating_subscripts(),
    Program::new(&["expr"]),
    Program::new(&["factor"]),
    Program::new(&["bc"]),
    Program::new(&["numfmt"]),
    Program::new(&["seq"]),
    // Control of the shell itself.
    Program::new(&["pwd"]),
    Program::new(&["cd"]),
    Program::new(&["pushd"]),
    Program::new(&["popd"]),
    Program::new(&["dirs"]),
    Program::new(&["wait"])
        .evaluating_subscripts()
        .checked(wait),
    Program::new(&["sleep"]),
    Program::new(&["exit"]),
    Program::new(&["return"]),
    Program::new(&["break"]),
    Program::new(&["continue"]),
    Program::new(&["shift"]),
    Program::new(&["getopts"]).checked(getopts),
    Program::new(&["ulimit"]),
    Program::new(&["times"]),
    Program::new(&["history"]).checked(history),
    // Runners of strings, judged as command lines in turn.
    Program::new(&["eval"]).checked(eval),
    Program::new(&["trap"]).checked(trap),
    Program::new(&["watch"]).checked(watch),
];

fn printf(_name: &str, args: &[Word], judged: &mut Judged) {
    for var in option_values(args, &["-v"]) {
        if let Some(why) = risky_variable(&var.text) {
            judged.ask(format!("`printf -v {}` {why}", var.text));
        }
    }
}

fn read(_name: &str, args: &[Word], judged: &mut Judged) {
    for var in operands(args) {
        if let Some(why) = risky_variable(&var.text) {
            judged.ask(format!("`read {}` {why}", var.text));
        }
    }
}

/// `getopts OPTSTRING NAME [ARGS]` sets NAME to an option's letter: `getopts . PATH -.` is
/// `PATH=.`. Programs read upper-case names; the idiom's `opt` is the script's own.
fn getopts(_name: &str, args: &[Word], judged: &mut Judged) {
    if let Some(var) = operands(args).nth(1)
        && !var.text.contains(|c: char| c.is_ascii_lowercase())
        && let Some(why) = risky_variable(&var.text)
    {
        judged.ask(format!("`getopts {}` {why}", var.text));
    }
}

/// `history` lists; with options it also writes, appends or reads a file (`history -s TEXT;
/// history -w x.py` writes any text there) or rewrites the list.
fn history(_name: &str, args: &[Word], judged: &mut Judged) {
    if let Some(option) = args
        .iter()
        .find(|a| a.text.starts_with('-') && a.text != "-c")
    {
        judged.ask(format!(
            "`history {}` writes, reads or rewrites a history file",
            option.text
        ));
    }
}

/// `wait -p NAME` sets NAME to a process id.
fn wait(_name: &str, args: &[Word], judged: &mut Judged) {
    for var in option_values(args, &["-p"]) {
        if let Some(why) = risky_variable(&var.text) {
            judged.ask(format!("`wait -p {}` {why}", var.text));
        }
    }
}

/// `command ls`, `builtin cd`: the rest is a command of its own (`command -v x` looks it up).
fn command(_name: &str, args: &[Word], judged: &mut Judged) {
    if !args
        .iter()
        .take_while(|a| a.text.starts_with('-'))
        .any(|a| a.text == "-v" || a.text == "-V")
    {
        judged.inner.push(skip_options(args, &[]).to_vec());
    }
}

fn alias(_name: &str, args: &[Word], judged: &mut Judged) {
    if lists_everything(args) {
        judged.ask("`alias` alone prints every variable, tokens included");
    } else if args.iter().any(|a| a.text.contains('=')) {
        judged.ask("`alias` redefines what a command name runs");
    }
}

/// `export`, `set`, `declare`, ... alone list every variable (`set -u`, `set -f`, `set -e`
/// only change options).
fn lists_everything(args: &[Word]) -> bool {
    operands(args).next().is_none()
        && args
            .iter()
            .all(|a| !a.text.starts_with(['-', '+']) || a.text.contains('p'))
}

fn variables(name: &str, args: &[Word], judged: &mut Judged) {
    if name == "set" && keywords(args) {
        judged.ask(
            "`set -k` makes every `NAME=value` word of a command part of its environment, \
             which ai does not follow",
        );
    } else if name == "set" && traces(args) {
        judged.ask("`set -x` (xtrace) expands PS4 before every command, which can run code");
    } else if name != "local" && lists_everything(args) {
        judged.ask(format!(
            "`{name}` alone prints every variable, tokens included"
        ));
    } else if matches!(name, "declare" | "typeset") && has_flag(args, "-p") {
        judged.ask(format!("`{name} -p` prints variables, tokens included"));
    } else if name != "set" && (has_flag(args, "-n") || has_flag(args, "-f")) {
        judged.ask(format!(
            "`{name} -n`/`-f` makes a name stand for another variable or a function"
        ));
    }
}

/// `set -k`, `set -o keyword`: assignments anywhere in a command go to its environment.
pub(crate) fn keywords(args: &[Word]) -> bool {
    let mut after_o = false;
    for arg in args.iter().take_while(|a| a.text != "--") {
        let text = arg.text.as_str();
        if after_o && text == "keyword" {
            return true;
        }
        after_o = false;
        if let Some(letters) = text.strip_prefix('-').filter(|l| !l.starts_with('-')) {
            if letters.contains('k') {
                return true;
            }
            after_o = letters.ends_with('o');
        }
    }
    false
}

/// `set -x`, `set -o xtrace`, `set -eux`, `set -eo xtrace`: turns tracing on.
fn traces(args: &[Word]) -> bool {
    let options = args.iter().take_while(|a| a.text != "--");
    let mut after_o = false;
    for arg in options {
        let text = arg.text.as_str();
        if after_o && text == "xtrace" {
            return true;
        }
        after_o = false;
        if let Some(letters) = text.strip_prefix('-').filter(|l| !l.starts_with('-')) {
            if letters.contains('x') {
                return true;
            }
            after_o = letters.ends_with('o');
        }
    }
    false
}

/// `set`, `export`, `declare -p`: with no words, or a `p` among the options, they list variables.
fn lists_variables(args: &[Word]) -> bool {
    args.is_empty()
        || args
            .iter()
            .any(|a| a.text.starts_with('-') && a.text.contains('p'))
}

fn shopt(_name: &str, args: &[Word], judged: &mut Judged) {
    if has_flag(args, "-s") || has_flag(args, "-u") {
        judged.ask("`shopt` changes how the shell expands words and runs commands");
    }
}

fn eval(_name: &str, args: &[Word], judged: &mut Judged) {
    judged.strings.push(join(args));
}

/// `trap 'commands' SIGNAL`: the commands run later, when the signal comes.
fn trap(_name: &str, args: &[Word], judged: &mut Judged) {
    let rest = skip_options(args, &[]);
    if let Some(action) = rest.first()
        && rest.len() > 1
        && !action.text.is_empty()
        && action.text != "-"
    {
        judged.strings.push(action.clone());
    }
}

fn watch(_name: &str, args: &[Word], judged: &mut Judged) {
    let rest = skip_options(args, &["-n", "--interval"]);
    judged.strings.push(join(rest));
}

fn join(words: &[Word]) -> Word {
    let text = words
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    if words.iter().any(|w| w.dynamic) {
        Word::computed(text)
    } else {
        Word::literal(text)
    }
}
