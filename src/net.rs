//! Building HTTP clients, shared by the providers and the web search tool: rustls with ring, and
//! no root certificates for plain-http URLs (loading the system store costs ~150 file reads that
//! a run against a local server never needs).

use std::time::Duration;

pub fn client(url: &str, connect_timeout: Duration) -> reqwest::Result<reqwest::Client> {
    // Installing twice is harmless; without a provider, rustls-no-provider panics on HTTPS.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut builder = reqwest::Client::builder()
        .connect_timeout(connect_timeout)
        .user_agent(concat!("swebash-ai/", env!("CARGO_PKG_VERSION")));
    if url.starts_with("http://") {
        builder = builder.tls_certs_only(std::iter::empty());
    }
    builder.build()
}

/// `text` percent-encoded for a URL query or a form body.
pub fn encode_component(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// The inverse of `encode_component` (`+` is a space, as in forms).
pub fn decode_component(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(value) => {
                        out.push(value);
                        i += 3;
                        continue;
                    }
                    None => out.push(b'%'),
                }
            }
            b'+' => out.push(b' '),
            other => out.push(other),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
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
