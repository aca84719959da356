//! A model file's SHA-256: computed (in blocks, for gigabytes), and recorded beside the file
//! (`NAME.gguf.sha256`, `sha256sum`'s format) once a download is verified.

use std::io::Read;
use std::path::{Path, PathBuf};

/// The SHA-256 of the file at `path`, in hex (reads the whole file: call it off the runtime).
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

/// `NAME.gguf.sha256` beside `file`.
pub(crate) fn sidecar_of(file: &Path) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(".sha256");
    PathBuf::from(name)
}

/// The SHA-256 recorded beside `file` (`sha256sum`'s format: the hash, two spaces, the name).
pub(crate) fn recorded_sha(file: &Path) -> Option<String> {
    let text = std::fs::read_to_string(sidecar_of(file)).ok()?;
    let hash = text.split_whitespace().next()?.to_ascii_lowercase();
    (hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit())).then_some(hash)
}
