//! Exit codes (DESIGN §2), configuration errors, and the one renderer every failure goes through:
//! `ai: error: <message>`, then `  caused by: ...` lines, then `  hint: ...`.

use std::fmt;

/// The process exit codes of DESIGN §2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExitCode {
    Ok = 0,
    Runtime = 1,
    Usage = 2,
    Denied = 3,
    Limit = 4,
    Interrupted = 130,
}

impl ExitCode {
    pub(crate) fn code(self) -> i32 {
        self as i32
    }
}

/// A bad setting, a bad config file, or a missing provider: always exit 2.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum ConfigError {
    #[error("invalid value {value:?} for {name}: expected {expected}")]
    Invalid {
        name: String,
        value: String,
        expected: String,
    },
    #[error("cannot read config file {path}: {message}")]
    File { path: String, message: String },
    #[error("no LLM provider is configured")]
    NoProvider,
    #[error("the {provider} provider needs an API key: {var} is not set")]
    NoKey { provider: String, var: String },
    #[error("{0}")]
    Usage(String),
}

impl ConfigError {
    pub(crate) fn hint(&self) -> Option<String> {
        match self {
            ConfigError::NoProvider => Some(
                "set SWEBASH_AI_BASE_URL to any OpenAI-compatible server (e.g. http://127.0.0.1:8080/v1 \
                 for llama.cpp, http://127.0.0.1:11434/v1 for Ollama), or set OPENAI_API_KEY, or pass \
                 --provider NAME (see `ai --show-config`)"
                    .into(),
            ),
            ConfigError::NoKey { var, .. } => Some(format!(
                "export {var}=... (or set SWEBASH_AI_API_KEY, or SWEBASH_AI_API_KEY_CMD to a command that prints it)"
            )),
            _ => None,
        }
    }
}

/// A failure ready to be shown to the user, with the exit code it ends the process with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Report {
    pub(crate) message: String,
    pub(crate) causes: Vec<String>,
    pub(crate) hint: Option<String>,
    pub(crate) exit: ExitCode,
}

impl Report {
    pub(crate) fn new(exit: ExitCode, message: impl Into<String>) -> Self {
        Report {
            message: message.into(),
            causes: Vec::new(),
            hint: None,
            exit,
        }
    }

    pub(crate) fn with_cause(mut self, cause: impl Into<String>) -> Self {
        self.causes.push(cause.into());
        self
    }

    /// `context` as the message and `err` with its whole `source()` chain as `caused by:` lines
    /// (a cause already spelled out by the one above it is not repeated).
    pub(crate) fn from_error(
        exit: ExitCode,
        context: impl Into<String>,
        err: &(dyn std::error::Error + 'static),
    ) -> Self {
        let mut report = Report::new(exit, context);
        let mut next = Some(err);
        while let Some(cause) = next {
            let text = cause.to_string();
            if !report
                .causes
                .last()
                .is_some_and(|last| last.contains(&text))
            {
                report.causes.push(text);
            }
            next = cause.source();
        }
        report
    }

    pub(crate) fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl From<ConfigError> for Report {
    fn from(err: ConfigError) -> Self {
        let hint = err.hint();
        Report {
            message: err.to_string(),
            causes: Vec::new(),
            hint,
            exit: ExitCode::Usage,
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ai: error: {}", self.message)?;
        for cause in &self.causes {
            write!(f, "\n  caused by: {cause}")?;
        }
        if let Some(hint) = &self.hint {
            write!(f, "\n  hint: {hint}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_renders_message_causes_and_hint_in_order() {
        let report = Report::new(ExitCode::Runtime, "request failed")
            .with_cause("connection refused")
            .with_hint("is the server running?");
        assert_eq!(
            report.to_string(),
            "ai: error: request failed\n  caused by: connection refused\n  hint: is the server running?"
        );
    }

    #[test]
    fn config_errors_exit_2_and_name_the_variable() {
        let report = Report::from(ConfigError::Invalid {
            name: "SWEBASH_AI_TOOLS_MAX_ITER".into(),
            value: "abc".into(),
            expected: "a whole number from 1 to 100".into(),
        });
        assert_eq!(report.exit, ExitCode::Usage);
        assert!(report.message.contains("SWEBASH_AI_TOOLS_MAX_ITER"));
    }

    #[test]
    fn from_error_lists_the_source_chain_as_causes() {
        #[derive(Debug, thiserror::Error)]
        #[error("reading the body")]
        struct Outer(#[source] std::io::Error);
        let err = Outer(std::io::Error::other("connection reset"));
        let report = Report::from_error(ExitCode::Runtime, "the request failed", &err);
        assert_eq!(
            report.to_string(),
            "ai: error: the request failed\n  caused by: reading the body\n  caused by: connection reset"
        );
    }
}
