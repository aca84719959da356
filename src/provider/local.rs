//! The embedded engine as a provider (`--provider local`, cargo feature `local`): the model file
//! (downloaded before, never here) loaded once, and each request rendered with the model's own
//! chat template; a JSON schema from the request becomes a grammar, so even a tiny model can only
//! write a well-formed call or a final answer. Tokens stream through the same sink as every
//! provider; generation runs on its own thread and stops as soon as the request is dropped
//! (Ctrl-C).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::{BoxFuture, ChatRequest, Completion, Provider, ProviderError, ProviderEvent, Sink};
use crate::config::{LocalSettings, ToolFormat};
use crate::engine::catalogue::{CATALOGUE, human};
use crate::engine::model::{LocalModel, OnDisk, choose};
use crate::engine::{Engine, Job, Piece, grammar_of};
use crate::protocol::Usage;

pub(crate) struct LocalProvider {
    settings: LocalSettings,
    /// The model to run, or why the one asked for (`/model NAME`) cannot be.
    model: Result<LocalModel, String>,
    engine: Option<Arc<Engine>>,
}

impl LocalProvider {
    /// The provider for `model`, resolved with the endpoint (it must be on disk by `prepare`).
    pub(crate) fn new(settings: LocalSettings, model: Option<LocalModel>) -> Self {
        LocalProvider {
            settings,
            model: model.ok_or_else(|| "no model was chosen".to_string()),
            engine: None,
        }
    }

    fn fail(message: impl Into<String>) -> ProviderError {
        ProviderError::Local {
            message: message.into(),
        }
    }

    /// The model's file, there and as expected; else what to do about it.
    fn ready_file(&self) -> Result<&LocalModel, ProviderError> {
        let model = self.model.as_ref().map_err(|why| Self::fail(why.clone()))?;
        let pull = model.download.as_ref().map(|d| d.pull.as_str());
        match (model.on_disk(), pull) {
            (OnDisk::Ready, _) => Ok(model),
            (OnDisk::Missing, None) => Err(Self::fail(format!(
                "no model file at {}",
                model.file.display()
            ))),
            (OnDisk::Missing, Some(pull)) => Err(Self::fail(format!(
                "the model {} is not downloaded yet{}: run `ai --pull {pull}`",
                model.name,
                model
                    .shown_size()
                    .map(|n| format!(" ({})", human(n)))
                    .unwrap_or_default()
            ))),
            (OnDisk::Bad(why), Some(pull)) => Err(Self::fail(format!(
                "{why}: run `ai --pull {pull}` to fetch it again"
            ))),
            (OnDisk::Bad(why), None) => Err(Self::fail(why)),
        }
    }
}

impl Provider for LocalProvider {
    fn name(&self) -> &str {
        "local"
    }

    fn model(&self) -> &str {
        self.model.as_ref().map_or("local", |m| m.name.as_str())
    }

    fn set_model(&mut self, model: String) {
        self.model = choose(&self.settings, Some((&model, "/model"))).map_err(|err| {
            let (_, value, expected) = err.parts();
            format!("no model {value:?}: expected {expected}")
        });
        self.engine = None;
    }

    fn prepare(&mut self) -> BoxFuture<'_, Result<(), ProviderError>> {
        Box::pin(async move {
            if self.engine.is_some() {
                return Ok(());
            }
            let path = self.ready_file()?.file.clone();
            // Loading maps the model and makes its context: off the runtime, so Ctrl-C can stop
            // `/model`.
            let settings = self.settings.clone();
            let engine = tokio::task::spawn_blocking(move || Engine::load(&path, &settings))
                .await
                .map_err(|err| Self::fail(format!("loading the model stopped: {err}")))?
                .map_err(Self::fail)?;
            self.engine = Some(Arc::new(engine));
            Ok(())
        })
    }

    fn complete<'a>(
        &'a self,
        request: ChatRequest<'a>,
        sink: &'a mut Sink<'_>,
    ) -> BoxFuture<'a, Result<Completion, ProviderError>> {
        Box::pin(async move {
            let engine = self
                .engine
                .clone()
                .ok_or_else(|| Self::fail("the model is not loaded"))?;
            let grammar = request
                .response_format
                .map(grammar_of)
                .transpose()
                .map_err(Self::fail)?;
            let (pieces, mut rx) = tokio::sync::mpsc::unbounded_channel();
            let stop = Arc::new(AtomicBool::new(false));
            let _guard = StopOnDrop(Arc::clone(&stop));
            engine
                .submit(Job {
                    messages: request.messages.to_vec(),
                    grammar,
                    no_thinking: self
                        .model
                        .as_ref()
                        .is_ok_and(|m| m.entry.is_some_and(|e| e.thinking_off)),
                    stop,
                    pieces,
                })
                .map_err(Self::fail)?;
            let mut completion = Completion::default();
            while let Some(piece) = rx.recv().await {
                match piece {
                    Piece::Text(text) => {
                        sink(ProviderEvent::Text(&text));
                        completion.text.push_str(&text);
                    }
                    Piece::Failed(message) => return Err(Self::fail(message)),
                    Piece::Done(counts) => {
                        completion.usage = Some(Usage {
                            input_tokens: counts.prompt,
                            output_tokens: counts.produced,
                            cached_input_tokens: counts.cached,
                        });
                        return Ok(completion);
                    }
                }
            }
            Err(Self::fail(
                "the engine stopped before the reply was complete",
            ))
        })
    }

    fn prompt_only(&self) -> bool {
        true
    }

    fn tool_family(&self) -> Option<ToolFormat> {
        let entry = self.model.as_ref().ok()?.entry?;
        Some(entry.family)
    }

    /// Which model of the catalogue (a file of one's own needs no saying).
    fn preparing(&self) -> Option<String> {
        let model = self.model.as_ref().ok().filter(|m| m.download.is_some())?;
        Some(format!(
            "using the local model {} ({})",
            model.name,
            model.file.display()
        ))
    }

    /// The catalogue, and the model in use when it is not one of it.
    fn list_models(&self) -> BoxFuture<'_, Result<Vec<String>, ProviderError>> {
        Box::pin(async move {
            let mut names: Vec<String> = CATALOGUE.iter().map(|e| e.name.to_string()).collect();
            if let Ok(model) = &self.model
                && model.entry.is_none()
            {
                names.push(model.file.display().to_string());
            }
            Ok(names)
        })
    }
}

/// Stops generation when the request future is dropped (Ctrl-C).
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}
