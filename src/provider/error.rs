//! What can go wrong talking to a provider, classified so the retry loop and the error report can
//! branch on it, and turned into a report with a hint the user can act on.

use std::time::Duration;

use crate::error::{ExitCode, Report};

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub(crate) enum ProviderError {
    #[error("the server at {url} refused the credentials (HTTP {status}): {message}")]
    Auth {
        url: String,
        status: u16,
        message: String,
    },
    #[error("the server at {url} does not know the model {model:?}: {message}")]
    UnknownModel {
        url: String,
        model: String,
        message: String,
    },
    #[error("the server at {url} rejected the request (HTTP {status}): {message}")]
    BadRequest {
        url: String,
        status: u16,
        message: String,
    },
    #[error("rate limited by {url} (HTTP {status}): {message}")]
    RateLimited {
        url: String,
        status: u16,
        retry_after: Option<Duration>,
        message: String,
    },
    #[error("the server at {url} failed (HTTP {status}): {message}")]
    Server {
        url: String,
        status: u16,
        message: String,
    },
    #[error("cannot connect to {url}: {message}")]
    Connect { url: String, message: String },
    /// `setting`: the variable that changes the limit that expired (none when the server timed
    /// the request out itself).
    #[error("{url} timed out: {what}")]
    Timeout {
        url: String,
        what: String,
        setting: Option<&'static str>,
    },
    #[error("the connection to {url} broke mid-reply: {message}")]
    Interrupted { url: String, message: String },
    #[error("the server at {url} sent a malformed reply: {message}")]
    BadResponse { url: String, message: String },
    #[error("the server at {url} answered a streamed request with an empty body")]
    EmptyStream { url: String },
    /// The in-process engine (`--provider local`): no server is involved, so no URL to blame.
    #[error("the local engine failed: {message}")]
    #[cfg_attr(not(feature = "local"), allow(dead_code))] // only the engine makes it
    Local { message: String },
}

impl ProviderError {
    /// A reply that is not what the protocol says.
    pub(crate) fn bad_response(url: &str, message: impl Into<String>) -> Self {
        ProviderError::BadResponse {
            url: url.to_string(),
            message: message.into(),
        }
    }

    /// Whether trying again could help (before any output reached the user).
    pub(crate) fn is_retryable(&self) -> bool {
        // 501 and 505 say the server does not do this at all: asking again only repeats the page.
        if let ProviderError::Server {
            status: 501 | 505, ..
        } = self
        {
            return false;
        }
        matches!(
            self,
            ProviderError::RateLimited { .. }
                | ProviderError::Server { .. }
                | ProviderError::Connect { .. }
                | ProviderError::Timeout { .. }
                | ProviderError::Interrupted { .. }
        )
    }

    /// How long the server asked us to wait, if it said.
    pub(crate) fn retry_after(&self) -> Option<Duration> {
        match self {
            ProviderError::RateLimited { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// Network failures versus the provider's own answers (the `--json` error kind).
    pub(crate) fn is_network(&self) -> bool {
        matches!(
            self,
            ProviderError::Connect { .. }
                | ProviderError::Timeout { .. }
                | ProviderError::Interrupted { .. }
        )
    }

    /// The `--json` error kind: the network, or the provider's own answer.
    pub(crate) fn kind(&self) -> crate::protocol::ErrorKind {
        if self.is_network() {
            crate::protocol::ErrorKind::Network
        } else {
            crate::protocol::ErrorKind::Provider
        }
    }

    pub(crate) fn hint(&self) -> Option<String> {
        if let ProviderError::Timeout {
            setting: Some(setting),
            ..
        } = self
        {
            return Some(format!(
                "raise {setting} (seconds) for slow servers, or check that the server at the URL is the right one"
            ));
        }
        Some(match self {
            ProviderError::Auth { .. } => {
                "check the API key: SWEBASH_AI_API_KEY, or the provider's own variable (e.g. OPENAI_API_KEY)"
            }
            ProviderError::UnknownModel { .. } => {
                "pick a model the endpoint serves with -m or SWEBASH_AI_MODEL"
            }
            ProviderError::Connect { .. } => {
                "is the server running? check SWEBASH_AI_BASE_URL or --base-url"
            }
            ProviderError::Timeout { .. } => "the server gave up on the request; try again",
            ProviderError::RateLimited { .. } => "wait a moment and try again",
            ProviderError::BadResponse { .. } => {
                "is the base URL an OpenAI-compatible endpoint? it usually ends in /v1"
            }
            ProviderError::Local { .. } => {
                "check that SWEBASH_AI_MODEL_PATH is a GGUF model file and that it fits in memory \
                 (a smaller SWEBASH_AI_LOCAL_CTX helps)"
            }
            _ => return None,
        }
        .to_string())
    }

    /// The lower-level failure inside the error, shown as its `caused by:` line. (A server's own
    /// message stays on the first line: it is the answer, not a cause.)
    fn detail(&self) -> Option<&str> {
        match self {
            ProviderError::Connect { message, .. }
            | ProviderError::Interrupted { message, .. }
            | ProviderError::BadResponse { message, .. }
            | ProviderError::Local { message } => Some(message),
            ProviderError::Timeout { what, .. } => Some(what),
            _ => None,
        }
    }

    /// What went wrong in one line: a web server's HTML error page reduced to its words.
    pub(crate) fn summary(&self) -> String {
        plain(&self.to_string())
    }

    /// `ai: error: <what failed>`, `caused by: <why>` and a hint.
    pub(crate) fn to_report(&self) -> Report {
        let full = self.summary();
        let detail = self.detail().map(plain);
        let split = detail.filter(|d| !d.is_empty()).and_then(|detail| {
            let head = full
                .strip_suffix(detail.as_str())?
                .trim_end()
                .trim_end_matches(':');
            Some((head.to_string(), detail.to_string()))
        });
        let report = match split {
            Some((head, detail)) => Report::new(ExitCode::Runtime, head).with_cause(detail),
            None => Report::new(ExitCode::Runtime, full),
        };
        match self.hint() {
            Some(hint) => report.with_hint(hint),
            None => report,
        }
    }
}

/// `text` on one line; markup (an HTML error page where JSON was expected) dropped, so
/// `<title>Error response</title>...<p>Error code: 501</p>` reads `Error response Error code: 501`.
fn plain(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let markup = lower.contains("<html") || lower.contains("<!doctype") || lower.contains("<body");
    let mut out = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' if markup => in_tag = true,
            '>' if markup && in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if in_tag => {}
            _ => out.push(c),
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_puts_the_inner_message_on_a_caused_by_line() {
        let err = ProviderError::Connect {
            url: "http://127.0.0.1:9/v1".into(),
            message: "Connection refused (os error 111)".into(),
        };
        assert_eq!(
            err.to_report().to_string(),
            "ai: error: cannot connect to http://127.0.0.1:9/v1\n  caused by: Connection refused \
             (os error 111)\n  hint: is the server running? check SWEBASH_AI_BASE_URL or --base-url"
        );
    }

    #[test]
    fn an_html_error_page_is_one_line_of_its_words() {
        let page = "<!DOCTYPE HTML>\n<html lang=\"en\">\n<head><title>Error response</title></head>\n\
                    <body>\n<h1>Error response</h1>\n<p>Error code: 501</p>\n\
                    <p>Message: Unsupported method ('POST').</p>\n</body>\n</html>\n";
        let err = ProviderError::Server {
            url: "http://127.0.0.1:8000/v1".into(),
            status: 501,
            message: page.into(),
        };
        let report = err.to_report().to_string();
        assert_eq!(report.lines().count(), 1, "{report}");
        assert!(
            report.contains("Error code: 501 Message: Unsupported method"),
            "{report}"
        );
        assert!(!report.contains('<'), "{report}");
        // Plain text keeps its angle brackets.
        assert_eq!(plain("expected <model>, got x"), "expected <model>, got x");
    }

    #[test]
    fn not_implemented_is_final_but_other_server_failures_are_retried() {
        let server = |status| ProviderError::Server {
            url: "http://127.0.0.1:9".into(),
            status,
            message: "Unsupported method ('POST')".into(),
        };
        assert!(!server(501).is_retryable());
        assert!(server(502).is_retryable());
        assert!(server(503).is_retryable());
    }

    #[test]
    fn the_local_engine_has_its_own_kind_and_hint_not_a_malformed_reply() {
        let report = ProviderError::Local {
            message: "cannot load the model /m.gguf".into(),
        }
        .to_report();
        assert_eq!(report.message, "the local engine failed");
        assert_eq!(report.causes, ["cannot load the model /m.gguf"]);
        assert!(!report.to_string().contains("malformed"));
        assert!(
            report
                .hint
                .is_some_and(|h| h.contains("SWEBASH_AI_MODEL_PATH"))
        );
    }
}
