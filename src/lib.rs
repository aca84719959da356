//! swebash-ai: the library behind the `ai` binary. `app::run` is the whole program; the modules
//! below it follow the dependency direction of STYLE.md (protocol at the bottom, app at the top).

pub mod agent;
pub mod app;
pub mod audit;
pub mod cli;
pub mod commands;
pub mod config;
pub mod conversation;
#[cfg(feature = "local")]
pub mod engine;
pub mod environ;
pub mod error;
pub mod excerpt;
pub mod journal;
pub mod net;
pub mod policy;
pub mod protocol;
pub mod provider;
pub mod repl;
pub mod sandbox;
pub mod schema;
pub mod session;
pub mod shell;
pub mod stats;
pub mod tool;
pub mod toolformat;
pub mod ui;
