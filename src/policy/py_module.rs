//! `python -m MODULE`: a module in the safe list runs unasked only with the options it lists as
//! safe (pylint's `--init-hook`, mypy's `--config-file`, flake8's `--config` run or load other
//! code), and the files a module runs (`doctest FILE`, `unittest path/test_x.py`) must be the
//! project's. pytest and pip have checks of their own.

use super::judged::Judged;
use super::shell::Word;

/// Each module's safe options: `(flags, options that take a value)`.
const OPTIONS: &[(&str, &[&str], &[&str])] = &[
    (
        "doctest",
        &["-v", "--verbose", "-f", "--fail-fast"],
        &["-o", "--option"],
    ),
    (
        "unittest",
        &[
            "-v",
            "-q",
            "-f",
            "-c",
            "-b",
            "--locals",
            "--verbose",
            "--quiet",
            "--failfast",
            "--catch",
            "--buffer",
        ],
        &[
            "-k",
            "-s",
            "-t",
            "-p",
            "--durations",
            "--start-directory",
            "--top-level-directory",
            "--pattern",
        ],
    ),
    (
        "json.tool",
        &[
            "--sort-keys",
            "--no-indent",
            "--tab",
            "--compact",
            "--json-lines",
            "--no-ensure-ascii",
        ],
        &["--indent"],
    ),
    ("py_compile", &["-q", "--quiet"], &[]),
    ("compileall", &["-q", "-f", "-l", "-r", "-b"], &["-j", "-r"]),
    ("tabnanny", &["-q", "-v"], &[]),
    ("pyflakes", &[], &[]),
    (
        "flake8",
        &[
            "-q",
            "--count",
            "--statistics",
            "--show-source",
            "--exit-zero",
            "--quiet",
        ],
        &[
            "--select",
            "--ignore",
            "--extend-ignore",
            "--extend-select",
            "--max-line-length",
            "--max-complexity",
            "--exclude",
        ],
    ),
    (
        "pylint",
        &["-E", "--errors-only", "-r", "--disable-all"],
        &[
            "-d",
            "-e",
            "--disable",
            "--enable",
            "--score",
            "-j",
            "--jobs",
            "--reports",
            "--max-line-length",
        ],
    ),
    (
        "mypy",
        &[
            "--strict",
            "--ignore-missing-imports",
            "--check-untyped-defs",
            "--pretty",
            "--explicit-package-bases",
            "--namespace-packages",
            "--no-error-summary",
            "--show-error-codes",
            "--show-column-numbers",
            "--no-incremental",
            "--warn-unused-ignores",
            "--warn-return-any",
            "--disallow-untyped-defs",
        ],
        &[
            "-p",
            "--package",
            "-m",
            "--module",
            "--python-version",
            "--follow-imports",
        ],
    ),
    (
        "venv",
        &[
            "--clear",
            "--upgrade",
            "--upgrade-deps",
            "--without-pip",
            "--system-site-packages",
            "--symlinks",
            "--copies",
        ],
        &["--prompt"],
    ),
    ("site", &["--user-base", "--user-site"], &[]),
    ("platform", &[], &[]),
    ("sysconfig", &[], &[]),
    ("this", &[], &[]),
];

/// Asks for an option of `module` not known to be safe; notes the files it runs as code.
pub(crate) fn options(python: &str, module: &str, after: &[Word], judged: &mut Judged) {
    let Some((_, flags, valued)) = OPTIONS.iter().find(|(name, ..)| *name == module) else {
        return;
    };
    let mut i = 0;
    while let Some(arg) = after.get(i) {
        i += 1;
        let text = arg.text.as_str();
        if text == "--" {
            break;
        }
        if !text.starts_with('-') || text == "-" {
            let runs = module == "doctest"
                || (module == "unittest" && (text.contains('/') || text.ends_with(".py")));
            if runs {
                judged.scripts.push(arg.clone());
            } else if module == "unittest" && text != "discover" {
                judged.imports.push(arg.clone());
            }
            continue;
        }
        let (flag, glued) = text
            .split_once('=')
            .map_or((text, false), |(f, _)| (f, true));
        if valued.contains(&flag) {
            i += usize::from(!glued);
        } else if !flags.contains(&flag) {
            judged.ask(format!(
                "`{python} -m {module} {flag}` is not an option ai knows to be safe"
            ));
            return;
        }
    }
    for arg in after.get(i..).unwrap_or(&[]) {
        if module == "doctest" {
            judged.scripts.push(arg.clone());
        }
    }
}
