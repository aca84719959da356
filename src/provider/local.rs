//! The embedded engine as a provider (`--provider local`, cargo feature `local`): the model file
//! found or fetched, loaded once, and each request rendered with the model's own chat template; a
//! JSON schema from the request becomes a grammar, so even a tiny model can only write a
//! well-formed call or a final answer. Tokens stream through the same sink as every provider;
//! generation runs on its own thread and stops as soon as the request is dropped (Ctrl-C).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::{BoxFuture, ChatRequest, Completion, Provider, ProviderError, ProviderEvent, Sink};
use crate::config::LocalSettings;
use crate::engine::download::{DEFAULT_MODEL_URL, fetch, target_for};
use crate::engine::{Engine, Job, Piece, grammar_of};
use crate::protocol::Usage;

pub(crate) struct LocalProvider {
    settings: LocalSettings,
    engine: Option<Arc<Engine>>,
    name: String,
}

impl LocalProvider {
    pub(crate) fn new(settings: LocalSettings) -> Self {
        LocalProvider {
            settings,
            engine: None,
            name: String::new(),
        }
    }

    fn fail(message: impl Into<String>) -> ProviderError {
        ProviderError::Local {
            message: message.into(),
        }
    }

    /// The GGUF file: the one given, or the default model, fetched once into the cache.
    async fn model_file(&self) -> Result<PathBuf, ProviderError> {
        if let Some(path) = &self.settings.model_path {
            return Ok(path.clone());
        }
        let url = self
            .settings
            .model_url
            .as_deref()
            .unwrap_or(DEFAULT_MODEL_URL);
        let dir = self.settings.models_dir.clone().ok_or_else(|| {
            Self::fail("no cache directory for the model (set HOME or XDG_CACHE_HOME)")
        })?;
        let dest = target_for(url, &dir);
        fetch(url, &dest, self.settings.model_sha256.as_deref())
            .await
            .map_err(|message| ProviderError::Connect {
                url: url.to_string(),
                message: format!(
                    "{message} (set SWEBASH_AI_MODEL_PATH to a GGUF file to work offline)"
                ),
            })
    }
}

impl Provider for LocalProvider {
    fn name(&self) -> &str {
        "local"
    }

    fn model(&self) -> &str {
        &self.name
    }

    fn set_model(&mut self, model: String) {
        self.settings.model_path = Some(PathBuf::from(model));
        self.engine = None;
    }

    fn prepare(&mut self) -> BoxFuture<'_, Result<(), ProviderError>> {
        Box::pin(async move {
            if self.engine.is_some() {
                return Ok(());
            }
            let path = self.model_file().await?;
            if !path.exists() {
                return Err(Self::fail(format!(
                    "no model file at {} (SWEBASH_AI_MODEL_PATH)",
                    path.display()
                )));
            }
            // Loading maps the model and makes its context: off the runtime, so Ctrl-C can stop
            // `/model`.
            let file = path.clone();
            let settings = self.settings.clone();
            let engine = tokio::task::spawn_blocking(move || Engine::load(&file, &settings))
                .await
                .map_err(|err| Self::fail(format!("loading the model stopped: {err}")))?
                .map_err(Self::fail)?;
            self.name = path
                .file_stem()
                .map_or_else(|| "local".into(), |s| s.to_string_lossy().into_owned());
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

    fn preparing(&self) -> Option<String> {
        if self.settings.model_path.is_some() {
            return None;
        }
        let url = self
            .settings
            .model_url
            .as_deref()
            .unwrap_or(DEFAULT_MODEL_URL);
        let dest = self
            .settings
            .models_dir
            .as_ref()
            .map(|dir| target_for(url, dir))?;
        Some(if dest.exists() {
            format!("using the local model {}", dest.display())
        } else {
            format!(
                "using the local model {}, fetched once from {url}",
                dest.display()
            )
        })
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<String>, ProviderError>> {
        Box::pin(async move {
            Ok(vec![self.settings.model_path.as_ref().map_or_else(
                || {
                    self.settings
                        .model_url
                        .clone()
                        .unwrap_or_else(|| DEFAULT_MODEL_URL.into())
                },
                |p| p.display().to_string(),
            )])
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
