//! The embedded engine: a GGUF model run inside `ai` by llama.cpp, no server and no key. It
//! loads a model, renders a conversation with the model's own chat template, and generates text
//! (optionally held to a grammar) on the caller's thread; `download` fetches a model once.
//! `provider::local` is what makes it a provider.

// Only the engine's provider (`provider::local`, with the `local` feature) downloads models.
#[cfg_attr(not(feature = "local"), allow(dead_code))]
pub(crate) mod download;
#[cfg(feature = "local")]
mod generate;
#[cfg(feature = "local")]
mod loaded;

#[cfg(feature = "local")]
pub(crate) use generate::generate;
#[cfg(feature = "local")]
pub(crate) use loaded::{Engine, grammar_of};
