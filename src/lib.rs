//! swebash-ai: the library behind the `ai` binary. `app::run` is the whole program; the modules
//! below it follow the dependency direction of STYLE.md (protocol at the bottom, app at the top).

pub(crate) mod agent;
pub mod app;
pub(crate) mod audit;
pub mod cli;
pub(crate) mod commands;
pub(crate) mod config;
pub(crate) mod conversation;
pub(crate) mod engine;
pub(crate) mod environ;
pub(crate) mod error;
pub(crate) mod excerpt;
pub(crate) mod journal;
pub(crate) mod net;
pub(crate) mod policy;
pub(crate) mod protocol;
pub(crate) mod provider;
pub(crate) mod repl;
pub mod sandbox;
pub(crate) mod schema;
pub(crate) mod session;
pub(crate) mod shell;
pub(crate) mod stats;
pub(crate) mod tool;
pub mod toolformat;
pub(crate) mod ui;
