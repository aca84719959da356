//! Generation on a context that outlives requests: the prompt's tokens are compared with what the
//! KV cache already holds, only the rest is evaluated (in chunks, so a stop is seen quickly), then
//! one token at a time is sampled and sent as soon as it is whole UTF-8. Each token costs the same
//! however long the reply grows: nothing re-reads or re-decodes what was already produced.

use std::sync::atomic::{AtomicBool, Ordering};

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;

/// Tokens evaluated per `decode` of a prompt: small enough that a stop is seen within a fraction
/// of a second even for a larger model, large enough to keep llama.cpp's matrix code busy.
pub(super) const PROMPT_CHUNK: usize = 128;

/// What the worker sends back while it runs a request.
#[derive(Debug)]
pub(crate) enum Piece {
    /// A piece of the reply, whole UTF-8.
    Text(String),
    /// The request failed; nothing more comes.
    Failed(String),
    /// The reply is complete (or was stopped): the token counts.
    Done(Counts),
}

/// The most tokens one reply may have.
const MAX_REPLY_TOKENS: usize = 2048;

/// Token counts of one request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    /// The whole prompt.
    pub(crate) prompt: u64,
    /// Of the prompt, the tokens the KV cache already held (not evaluated again).
    pub(crate) cached: u64,
    pub(crate) produced: u64,
}

/// A context and the tokens its KV cache holds, in order from position 0.
pub(super) struct Session<'m> {
    model: &'m LlamaModel,
    ctx: LlamaContext<'m>,
    cached: Vec<LlamaToken>,
}

type Pieces = tokio::sync::mpsc::UnboundedSender<Piece>;

impl<'m> Session<'m> {
    pub(super) fn new(model: &'m LlamaModel, ctx: LlamaContext<'m>) -> Self {
        Session {
            model,
            ctx,
            cached: Vec::new(),
        }
    }

    /// Runs the model on `prompt`, sending text pieces as they decode.
    pub(super) fn generate(
        &mut self,
        prompt: &str,
        grammar: Option<&str>,
        stop: &AtomicBool,
        pieces: &Pieces,
    ) -> Result<Counts, String> {
        // A template that writes the BOS itself (Llama 3, Gemma) must not get a second one.
        let vocab = self.model.vocab();
        let bos = vocab.token_to_piece(vocab.bos(), true, None);
        let has_bos = !bos.is_empty() && prompt.as_bytes().starts_with(&bos);
        let tokens = vocab.tokenize(prompt.as_bytes(), !has_bos, true);
        let window = self.ctx.n_ctx() as usize;
        let budget = window.saturating_sub(tokens.len());
        if budget < 16 {
            return Err(format!(
                "the conversation ({} tokens) does not fit the context of {window} tokens (SWEBASH_AI_LOCAL_CTX)",
                tokens.len(),
            ));
        }
        let mut sampler = sampler(self.model, grammar)?;
        let result = self
            .evaluate(&tokens, stop)
            .and_then(|(cached, logits_at)| {
                let limit = budget.min(MAX_REPLY_TOKENS);
                let produced = self.reply(&mut sampler, logits_at, limit, stop, pieces)?;
                Ok(Counts {
                    prompt: tokens.len() as u64,
                    cached: cached as u64,
                    produced,
                })
            });
        if result.is_err() {
            // What the cache holds after a failed decode is not known: start afresh next time.
            self.forget();
        }
        result
    }

    /// Brings the KV cache to `tokens`: keeps the shared start, evaluates the rest. Returns how
    /// many tokens were kept, and where in the last batch the logits are. The last token is
    /// always evaluated, for its logits.
    fn evaluate(
        &mut self,
        tokens: &[LlamaToken],
        stop: &AtomicBool,
    ) -> Result<(usize, i32), String> {
        let shared = self
            .cached
            .iter()
            .zip(tokens)
            .take_while(|(a, b)| a == b)
            .count()
            .min(tokens.len().saturating_sub(1));
        let start = u32::try_from(shared).map_err(|_| "the prompt is too long".to_string())?;
        let trimmed = self.ctx.clear_kv_cache_seq(Some(0), Some(start), None);
        let shared = if matches!(trimmed, Ok(true)) {
            shared
        } else {
            self.forget();
            0
        };
        self.cached.truncate(shared);
        let mut batch = LlamaBatch::new(PROMPT_CHUNK, 1);
        let rest = &tokens[shared..];
        let mut logits_at = 0;
        for (index, chunk) in rest.chunks(PROMPT_CHUNK).enumerate() {
            if stop.load(Ordering::Relaxed) {
                return Ok((shared, logits_at));
            }
            batch.clear();
            let last_chunk = (index + 1) * PROMPT_CHUNK >= rest.len();
            for (i, token) in chunk.iter().enumerate() {
                let position = self.cached.len() + i;
                let wants_logits = last_chunk && i + 1 == chunk.len();
                batch
                    .add(*token, to_position(position)?, &[0], wants_logits)
                    .map_err(|err| format!("the prompt does not fit a batch: {err}"))?;
            }
            self.ctx
                .decode(&mut batch)
                .map_err(|err| format!("cannot evaluate the prompt: {err}"))?;
            self.cached.extend_from_slice(chunk);
            logits_at = batch.n_tokens() - 1;
        }
        Ok((shared, logits_at))
    }

    /// Samples up to `limit` tokens after the evaluated prompt. Returns how many were produced.
    fn reply(
        &mut self,
        sampler: &mut LlamaSampler,
        mut logits_at: i32,
        limit: usize,
        stop: &AtomicBool,
        pieces: &Pieces,
    ) -> Result<u64, String> {
        let mut produced = 0u64;
        let vocab = self.model.vocab();
        let mut pending: Vec<u8> = Vec::new();
        let mut batch = LlamaBatch::new(1, 1);
        while (produced as usize) < limit && !stop.load(Ordering::Relaxed) {
            let token = sampler.sample(&self.ctx, logits_at);
            if vocab.is_eog(token) {
                break;
            }
            produced += 1;
            vocab.token_to_piece_into(token, &mut pending, false, None);
            if let Some(text) = whole_utf8(&mut pending)
                && pieces.send(Piece::Text(text)).is_err()
            {
                break;
            }
            batch.clear();
            batch
                .add(token, to_position(self.cached.len())?, &[0], true)
                .map_err(|err| format!("generation failed: {err}"))?;
            self.ctx
                .decode(&mut batch)
                .map_err(|err| format!("generation failed: {err}"))?;
            self.cached.push(token);
            logits_at = 0;
        }
        Ok(produced)
    }

    fn forget(&mut self) {
        self.ctx.clear_kv_cache();
        self.cached.clear();
    }
}

/// Greedy sampling, held to `grammar` when there is one.
fn sampler(model: &LlamaModel, grammar: Option<&str>) -> Result<LlamaSampler, String> {
    let mut samplers = Vec::new();
    if let Some(grammar) = grammar {
        let held = LlamaSampler::grammar(model, grammar, "root")
            .map_err(|err| format!("the grammar was rejected: {err}"))?;
        samplers.push(held);
    }
    samplers.push(LlamaSampler::greedy());
    Ok(LlamaSampler::chain_simple(samplers))
}

/// Takes the whole UTF-8 characters off the front of `pending` (a character may span tokens).
fn whole_utf8(pending: &mut Vec<u8>) -> Option<String> {
    let valid = match std::str::from_utf8(pending) {
        Ok(text) => text.len(),
        Err(err) => err.valid_up_to(),
    };
    (valid > 0).then(|| {
        let text: Vec<u8> = pending.drain(..valid).collect();
        String::from_utf8_lossy(&text).into_owned()
    })
}

fn to_position(index: usize) -> Result<i32, String> {
    i32::try_from(index).map_err(|_| "the conversation is too long".to_string())
}
