//! Integration tests: the real `ai` binary against a scripted fake OpenAI-compatible server.
// A test harness should fail loudly at the first surprise; that is what expect and panic do here.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]
// The library denies `pub` that nothing outside can reach; a test binary's helpers are `pub` for
// its own modules, and nothing outside it exists.
#![allow(unreachable_pub)]

mod answers_in_every_mode;
mod approval_scope;
mod attacker;
mod bash_reads_otherwise;
mod cli;
mod endings;
mod faults;
mod fileserver;
mod first_run;
mod harm_needs_a_person;
mod harness;
mod history;
mod launcher;
mod layering;
mod loop_rules;
mod mcp;
mod output_schema;
mod policy;
mod project_doc;
mod prompt_tools;
mod provider;
mod providers;
mod pty;
mod pull;
mod repl;
mod sandbox;
mod sandbox_approvals;
mod sandbox_direnv;
mod sandbox_fetch;
mod sandbox_git;
mod sandbox_git_config;
mod sandbox_links;
mod sandbox_network;
mod sandbox_persistence;
mod sandbox_secret_names;
mod sandbox_secrets;
mod sandbox_shadowing;
mod server;
mod shell;
mod stats;
mod status;
mod tool_loop;
mod wallclock;
