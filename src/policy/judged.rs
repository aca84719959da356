//! What a program's record finds out about one simple command: why it asks, and what the
//! classifier must check next (inner commands, scripts, paths). Plain data the checks fill in.

use super::shell::Word;

/// What one simple command needs from the classifier beyond a verdict.
#[derive(Debug, Default)]
pub(crate) struct Judged {
    /// Why it must ask; empty when the command is safe.
    pub(crate) asks: Vec<String>,
    /// Inner commands run by a wrapper (`xargs grep`, `find -exec cat`): judged in turn.
    pub(crate) inner: Vec<Vec<Word>>,
    /// The directory the inner commands run in (`env -C DIR git status`), like `cd DIR &&`.
    pub(crate) inner_dir: Option<Word>,
    /// Variables the inner commands get (`env ARGS=';id' make`), judged like `NAME=value`
    /// written before them.
    pub(crate) inner_assignments: Vec<(String, Word)>,
    /// Shell strings it runs (`bash -c`, `eval`, `trap`): parsed and judged in turn.
    pub(crate) strings: Vec<Word>,
    /// The words after a `-c` string (`sh -c 'rm -rf $0' ~`): its `$0`, `$1`, ... and `$@`.
    pub(crate) positional: Vec<Word>,
    /// Files it runs as programs (`python3 x.py`, `make -f x`): safe only inside the project.
    pub(crate) scripts: Vec<Word>,
    /// Modules it imports by name (`python -m unittest NAME`): only the project's run unasked.
    pub(crate) imports: Vec<Word>,
    /// Files it runs as shell scripts (`sh x`, `source x`): their lines are judged like a command
    /// line's, in the project only.
    pub(crate) shell_scripts: Vec<Word>,
    /// Directories it runs in or writes into (`make -C dir`, `wget` into the cwd): inside the project.
    pub(crate) dirs: Vec<Word>,
    /// Files it writes (`curl -o f`): inside the project or temp.
    pub(crate) outputs: Vec<Word>,
    /// Files whose contents it replaces or appends to (`tee`, `tar -cf`): only writes the
    /// sandbox contains run unasked (`write`).
    pub(crate) writes: Vec<Word>,
    /// What `cp` or `mv` copies (the sources) and where to (a file, or a directory to copy
    /// into); `moves`: the sources go away too.
    pub(crate) copy: Option<(Vec<Word>, Word)>,
    pub(crate) moves: bool,
    /// Files whose mode it changes (`chmod +x`): inside the project, outside hidden directories.
    pub(crate) modes: Vec<Word>,
    /// Files it reads that are not plain operands (`curl file:///...`): checked for secrets.
    pub(crate) reads: Vec<Word>,
    /// It talks to the network (its output is untrusted).
    pub(crate) network: bool,
    /// It walks whole directory trees (a home directory passed to it exposes every secret).
    pub(crate) recursive: bool,
    /// It reads the contents of the files it walks, or of paths it is handed at run time
    /// (`grep -r`, `find -exec cat {}`, `xargs cat`): a secret file in the tree would be read.
    pub(crate) contents: bool,
    /// It runs the build, test or lint code (or configuration) of the directory it runs in:
    /// safe only when that directory is inside the project.
    pub(crate) project_code: bool,
    /// It only prints its arguments or looks names up: secret paths in them are not read.
    pub(crate) names_only: bool,
    /// It prints file contents from git history: safe only while no secret was ever committed.
    pub(crate) history: bool,
    /// It is git, which runs the configuration (fsmonitor, hooks, pagers) of the repository it
    /// finds where it runs or in its `-C` directories: only the project's own is trusted.
    pub(crate) repository: bool,
    /// The program has a record.
    pub(crate) known: bool,
}

impl Judged {
    pub(crate) fn ask(&mut self, reason: impl Into<String>) {
        self.asks.push(reason.into());
    }
}
