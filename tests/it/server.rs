//! A scripted fake OpenAI-compatible server on 127.0.0.1:0: it answers `/chat/completions` with the
//! replies a test scripts (streamed or whole, tool calls, faults) and records every request.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};

/// One scripted answer to a chat request.
pub enum Reply {
    /// A streamed reply: each string is one `data:` payload; `[DONE]` is added.
    Stream(Vec<Value>),
    /// A whole JSON reply with status 200.
    Whole(Value),
    /// Any status, headers and body.
    Status {
        status: u16,
        headers: Vec<(&'static str, String)>,
        body: String,
    },
    /// Streams these chunks, then drops the connection without ending the body.
    CutAfter(Vec<Value>),
    /// Streams these chunks, then goes silent for `Duration` before closing.
    StallAfter(Vec<Value>, Duration),
    /// Streams these chunks, then waits for the test's go-ahead before streaming the rest.
    Gated(Vec<Value>, Vec<Value>),
    /// Streams these chunks and `[DONE]` chunked, then holds the body open (no last chunk) until
    /// the test's go-ahead.
    DoneThenHold(Vec<Value>),
    /// Sends raw SSE text as it is.
    RawSse(String),
    /// Sends a body with this content type (e.g. NDJSON), then closes.
    Raw(&'static str, String),
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
    /// The body as text (for form posts).
    pub raw: String,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

pub struct FakeServer {
    pub url: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
    gate: Mutex<Option<Sender<()>>>,
    shared: Arc<Shared>,
}

struct Shared {
    script: Mutex<VecDeque<Reply>>,
    requests: Arc<Mutex<Vec<Recorded>>>,
    models: Vec<String>,
    gate: Mutex<Option<Receiver<()>>>,
    /// Pages served to web searches (any path that is not under /v1), in order.
    web: Mutex<VecDeque<(u16, String)>>,
    /// TCP connections accepted so far (keep-alive means one per run).
    connections: AtomicUsize,
    /// Close a kept-alive connection that stays idle this long, as real servers do.
    idle_close: Option<Duration>,
    /// Connections closed for being idle.
    idle_closed: AtomicUsize,
}

impl FakeServer {
    pub fn start(script: Vec<Reply>) -> FakeServer {
        Self::start_with_models(script, vec!["fake-model".into()])
    }

    pub fn start_with_models(script: Vec<Reply>, models: Vec<String>) -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        Self::serve_on(listener, script, models, None)
    }

    /// A server that closes a kept-alive connection once it has been idle for `idle` (uvicorn's
    /// keep-alive is 5 s, llama.cpp's 5 s, nginx's 75 s).
    pub fn start_closing_idle(script: Vec<Reply>, idle: Duration) -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        Self::serve_on(listener, script, vec!["fake-model".into()], Some(idle))
    }

    fn serve_on(
        listener: TcpListener,
        script: Vec<Reply>,
        models: Vec<String>,
        idle_close: Option<Duration>,
    ) -> FakeServer {
        let url = format!("http://{}/v1", listener.local_addr().expect("local addr"));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let (go, wait) = channel();
        let shared = Arc::new(Shared {
            script: Mutex::new(script.into()),
            requests: Arc::clone(&requests),
            models,
            gate: Mutex::new(Some(wait)),
            web: Mutex::new(VecDeque::new()),
            connections: AtomicUsize::new(0),
            idle_close,
            idle_closed: AtomicUsize::new(0),
        });
        let serving = Arc::clone(&shared);
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                serving.connections.fetch_add(1, Ordering::SeqCst);
                let shared = Arc::clone(&serving);
                thread::spawn(move || serve(stream, &shared));
            }
        });
        FakeServer {
            url,
            requests,
            gate: Mutex::new(Some(go)),
            shared,
        }
    }

    /// The server's root, for a web search backend (`SWEBASH_AI_WEB_URL`).
    pub fn root(&self) -> String {
        self.url.trim_end_matches("/v1").to_string()
    }

    /// Queues a page for the next web search.
    pub fn web_page(&self, status: u16, body: &str) {
        self.shared
            .web
            .lock()
            .expect("web lock")
            .push_back((status, body.to_string()));
    }

    /// How many kept-alive connections the server has closed for being idle.
    pub fn idle_closed(&self) -> usize {
        self.shared.idle_closed.load(Ordering::SeqCst)
    }

    /// How many TCP connections the server has accepted.
    pub fn connections(&self) -> usize {
        self.shared.connections.load(Ordering::SeqCst)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().expect("requests lock").clone()
    }

    /// The bodies of the chat requests (any protocol), in order.
    pub fn chat_bodies(&self) -> Vec<Value> {
        self.requests()
            .into_iter()
            .filter(|r| is_chat(&r.path))
            .map(|r| r.body)
            .collect()
    }

    /// The last tool result the model was sent (the content of the last `tool` message, parsed).
    pub fn last_tool_result(&self) -> Value {
        let bodies = self.chat_bodies();
        let messages = bodies
            .last()
            .and_then(|b| b["messages"].as_array().cloned())
            .unwrap_or_default();
        let tool = messages
            .iter()
            .rev()
            .find(|m| m["role"] == "tool")
            .cloned()
            .unwrap_or(Value::Null);
        serde_json::from_str(tool["content"].as_str().unwrap_or("null")).unwrap_or(Value::Null)
    }

    /// The chat requests themselves (headers, path), in order.
    pub fn chat_requests(&self) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| is_chat(&r.path))
            .collect()
    }

    /// Lets a `Reply::Gated` go on.
    pub fn open_gate(&self) {
        self.release();
    }

    /// Lets a gated reply go on; whether it was still waiting for this.
    pub fn release(&self) -> bool {
        let go = self.gate.lock().expect("gate lock").take();
        go.is_some_and(|go| go.send(()).is_ok())
    }
}

fn serve(stream: TcpStream, shared: &Shared) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone stream"));
    let mut stream = stream;
    loop {
        if !wait_for_request(&mut reader, &stream, shared) {
            return;
        }
        let Some(request) = read_request(&mut reader) else {
            return;
        };
        let path = request.path.clone();
        shared.requests.lock().expect("requests lock").push(request);
        if path.starts_with("/html") || path.starts_with("/search") {
            let page = shared.web.lock().expect("web lock").pop_front();
            let (status, body) = page.unwrap_or((404, "no page scripted".into()));
            let headers = vec![("content-type", "text/html; charset=utf-8".to_string())];
            respond(&mut stream, status, &headers, &body);
            continue;
        }
        if !is_chat(&path) {
            let names = shared.models.iter();
            let list = if path.ends_with("/api/tags") {
                json!({"models": names.map(|m| json!({"name": m})).collect::<Vec<_>>()})
            } else if path.starts_with("/v1beta/models") {
                json!({"models": names.map(|m| json!({"name": format!("models/{m}")})).collect::<Vec<_>>()})
            } else {
                json!({"object": "list", "data": names.map(|m| json!({"id": m, "object": "model"})).collect::<Vec<_>>()})
            };
            respond(&mut stream, 200, &[], &list.to_string());
            continue;
        }
        let reply = shared.script.lock().expect("script lock").pop_front();
        let keep_open = match reply {
            None => {
                respond(
                    &mut stream,
                    500,
                    &[],
                    r#"{"error":{"message":"the test script has no more replies"}}"#,
                );
                true
            }
            Some(Reply::Whole(body)) => {
                respond(&mut stream, 200, &[], &body.to_string());
                true
            }
            Some(Reply::Status {
                status,
                headers,
                body,
            }) => {
                respond(&mut stream, status, &headers, &body);
                true
            }
            Some(Reply::Stream(chunks)) => stream_chunked(&mut stream, &chunks),
            Some(Reply::Raw(content_type, text)) => {
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\nconnection: close\r\n\r\n{text}"
                );
                false
            }
            Some(Reply::RawSse(text)) => {
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n{text}"
                );
                false
            }
            Some(Reply::CutAfter(chunks)) => {
                write_chunked_events(&mut stream, &chunks);
                thread::sleep(Duration::from_millis(50));
                let _ = stream.shutdown(std::net::Shutdown::Both);
                false
            }
            Some(Reply::StallAfter(chunks, stall)) => {
                stream_events(&mut stream, &chunks);
                thread::sleep(stall);
                false
            }
            Some(Reply::DoneThenHold(chunks)) => {
                write_chunked_events(&mut stream, &chunks);
                let _ = write!(stream, "e\r\ndata: [DONE]\n\n\r\n");
                let _ = stream.flush();
                if let Some(wait) = shared.gate.lock().expect("gate lock").take() {
                    let _ = wait.recv_timeout(Duration::from_secs(20));
                }
                false
            }
            Some(Reply::Gated(before, after)) => {
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
                );
                send_events(&mut stream, &before);
                if let Some(wait) = shared.gate.lock().expect("gate lock").take() {
                    let _ = wait.recv_timeout(Duration::from_secs(20));
                }
                for _ in 0..50 {
                    send_events(&mut stream, &after);
                    thread::sleep(Duration::from_millis(10));
                }
                false
            }
        };
        if !keep_open {
            return;
        }
    }
}

/// Waits for the next request on a connection; false when the client closed it, or when it
/// stayed idle past the server's keep-alive (then the server closes it, as real ones do).
fn wait_for_request(
    reader: &mut BufReader<TcpStream>,
    stream: &TcpStream,
    shared: &Shared,
) -> bool {
    let Some(idle) = shared.idle_close else {
        return true;
    };
    let _ = stream.set_read_timeout(Some(idle));
    let waited = reader.fill_buf().map(|buf| !buf.is_empty());
    let _ = stream.set_read_timeout(None);
    match waited {
        Ok(more) => more,
        Err(_) => {
            let _ = stream.shutdown(std::net::Shutdown::Both);
            shared.idle_closed.fetch_add(1, Ordering::SeqCst);
            false
        }
    }
}

fn is_chat(path: &str) -> bool {
    path.ends_with("/chat/completions")
        || path.ends_with("/v1/messages")
        || path.ends_with("/api/chat")
        || path.contains(":streamGenerateContent")
}

fn stream_events(stream: &mut TcpStream, chunks: &[Value]) {
    let _ = write!(
        stream,
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
    );
    send_events(stream, chunks);
    let _ = stream.flush();
}

/// The head of a chunked event stream and one chunk per event (no end: the caller decides).
fn write_chunked_events(stream: &mut TcpStream, chunks: &[Value]) {
    let _ = write!(
        stream,
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
    );
    for chunk in chunks {
        let event = format!("data: {chunk}\n\n");
        let _ = write!(stream, "{:x}\r\n{event}\r\n", event.len());
        let _ = stream.flush();
    }
}

/// A streamed reply as real servers send it: chunked, one event per chunk, `[DONE]`, the last
/// chunk, and the connection kept open for the next request. Whether it is still usable.
fn stream_chunked(stream: &mut TcpStream, chunks: &[Value]) -> bool {
    let _ = write!(
        stream,
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
    );
    let events = chunks
        .iter()
        .map(|chunk| format!("data: {chunk}\n\n"))
        .chain(std::iter::once("data: [DONE]\n\n".to_string()));
    for event in events {
        if write!(stream, "{:x}\r\n{event}\r\n", event.len()).is_err() {
            return false;
        }
        let _ = stream.flush();
    }
    write!(stream, "0\r\n\r\n").is_ok() && stream.flush().is_ok()
}

fn send_events(stream: &mut TcpStream, chunks: &[Value]) {
    for chunk in chunks {
        let _ = write!(stream, "data: {chunk}\n\n");
        let _ = stream.flush();
    }
}

fn respond(stream: &mut TcpStream, status: u16, headers: &[(&str, String)], body: &str) {
    let mut head = format!("HTTP/1.1 {status} X\r\ncontent-length: {}\r\n", body.len());
    if !headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("content-type"))
    {
        head.push_str("content-type: application/json\r\n");
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    let _ = write!(stream, "{head}\r\n{body}");
    let _ = stream.flush();
}

fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Recorded> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_string(), value.trim().to_string()));
        }
    }
    let length: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    let raw = String::from_utf8_lossy(&body).into_owned();
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    Some(Recorded {
        method,
        path,
        headers,
        body,
        raw,
    })
}

// ---- chunk builders -------------------------------------------------------------------------

/// A streamed text reply split into a few deltas, ending with `stop` and a usage chunk.
pub fn text_reply(text: &str) -> Reply {
    Reply::Stream(text_chunks(text))
}

pub fn text_chunks(text: &str) -> Vec<Value> {
    let mut chunks = vec![
        json!({"choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": null}]}),
    ];
    let words: Vec<&str> = text.split_inclusive(' ').collect();
    for piece in words.chunks(2) {
        chunks.push(json!({"choices": [{"index": 0, "delta": {"content": piece.concat()}, "finish_reason": null}]}));
    }
    chunks.push(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}));
    chunks.push(json!({"choices": [], "usage": {"prompt_tokens": 20, "completion_tokens": 7}}));
    chunks
}

/// A streamed reply making these calls (id, name, arguments), the arguments cut into pieces and
/// id and name repeated in every chunk, as llama-cpp-python does.
pub fn tool_reply(calls: &[(&str, &str, Value)]) -> Reply {
    Reply::Stream(tool_chunks(calls))
}

pub fn tool_chunks(calls: &[(&str, &str, Value)]) -> Vec<Value> {
    let mut chunks = vec![
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": null}, "finish_reason": null}]}),
    ];
    for (index, (id, name, arguments)) in calls.iter().enumerate() {
        let text = arguments.to_string();
        let bytes = text.as_bytes();
        for piece in bytes.chunks(7) {
            let piece = String::from_utf8_lossy(piece).into_owned();
            chunks.push(json!({"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": piece}}
            ]}, "finish_reason": null}]}));
        }
    }
    chunks.push(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}));
    chunks.push(json!({"choices": [], "usage": {"prompt_tokens": 30, "completion_tokens": 12}}));
    chunks
}

/// A whole (non-streamed) reply.
pub fn whole_text(text: &str) -> Reply {
    Reply::Whole(
        json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 11, "completion_tokens": 3}}),
    )
}

pub fn status(status: u16, body: &str) -> Reply {
    Reply::Status {
        status,
        headers: Vec::new(),
        body: body.to_string(),
    }
}
