//! Shell integration: the widget scripts (real files in `shell/`, embedded here) printed by
//! `ai --init`, the instructions and answer clean-up of `ai --command`, and the optional record
//! of the last command that `--context` hooks keep.

mod command;

use std::path::{Path, PathBuf};

pub(crate) use command::extract_command;

/// The shells with a widget script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shell {
    Bash,
    Zsh,
    Fish,
}

impl Shell {
    pub(crate) fn parse(name: &str) -> Option<Self> {
        match name {
            "bash" => Some(Shell::Bash),
            "zsh" => Some(Shell::Zsh),
            "fish" => Some(Shell::Fish),
            _ => None,
        }
    }

    /// Alt-E in the shell's own key notation.
    fn default_key(self) -> &'static str {
        match self {
            Shell::Bash | Shell::Fish => "\\ee",
            Shell::Zsh => "^[e",
        }
    }

    fn script(self) -> (&'static str, &'static str) {
        match self {
            Shell::Bash => (
                include_str!("../../shell/ai.bash"),
                include_str!("../../shell/ai.bash.context"),
            ),
            Shell::Zsh => (
                include_str!("../../shell/ai.zsh"),
                include_str!("../../shell/ai.zsh.context"),
            ),
            Shell::Fish => (
                include_str!("../../shell/ai.fish"),
                include_str!("../../shell/ai.fish.context"),
            ),
        }
    }
}

/// The script `ai --init SHELL [--key KEY] [--context]` prints. `context` is the file the hooks
/// write the last command to.
pub(crate) fn init_script(
    shell: Shell,
    key: Option<&str>,
    context: Option<&Path>,
) -> Result<String, String> {
    let key = key.unwrap_or(shell.default_key());
    if key.is_empty() || key.contains(['\'', '"', '\n', '\r', ' ']) {
        return Err(format!(
            "--key {key:?}: give the key in the shell's own notation, e.g. '\\ee' or '^G'"
        ));
    }
    let (widget, hooks) = shell.script();
    let mut script = widget.replace("__AI_KEY__", key);
    if let Some(file) = context {
        let file = file.display().to_string();
        if file.contains(['\'', '"', '\n', '$', '`']) {
            return Err(format!(
                "the context file path {file:?} has characters a shell would expand"
            ));
        }
        script.push_str(&hooks.replace("__AI_CONTEXT_FILE__", &file));
    }
    Ok(script)
}

/// Where `--context` hooks keep the last command: `$XDG_STATE_HOME/swebash-ai/shell-context`.
pub(crate) fn context_file(state_dir: &Path) -> PathBuf {
    state_dir.join("shell-context")
}

/// The last command and its exit status, when the hooks recorded one.
pub(crate) fn last_command(file: &Path) -> Option<(String, String)> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().next()?;
    let (status, command) = line.split_once('\t')?;
    let command = command.trim();
    (!command.is_empty()).then(|| (status.trim().to_string(), command.to_string()))
}

/// The system prompt of `ai --command`.
pub(crate) fn command_instructions(shell: &str, os: &str) -> String {
    format!(
        "Turn the user's request into exactly one command line for {shell} on {os}. Reply with the \
         command only: no explanation, no code fences, no prompt sign, no placeholder the user must \
         fill in if you can find the value. If the request already is a command, fix or complete it. \
         Use the tools to look up facts you need (file names, what a directory holds)."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_scripts_bind_the_key_and_refuse_quotes() {
        let script = init_script(Shell::Zsh, Some("^G"), None).unwrap_or_default();
        assert!(script.contains("bindkey '^G' __ai_widget"));
        assert!(!script.contains("__AI_"));
        assert!(init_script(Shell::Bash, Some("x'; rm -rf ~; '"), None).is_err());
        let with_context =
            init_script(Shell::Fish, None, Some(Path::new("/s/shell-context"))).unwrap_or_default();
        assert!(
            with_context.contains("/s/shell-context") && with_context.contains("fish_postexec")
        );
    }
}
