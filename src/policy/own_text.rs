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
    if background {
        let why = "a background job (`&`) keeps running after the command returns";
        findings.push(Finding::new(Verdict::Ask, why));
    }
}
