//! Fetching the default model of the `local` provider once into the XDG cache: resumable (a
//! `.part` file continued with a `Range` request), checksum-verified (SHA-256 from the settings or
//! the server's `X-Linked-ETag`), with a progress bar on a terminal.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The default model: small, instruction-tuned, good enough at tool calls under a grammar.
pub(crate) const DEFAULT_MODEL_URL: &str = "https://huggingface.co/Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/main/qwen2.5-1.5b-instruct-q4_k_m.gguf";

/// Attempts within one run before giving up (the `.part` file stays for the next run).
const ATTEMPTS: u32 = 3;

/// The file a URL is kept as in `dir`.
pub(crate) fn target_for(url: &str, dir: &Path) -> PathBuf {
    let name = url
        .rsplit('/')
        .next()
        .and_then(|n| n.split('?').next())
        .filter(|n| !n.is_empty())
        .unwrap_or("model.gguf");
    dir.join(name)
}

/// Downloads `url` to `dest` unless it is already there.
pub(crate) async fn fetch(
    url: &str,
    dest: &Path,
    expected: Option<&str>,
) -> Result<PathBuf, String> {
    if dest.exists() {
        return Ok(dest.to_path_buf());
    }
    if let Some(dir) = dest.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|err| format!("cannot create {}: {err}", dir.display()))?;
    }
    let part = dest.with_extension("gguf.part");
    let client = crate::net::client(url, Duration::from_secs(15)).map_err(|err| err.to_string())?;
    let mut expected = expected.map(str::to_ascii_lowercase);
    let mut last_error = String::new();
    for _ in 0..ATTEMPTS {
        match attempt(&client, url, &part, &mut expected).await {
            Ok(()) => {
                // Hashing gigabytes blocks: it runs off the runtime, which keeps Ctrl-C working.
                let hashed = part.clone();
                let actual = tokio::task::spawn_blocking(move || sha256_of(&hashed))
                    .await
                    .map_err(|err| format!("hashing {} stopped: {err}", part.display()))??;
                if let Some(want) = &expected
                    && *want != actual
                {
                    let _ = std::fs::remove_file(&part);
                    return Err(format!(
                        "the download of {url} is corrupt: SHA-256 {actual}, expected {want}"
                    ));
                }
                std::fs::rename(&part, dest)
                    .map_err(|err| format!("cannot move the model into place: {err}"))?;
                return Ok(dest.to_path_buf());
            }
            Err(err) => last_error = err,
        }
    }
    Err(last_error)
}

/// One request: continues `part` where it stopped.
async fn attempt(
    client: &reqwest::Client,
    url: &str,
    part: &Path,
    expected: &mut Option<String>,
) -> Result<(), String> {
    let have = std::fs::metadata(part).map_or(0, |m| m.len());
    let mut request = client.get(url);
    if have > 0 {
        request = request.header("range", format!("bytes={have}-"));
    }
    let mut response = request
        .send()
        .await
        .map_err(|err| format!("cannot download {url}: {err}"))?;
    let status = response.status().as_u16();
    let resumed = status == 206;
    if !(resumed || status == 200) {
        return Err(format!("cannot download {url}: HTTP {status}"));
    }
    if expected.is_none() {
        *expected = sha_header(response.headers());
    }
    let start = if resumed { have } else { 0 };
    let total = response.content_length().map(|n| n + start);
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(resumed)
        .truncate(!resumed)
        .open(part)
        .map_err(|err| format!("cannot write {}: {err}", part.display()))?;
    let bar = progress(total, start);
    let mut written = start;
    loop {
        match response.chunk().await {
            Ok(Some(bytes)) => {
                file.write_all(&bytes)
                    .map_err(|err| format!("cannot write {}: {err}", part.display()))?;
                written += bytes.len() as u64;
                if let Some(bar) = &bar {
                    bar.set_position(written);
                }
            }
            Ok(None) => break,
            Err(err) => {
                return Err(format!(
                    "the download of {url} broke off at {written} bytes ({err}); run again to resume"
                ));
            }
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    match total {
        Some(total) if written < total => Err(format!(
            "the download of {url} stopped at {written} of {total} bytes; run again to resume"
        )),
        _ => Ok(()),
    }
}

/// Hugging Face sends an LFS file's SHA-256 as `X-Linked-ETag` (or `ETag`).
fn sha_header(headers: &reqwest::header::HeaderMap) -> Option<String> {
    ["x-linked-etag", "etag"].iter().find_map(|name| {
        let value = headers
            .get(*name)?
            .to_str()
            .ok()?
            .trim_matches('"')
            .trim_start_matches("W/")
            .trim_matches('"');
        (value.len() == 64 && value.chars().all(|c| c.is_ascii_hexdigit()))
            .then(|| value.to_ascii_lowercase())
    })
}

fn progress(total: Option<u64>, start: u64) -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(
        "downloading the model {bar:30} {bytes}/{total_bytes} {bytes_per_sec} {eta}",
    ) {
        bar.set_style(style);
    }
    bar.set_position(start);
    Some(bar)
}

pub(crate) fn sha256_of(path: &Path) -> Result<String, String> {
    let mut file = std::fs::File::open(path)
        .map_err(|err| format!("cannot read {}: {err}", path.display()))?;
    let mut context = ring::digest::Context::new(&ring::digest::SHA256);
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let n = file
            .read(&mut buffer)
            .map_err(|err| format!("cannot read {}: {err}", path.display()))?;
        if n == 0 {
            break;
        }
        context.update(&buffer[..n]);
    }
    Ok(context
        .finish()
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}
