//! The embedded engine: a GGUF model run inside `ai` by llama.cpp, no server and no key. It
//! loads a model, renders a conversation with the model's own chat template, and generates text
//! (optionally held to a grammar) on a thread of its own that keeps the KV cache between
//! requests. Which model (`catalogue`, `model`) and fetching it once (`download`) need no
//! llama.cpp. `provider::local` is what makes it a provider.

pub(crate) mod catalogue;
mod checksum;
pub(crate) mod download;
#[cfg(feature = "local")]
mod generate;
#[cfg(feature = "local")]
mod loaded;
pub(crate) mod model;
#[cfg(feature = "local")]
mod worker;

#[cfg(feature = "local")]
pub(crate) use generate::Piece;
#[cfg(feature = "local")]
pub(crate) use loaded::grammar_of;
#[cfg(feature = "local")]
pub(crate) use worker::{Engine, Job};
