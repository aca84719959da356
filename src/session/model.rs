//! Getting the embedded engine's model onto the disk: never silently. A run whose model is
//! missing asks at a terminal (name, size, licence, where it goes) and otherwise ends, naming
//! the `ai --pull` command; `ai --pull` and a "yes" download it with a progress bar on a
//! terminal, or one line at the start and one at the end without.

use std::io::IsTerminal;

use crate::config::Settings;
use crate::engine::catalogue::human;
use crate::engine::download::{FetchError, Fetched, fetch};
use crate::engine::model::{LocalModel, OnDisk};
use crate::error::{ExitCode, Report};
use crate::ui;

use super::SetupError;

/// What to do without the network: a mirror, or a file one has.
const OFFLINE_HINT: &str = "check the network; SWEBASH_AI_MODEL_URL names a mirror of the model, \
                            SWEBASH_AI_MODEL_PATH a GGUF file you already have";

/// The model of a run on disk: there already, or downloaded after the user said yes.
pub(crate) async fn ensure_model(
    model: &LocalModel,
    settings: &Settings,
) -> Result<(), SetupError> {
    let Some(download) = &model.download else {
        return match model.on_disk() {
            OnDisk::Missing => Err(Report::new(
                ExitCode::Usage,
                format!(
                    "no model file at {} (SWEBASH_AI_MODEL_PATH)",
                    model.file.display()
                ),
            )
            .into()),
            _ => Ok(()),
        };
    };
    let pull = &download.pull;
    match model.on_disk() {
        OnDisk::Ready => return Ok(()),
        OnDisk::Bad(why) => {
            return Err(Report::new(ExitCode::Runtime, why)
                .with_hint(format!("`ai --pull {pull}` checks it and fetches it again"))
                .into());
        }
        OnDisk::Missing => {}
    }
    let size = model
        .shown_size()
        .map(|n| format!(" ({})", human(n)))
        .unwrap_or_default();
    let licence = model
        .entry
        .map(|e| format!(", licence {}", e.licence))
        .unwrap_or_default();
    let question = format!(
        "ai runs the model {}{size}{licence} on this machine; it is not downloaded yet.\n  \
         from: {}\n  into: {}\nDownload it now?",
        model.name,
        download.url,
        model.file.display()
    );
    match ui::confirm(&question) {
        Some(true) => fetch_model(model, settings.quiet)
            .await
            .map(|_| ())
            .map_err(Into::into),
        Some(false) => Err(Report::new(ExitCode::Usage, "the model was not downloaded")
            .with_hint(format!(
                "`ai --pull {pull}` downloads it; SWEBASH_AI_MODEL_PATH runs a GGUF file you have"
            ))
            .into()),
        None => Err(Report::new(
            ExitCode::Usage,
            format!(
                "the model {}{size} is not downloaded: run `ai --pull {pull}`, or set \
                 SWEBASH_AI_MODEL_PATH to a GGUF file",
                model.name
            ),
        )
        .into()),
    }
}

/// Downloads `model`: a progress bar on a terminal, else a line when it starts and one when it
/// ends (`quiet` keeps the lines of success to itself).
pub(crate) async fn fetch_model(model: &LocalModel, quiet: bool) -> Result<Fetched, Report> {
    let bar = std::io::stderr().is_terminal();
    let url = model.download.as_ref().map_or("", |d| d.url.as_str());
    if !bar && !quiet {
        let size = model
            .shown_size()
            .map(|n| format!(" ({})", human(n)))
            .unwrap_or_default();
        ui::to_stderr(&format!(
            "ai: downloading the model {}{size} from {url} to {}",
            model.name,
            model.file.display()
        ));
    }
    let fetched = fetch(model, bar).await.map_err(|err| match err {
        FetchError::Network(message) => {
            Report::new(ExitCode::Runtime, message).with_hint(OFFLINE_HINT)
        }
        FetchError::Wrong(message) => Report::new(ExitCode::Runtime, message),
        FetchError::Io(message) => Report::new(ExitCode::Runtime, message),
    })?;
    if !quiet {
        let checked = if fetched.checked {
            "verified"
        } else {
            "no checksum to check it against; recorded"
        };
        ui::to_stderr(&format!(
            "ai: the model {} is ready: {} (SHA-256 {}, {checked})",
            model.name,
            model.file.display(),
            fetched.sha256
        ));
    }
    Ok(fetched)
}
