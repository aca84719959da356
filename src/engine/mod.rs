//! The embedded engine: a GGUF model run inside `ai` by llama.cpp, no server and no key. It
//! loads a model, renders a conversation with the model's own chat template, and generates text
//! (optionally held to a grammar) on the caller's thread. Which model (`catalogue`, `model`) and
//! fetching it once (`download`) need no llama.cpp. `provider::local` is what makes it a
//! provider.

pub(crate) mod catalogue;
mod checksum;
pub(crate) mod download;
#[cfg(feature = "local")]
mod generate;
#[cfg(feature = "local")]
mod loaded;
pub(crate) mod model;

#[cfg(feature = "local")]
pub(crate) use generate::generate;
#[cfg(feature = "local")]
pub(crate) use loaded::{Engine, grammar_of};
