//! The system prompt: short, because every token of it is paid on every request.

use std::path::Path;

/// Tells the model where it is and how to behave; `tools` are the names it may call.
pub fn system_prompt(cwd: &Path, tools: &[&str]) -> String {
    let mut prompt = format!(
        "You are ai, an assistant in the user's terminal on {os}. The working directory is {cwd}. \
         Answer concisely; use Markdown only where it helps (code blocks for commands and code).",
        os = std::env::consts::OS,
        cwd = cwd.display(),
    );
    if !tools.is_empty() {
        prompt.push_str(&format!(
            " You can call these tools: {}. When the answer depends on facts you can look up \
             with them (files, command output), look them up instead of guessing; paths are \
             relative to the working directory.",
            tools.join(", ")
        ));
    }
    prompt
}
