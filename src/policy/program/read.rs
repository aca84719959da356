//! Records of the programs that read: file readers and printers, searchers and tree walkers
//! (`cat`, `grep`, `rg`, `find`, `tree`, `fd`, ...), and `xargs`, which hands them names read at
//! run time. Their options that write or run programs ask; their walks are checked for secrets.

use super::{Options, Program, Walk};
use crate::policy::args::{has_flag, operands, option_values, skip_options};
use crate::policy::judged::Judged;
use crate::policy::shell::Word;

const WRITES_FILE: &str = "writes its output to a file";
const FILES0_FROM: &[(&str, &str)] = &[("--files0-from", "reads file names computed at run time")];
const OUTPUT: &[(&str, &str)] = &[("-o", WRITES_FILE), ("--output", WRITES_FILE)];

/// `zstdcat -o FILE` (it is `zstd -dcf`) writes any text there, passed through unchanged;
/// `--rm` deletes the input.
const DECOMPRESSOR_WRITES: &[(&str, &str)] = &[
    ("-o", WRITES_FILE),
    ("--output", WRITES_FILE),
    ("--output-dir-flat", WRITES_FILE),
    ("--output-dir-mirror", WRITES_FILE),
    ("--rm", "deletes the files it reads"),
];

const RUNS_DIFF: &str = "runs the program it names to compare the files";
/// `diff3 --diff-program=PROG`, `sdiff --diff-program=PROG`: any program, the line's own too.
const DIFF_PROGRAM: &[(&str, &str)] = &[("--diff-program", RUNS_DIFF)];
const SDIFF_ASKS: &[(&str, &str)] = &[
    ("-o", WRITES_FILE),
    ("--output", WRITES_FILE),
    ("--diff-program", RUNS_DIFF),
];

/// The options of grep, rg and ugrep that give the pattern instead of the first operand.
const PATTERN_OPTIONS: &[&str] = &["-e", "--regexp", "-f", "--file"];

/// A searcher: pattern first (or by `-e`/`-f`), then the trees it reads.
const fn searcher(names: &'static [&'static str], walk: Walk) -> Program {
    Program::new(names)
        .walking(walk)
        .reading_contents()
        .paths_after(1)
        .pattern_options(PATTERN_OPTIONS)
}

/// GNU grep's options (`grep --help`).
const GREP_OPTIONS: Options = Options {
    values: &[
        "-e",
        "--regexp",
        "-f",
        "--file",
        "-m",
        "--max-count",
        "--label",
        "--binary-files",
        "-d",
        "--directories",
        "-D",
        "--devices",
        "--include",
        "--exclude",
        "--exclude-from",
        "--exclude-dir",
        "-B",
        "--before-context",
        "-A",
        "--after-context",
        "-C",
        "--context",
        "--group-separator",
    ],
    flags: &[
        "-E",
        "--extended-regexp",
        "-F",
        "--fixed-strings",
        "-G",
        "--basic-regexp",
        "-P",
        "--perl-regexp",
        "-i",
        "-y",
        "--ignore-case",
        "--no-ignore-case",
        "-w",
        "--word-regexp",
        "-x",
        "--line-regexp",
        "-z",
        "--null-data",
        "-s",
        "--no-messages",
        "-v",
        "--invert-match",
        "-V",
        "--version",
        "--help",
        "-b",
        "--byte-offset",
        "-n",
        "--line-number",
        "--line-buffered",
        "-H",
        "--with-filename",
        "-h",
        "--no-filename",
        "-o",
        "--only-matching",
        "-q",
        "--quiet",
        "--silent",
        "-a",
        "--text",
        "-I",
        "-r",
        "--recursive",
        "-R",
        "--dereference-recursive",
        "-L",
        "--files-without-match",
        "-l",
        "--files-with-matches",
        "-c",
        "--count",
        "-T",
        "--initial-tab",
        "-Z",
        "--null",
        "--no-group-separator",
        "--color",
        "--colour",
        "-U",
        "--binary",
    ],
};

/// ugrep's patterns come by option too: `-N`, `--and`, `--not`, ...
const UGREP_PATTERN_OPTIONS: &[&str] = &[
    "-e",
    "--regexp",
    "-f",
    "--file",
    "-N",
    "--neg-regexp",
    "--and",
    "--andnot",
    "--not",
];

/// ugrep's options (`ugrep --help`).
const UGREP_OPTIONS: Options = Options {
    values: &[
        "-A",
        "--after-context",
        "--and",
        "--andnot",
        "-B",
        "--before-context",
        "--binary-files",
        "-C",
        "--context",
        "--colors",
        "--colours",
        "-D",
        "--devices",
        "-d",
        "--directories",
        "--depth",
        "-e",
        "--regexp",
        "--encoding",
        "--exclude",
        "--exclude-dir",
        "--exclude-from",
        "--exclude-fs",
        "-f",
        "--file",
        "--filter",
        "--filter-magic-label",
        "--format",
        "-g",
        "--glob",
        "--hexdump",
        "--include",
        "--include-dir",
        "--include-from",
        "--include-fs",
        "-J",
        "--jobs",
        "-K",
        "--range",
        "--min-line",
        "--max-line",
        "--label",
        "-M",
        "--file-magic",
        "-m",
        "--min-count",
        "--max-count",
        "--max-files",
        "-N",
        "--neg-regexp",
        "--not",
        "-O",
        "--file-extension",
        "--replace",
        "-t",
        "--file-type",
        "--fuzzy",
        "--zmax",
    ],
    flags: &[
        "-a",
        "--text",
        "-b",
        "--byte-offset",
        "--bool",
        "-%",
        "--break",
        "-c",
        "--count",
        "--color",
        "--colour",
        "--config",
        "--confirm",
        "--cpp",
        "--csv",
        "--dotall",
        "-E",
        "--extended-regexp",
        "-F",
        "--fixed-strings",
        "--free-space",
        "-G",
        "--basic-regexp",
        "--group-separator",
        "-H",
        "--with-filename",
        "-h",
        "--no-filename",
        "--heading",
        "-+",
        "--help",
        "-?",
        "--hidden",
        "-.",
        "--hyperlink",
        "-I",
        "--ignore-binary",
        "-i",
        "--ignore-case",
        "--ignore-files",
        "-j",
        "--smart-case",
        "--json",
        "-k",
        "--column-number",
        "-L",
        "--files-without-match",
        "-l",
        "--files-with-matches",
        "--line-buffered",
        "--lines",
        "--match",
        "--mmap",
        "-n",
        "--line-number",
        "--no-group-separator",
        "-o",
        "--only-matching",
        "--only-line-number",
        "--files",
        "-P",
        "--perl-regexp",
        "-p",
        "--no-dereference",
        "--pager",
        "--pretty",
        "-Q",
        "--query",
        "-q",
        "--quiet",
        "--silent",
        "-R",
        "--dereference-recursive",
        "-r",
        "--recursive",
        "-S",
        "--dereference",
        "-s",
        "--no-messages",
        "--save-config",
        "--separator",
        "--sort",
        "--stats",
        "-T",
        "--initial-tab",
        "--tabs",
        "--tag",
        "--tree",
        "-^",
        "-U",
        "--binary",
        "-u",
        "--ungroup",
        "-V",
        "--version",
        "-v",
        "--invert-match",
        "--view",
        "-W",
        "--with-hex",
        "-w",
        "--word-regexp",
        "--width",
        "-X",
        "--hex",
        "-x",
        "--line-regexp",
        "--xml",
        "-Y",
        "--empty",
        "-y",
        "--any-line",
        "--passthru",
        "-Z",
        "-z",
        "--decompress",
        "-0",
        "--null",
    ],
};

pub(super) const PROGRAMS: &[Program] = &[
    // Readers and printers of the files they are given.
    Program::new(&["cat"]).data_filter(),
    Program::new(&["head"]).data_filter(),
    Program::new(&["tail"]).data_filter(),
    Program::new(&["wc"]).data_filter().asking(FILES0_FROM),
    Program::new(&["nl"]).data_filter(),
    Program::new(&["tac"]).data_filter(),
    Program::new(&["rev"]).data_filter(),
    Program::new(&["cut"]).data_filter(),
    Program::new(&["paste"]).data_filter(),
    Program::new(&["join"]),
    Program::new(&["comm"]),
    Program::new(&["fold"]).data_filter(),
    Program::new(&["fmt"]).data_filter(),
    Program::new(&["expand"]),
    Program::new(&["unexpand"]),
    Program::new(&["column"]).data_filter(),
    Program::new(&["tr"]).data_filter(),
    Program::new(&["zcat"]).asking(DECOMPRESSOR_WRITES),
    Program::new(&["bzcat"]).asking(DECOMPRESSOR_WRITES),
    Program::new(&["xzcat"]).asking(DECOMPRESSOR_WRITES),
    Program::new(&["zstdcat"]).asking(DECOMPRESSOR_WRITES),
    Program::new(&["cmp"]).data_filter(),
    Program::new(&["diff3"]).asking(DIFF_PROGRAM),
    Program::new(&["sdiff"]).asking(SDIFF_ASKS),
    Program::new(&["file"]).checked(file),
    Program::new(&["stat"]),
    Program::new(&["readlink"]),
    Program::new(&["realpath"]),
    Program::new(&["basename"]),
    Program::new(&["dirname"]),
    Program::new(&["md5sum"]).data_filter(),
    Program::new(&["sha1sum"]).data_filter(),
    Program::new(&["sha224sum"]),
    Program::new(&["sha256sum"]).data_filter(),
    Program::new(&["sha384sum"]),
    Program::new(&["sha512sum"]).data_filter(),
    Program::new(&["b2sum"]),
    Program::new(&["cksum"]),
    Program::new(&["sum"]),
    Program::new(&["base32"]),
    Program::new(&["base64"]).data_filter(),
    Program::new(&["basenc"]),
    Program::new(&["od"]).data_filter(),
    Program::new(&["hexdump"]).data_filter(),
    Program::new(&["hd"]),
    Program::new(&["xxd"])
        .data_filter()
        .checked(second_file_written),
    Program::new(&["strings"]).checked(binutils),
    Program::new(&["jq"]).data_filter().checked(jq),
    Program::new(&["yq"]).data_filter().checked(jq).asking(&[
        ("-i", "edits files in place"),
        ("--inplace", "edits files in place"),
    ]),
    Program::new(&["bat", "batcat"]).asking(&[("--pager", "runs another program")]),
    Program::new(&["zipinfo"]),
    Program::new(&["pdfinfo"]),
    Program::new(&["pdftotext"]).checked(second_file_written),
    Program::new(&["ldd"]).checked(ldd),
    Program::new(&["nm"]).checked(binutils),
    Program::new(&["objdump"]).checked(binutils),
    Program::new(&["readelf"]).checked(binutils),
    Program::new(&["size"]).checked(binutils),
    Program::new(&["addr2line"]).checked(binutils),
    Program::new(&["c++filt"]).checked(binutils),
    Program::new(&["sort"]).data_filter().asking(&[
        ("-o", WRITES_FILE),
        ("--output", WRITES_FILE),
        ("--compress-program", "runs another program"),
        ("--files0-from", "reads file names computed at run time"),
    ]),
    Program::new(&["shuf"]).asking(OUTPUT),
    Program::new(&["iconv"]).asking(OUTPUT),
    Program::new(&["uniq"])
        .data_filter()
        .checked(second_file_written),
    // Searchers: a pattern, then the trees they read with `-r` or always.
    searcher(&["grep", "egrep", "fgrep"], Walk::Recursive)
        .recursing_by(&["-d", "--directories"])
        .with_options(GREP_OPTIONS)
        .data_filter(),
    searcher(&["zgrep"], Walk::Recursive),
    searcher(&["rg"], Walk::Always)
        .skipping_hidden(&["--unrestricted"])
        .data_filter()
        .asking(&[
            ("--pre", "runs a preprocessor program on every file"),
            ("--hostname-bin", "runs the program it names"),
            ("-z", "runs decompression programs"),
            ("--search-zip", "runs decompression programs"),
        ]),
    // ag and ack take the pattern as the first operand only (`ag -f` is `--follow`).
    searcher(&["ag"], Walk::Always)
        .pattern_options(&[])
        .asking(&[("--pager", "runs the program it names")])
        .skipping_hidden(&["--unrestricted", "-U", "--skip-vcs-ignores", "-f"]),
    searcher(&["ack"], Walk::Always).pattern_options(&[]),
    // ugrep reads the directories it is given whole, `-r` or not; it skips hidden files unless
    // told otherwise (`--hidden`, `-.`, also in clusters), which is not relied on here.
    searcher(&["ugrep"], Walk::Always)
        .pattern_options(UGREP_PATTERN_OPTIONS)
        .with_options(UGREP_OPTIONS)
        .asking(&[
            ("--filter", "runs filter programs on the files it reads"),
            ("--pager", "runs another program"),
            ("--view", "runs another program"),
            ("-Q", "opens a query screen that runs other programs"),
            ("--query", "opens a query screen that runs other programs"),
            ("--config", "reads its options from a file"),
            ("--save-config", "writes its options to a file"),
        ])
        .checked(ugrep),
    Program::new(&["diff"])
        .walking(Walk::Recursive)
        .reading_contents()
        .data_filter(),
    // Listers and tree walkers: they print names and sizes, not contents.
    Program::new(&["ls"]),
    Program::new(&["dir"]),
    Program::new(&["vdir"]),
    Program::new(&["exa", "eza"]).walking(Walk::Recursive),
    Program::new(&["lsd"]).walking(Walk::Recursive),
    Program::new(&["tree"]).walking(Walk::Always).asking(&[
        ("-o", WRITES_FILE),
        ("-R", "writes an index file into every directory it lists"),
    ]),
    Program::new(&["fd", "fdfind"])
        .walking(Walk::Always)
        .skipping_hidden(&["-H", "-I", "--unrestricted"])
        .running_the_rest(&["-x", "--exec", "-X", "--exec-batch"]),
    Program::new(&["tokei"]).walking(Walk::Always),
    Program::new(&["cloc"])
        .walking(Walk::Always)
        .asking(CLOC_ASKS),
    Program::new(&["scc"]).walking(Walk::Always).asking(&[
        ("-o", WRITES_FILE),
        ("--output", WRITES_FILE),
        ("--format-multi", WRITES_FILE),
    ]),
    Program::new(&["du"]).asking(FILES0_FROM),
    Program::new(&["dust"]),
    Program::new(&["duf"]),
    Program::new(&["ncdu"]).asking(&[("-o", WRITES_FILE)]),
    Program::new(&["find"]).walking(Walk::Always).checked(find),
    Program::new(&["xargs"]).data_filter().checked(xargs),
];

fn file(_name: &str, args: &[Word], judged: &mut Judged) {
    if has_flag(args, "-C") || has_flag(args, "--compile") {
        judged.ask("`file -C` writes a compiled magic file");
    }
}

/// cloc runs the program `--extract-with` names, reads options (that one too) from
/// `--config`, and writes reports where it is told.
const CLOC_ASKS: &[(&str, &str)] = &[
    (
        "--extract-with",
        "runs the program it names to unpack archives",
    ),
    (
        "--config",
        "reads its options, programs to run among them, from a file",
    ),
    ("--report-file", WRITES_FILE),
    ("--out", WRITES_FILE),
    ("--sql", WRITES_FILE),
    ("--write-lang-def", WRITES_FILE),
    ("--write-lang-def-incl-dup", WRITES_FILE),
];

/// `ldd FILE` may run FILE's own loader (the interpreter its header names, a project file
/// too): only the system's programs and libraries are looked at unasked.
fn ldd(name: &str, args: &[Word], judged: &mut Judged) {
    const SYSTEM: &[&str] = &["/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/lib32/"];
    let system = |w: &Word| SYSTEM.iter().any(|d| w.text.starts_with(d)) && !w.text.contains("..");
    if let Some(file) = operands(args).find(|w| w.dynamic || !system(w)) {
        judged.ask(format!(
            "`{name} {}` may run the loader that file names, which can be any program",
            file.text
        ));
    }
}

/// `uniq IN OUT`, `xxd IN OUT`: the second file is written.
fn second_file_written(name: &str, args: &[Word], judged: &mut Judged) {
    if operands(args).count() > 1 {
        judged.ask(format!("`{name}` with two files writes the second"));
    }
}

/// jq and yq: `env`, `$ENV`, yq's `env(NAME)`/`strenv(NAME)` and `load`/`include` read the
/// environment or other files.
fn jq(name: &str, args: &[Word], judged: &mut Judged) {
    if args.iter().any(|a| {
        ["include", "import", "load("]
            .iter()
            .any(|f| a.text.contains(f))
    }) {
        judged.ask(format!("the `{name}` program loads modules or files"));
    } else if args.iter().any(|a| {
        a.text.contains("env") || a.text.contains("$ENV") || a.text.contains("input_filename")
    }) {
        judged.ask(format!(
            "the `{name}` program reads the environment, tokens included"
        ));
    }
}

/// `---FILE` is ugrep's short spelling of `--config=FILE`.
fn ugrep(_name: &str, args: &[Word], judged: &mut Judged) {
    if args.iter().any(|a| a.text.starts_with("---")) {
        judged.ask("`ugrep ---FILE` reads its options from a file");
    }
}

fn find(_name: &str, args: &[Word], judged: &mut Judged) {
    judged.recursive = true;
    judged.contents = args
        .iter()
        .any(|a| matches!(a.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir"));
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        match arg.text.as_str() {
            "-delete" => judged.ask("`find -delete` deletes the files it finds"),
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                if arg.text.ends_with("dir") {
                    // It runs in the directory of each file found (a start point's parent
                    // too): where, only the run knows.
                    judged.inner_dir = Some(Word::computed("$(the directory of each file found)"));
                }
                let rest = &args[i + 1..];
                let end = rest
                    .iter()
                    .position(|w| w.text == ";" || w.text == "+")
                    .unwrap_or(rest.len());
                judged.inner.push(rest[..end].to_vec());
                i += end;
            }
            "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                judged.ask(format!("`find {}` writes to a file", arg.text));
            }
            _ => {}
        }
        i += 1;
    }
}

fn xargs(_name: &str, args: &[Word], judged: &mut Judged) {
    let rest = skip_options(
        args,
        &[
            "-I",
            "-L",
            "-n",
            "-P",
            "-s",
            "-d",
            "-E",
            "-a",
            "--max-args",
            "--max-procs",
            "--delimiter",
            "--arg-file",
        ],
    );
    if let Some(program) = rest
        .first()
        .map(|w| crate::policy::danger::basename(&w.text))
        && crate::policy::kind::runs_code(program)
    {
        judged.ask(format!(
            "`xargs {program}` hands text from its input to {program} as arguments, which it may \
             run as code"
        ));
    }
    if !rest.is_empty() {
        // The arguments come from stdin: the inner command gets words nobody has seen, also
        // wherever the replacement string stands (`xargs -I{} sh -c '{}'`).
        // `-I R`; `-i` and `--replace` take theirs only glued (`-iR`, `--replace=R`), `{}` else.
        let own = &args[..args.len() - rest.len()];
        let optional = own.iter().filter_map(|a| {
            let text = a.text.as_str();
            match text {
                "-i" | "--replace" => Some("{}".to_string()),
                _ => (text
                    .strip_prefix("--replace=")
                    .or_else(|| text.strip_prefix("-i")))
                .filter(|_| !text.starts_with("--") || text.starts_with("--replace="))
                .map(str::to_string),
            }
        });
        let replace: Vec<String> = option_values(own, &["-I"])
            .into_iter()
            .map(|w| w.text)
            .chain(optional)
            .collect();
        let stdin = Word::from_input();
        let mut inner: Vec<Word> = rest
            .iter()
            .map(|w| {
                let replaced = replace
                    .iter()
                    .filter(|r| !r.is_empty())
                    .fold(w.text.clone(), |text, r| {
                        text.replace(r.as_str(), &stdin.text)
                    });
                if replaced == w.text {
                    w.clone()
                } else {
                    Word::computed(replaced)
                }
            })
            .collect();
        inner.push(stdin);
        judged.inner.push(inner);
        judged.contents = true;
        // GNU xargs sets `NAME=<slot>` for what it runs (`GIT_CONFIG_GLOBAL=0`: a file `./0`).
        judged.inner_assignments.extend(
            option_values(args, &["--process-slot-var"])
                .into_iter()
                .map(|name| (name.text, Word::literal("0"))),
        );
    }
}

/// binutils read options from `@FILE` (any option, `--plugin` among them), and `nm --plugin`
/// (`--pl`, `--plu=`) loads a shared object into itself: both run code ai has not checked.
fn binutils(name: &str, args: &[Word], judged: &mut Judged) {
    for arg in args.iter().take_while(|a| a.text != "--") {
        let option = arg
            .text
            .split_once('=')
            .map_or(arg.text.as_str(), |(o, _)| o);
        if arg.text.starts_with('@') || arg.dynamic && arg.text.contains('@') {
            judged.ask(format!(
                "`{name} {}` reads options from a file, which can load a plugin",
                arg.text
            ));
        } else if option.len() >= 4 && "--plugin".starts_with(option) {
            judged.ask(format!(
                "`{name} {}` loads a plugin: code ai has not checked",
                arg.text
            ));
        }
    }
}
