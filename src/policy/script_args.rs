//! Arguments a package manager passes on to a project script (`npm test -- ARGS`, `yarn test
//! ARGS`): they land on the script's program's own command line, where a test runner's options
//! run code from anywhere (`node --test --import data:...`, `jest --setupFiles /tmp/x.js`,
//! `mocha --require`). The script is project code; what the line adds to it is not (classifier
//! round 14). Options everyday work passes are known; anything else asks.

use super::shell::Word;

/// Options of test runners and build tools that run nothing of their own.
const PLAIN: &[&str] = &[
    "--watch",
    "--watchAll",
    "--coverage",
    "--ci",
    "--verbose",
    "--silent",
    "--quiet",
    "--bail",
    "--runInBand",
    "-i",
    "-u",
    "--updateSnapshot",
    "--passWithNoTests",
    "--detectOpenHandles",
    "--forceExit",
    "--no-cache",
    "--colors",
    "--no-colors",
    "--fix",
    "--fix-dry-run",
    "--cache",
    "--report-unused-disable-directives",
    "--prod",
    "--production",
    "--run",
    "--no-watch",
    "--onlyChanged",
    "-o",
    "--listTests",
    "--json",
    "--noEmit",
];

/// Options whose value is data (a test name, a mode, a number).
const WITH_VALUE: &[&str] = &[
    "-t",
    "--testNamePattern",
    "--grep",
    "-g",
    "--mode",
    "--max-warnings",
    "--maxWorkers",
    "-w",
    "--shard",
    "--project",
    "--testTimeout",
    "--port",
    "--host",
    "--filter",
];

/// Why what the line passes on to a project script asks (`npm test -- --import ...`), if it
/// does: the words after the script's name. `args`: the package manager's.
pub(super) fn passed_to_script(name: &str, args: &[Word]) -> Option<String> {
    let at = args.iter().position(|a| !a.text.starts_with('-'))?;
    let sub = args[at].text.as_str();
    let after = match sub {
        "test" | "t" | "tst" | "start" => at + 1,
        // `run NAME`: what follows the name.
        "run" | "run-script" => at + 2,
        // `yarn build ARGS`: a script by its own name, which runs without asking.
        "build" | "lint" | "typecheck" if matches!(name, "yarn" | "pnpm" | "bun") => at + 1,
        _ => return None,
    };
    passed_on(name, args.get(after..).unwrap_or_default())
}

/// Why the words a package manager passes on to a script need asking, if they do: `args` are
/// the manager's arguments after its subcommand's name; `npm` passes only what follows `--`.
fn passed_on(manager: &str, args: &[Word]) -> Option<String> {
    let passed: &[Word] = if manager == "npm" {
        let dash = args.iter().position(|a| a.text == "--")?;
        &args[dash + 1..]
    } else {
        args
    };
    let mut words = passed.iter().filter(|w| w.text != "--");
    while let Some(word) = words.next() {
        let text = word.text.as_str();
        let (flag, inline_value) = text.split_once('=').unwrap_or((text, ""));
        let known = if !text.starts_with('-') {
            plain_operand(word)
        } else if WITH_VALUE.contains(&flag) {
            if inline_value.is_empty() {
                words.next();
            }
            !word.dynamic
        } else {
            PLAIN.contains(&flag) && inline_value.is_empty() && !word.dynamic
        };
        if !known {
            return Some(format!(
                "`{manager}` passes `{text}` on to the script's program, whose options can run other code"
            ));
        }
    }
    None
}

/// A test filter or a file of the project: no path out of it, no URL, nothing computed.
fn plain_operand(word: &Word) -> bool {
    let text = word.text.as_str();
    !word.dynamic
        && !text.starts_with('/')
        && !text.starts_with('~')
        && !text.contains("..")
        && !text.contains(':')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Word> {
        line.split(' ').map(Word::literal).collect()
    }

    #[test]
    fn options_that_run_code_ask_and_everyday_ones_do_not() {
        for (manager, args) in [
            ("npm", "-- --import data:text/javascript,x"),
            ("npm", "-- --require /tmp/x.js"),
            ("npm", "-- --setupFiles=/tmp/evil.js"),
            ("npm", "-- --experimental-loader=/tmp/l.mjs"),
            ("npm", "-- --test-reporter=/tmp/r.js"),
            ("npm", "-- -r /tmp/x.js"),
            ("npm", "-- /tmp/evil.test.js"),
            ("npm", "-- ../outside.test.js"),
            ("yarn", "--import data:x"),
            ("pnpm", "-- --config /tmp/c.js"),
        ] {
            assert!(
                passed_on(manager, &words(args)).is_some(),
                "{manager} {args}"
            );
        }
        for (manager, args) in [
            ("npm", ""),
            ("npm", "--silent"),
            ("npm", "-- --watch"),
            ("npm", "-- -t login"),
            ("npm", "-- --coverage src/app.test.js"),
            ("npm", "-- --mode production"),
            ("yarn", "--watchAll=false"),
            ("pnpm", "-- -u"),
        ] {
            let args = if args.is_empty() {
                Vec::new()
            } else {
                words(args)
            };
            // `--watchAll=false` is `--watchAll` with a value: asks, which is acceptable.
            if args.iter().any(|a| a.text.contains('=')) {
                continue;
            }
            assert_eq!(passed_on(manager, &args), None, "{manager} {args:?}");
        }
    }
}
