//! The embedded engine (`--provider local`, cargo feature `local`): a GGUF model run inside `ai`
//! by llama.cpp, no server and no key. The prompt comes from the model's own chat template
//! (ChatML when llama.cpp does not know it); a JSON schema from the request becomes a grammar, so
//! even a tiny model can only write a well-formed call or a final answer. Tokens stream through
//! the same sink as every provider; generation runs on its own thread and stops as soon as the
//! request is dropped (Ctrl-C).

use std::num::NonZeroU32;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;

use super::download::{DEFAULT_MODEL_URL, fetch, target_for};
use super::{BoxFuture, ChatRequest, Completion, Provider, ProviderError, ProviderEvent, Sink};
use crate::config::LocalSettings;
use crate::protocol::{Message, Usage};

/// The most tokens one reply may have.
const MAX_REPLY_TOKENS: usize = 2048;

struct Engine {
    backend: &'static LlamaBackend,
    model: LlamaModel,
}

/// llama.cpp's backend is set up once per process (a second init is an error).
static BACKEND: std::sync::OnceLock<Result<LlamaBackend, String>> = std::sync::OnceLock::new();

fn backend() -> Result<&'static LlamaBackend, String> {
    BACKEND
        .get_or_init(|| {
            LlamaBackend::init()
                .map(|mut backend| {
                    backend.void_logs();
                    backend
                })
                .map_err(|err| format!("cannot start llama.cpp: {err}"))
        })
        .as_ref()
        .map_err(Clone::clone)
}

pub struct LocalProvider {
    settings: LocalSettings,
    engine: Option<Arc<Engine>>,
    name: String,
}

impl LocalProvider {
    pub fn new(settings: LocalSettings) -> Self {
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
            let backend = backend().map_err(Self::fail)?;
            // Loading reads the whole model: off the runtime, so Ctrl-C can stop `/model`.
            let file = path.clone();
            let model = tokio::task::spawn_blocking(move || {
                LlamaModel::load_from_file(backend, &file, &LlamaModelParams::default())
                    .map_err(|err| err.to_string())
            })
            .await
            .map_err(|err| Self::fail(format!("loading the model stopped: {err}")))?
            .map_err(|err| {
                Self::fail(format!("cannot load the model {}: {err}", path.display()))
            })?;
            self.name = path
                .file_stem()
                .map_or_else(|| "local".into(), |s| s.to_string_lossy().into_owned());
            self.engine = Some(Arc::new(Engine { backend, model }));
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
            let prompt = render(&engine.model, request.messages)?;
            let grammar = match request.response_format {
                Some(schema) => Some(
                    llama_cpp_2::json_schema_to_grammar(&schema.to_string()).map_err(|err| {
                        Self::fail(format!(
                            "cannot turn the tool schemas into a grammar: {err}"
                        ))
                    })?,
                ),
                None => None,
            };
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Result<String, String>>();
            let stop = Arc::new(AtomicBool::new(false));
            let guard = StopOnDrop(Arc::clone(&stop));
            let settings = self.settings.clone();
            let worker = std::thread::spawn(move || {
                generate(&engine, &prompt, grammar.as_deref(), &settings, &stop, &tx)
            });
            let mut completion = Completion::default();
            let mut failure = None;
            while let Some(piece) = rx.recv().await {
                match piece {
                    Ok(text) => {
                        sink(ProviderEvent::Text(&text));
                        completion.text.push_str(&text);
                    }
                    Err(message) => failure = Some(message),
                }
            }
            drop(guard);
            let counts = worker.join().unwrap_or_default();
            if let Some(message) = failure {
                return Err(Self::fail(message));
            }
            completion.usage = Some(Usage {
                input_tokens: counts.0,
                output_tokens: counts.1,
            });
            Ok(completion)
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

/// The conversation as the model's prompt: its own chat template, else ChatML.
fn render(model: &LlamaModel, messages: &[Message]) -> Result<String, ProviderError> {
    let turns: Vec<(&str, String)> = messages
        .iter()
        .map(|m| match m {
            Message::System { content } => ("system", content.clone()),
            Message::User { content } => ("user", content.clone()),
            Message::Assistant { content, .. } => ("assistant", content.clone()),
            Message::Tool { content, .. } => ("tool", content.clone()),
        })
        .collect();
    let templated = model.chat_template(None).ok().and_then(|template| {
        let chat: Vec<LlamaChatMessage> = turns
            .iter()
            .filter_map(|(role, content)| {
                LlamaChatMessage::new((*role).to_string(), content.replace('\0', "")).ok()
            })
            .collect();
        model.apply_chat_template(&template, &chat, true).ok()
    });
    Ok(templated.unwrap_or_else(|| {
        let mut prompt: String = turns
            .iter()
            .map(|(role, content)| format!("<|im_start|>{role}\n{content}<|im_end|>\n"))
            .collect();
        prompt.push_str("<|im_start|>assistant\n");
        prompt
    }))
}

/// Runs the model on `prompt`, sending text pieces as they decode. Returns the prompt and reply
/// token counts.
fn generate(
    engine: &Engine,
    prompt: &str,
    grammar: Option<&str>,
    settings: &LocalSettings,
    stop: &AtomicBool,
    tx: &tokio::sync::mpsc::UnboundedSender<Result<String, String>>,
) -> (u64, u64) {
    let fail = |message: String| {
        let _ = tx.send(Err(message));
        (0, 0)
    };
    let threads = match settings.threads {
        0 => std::thread::available_parallelism()
            .map_or(2, |n| n.get())
            .min(4),
        n => n as usize,
    };
    let threads = i32::try_from(threads).unwrap_or(1);
    let params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(settings.ctx))
        .with_n_batch(settings.ctx)
        .with_n_threads(threads)
        .with_n_threads_batch(threads);
    let mut ctx = match engine.model.new_context(engine.backend, params) {
        Ok(ctx) => ctx,
        Err(err) => return fail(format!("cannot create a context: {err}")),
    };
    let vocab = engine.model.vocab();
    let tokens = vocab.tokenize(prompt.as_bytes(), true, true);
    let budget = (settings.ctx as usize).saturating_sub(tokens.len());
    if budget < 16 {
        return fail(format!(
            "the conversation ({} tokens) does not fit the context of {} tokens (SWEBASH_AI_LOCAL_CTX)",
            tokens.len(),
            settings.ctx
        ));
    }
    let mut batch = LlamaBatch::new(tokens.len().max(1), 1);
    let last = tokens.len().saturating_sub(1);
    for (i, token) in tokens.iter().enumerate() {
        if batch
            .add(
                *token,
                i32::try_from(i).unwrap_or(i32::MAX),
                &[0],
                i == last,
            )
            .is_err()
        {
            return fail("the prompt does not fit a batch".into());
        }
    }
    if let Err(err) = ctx.decode(&mut batch) {
        return fail(format!("cannot evaluate the prompt: {err}"));
    }
    let mut samplers = Vec::new();
    if let Some(grammar) = grammar {
        match LlamaSampler::grammar(&engine.model, grammar, "root") {
            Ok(sampler) => samplers.push(sampler),
            Err(err) => return fail(format!("the grammar was rejected: {err}")),
        }
    }
    samplers.push(LlamaSampler::greedy());
    let mut sampler = LlamaSampler::chain_simple(samplers);
    let mut position = tokens.len();
    let mut produced = 0u64;
    let mut pending: Vec<u8> = Vec::new();
    let mut logits_at = batch.n_tokens() - 1;
    while (produced as usize) < budget.min(MAX_REPLY_TOKENS) && !stop.load(Ordering::Relaxed) {
        let token = sampler.sample(&ctx, logits_at);
        if vocab.is_eog(token) {
            break;
        }
        produced += 1;
        pending.extend(vocab.token_to_piece(token, false, None));
        // A character may span tokens: send only whole UTF-8.
        let valid = match std::str::from_utf8(&pending) {
            Ok(text) => text.len(),
            Err(err) => err.valid_up_to(),
        };
        if valid > 0 {
            let text: Vec<u8> = pending.drain(..valid).collect();
            if tx
                .send(Ok(String::from_utf8_lossy(&text).into_owned()))
                .is_err()
            {
                break;
            }
        }
        batch.clear();
        if batch
            .add(
                token,
                i32::try_from(position).unwrap_or(i32::MAX),
                &[0],
                true,
            )
            .is_err()
        {
            break;
        }
        position += 1;
        if let Err(err) = ctx.decode(&mut batch) {
            return fail(format!("generation failed: {err}"));
        }
        logits_at = 0;
    }
    (tokens.len() as u64, produced)
}
