//! Records of text processors: `sed` and `awk` are read-only filters unless their program
//! writes files (`w`, `print > f`), reads others (`r`, `getline <`) or runs commands (`e`,
//! `system()`, pipes). Their programs are scanned for those; what cannot be scanned asks.

use super::Program;
use crate::policy::judged::Judged;
use crate::policy::shell::Word;

pub(super) const PROGRAMS: &[Program] = &[
    Program::new(&["sed"]).data_filter().checked(sed),
    Program::new(&["awk", "gawk", "mawk"])
        .data_filter()
        .asking(AWK_WRITES)
        .checked(awk),
    Program::new(&["nawk"]).asking(AWK_WRITES).checked(awk),
];

const AWK_WRITES_FILE: &str = "writes its program or variables to a file it names";
/// gawk's options that write a file (`-o FILE`, `--profile=FILE`, `--dump-variables=FILE`).
const AWK_WRITES: &[(&str, &str)] = &[
    ("-o", AWK_WRITES_FILE),
    ("--pretty-print", AWK_WRITES_FILE),
    ("-p", AWK_WRITES_FILE),
    ("--profile", AWK_WRITES_FILE),
    ("-d", AWK_WRITES_FILE),
    ("--dump-variables", AWK_WRITES_FILE),
];

pub(crate) fn sed(_name: &str, args: &[Word], judged: &mut Judged) {
    match sed_scripts(args) {
        Err(why) => judged.ask(why),
        Ok(scripts) => {
            for script in scripts {
                if script.dynamic {
                    judged.ask("the `sed` program is computed at run time");
                } else if let Some(what) = sed_effect(&script.text) {
                    judged.ask(format!("the `sed` program {what}"));
                }
            }
        }
    }
}

/// The programs a sed command line runs, read the way GNU sed reads its options (clusters,
/// glued values, abbreviated long options); an option that edits files, reads a script file or
/// that we do not know is the error.
fn sed_scripts(args: &[Word]) -> Result<Vec<Word>, String> {
    const LONG: &[&str] = &[
        "--quiet",
        "--silent",
        "--regexp-extended",
        "--separate",
        "--unbuffered",
        "--null-data",
        "--posix",
        "--debug",
        "--sandbox",
        "--follow-symlinks",
        "--line-length",
        "--expression",
    ];
    let mut scripts = Vec::new();
    let mut operands = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        let next = |i: usize| args.get(i + 1).cloned();
        if text == "--" {
            operands.extend(args.get(i + 1..).unwrap_or(&[]).iter().cloned());
            break;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (given, inline) = match long.split_once('=') {
                Some((given, value)) => (given, Some(value)),
                None => (long, None),
            };
            if given.len() >= 2 && ("in-place".starts_with(given) || "file".starts_with(given)) {
                return Err(format!("`sed --{given}` edits files or runs a script file"));
            }
            let Some(full) = LONG
                .iter()
                .find(|l| given.len() >= 2 && l[2..].starts_with(given))
            else {
                return Err(format!("`sed --{given}` is an option ai does not know"));
            };
            if matches!(*full, "--expression" | "--line-length") {
                let value = inline.map(Word::literal).or_else(|| {
                    i += 1;
                    args.get(i).cloned()
                });
                if *full == "--expression" {
                    scripts.extend(value);
                }
            }
        } else if let Some(cluster) = text.strip_prefix('-').filter(|c| !c.is_empty()) {
            for (pos, c) in cluster.char_indices() {
                let rest = &cluster[pos + c.len_utf8()..];
                match c {
                    'n' | 'r' | 'E' | 's' | 'u' | 'z' => {}
                    'i' => return Err("`sed -i` edits files in place".into()),
                    'f' => return Err("`sed -f` runs a script file ai has not checked".into()),
                    'e' | 'l' => {
                        let value = if rest.is_empty() {
                            let value = next(i);
                            i += 1;
                            value
                        } else {
                            Some(Word {
                                text: rest.to_string(),
                                ..arg.clone()
                            })
                        };
                        if c == 'e' {
                            scripts.extend(value);
                        }
                        break;
                    }
                    other => return Err(format!("`sed -{other}` is an option ai does not know")),
                }
            }
        } else {
            operands.push(arg.clone());
        }
        i += 1;
    }
    if scripts.is_empty() {
        scripts.extend(operands.into_iter().next());
    }
    Ok(scripts)
}

/// What a sed program does beyond filtering text, if anything; `None` when it only filters.
fn sed_effect(script: &str) -> Option<&'static str> {
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() || matches!(c, ';' | '{' | '}' | '!') {
            i += 1;
            continue;
        }
        i = skip_address(&chars, i)?;
        while chars.get(i).is_some_and(|c| c.is_whitespace() || *c == '!') {
            i += 1;
        }
        let Some(&command) = chars.get(i) else { break };
        if command == '{' {
            continue;
        }
        i += 1;
        match command {
            's' => {
                let delimiter = *chars.get(i)?;
                i = skip_delimited(&chars, i + 1, delimiter)?;
                i = skip_delimited(&chars, i, delimiter)?;
                while let Some(&flag) = chars.get(i) {
                    match flag {
                        'e' => return Some("runs commands (the `e` flag)"),
                        'w' | 'W' => return Some("writes to a file (the `w` flag)"),
                        'g' | 'p' | 'i' | 'I' | 'm' | 'M' | '0'..='9' => i += 1,
                        _ => break,
                    }
                }
            }
            'y' => {
                let delimiter = *chars.get(i)?;
                i = skip_delimited(&chars, i + 1, delimiter)?;
                i = skip_delimited(&chars, i, delimiter)?;
            }
            'e' => return Some("runs commands (the `e` command)"),
            'w' | 'W' => return Some("writes to a file (the `w` command)"),
            'r' | 'R' => return Some("reads another file (the `r` command)"),
            'a' | 'i' | 'c' | ':' | 'b' | 't' | 'T' | '#' => {
                // Text and comments run to the end of the line; labels also end at `;` (GNU).
                while let Some(&next) = chars.get(i) {
                    if next == '\n' || (matches!(command, ':' | 'b' | 't' | 'T') && next == ';') {
                        break;
                    }
                    i += 1;
                }
            }
            'p' | 'P' | 'd' | 'D' | 'n' | 'N' | 'g' | 'G' | 'h' | 'H' | 'x' | 'l' | '=' | 'q'
            | 'Q' | 'z' | 'F' => {
                while chars
                    .get(i)
                    .is_some_and(|c| c.is_ascii_digit() || *c == ' ')
                {
                    i += 1;
                }
            }
            _ => return Some("uses a command ai cannot check"),
        }
    }
    None
}

/// Skips `1`, `$`, `/re/`, `\%re%`, `1,5`, `0~4`, `addr,+3` at `i`; `None` on a malformed address.
fn skip_address(chars: &[char], mut i: usize) -> Option<usize> {
    for _ in 0..2 {
        match chars.get(i) {
            Some(c) if c.is_ascii_digit() || *c == '$' => {
                while chars
                    .get(i)
                    .is_some_and(|c| c.is_ascii_digit() || matches!(c, '$' | '~' | '+'))
                {
                    i += 1;
                }
            }
            Some('/') => i = skip_delimited(chars, i + 1, '/')?,
            Some('\\') => {
                let delimiter = *chars.get(i + 1)?;
                i = skip_delimited(chars, i + 2, delimiter)?;
            }
            _ => return Some(i),
        }
        while chars.get(i).is_some_and(|c| matches!(c, 'I' | 'M')) {
            i += 1;
        }
        if chars.get(i) == Some(&',') {
            i += 1;
            if chars.get(i).is_some_and(|c| matches!(c, '+' | '~')) {
                i += 1;
            }
        } else {
            return Some(i);
        }
    }
    Some(i)
}

/// The index after the next unescaped `delimiter` from `i`; `None` when there is none.
fn skip_delimited(chars: &[char], mut i: usize, delimiter: char) -> Option<usize> {
    while let Some(&c) = chars.get(i) {
        if c == '\\' {
            i += 2;
        } else if c == delimiter {
            return Some(i + 1);
        } else {
            i += 1;
        }
    }
    None
}

pub(crate) fn awk(_name: &str, args: &[Word], judged: &mut Judged) {
    let loads = crate::policy::args::option_values(
        args,
        &[
            "-f",
            "--file",
            "-i",
            "--include",
            "-l",
            "--load",
            "-E",
            "--exec",
            "--source",
            "-e",
        ],
    );
    if !loads.is_empty() {
        judged.ask("`awk -f`/`--include`/`--source` runs a program ai has not checked");
        return;
    }
    let mut i = 0;
    let mut program = None;
    while let Some(arg) = args.get(i) {
        match arg.text.as_str() {
            "-f" | "--file" | "-i" | "--include" | "-l" | "--load" | "-E" | "--exec" => {
                judged.ask(format!(
                    "`awk {}` runs a program file ai has not checked",
                    arg.text
                ));
                return;
            }
            "-W" if args.get(i + 1).is_none_or(|w| !harmless_w(&w.text)) => {
                judged.ask("`awk -W` with this option can run a program file ai has not checked");
                return;
            }
            "-v" | "-F" | "--assign" | "--field-separator" | "-W" => i += 1,
            text if text.starts_with('-') && text != "-" => {}
            _ => {
                program = Some(arg);
                break;
            }
        }
        i += 1;
    }
    match program {
        Some(program) if program.dynamic => judged.ask("the `awk` program is computed at run time"),
        Some(program) => {
            if let Some(what) = awk_effect(&program.text) {
                judged.ask(format!("the `awk` program {what}"));
            }
        }
        None => judged.ask("`awk` without a program"),
    }
}

/// What an awk program does beyond printing, if anything.
/// mawk's `-W` options that run nothing (`-W exec`/`-W e` runs a program file).
fn harmless_w(option: &str) -> bool {
    let name = option.split_once('=').map_or(option, |(n, _)| n);
    !name.is_empty()
        && !name.starts_with('e')
        && [
            "version",
            "dump",
            "usage",
            "help",
            "posix_space",
            "lint",
            "traditional",
        ]
        .iter()
        .any(|known| known.starts_with(name))
}

fn awk_effect(program: &str) -> Option<&'static str> {
    let code = awk_code_only(program);
    if code.contains("ENVIRON") || code.contains("ARGV") || code.contains("PROCINFO") {
        return Some("reads the environment or changes which files it reads");
    }
    if code.contains("system") {
        return Some("runs commands (`system`)");
    }
    if code.contains("@load") || code.contains("@include") {
        return Some("loads code ai has not checked");
    }
    // gawk's `@f(...)` calls the function a value names, `system` among them.
    if code.contains('@') {
        return Some("calls a function by a computed name (`@f()`), which can be `system`");
    }
    let bytes: Vec<char> = code.chars().collect();
    for (i, c) in bytes.iter().enumerate() {
        let prev = i.checked_sub(1).and_then(|p| bytes.get(p)).copied();
        let next = bytes.get(i + 1).copied();
        if *c == '|' && prev != Some('|') && next != Some('|') {
            return Some("pipes to or from a command");
        }
        if *c == '|' && next == Some('&') {
            return Some("talks to a coprocess");
        }
    }
    let reads_file = code.split("getline").skip(1).any(|rest| {
        rest.split([';', ')', '}', '\n'])
            .next()
            .is_some_and(|statement| statement.contains('<'))
    });
    if reads_file {
        return Some("reads another file (`getline <`)");
    }
    for statement in code.split([';', '{', '}', '\n']) {
        // `if (c) print > f`: the redirection follows the `print`, wherever it starts.
        if let Some(at) = statement.find("print")
            && redirects_output(&statement[at..])
        {
            return Some("writes to a file (`print >`)");
        }
    }
    None
}

/// Whether a `print` statement has a `>` outside parentheses (a redirection, not a comparison).
fn redirects_output(statement: &str) -> bool {
    let mut depth = 0i32;
    for c in statement.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            '>' if depth <= 0 => return true,
            _ => {}
        }
    }
    false
}

/// The program with string and regex literals blanked, so `/a|b/` and `"x > y"` are not code.
fn awk_code_only(program: &str) -> String {
    let mut out = String::with_capacity(program.len());
    let mut chars = program.chars().peekable();
    let mut last_code = '(';
    while let Some(c) = chars.next() {
        let regex_start = c == '/'
            && matches!(
                last_code,
                '(' | ',' | '~' | '!' | '&' | '|' | '{' | ';' | '\n' | ':' | '?'
            );
        if c == '"' || regex_start {
            let close = c;
            out.push(' ');
            while let Some(inner) = chars.next() {
                if inner == '\\' {
                    chars.next();
                } else if inner == close {
                    break;
                }
            }
            out.push(' ');
            last_code = 'x';
            continue;
        }
        out.push(c);
        if !c.is_whitespace() {
            last_code = c;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sed_programs_that_only_filter_pass_and_the_others_are_named() {
        for script in [
            "s/a/b/",
            "s/a/b/g",
            "1,10p",
            "/^#/d",
            "s|/usr|/opt|g; s/x/y/2",
            "$!N;P;D",
            "0~4 s/x/y/",
            "/start/,/end/{ s/a/b/; p }",
            "y/abc/xyz/",
            "\\%foo%d",
            "10q",
        ] {
            assert_eq!(sed_effect(script), None, "{script}");
        }
        for script in [
            "1e rm -rf src",
            "s/x/rm -rf src/e",
            "w out.txt",
            "s/a/b/w out",
            "1r /etc/passwd",
            "/x/ W file",
            "$ e id",
            "s/a/b/;e id",
            ":a;e id",
        ] {
            assert!(sed_effect(script).is_some(), "{script}");
        }
    }

    #[test]
    fn awk_programs_that_only_print_pass_and_the_others_are_named() {
        for program in [
            "{print $1}",
            "$3 > 100 {print $1}",
            "/a|b/ {print}",
            "$1 == \"x\" || $2 == \"y\"",
            "{ if ($2 > 5) print $1 }",
            "BEGIN{FS=\":\"} {print $1}",
            "{ sum += $1 } END { print sum }",
            "{print \"a > b\"}",
        ] {
            assert_eq!(awk_effect(program), None, "{program}");
        }
        for program in [
            "BEGIN{system(\"rm -rf src\")}",
            "{print | \"sh\"}",
            "BEGIN{\"id\" | getline x; print x}",
            "{print > \"out.txt\"}",
            "{printf \"%s\", $0 >> \"log\"}",
            "BEGIN{while ((getline line < \"/etc/shadow\") > 0) print line}",
            "BEGIN{print |& \"cat\"}",
            "BEGIN{ARGV[1]=ENVIRON[\"HOME\"] \"/.ssh/id_rsa\";ARGC=2}{print}",
        ] {
            assert!(awk_effect(program).is_some(), "{program}");
        }
    }
}
