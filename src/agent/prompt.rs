//! The system prompt: short, because every token of it is paid on every request. The
//! instructions are fixed for a session; the part about tools is derived per request (`core`).

use std::path::Path;

/// Tells the model where it is and how to behave.
pub(crate) fn instructions(cwd: &Path) -> String {
    format!(
        "You are ai, an assistant in the user's terminal on {os}. The working directory is {cwd}. \
         Answer concisely; use Markdown only where it helps (code blocks for commands and code).",
        os = std::env::consts::OS,
        cwd = cwd.display(),
    )
}

/// Names the tools on offer and when to use them.
pub(crate) fn tools_sentence(tools: &[&str]) -> String {
    format!(
        "You can call these tools: {}. When the answer depends on facts you can look up with \
         them (files, command output), look them up instead of guessing; paths are relative to \
         the working directory.",
        tools.join(", ")
    )
}
