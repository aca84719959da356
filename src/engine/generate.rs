//! Generation: the prompt evaluated in one batch, then one token at a time, each piece sent as
//! soon as it is whole UTF-8, until the end of the reply, the budget, or a stop.

use std::num::NonZeroU32;
use std::sync::atomic::{AtomicBool, Ordering};

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::sampling::LlamaSampler;

use super::Engine;
use crate::config::LocalSettings;

/// The most tokens one reply may have.
const MAX_REPLY_TOKENS: usize = 2048;

/// Runs the model on `prompt`, sending text pieces as they decode. Returns the prompt and reply
/// token counts.
pub(crate) fn generate(
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
