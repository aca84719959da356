//! The engine's own thread: it owns the model and one llama.cpp context for as long as the
//! `Engine` lives, and runs requests one after another. Keeping the context keeps its KV cache:
//! the next request (the next iteration of a tool turn, the next REPL turn) shares its start with
//! the last one, and only the tokens after the shared start are evaluated again.

use std::num::NonZeroU32;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::model::LlamaModel;

use super::generate::{PROMPT_CHUNK, Piece, Session};
use super::loaded::{backend, load_model, render};
use crate::config::LocalSettings;
use crate::protocol::Message;

/// One request: the conversation, an optional grammar, and where the pieces go.
pub(crate) struct Job {
    pub(crate) messages: Vec<Message>,
    pub(crate) grammar: Option<String>,
    /// The catalogue says the model thinks unless told not to (its template may say so too).
    pub(crate) no_thinking: bool,
    /// Set when the caller no longer wants the reply (Ctrl-C, a dropped request).
    pub(crate) stop: Arc<AtomicBool>,
    pub(crate) pieces: tokio::sync::mpsc::UnboundedSender<Piece>,
}

/// A loaded model, ready to generate: a handle to the thread that owns it.
pub(crate) struct Engine {
    /// `None` only while being dropped.
    jobs: Option<mpsc::Sender<Job>>,
    /// Set when the handle goes: the thread runs no request still queued.
    closing: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// The thread ends before the handle does: a process that exits (Ctrl-C) while llama.cpp still
/// computes on another thread crashes in llama.cpp's own teardown. A stopped request ends
/// within one token, or one chunk of its prompt.
impl Drop for Engine {
    fn drop(&mut self) {
        self.closing
            .store(true, std::sync::atomic::Ordering::Relaxed);
        drop(self.jobs.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Engine {
    /// Loads the model at `path` on a new thread and waits until it is ready (blocking: call it
    /// off the async runtime). The thread ends when the `Engine` is dropped.
    pub(crate) fn load(path: &Path, settings: &LocalSettings) -> Result<Engine, String> {
        let (jobs, incoming) = mpsc::channel();
        let (ready, loaded) = mpsc::sync_channel(1);
        let path = path.to_path_buf();
        let settings = settings.clone();
        let closing = Arc::new(AtomicBool::new(false));
        let seen = Arc::clone(&closing);
        let thread = std::thread::Builder::new()
            .name("ai-engine".into())
            .spawn(move || serve(&path, &settings, &ready, &incoming, &seen))
            .map_err(|err| format!("cannot start the engine's thread: {err}"))?;
        loaded
            .recv()
            .map_err(|_| "the engine stopped while loading the model".to_string())??;
        Ok(Engine {
            jobs: Some(jobs),
            closing,
            thread: Some(thread),
        })
    }

    /// Queues a request; its pieces arrive on the job's channel.
    pub(crate) fn submit(&self, job: Job) -> Result<(), String> {
        self.jobs
            .as_ref()
            .and_then(|jobs| jobs.send(job).ok())
            .ok_or_else(|| "the engine's thread has stopped".to_string())
    }
}

/// The thread's life: load, make the context, then serve requests until the handle is dropped.
fn serve(
    path: &Path,
    settings: &LocalSettings,
    ready: &mpsc::SyncSender<Result<(), String>>,
    jobs: &mpsc::Receiver<Job>,
    closing: &AtomicBool,
) {
    let loaded = backend().and_then(|backend| Ok((backend, load_model(backend, path)?)));
    let (backend, model) = match loaded {
        Ok(loaded) => loaded,
        Err(err) => {
            let _ = ready.send(Err(err));
            return;
        }
    };
    let ctx = match model.new_context(backend, context_params(settings)) {
        Ok(ctx) => ctx,
        Err(err) => {
            let _ = ready.send(Err(format!("cannot create a context: {err}")));
            return;
        }
    };
    if ready.send(Ok(())).is_err() {
        return;
    }
    let mut session = Session::new(&model, ctx);
    while let Ok(job) = jobs.recv() {
        // Requests still queued when the engine goes are not evaluated.
        if closing.load(std::sync::atomic::Ordering::Relaxed) {
            let _ = job
                .pieces
                .send(Piece::Failed("the engine is closing".into()));
            continue;
        }
        run(&model, &mut session, &job);
    }
}

fn run(model: &LlamaModel, session: &mut Session<'_>, job: &Job) {
    let prompt = render(model, &job.messages, job.no_thinking);
    let sent = match session.generate(&prompt, job.grammar.as_deref(), &job.stop, &job.pieces) {
        Ok(counts) => Piece::Done(counts),
        Err(message) => Piece::Failed(message),
    };
    let _ = job.pieces.send(sent);
}

/// llama.cpp's `LLAMA_FLASH_ATTN_TYPE_DISABLED`. Its default (auto) turns flash attention on for
/// the CPU, where measured with benches/local.sh each token cost more the longer the answer grew.
const FLASH_ATTENTION_OFF: i32 = 0;

fn context_params(settings: &LocalSettings) -> LlamaContextParams {
    let threads = match settings.threads {
        0 => physical_cores(),
        n => n as usize,
    };
    let threads = i32::try_from(threads).unwrap_or(1);
    LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(settings.ctx))
        .with_n_batch(PROMPT_CHUNK as u32)
        .with_n_ubatch(PROMPT_CHUNK as u32)
        .with_n_threads(threads)
        .with_n_threads_batch(threads)
        .with_flash_attention_policy(FLASH_ATTENTION_OFF)
}

/// Physical cores (hyper-threads share one core's arithmetic units, and llama.cpp's threads wait
/// on each other): distinct (package, core) pairs in /proc/cpuinfo, else the logical count.
fn physical_cores() -> usize {
    let logical = std::thread::available_parallelism().map_or(1, |n| n.get());
    let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else {
        return logical;
    };
    let mut package = "";
    let mut cores = std::collections::HashSet::new();
    for line in info.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        match key.trim() {
            "physical id" => package = value.trim(),
            "core id" => {
                cores.insert((package, value.trim()));
            }
            _ => {}
        }
    }
    // A container may be limited to fewer CPUs than the machine has cores.
    match cores.len() {
        0 => logical,
        n => n.min(logical),
    }
}
