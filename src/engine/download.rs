//! Fetching a model of the embedded engine into the models directory: resumable (a `.part` file
//! continued with a `Range` request; a server that ignores `Range` is read from the start
//! again), checked (the pinned size, and the SHA-256 pinned, given, or announced by the host as
//! `X-Linked-ETag`) before the file is moved into place, with a progress bar on a terminal. The
//! verified SHA-256 is recorded beside the model. A broken download leaves its `.part` for the
//! next run, with the validator (ETag or Last-Modified) it began with: the resume asks with
//! `If-Range`, so a file changed on the host since is read again whole, not spliced (a part
//! with no validator is continued only when a checksum is known). A wrong download leaves
//! nothing. One pull into the models directory at a time: a second waits for nothing and says
//! another is under way (a lock on the directory).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::checksum::{sha256_of, sidecar_of};
use super::model::{Download, LocalModel};

/// Attempts within one run before giving up (the `.part` file stays for the next run).
const ATTEMPTS: u32 = 3;

/// A model downloaded and moved into place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fetched {
    pub(crate) sha256: String,
    /// Whether the hash was checked against one pinned, given or announced (else it was only
    /// recorded).
    pub(crate) checked: bool,
}

/// Why a download failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FetchError {
    /// The network or the host failed; the `.part` file, if any, stays for resuming.
    Network(String),
    /// The bytes are not the file expected (checksum or size); nothing was kept.
    Wrong(String),
    /// The disk failed.
    Io(String),
}

/// Where a download in progress is kept.
pub(crate) fn part_of(file: &Path) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(".part");
    PathBuf::from(name)
}

/// Downloads `model` into its place (whatever is there is replaced only by a verified file),
/// with a progress bar when `bar`.
pub(crate) async fn fetch(model: &LocalModel, bar: bool) -> Result<Fetched, FetchError> {
    let Some(download) = &model.download else {
        return Err(FetchError::Io(format!(
            "{} is a file of yours: there is nothing to download",
            model.file.display()
        )));
    };
    let dest = &model.file;
    if let Some(dir) = dest.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|err| FetchError::Io(format!("cannot create {}: {err}", dir.display())))?;
    }
    let part = part_of(dest);
    let _lock = lock(&part)?;
    let url = download.url.as_str();
    let client = crate::net::client(url, Duration::from_secs(15))
        .map_err(|err| FetchError::Network(format!("cannot download {url}: {err}")))?;
    // What the host announces fills in what the catalogue could not pin.
    let mut target = download.clone();
    if target.sha256.is_none() {
        let (sha, size) = announced(url).await;
        target.sha256 = target.sha256.or(sha);
        target.size = target.size.or(size);
    }
    let mut expected = target.sha256.clone();
    let label = format!("downloading {}", model.name);
    let mut last = FetchError::Network(format!("cannot download {url}"));
    for _ in 0..ATTEMPTS {
        let shown = bar.then_some(&label);
        match attempt(&client, &target, &part, &mut expected, shown).await {
            Ok(()) => return finish(&target, &part, dest, expected).await,
            Err(err @ (FetchError::Wrong(_) | FetchError::Io(_))) => return Err(err),
            Err(err) => last = err,
        }
    }
    Err(last)
}

/// Holds the lock of the models directory while a download is under way (the kernel lets it
/// go when the process ends, however it ends). The directory, not a file beside the `.part`:
/// nothing is left behind, and a lock file removed while another pull opens it would give two
/// pulls a lock each.
struct Lock {
    _held: std::fs::File,
}

/// Takes the lock of the directory `part` is in, or says another pull holds it.
fn lock(part: &Path) -> Result<Lock, FetchError> {
    let dir = part.parent().unwrap_or(Path::new("."));
    let file = std::fs::File::open(dir)
        .map_err(|err| FetchError::Io(format!("cannot open {}: {err}", dir.display())))?;
    match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
        Err(rustix::io::Errno::WOULDBLOCK) => Err(FetchError::Io(format!(
            "another ai is downloading a model into {}; wait for it to finish",
            dir.display()
        ))),
        // A file system without locks (some network ones): nothing to wait for.
        _ => Ok(Lock { _held: file }),
    }
}

/// `path` with `suffix` added to its name.
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Where the validator of a `.part` is kept: what the host said identifies the file's version.
fn validator_of(part: &Path) -> PathBuf {
    with_suffix(part, ".validator")
}

/// A strong ETag (a weak one cannot go in `If-Range`), else `Last-Modified`.
fn validator(headers: &reqwest::header::HeaderMap) -> Option<String> {
    let value = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    value("etag")
        .filter(|tag| !tag.starts_with("W/"))
        .or_else(|| value("last-modified"))
        .map(str::to_string)
}

/// Removes a `.part` and what is kept beside it.
fn discard(part: &Path) {
    let _ = std::fs::remove_file(part);
    let _ = std::fs::remove_file(validator_of(part));
}

/// The SHA-256 and size the host announces before it redirects to where the bytes are (Hugging
/// Face: `X-Linked-ETag` and `X-Linked-Size` on the redirect of a `HEAD`); nothing when it
/// announces nothing or cannot be asked (the download then says what is wrong).
async fn announced(url: &str) -> (Option<String>, Option<u64>) {
    let Ok(client) = crate::net::client_without_redirects(url, Duration::from_secs(15)) else {
        return (None, None);
    };
    let Ok(response) = client.head(url).send().await else {
        return (None, None);
    };
    let headers = response.headers();
    let size = headers
        .get("x-linked-size")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok());
    (sha_header(headers), size)
}

/// The whole file is in `part`: checked, recorded, moved into place.
async fn finish(
    download: &Download,
    part: &Path,
    dest: &Path,
    expected: Option<String>,
) -> Result<Fetched, FetchError> {
    let wrong = |message: String| {
        discard(part);
        FetchError::Wrong(message)
    };
    let url = &download.url;
    let len = std::fs::metadata(part).map_or(0, |m| m.len());
    if let Some(size) = download.size
        && len != size
    {
        return Err(wrong(format!(
            "the download of {url} is {len} bytes, expected {size}"
        )));
    }
    // Hashing gigabytes blocks: it runs off the runtime, which keeps Ctrl-C working.
    let hashed = part.to_path_buf();
    let actual = tokio::task::spawn_blocking(move || sha256_of(&hashed))
        .await
        .map_err(|err| FetchError::Io(format!("hashing {} stopped: {err}", part.display())))?
        .map_err(FetchError::Io)?;
    if let Some(want) = &expected
        && *want != actual
    {
        return Err(wrong(format!(
            "the download of {url} has SHA-256 {actual}, expected {want}"
        )));
    }
    let name = dest
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    // The record first: a file in place always has its hash beside it.
    let sidecar = sidecar_of(dest);
    std::fs::write(&sidecar, format!("{actual}  {name}\n"))
        .map_err(|err| FetchError::Io(format!("cannot write {}: {err}", sidecar.display())))?;
    std::fs::rename(part, dest)
        .map_err(|err| FetchError::Io(format!("cannot move the model into place: {err}")))?;
    discard(part);
    Ok(Fetched {
        sha256: actual,
        checked: expected.is_some(),
    })
}

/// One request: continues `part` where it stopped (or starts it over when the server sends the
/// whole file).
async fn attempt(
    client: &reqwest::Client,
    download: &Download,
    part: &Path,
    expected: &mut Option<String>,
    label: Option<&String>,
) -> Result<(), FetchError> {
    let url = download.url.as_str();
    let have = part_length(download, part);
    // Whole already (the run before was stopped while checking it, or could not move it into
    // place): asking for the bytes after the end would only be refused; the check decides.
    if have > 0 && download.size == Some(have) {
        return Ok(());
    }
    let mut request = client.get(url);
    // The bytes after `have` only if the file is still the one the `.part` began with. A part
    // with no validator (the host sent none) is continued only when a checksum will tell a
    // spliced file: else it starts over.
    let kept = std::fs::read_to_string(validator_of(part)).ok();
    let have = if kept.is_none() && expected.is_none() {
        0
    } else {
        have
    };
    if have > 0 {
        request = request.header("range", format!("bytes={have}-"));
        if let Some(kept) = &kept {
            request = request.header("if-range", kept.trim());
        }
    }
    let mut response = request.send().await.map_err(|err| {
        FetchError::Network(format!("cannot download {url}: {}", innermost(&err)))
    })?;
    if whole_by_its_length(&response, have) {
        return Ok(());
    }
    let resumed = resumes(&response, have, part, url)?;
    if expected.is_none() {
        *expected = sha_header(response.headers());
    }
    if !resumed {
        match validator(response.headers()) {
            Some(validator) => {
                let _ = std::fs::write(validator_of(part), validator);
            }
            None => {
                let _ = std::fs::remove_file(validator_of(part));
            }
        }
    }
    let start = if resumed { have } else { 0 };
    let total = response.content_length().map(|n| n + start);
    if let (Some(total), Some(size)) = (total, download.size)
        && total != size
    {
        discard(part);
        return Err(FetchError::Wrong(format!(
            "{url} serves {total} bytes, expected {size}"
        )));
    }
    let bar = label.map(|label| progress(label, total, start));
    let written = write_body(&mut response, part, resumed, start, bar.as_ref(), url).await?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    match total {
        Some(total) if written < total => Err(FetchError::Network(format!(
            "the download of {url} stopped at {written} of {total} bytes"
        ))),
        _ => Ok(()),
    }
}

/// Writes the body of `response` to `part` (after its first `start` bytes when `resumed`);
/// returns how long the `.part` is then.
async fn write_body(
    response: &mut reqwest::Response,
    part: &Path,
    resumed: bool,
    start: u64,
    bar: Option<&ProgressBar>,
    url: &str,
) -> Result<u64, FetchError> {
    let cannot_write =
        |err: std::io::Error| FetchError::Io(format!("cannot write {}: {err}", part.display()));
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(resumed)
        .truncate(!resumed)
        .open(part)
        .map_err(cannot_write)?;
    let mut written = start;
    loop {
        match response.chunk().await {
            Ok(Some(bytes)) => {
                file.write_all(&bytes).map_err(cannot_write)?;
                written += bytes.len() as u64;
                if let Some(bar) = bar {
                    bar.set_position(written);
                }
            }
            Ok(None) => break,
            Err(err) => {
                return Err(FetchError::Network(format!(
                    "the download of {url} broke off at {written} bytes ({err})"
                )));
            }
        }
    }
    file.flush().map_err(cannot_write)?;
    Ok(written)
}

/// Whether `response` continues the `.part` of `have` bytes (206 from there) or starts the file
/// over (200: a server that ignores `Range`); any other answer is an error.
fn resumes(
    response: &reqwest::Response,
    have: u64,
    part: &Path,
    url: &str,
) -> Result<bool, FetchError> {
    let status = response.status().as_u16();
    if status == 416 && have > 0 {
        // The range is past the end: the `.part` is whole or stale; the next attempt starts over.
        discard(part);
        return Err(FetchError::Network(format!(
            "cannot download {url}: HTTP 416"
        )));
    }
    if !(status == 206 || status == 200) {
        return Err(FetchError::Network(format!(
            "cannot download {url}: HTTP {status}"
        )));
    }
    // A 206 that does not start where the `.part` ends is taken as no resume at all.
    if status == 206 && content_range_start(response.headers()) != Some(have) {
        discard(part);
        return Err(FetchError::Network(format!(
            "cannot download {url}: the server resumed at the wrong place"
        )));
    }
    Ok(status == 206)
}

/// The deepest cause of an error (`Connection refused`, not `error sending request for url`).
fn innermost(err: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = err;
    while let Some(source) = cause.source() {
        cause = source;
    }
    cause.to_string()
}

/// The first byte of a `Content-Range: bytes START-END/TOTAL`.
fn content_range_start(headers: &reqwest::header::HeaderMap) -> Option<u64> {
    let value = headers.get("content-range")?.to_str().ok()?;
    let range = value.trim().strip_prefix("bytes")?.trim();
    range.split('-').next()?.trim().parse().ok()
}

/// The bytes of `part` worth continuing (none when it is longer than the file can be).
fn part_length(download: &Download, part: &Path) -> u64 {
    let have = std::fs::metadata(part).map_or(0, |m| m.len());
    if download.size.is_some_and(|size| have > size) {
        0
    } else {
        have
    }
}

/// A 416 naming the file's length as the `.part`'s: the part is whole; the check decides.
fn whole_by_its_length(response: &reqwest::Response, have: u64) -> bool {
    response.status().as_u16() == 416 && have > 0 && range_total(response.headers()) == Some(have)
}

/// The whole length a `Content-Range: bytes */N` (or `bytes A-B/N`) names.
fn range_total(headers: &reqwest::header::HeaderMap) -> Option<u64> {
    let value = headers.get("content-range")?.to_str().ok()?;
    value.rsplit('/').next()?.trim().parse().ok()
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

fn progress(label: &str, total: Option<u64>, start: u64) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(
        "{prefix} {bar:30} {bytes}/{total_bytes} {bytes_per_sec} ETA {eta}",
    ) {
        bar.set_style(style);
    }
    bar.set_prefix(label.to_string());
    bar.set_position(start);
    bar
}
