//! What a command runs besides what ai reads as its words: shell text a program runs of its own
//! (`sed 1e`, `awk system()`, `gdb -ex shell`, an alias, a hashed path), and a job left running
//! in the background.

use super::runs;
use super::shell::Word;
use super::{Approver, Finding, Verdict};

/// Text a program runs of its own is for a person, wrappers included (classifier rounds 15 to
/// 18); a background job (`&`) asks.
pub(super) fn own_text_and_background(
    base: &str,
    args: &[Word],
    background: bool,
    findings: &mut Vec<Finding>,
) {
    if let Some(why) = runs::stored_code(base, args).or(runs::embedded_code(base, args)) {
        findings.push(Finding::new(Verdict::Ask, why).narrowed(Approver::Person));
    }
    // A keyword where ai's reading takes a program name (`time ! sh -c ...`, `time { ...; }`,
    // `! ! cmd`): bash runs what follows, which ai did not judge (classifier round 19).
    if RESERVED.contains(&base) {
        let why =
            format!("bash reads `{base}` here as a keyword, which ai's reading does not follow");
        findings.push(Finding::new(Verdict::Ask, why).narrowed(Approver::Person));
    }
    if background {
        let why = "a background job (`&`) keeps running after the command returns";
        findings.push(Finding::new(Verdict::Ask, why));
    }
}

/// bash's reserved words (but `time`, which ai reads as a wrapper).
const RESERVED: &[&str] = &[
    "!", "{", "}", "[[", "]]", "((", "if", "then", "else", "elif", "fi", "while", "until", "do",
    "done", "for", "case", "esac", "select", "function", "coproc", "in",
];
