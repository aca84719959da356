//! HTTP plumbing shared by every provider: the client (rustls with ring, built only when a request
//! is about to be made), timeouts, classification of failures, and bounded retries with backoff.

use std::time::{Duration, Instant};

use reqwest::header::{HeaderMap, RETRY_AFTER};
use serde_json::Value;

use super::{ProviderError, ProviderEvent, Sink};
use crate::config::{HttpSettings, Secret};

/// The longest `Retry-After` we are willing to sit through; longer ones end the run instead.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);
const BACKOFF_BASE: Duration = Duration::from_millis(250);
const BACKOFF_CAP: Duration = Duration::from_secs(8);
/// How long, and how much, `finish_body` reads of what follows the end of a reply's content.
/// Servers send the last chunk right after `[DONE]`, so it is already on its way: a short wait
/// is plenty.
const DRAIN_WAIT: Duration = Duration::from_millis(250);
const DRAIN_MAX_BYTES: usize = 64 * 1024;
/// How many pooled connections in a row may turn out closed before a request counts as failed
/// (the pool seldom holds more than one).
const MAX_STALE_RESENDS: usize = 4;

/// The settings each time limit is changed by, named when it expires.
pub(crate) const FIRST_BYTE_VAR: &str = "SWEBASH_AI_HTTP_FIRST_BYTE_TIMEOUT";
pub(crate) const IDLE_VAR: &str = "SWEBASH_AI_HTTP_IDLE_TIMEOUT";
pub(crate) const BUDGET_VAR: &str = "SWEBASH_AI_HTTP_TIMEOUT";
pub(crate) const CONNECT_VAR: &str = "SWEBASH_AI_HTTP_CONNECT_TIMEOUT";

pub(crate) struct HttpClient {
    client: reqwest::Client,
    connections: crate::net::Connections,
    pub(crate) settings: HttpSettings,
}

/// When one model request must be over, its retries included (`SWEBASH_AI_HTTP_TIMEOUT`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Deadline {
    at: Instant,
    budget: Duration,
}

impl Deadline {
    pub(crate) fn new(budget: Duration) -> Self {
        Deadline {
            at: Instant::now() + budget,
            budget,
        }
    }

    fn left(&self) -> Duration {
        self.at.saturating_duration_since(Instant::now())
    }

    /// Whether waiting `delay` more would pass the deadline.
    fn passes(&self, delay: Duration) -> bool {
        Instant::now() + delay >= self.at
    }

    /// A wait bounded by the deadline and, if given, by a shorter limit of its own.
    fn wait(&self, limit: Option<(Duration, &'static str, &'static str)>) -> Wait {
        let left = self.left();
        match limit {
            Some((limit, what, setting)) if limit < left => Wait {
                length: limit,
                what: what.replace("{s}", &seconds(limit)),
                setting,
            },
            _ => Wait {
                length: left,
                what: format!(
                    "the request (with its retries) took its whole budget of {} s",
                    seconds(self.budget)
                ),
                setting: BUDGET_VAR,
            },
        }
    }
}

/// How long one wait may last and, when it expires, what to say and which setting to name.
struct Wait {
    length: Duration,
    what: String,
    setting: &'static str,
}

impl Wait {
    fn expired(self, url: &str) -> ProviderError {
        ProviderError::Timeout {
            url: url.to_string(),
            what: self.what,
            setting: Some(self.setting),
        }
    }
}

/// `1`, `0.5`: seconds as the settings take them.
fn seconds(duration: Duration) -> String {
    format!("{}", duration.as_secs_f64())
}

impl HttpClient {
    /// A client for `base_url` (see `net::client`).
    pub(crate) fn new(settings: HttpSettings, base_url: &str) -> Result<Self, ProviderError> {
        let (client, connections) = crate::net::counted_client(base_url, settings.connect_timeout)
            .map_err(|err| ProviderError::Connect {
                url: base_url.to_string(),
                message: format!("cannot set up the HTTP client: {err}"),
            })?;
        Ok(HttpClient {
            client,
            connections,
            settings,
        })
    }

    /// Sends a request and turns transport failures and non-2xx statuses into `ProviderError`s.
    /// With `first_byte`, the reply's head must come within the first-byte timeout (a streamed
    /// reply starts at once; a whole one only when the model is done, so it has the budget).
    /// A pooled connection the server closed meanwhile is detected and the request sent again
    /// on a fresh one, silently: nothing of the reply was received, so nothing is repeated.
    pub(crate) async fn send(
        &self,
        request: reqwest::RequestBuilder,
        url: &str,
        model: &str,
        deadline: Deadline,
        first_byte: bool,
    ) -> Result<reqwest::Response, ProviderError> {
        let wait = deadline.wait(first_byte.then_some((
            self.settings.first_byte_timeout,
            "no reply for {s} s after the request was sent",
            FIRST_BYTE_VAR,
        )));
        let response = within(wait, url, async {
            let mut request = request;
            for _ in 0..MAX_STALE_RESENDS {
                let copy = request.try_clone();
                let opened = self.connections.opened();
                match (request.send().await, copy) {
                    (Err(err), Some(copy)) if self.connections.stale(opened, &err) => {
                        request = copy;
                    }
                    (sent, _) => return sent.map_err(|err| self.transport_error(url, &err)),
                }
            }
            Err(ProviderError::Interrupted {
                url: url.to_string(),
                message: "every pooled connection was closed by the server".into(),
            })
        })
        .await?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let retry_after = parse_retry_after(response.headers());
        let body = within(deadline.wait(None), url, async {
            Ok(response.text().await.unwrap_or_default())
        })
        .await?;
        Err(classify_status(
            url,
            model,
            status.as_u16(),
            retry_after,
            &body,
        ))
    }

    /// Sends a request and reads its whole body as JSON.
    pub(crate) async fn json(
        &self,
        request: reqwest::RequestBuilder,
        url: &str,
    ) -> Result<Value, ProviderError> {
        let deadline = self.deadline();
        let response = self.send(request, url, "", deadline, true).await?;
        let text = read_body(response, url, deadline).await?;
        serde_json::from_str(&text).map_err(|_| {
            ProviderError::bad_response(
                url,
                format!("the body is not JSON: {}", shorten(text.trim(), 200)),
            )
        })
    }

    pub(crate) fn post(
        &self,
        url: &str,
        key: Option<&Secret>,
        body: &Value,
    ) -> reqwest::RequestBuilder {
        let request = self
            .client
            .post(url)
            .header("content-type", "application/json")
            .body(body.to_string());
        authorize(request, key)
    }

    pub(crate) fn get(&self, url: &str, key: Option<&Secret>) -> reqwest::RequestBuilder {
        authorize(self.client.get(url), key)
    }

    /// The deadline of a request started now: it and its retries share the budget.
    pub(crate) fn deadline(&self) -> Deadline {
        Deadline::new(self.settings.request_timeout)
    }

    /// A failure to get a reply's head, classified; a connect timeout names its setting.
    fn transport_error(&self, url: &str, err: &reqwest::Error) -> ProviderError {
        let message = error_chain(err);
        if err.is_timeout() {
            ProviderError::Timeout {
                url: url.to_string(),
                what: format!(
                    "no connection for {} s",
                    seconds(self.settings.connect_timeout)
                ),
                setting: Some(CONNECT_VAR),
            }
        } else if err.is_connect() {
            ProviderError::Connect {
                url: url.to_string(),
                message,
            }
        } else {
            ProviderError::Interrupted {
                url: url.to_string(),
                message,
            }
        }
    }
}

fn authorize(request: reqwest::RequestBuilder, key: Option<&Secret>) -> reqwest::RequestBuilder {
    match key {
        Some(key) => request.bearer_auth(key.expose()),
        None => request,
    }
}

/// Reads the next piece of a streamed body, allowing at most the idle timeout of silence.
pub(crate) async fn next_chunk(
    response: &mut reqwest::Response,
    url: &str,
    idle: Duration,
    deadline: Deadline,
) -> Result<Option<Vec<u8>>, ProviderError> {
    let wait = deadline.wait(Some((
        idle,
        "no data for {s} s in the middle of a reply",
        IDLE_VAR,
    )));
    within(wait, url, async {
        match response.chunk().await {
            Ok(chunk) => Ok(chunk.map(|bytes| bytes.to_vec())),
            Err(err) => Err(ProviderError::Interrupted {
                url: url.to_string(),
                message: error_chain(&err),
            }),
        }
    })
    .await
}

/// Reads what is left of a body whose content already ended (`[DONE]`, `message_stop`): hyper
/// gives a connection back to the pool only once its body was read to its real end (the last
/// chunk of a chunked reply), so a body dropped early costs the next request a fresh TCP and TLS
/// handshake. Bounded in time and bytes, since the reply itself is complete: a server that keeps
/// talking after it only loses its connection.
pub(crate) async fn finish_body(mut response: reqwest::Response) {
    let drain = async {
        let mut left = DRAIN_MAX_BYTES;
        while let Ok(Some(chunk)) = response.chunk().await {
            left = left.saturating_sub(chunk.len());
            if left == 0 {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(DRAIN_WAIT, drain).await;
}

/// Reads a whole body before the deadline.
pub(crate) async fn read_body(
    response: reqwest::Response,
    url: &str,
    deadline: Deadline,
) -> Result<String, ProviderError> {
    within(deadline.wait(None), url, async {
        response
            .text()
            .await
            .map_err(|err| ProviderError::Interrupted {
                url: url.to_string(),
                message: error_chain(&err),
            })
    })
    .await
}

async fn within<T>(
    wait: Wait,
    url: &str,
    work: impl Future<Output = Result<T, ProviderError>>,
) -> Result<T, ProviderError> {
    match tokio::time::timeout(wait.length, work).await {
        Ok(result) => result,
        Err(_) => Err(wait.expired(url)),
    }
}

/// Runs an attempt until it succeeds or fails for good (see `RetryBudget`): `$attempt` is an
/// expression (a future) that may use `$sink`, `$started`, a `&mut bool` it sets once text
/// reached the user, and `$deadline`, the `Deadline` all attempts share. A macro, because the
/// attempt borrows the sink anew each time.
macro_rules! with_retries {
    ($http:expr, $sink:ident, |$started:ident, $deadline:ident| $attempt:expr) => {{
        let $deadline = $http.deadline();
        let mut retries = $crate::provider::http::RetryBudget::new(&$http.settings);
        loop {
            let mut output_started = false;
            let result = {
                let $started = &mut output_started;
                $attempt.await
            };
            match result {
                Ok(value) => break Ok(value),
                Err(err) => match retries.next_delay(&err, output_started, $deadline, $sink) {
                    Some(delay) => tokio::time::sleep(delay).await,
                    None => break Err(err),
                },
            }
        }
    }};
}
pub(crate) use with_retries;

/// The first of the models an endpoint lists, for endpoints with no default.
pub(crate) fn first_model(models: Vec<String>, url: &str) -> Result<String, ProviderError> {
    models
        .into_iter()
        .next()
        .ok_or_else(|| ProviderError::bad_response(url, "it lists no model; pass -m MODEL"))
}

/// Decides whether a failed attempt is tried again, and after how long. Nothing is retried once
/// text reached the user: repeating the request would show it twice.
pub(crate) struct RetryBudget {
    left: u32,
    tries: u32,
}

impl RetryBudget {
    pub(crate) fn new(settings: &HttpSettings) -> Self {
        RetryBudget {
            left: settings.retries,
            tries: 0,
        }
    }

    /// The wait before the next attempt, or `None` when `err` is final or the next attempt
    /// would start past `deadline`. Reports the retry to `sink`.
    pub(crate) fn next_delay(
        &mut self,
        err: &ProviderError,
        output_started: bool,
        deadline: Deadline,
        sink: &mut Sink<'_>,
    ) -> Option<Duration> {
        if !err.is_retryable() || output_started || self.left == 0 {
            return None;
        }
        let delay = match err.retry_after() {
            Some(wait) if wait > MAX_RETRY_AFTER => return None,
            Some(wait) => wait,
            None => backoff(self.tries),
        };
        if deadline.passes(delay) {
            return None;
        }
        self.left -= 1;
        self.tries += 1;
        sink(ProviderEvent::Retrying {
            attempt: self.tries,
            delay,
            reason: err.to_string(),
        });
        Some(delay)
    }
}

/// Exponential backoff with jitter: between half and all of base * 2^n, capped.
fn backoff(tries: u32) -> Duration {
    let full = BACKOFF_BASE
        .saturating_mul(1u32 << tries.min(10))
        .min(BACKOFF_CAP);
    // A cheap jitter source: the sub-second clock is random enough to spread clients apart.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let fraction = 0.5 + f64::from(nanos % 1000) / 2000.0;
    full.mul_f64(fraction)
}

fn parse_retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = headers.get(RETRY_AFTER)?.to_str().ok()?;
    let secs: f64 = text.trim().parse().ok()?;
    // `from_secs_f64` panics past u64::MAX seconds (`Retry-After: 1e30`); a wait that long is
    // simply longer than we sit through, so it saturates and ends the run.
    (secs >= 0.0 && !secs.is_nan())
        .then(|| Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX))
}

/// The innermost useful description of an error ("connection refused", not "error sending
/// request").
fn error_chain(err: &dyn std::error::Error) -> String {
    let mut parts = vec![err.to_string()];
    let mut source = err.source();
    while let Some(inner) = source {
        let text = inner.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = inner.source();
    }
    parts.last().cloned().unwrap_or_default()
}

/// The server's own error message from a JSON or plain body, shortened.
pub(crate) fn server_message(body: &str) -> String {
    let from_json = serde_json::from_str::<Value>(body).ok().and_then(|v| {
        let error = v.get("error").unwrap_or(&v);
        error
            .get("message")
            .or_else(|| error.get("detail"))
            .and_then(Value::as_str)
            .map(String::from)
            .or_else(|| error.as_str().map(String::from))
    });
    let text = from_json.unwrap_or_else(|| body.trim().to_string());
    if text.is_empty() {
        return "(no message)".into();
    }
    shorten(&text, 300)
}

pub(crate) fn shorten(text: &str, max_chars: usize) -> String {
    let mut out: String = text.chars().take(max_chars).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

fn classify_status(
    url: &str,
    model: &str,
    status: u16,
    retry_after: Option<Duration>,
    body: &str,
) -> ProviderError {
    let message = server_message(body);
    let url = url.to_string();
    let mentions_model = {
        let lower = body.to_ascii_lowercase();
        lower.contains("model_not_found") || (lower.contains("model") && lower.contains("not"))
    };
    match status {
        401 | 403 => ProviderError::Auth {
            url,
            status,
            message,
        },
        404 if mentions_model => ProviderError::UnknownModel {
            url,
            model: model.to_string(),
            message,
        },
        404 => ProviderError::BadRequest {
            url,
            status,
            message: format!("{message} (is the base URL right? it usually ends in /v1)"),
        },
        400 if mentions_model && body.contains("model_not_found") => ProviderError::UnknownModel {
            url,
            model: model.to_string(),
            message,
        },
        408 => ProviderError::Timeout {
            url,
            what: "the server timed the request out".into(),
            setting: None,
        },
        429 | 529 => ProviderError::RateLimited {
            url,
            status,
            retry_after,
            message,
        },
        500..=599 => ProviderError::Server {
            url,
            status,
            message,
        },
        _ => ProviderError::BadRequest {
            url,
            status,
            message,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_distinct_errors() {
        let c = |status, body| classify_status("u", "m", status, None, body);
        assert!(matches!(c(401, "{}"), ProviderError::Auth { .. }));
        assert!(matches!(
            c(
                404,
                r#"{"error":{"message":"The model `x` does not exist","code":"model_not_found"}}"#
            ),
            ProviderError::UnknownModel { .. }
        ));
        assert!(matches!(c(429, ""), ProviderError::RateLimited { .. }));
        assert!(matches!(c(503, ""), ProviderError::Server { .. }));
        let bad = c(400, r#"{"error":{"message":"messages: field required"}}"#);
        assert!(
            matches!(bad, ProviderError::BadRequest { ref message, .. } if message == "messages: field required")
        );
    }

    #[test]
    fn server_message_reads_the_common_shapes() {
        assert_eq!(server_message(r#"{"error":"boom"}"#), "boom");
        assert_eq!(server_message(r#"{"detail":"nope"}"#), "nope");
        assert_eq!(server_message("<html>502</html>"), "<html>502</html>");
        assert_eq!(server_message(""), "(no message)");
    }

    #[test]
    fn backoff_grows_and_stays_within_bounds() {
        for tries in 0..12 {
            let full = BACKOFF_BASE
                .saturating_mul(1 << tries.min(10))
                .min(BACKOFF_CAP);
            let d = backoff(tries);
            assert!(d >= full / 2 && d <= full, "{tries}: {d:?}");
        }
    }

    #[test]
    fn retry_after_of_1e30_seconds_does_not_panic_and_ends_the_run() {
        let wait = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(RETRY_AFTER, value.parse().unwrap());
            parse_retry_after(&headers)
        };
        assert_eq!(wait("1e30"), Some(Duration::MAX));
        assert_eq!(wait("inf"), Some(Duration::MAX));
        assert_eq!(wait("NaN"), None);
        assert_eq!(wait("-1"), None);
        assert_eq!(wait(" 2.5 "), Some(Duration::from_millis(2500)));
        assert!(wait("1e30").is_some_and(|d| d > MAX_RETRY_AFTER));
    }
}
