//! A real HTTP file server on 127.0.0.1 for the model downloads: it serves one file, honours
//! `Range` with 206, and can be told to cut its first reply short, to ignore `Range`, or to
//! announce a SHA-256 the way Hugging Face does (`X-Linked-ETag`). With an ETag it honours
//! `If-Range` (a validator of another version gets the whole file, 200). It records what each
//! request asked for.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

#[derive(Clone, Default)]
pub struct Serve {
    /// The file's bytes.
    pub body: Vec<u8>,
    /// The first `GET` breaks off after this many bytes of its body.
    pub cut_first_after: Option<usize>,
    /// Replies 200 with the whole file even when asked for a range.
    pub ignore_range: bool,
    /// Sent as `X-Linked-ETag`.
    pub announce: Option<String>,
    /// Like Hugging Face: `/resolve/NAME` answers 302 to `/cdn/NAME`, announcing the SHA-256
    /// (`announce`) and size on the redirect only; `/cdn/NAME` serves the bytes.
    pub redirect: bool,
    /// Sends the body in pieces of this many bytes, pausing 50 ms after each (a slow link, so
    /// that progress has time to show).
    pub slow_pieces: Option<usize>,
    /// The file's ETag, sent with every reply and compared with `If-Range`.
    pub etag: Option<String>,
}

/// One request as the server saw it.
#[derive(Clone, Debug)]
pub struct Seen {
    pub method: String,
    pub path: String,
    /// The `Range` header's value, if any.
    pub range: Option<String>,
    /// The `If-Range` header's value, if any.
    pub if_range: Option<String>,
}

pub struct FileServer {
    pub addr: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl FileServer {
    pub fn start(serve: Serve) -> FileServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("addr").to_string();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        std::thread::spawn(move || {
            let mut gets = 0;
            for stream in listener.incoming().flatten() {
                let mut reader = BufReader::new(stream.try_clone().expect("clone"));
                let mut request = Seen {
                    method: String::new(),
                    path: String::new(),
                    range: None,
                    if_range: None,
                };
                let mut first = true;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                        break;
                    }
                    if first {
                        let mut words = line.split_whitespace();
                        request.method = words.next().unwrap_or("").to_string();
                        request.path = words.next().unwrap_or("").to_string();
                        first = false;
                    } else if let Some((name, value)) = line.split_once(':') {
                        let value = Some(value.trim().to_string());
                        match name.trim().to_ascii_lowercase().as_str() {
                            "range" => request.range = value,
                            "if-range" => request.if_range = value,
                            _ => {}
                        }
                    }
                }
                log.lock().expect("lock").push(request.clone());
                let first_get = request.method == "GET" && gets == 0;
                gets += usize::from(request.method == "GET");
                respond(stream, &serve, &request, first_get);
            }
        });
        FileServer { addr, seen }
    }

    /// The URL of a file on this server.
    pub fn url(&self, name: &str) -> String {
        format!("http://{}/{name}", self.addr)
    }

    /// Every request, `HEAD` included.
    pub fn requests(&self) -> Vec<Seen> {
        self.seen.lock().expect("lock").clone()
    }

    /// The `GET`s: the downloads.
    pub fn gets(&self) -> Vec<Seen> {
        let all = self.requests();
        all.into_iter().filter(|r| r.method == "GET").collect()
    }
}

fn respond(mut stream: std::net::TcpStream, serve: &Serve, request: &Seen, first: bool) {
    let len = serve.body.len();
    if serve.redirect && request.path.starts_with("/resolve/") {
        let to = request.path.replacen("/resolve/", "/cdn/", 1);
        let etag = serve
            .announce
            .as_ref()
            .map(|sha| format!("x-linked-etag: \"{sha}\"\r\nx-linked-size: {len}\r\n"))
            .unwrap_or_default();
        let head = format!(
            "HTTP/1.1 302 Found\r\nlocation: {to}\r\n{etag}content-length: 0\r\nconnection: close\r\n\r\n"
        );
        let _ = stream.write_all(head.as_bytes());
        return;
    }
    let serve = &Serve {
        announce: serve.announce.clone().filter(|_| !serve.redirect),
        ..serve.clone()
    };
    let start = request
        .range
        .as_deref()
        .filter(|_| !serve.ignore_range)
        // A validator of another version: the whole file, as RFC 9110 says.
        .filter(|_| request.if_range.is_none() || request.if_range == serve.etag)
        .and_then(|r| r.strip_prefix("bytes="))
        .and_then(|r| r.trim_end_matches('-').parse::<usize>().ok());
    let mut etag = serve
        .announce
        .as_ref()
        .map(|sha| format!("x-linked-etag: \"{sha}\"\r\n"))
        .unwrap_or_default();
    if let Some(tag) = &serve.etag {
        etag.push_str(&format!("etag: {tag}\r\n"));
    }
    let head = match start {
        Some(start) if start >= len => {
            format!(
                "HTTP/1.1 416 Range Not Satisfiable\r\ncontent-range: bytes */{len}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            )
        }
        Some(start) => format!(
            "HTTP/1.1 206 Partial Content\r\ncontent-length: {}\r\ncontent-range: bytes {start}-{}/{len}\r\n{etag}connection: close\r\n\r\n",
            len - start,
            len - 1
        ),
        None => {
            format!("HTTP/1.1 200 OK\r\ncontent-length: {len}\r\n{etag}connection: close\r\n\r\n")
        }
    };
    let _ = stream.write_all(head.as_bytes());
    if request.method == "HEAD" {
        return;
    }
    let body = match start {
        Some(start) if start >= len => &[][..],
        Some(start) => &serve.body[start..],
        None => &serve.body[..],
    };
    let end = match serve.cut_first_after {
        Some(cut) if first => cut.min(body.len()),
        _ => body.len(),
    };
    match serve.slow_pieces {
        Some(piece) => {
            for chunk in body[..end].chunks(piece.max(1)) {
                if stream
                    .write_all(chunk)
                    .and_then(|()| stream.flush())
                    .is_err()
                {
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
        }
        None => {
            let _ = stream.write_all(&body[..end]);
        }
    }
    let _ = stream.flush();
}

/// The SHA-256 of `bytes`, by `sha256sum` (not by the code under test).
pub fn sha256(bytes: &[u8]) -> String {
    let mut child = std::process::Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("sha256sum");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(bytes)
        .expect("write");
    let out = child.wait_with_output().expect("sha256sum output");
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string()
}

/// Bytes that look like nothing in particular, `len` of them.
pub fn made_up_file(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + i / 251) as u8).collect()
}
