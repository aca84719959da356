//! `ai --pull [MODEL]`: the embedded engine's model (the one named, else the configured one,
//! else the default) downloaded, resumed and verified into the models directory, or, when it is
//! there already, checked whole. Its path goes to stdout; Ctrl-C keeps the `.part` to resume.

use crate::config::Settings;
use crate::engine::model::{LocalModel, choose};
use crate::error::{ConfigError, ExitCode, Report};
use crate::session::{Interrupt, fetch_model};
use crate::ui::{self, fail};

/// `asked`: the model named after `--pull` (empty: none).
pub(crate) async fn pull(settings: &Settings, asked: &str) -> i32 {
    let asked = Some(asked.trim())
        .filter(|a| !a.is_empty())
        .map(|a| (a, "--pull"));
    let model = match choose(&settings.local, asked) {
        Ok(model) => model,
        Err(err) => {
            let (name, value, expected) = err.parts();
            return fail(&Report::from(ConfigError::Invalid {
                name,
                value,
                expected,
            }));
        }
    };
    if model.download.is_none() {
        return if model.file.is_file() {
            done(&model, "is a file of yours: nothing to download", settings)
        } else {
            fail(&Report::new(
                ExitCode::Usage,
                format!("no model file at {}", model.file.display()),
            ))
        };
    }
    if model.file.exists() {
        match already_here(&model, settings).await {
            Ok(true) => return done(&model, "is downloaded and verified", settings),
            Ok(false) => {}
            Err(report) => return fail(&report),
        }
    }
    let mut interrupt = Interrupt::listen();
    tokio::select! {
        fetched = fetch_model(&model, settings.quiet) => match fetched {
            Ok(_) => if ui::to_stdout(&model.file.display().to_string()) {
                ExitCode::Ok.code()
            } else {
                ExitCode::Runtime.code()
            },
            Err(report) => fail(&report),
        },
        () = interrupt.pressed() => {
            let pull = model.download.as_ref().map_or("", |d| d.pull.as_str());
            ui::to_stderr(&format!(
                "ai: interrupted; `ai --pull {pull}` resumes the download"
            ));
            ExitCode::Interrupted.code()
        }
    }
}

/// Whether the file in place is the model, hashed whole; one that is not is removed (with its
/// record) so that only a verified download takes its place.
async fn already_here(model: &LocalModel, settings: &Settings) -> Result<bool, Report> {
    let owned = model.clone();
    let verified = tokio::task::spawn_blocking(move || owned.verify())
        .await
        .map_err(|err| {
            Report::new(
                ExitCode::Runtime,
                format!("checking the model stopped: {err}"),
            )
        })?;
    let why = match verified {
        Ok(_) => return Ok(true),
        Err(why) => why,
    };
    if !settings.quiet {
        ui::to_stderr(&format!(
            "ai: {} is not the model expected ({why}); downloading it again",
            model.file.display()
        ));
    }
    for file in [model.file.clone(), model.sidecar()] {
        if let Err(err) = std::fs::remove_file(&file)
            && err.kind() != std::io::ErrorKind::NotFound
        {
            return Err(Report::new(
                ExitCode::Runtime,
                format!("cannot remove {}: {err}", file.display()),
            ));
        }
    }
    Ok(false)
}

/// The model is in place: where, on stdout; what was found, on stderr.
fn done(model: &LocalModel, what: &str, settings: &Settings) -> i32 {
    if !settings.quiet {
        ui::to_stderr(&format!("ai: the model {} {what}", model.name));
    }
    if ui::to_stdout(&model.file.display().to_string()) {
        ExitCode::Ok.code()
    } else {
        ExitCode::Runtime.code()
    }
}
