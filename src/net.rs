//! Building HTTP clients, shared by the providers and the web search tool: rustls with ring, and
//! no root certificates for plain-http URLs (loading the system store costs ~150 file reads that
//! a run against a local server never needs).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

pub(crate) fn client(url: &str, connect_timeout: Duration) -> reqwest::Result<reqwest::Client> {
    builder(url, connect_timeout).build()
}

/// A client that does not follow redirects: what a host says before it sends the client on
/// (Hugging Face announces a file's SHA-256 and size on the redirect to its CDN).
pub(crate) fn client_without_redirects(
    url: &str,
    connect_timeout: Duration,
) -> reqwest::Result<reqwest::Client> {
    builder(url, connect_timeout)
        .redirect(reqwest::redirect::Policy::none())
        .build()
}

/// A client that counts the connections it opens (see `Connections`).
pub(crate) fn counted_client(
    url: &str,
    connect_timeout: Duration,
) -> reqwest::Result<(reqwest::Client, Connections)> {
    let connections = Connections::default();
    let client = builder(url, connect_timeout)
        .connector_layer(connections.clone())
        .build()?;
    Ok((client, connections))
}

fn builder(url: &str, connect_timeout: Duration) -> reqwest::ClientBuilder {
    // Installing twice is harmless; without a provider, rustls-no-provider panics on HTTPS.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut builder = reqwest::Client::builder()
        .connect_timeout(connect_timeout)
        .user_agent(concat!("swebash-ai/", env!("CARGO_PKG_VERSION")));
    if url.starts_with("http://") {
        builder = builder.tls_certs_only(std::iter::empty());
    }
    builder
}

/// How many connections a client has opened. The pool hands out an idle connection without
/// asking the connector, so a request that failed while this count stood still went out on a
/// pooled connection: one the server may have closed while `ai` was not looking (a REPL waiting
/// for the next question does not run the connection's task, so the close goes unnoticed).
#[derive(Debug, Clone, Default)]
pub(crate) struct Connections(Arc<AtomicUsize>);

impl Connections {
    pub(crate) fn opened(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }

    /// Whether `err`, from a request sent when `opened` connections had been opened, is a pooled
    /// connection found closed: no new connection was made, and it broke before any reply.
    pub(crate) fn stale(&self, opened: usize, err: &reqwest::Error) -> bool {
        self.opened() == opened
            && !err.is_connect()
            && !err.is_timeout()
            && !err.is_body()
            && !err.is_decode()
            && !err.is_status()
    }
}

impl<S> tower::Layer<S> for Connections {
    type Service = Counting<S>;

    fn layer(&self, inner: S) -> Counting<S> {
        Counting {
            inner,
            count: self.clone(),
        }
    }
}

/// The connector, counting each connection it is asked for.
#[derive(Debug, Clone)]
pub(crate) struct Counting<S> {
    inner: S,
    count: Connections,
}

impl<S: tower::Service<R>, R> tower::Service<R> for Counting<S> {
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: R) -> S::Future {
        self.count.0.fetch_add(1, Ordering::SeqCst);
        self.inner.call(request)
    }
}

/// Every byte but RFC 3986's unreserved ones (`A-Z a-z 0-9 - _ . ~`) is encoded.
const COMPONENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// `text` percent-encoded for a URL query or a form body.
pub(crate) fn encode_component(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, COMPONENT).to_string()
}

/// The inverse of `encode_component` (`+` is a space, as in forms; a stray `%` stays).
pub(crate) fn decode_component(text: &str) -> String {
    let spaced = text.replace('+', " ");
    percent_encoding::percent_decode_str(&spaced)
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_round_trip() {
        let text = "rust async/await é & more?";
        assert_eq!(decode_component(&encode_component(text)), text);
        assert_eq!(decode_component("a+b%2Fc%"), "a b/c%");
        assert_eq!(decode_component("%zz"), "%zz");
    }
}
