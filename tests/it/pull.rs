//! `ai --pull` and the embedded engine's first use, end to end through the binary against a real
//! local file server: a made-up file stands for the model (its SHA-256 given through
//! SWEBASH_AI_MODEL_SHA256), so nothing here needs the real one or the network.

use std::path::PathBuf;

use crate::fileserver::{FileServer, Serve, made_up_file, sha256};
use crate::harness::Ai;

/// Where the default model (`qwen3-1.7b`) is kept in the sandbox's cache.
fn default_model(ai: &Ai) -> PathBuf {
    ai.root_dir()
        .join("cache/swebash-ai/models/Qwen3-1.7B-Q4_K_M.gguf")
}

fn with_suffix(path: &std::path::Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// A sandbox whose default model is mirrored at `url` with the checksum `sha`.
fn mirrored(url: &str, sha: &str) -> Ai {
    Ai::bare()
        .env("SWEBASH_AI_MODEL_URL", url)
        .env("SWEBASH_AI_MODEL_SHA256", sha)
}

#[test]
fn a_pull_downloads_verifies_records_the_checksum_and_a_second_pull_only_checks() {
    let body = made_up_file(50_000);
    let sha = sha256(&body);
    let server = FileServer::start(Serve {
        body: body.clone(),
        ..Serve::default()
    });
    let ai = mirrored(&server.url("tiny.gguf"), &sha).arg("--pull");
    let run = ai.run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let model = default_model(&ai);
    assert_eq!(run.stdout.trim(), model.display().to_string());
    assert_eq!(std::fs::read(&model).expect("the model is in place"), body);
    let record = std::fs::read_to_string(with_suffix(&model, ".sha256")).expect("record");
    assert!(record.starts_with(&sha), "{record}");
    assert!(!with_suffix(&model, ".part").exists());
    // Without a terminal: one line when it starts, one when it ends.
    assert!(
        run.stderr.contains("downloading the model qwen3-1.7b")
            && run.stderr.contains(&server.url("tiny.gguf")),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("is ready") && run.stderr.contains("verified"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stderr.lines().count(), 2, "{}", run.stderr);
    let again = ai.run();
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(
        again.stderr.contains("downloaded and verified"),
        "{}",
        again.stderr
    );
    assert_eq!(again.stdout.trim(), model.display().to_string());
    assert_eq!(
        server.gets().len(),
        1,
        "a verified model is not fetched again"
    );
}

#[test]
fn an_interrupted_download_resumes_with_a_range_request() {
    let body = made_up_file(60_000);
    let server = FileServer::start(Serve {
        body: body.clone(),
        cut_first_after: Some(20_000),
        ..Serve::default()
    });
    let ai = mirrored(&server.url("tiny.gguf"), &sha256(&body)).arg("--pull");
    let run = ai.run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let requests = server.gets();
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert_eq!(requests[0].range, None);
    assert_eq!(requests[1].range.as_deref(), Some("bytes=20000-"));
    assert_eq!(std::fs::read(default_model(&ai)).expect("model"), body);
}

/// `ai --pull` of a 30,000-byte model whose `.part` already holds its first `left` bytes.
fn pull_with_a_part_of(left: usize) -> (Ai, crate::harness::Run, FileServer, Vec<u8>) {
    let body = made_up_file(30_000);
    let server = FileServer::start(Serve {
        body: body.clone(),
        ..Serve::default()
    });
    let ai = mirrored(&server.url("tiny.gguf"), &sha256(&body)).arg("--pull");
    let part = with_suffix(&default_model(&ai), ".part");
    std::fs::create_dir_all(part.parent().expect("dir")).expect("models dir");
    std::fs::write(&part, &body[..left]).expect("part");
    let run = ai.run();
    (ai, run, server, body)
}

#[test]
fn a_part_left_by_an_earlier_run_is_continued_not_fetched_again() {
    let (ai, run, server, body) = pull_with_a_part_of(12_345);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let requests = server.gets();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(requests[0].range.as_deref(), Some("bytes=12345-"));
    assert_eq!(std::fs::read(default_model(&ai)).expect("model"), body);
}

#[test]
fn a_whole_part_left_by_a_stopped_check_is_checked_not_fetched_again() {
    let (ai, run, server, body) = pull_with_a_part_of(30_000);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let requests = server.gets();
    assert!(requests.len() <= 1, "{requests:?}");
    assert_eq!(std::fs::read(default_model(&ai)).expect("model"), body);
}

#[test]
fn a_resume_asks_with_if_range_and_a_file_changed_on_the_host_is_read_again_whole() {
    let old = made_up_file(30_000);
    let mut new = old.clone();
    new[0] ^= 0xff;
    let server = FileServer::start(Serve {
        body: new.clone(),
        cut_first_after: Some(10_000),
        etag: Some("\"v1\"".into()),
        ..Serve::default()
    });
    let ai = mirrored(&server.url("tiny.gguf"), &sha256(&new)).arg("--pull");
    // The first run breaks off and keeps the version it began with; the host changes the file.
    let first = ai.run();
    assert_eq!(first.code, 0, "{}", first.stderr);
    let requests = server.gets();
    assert_eq!(
        requests[1].if_range.as_deref(),
        Some("\"v1\""),
        "{requests:?}"
    );
    // A .part of an older version (its validator says so): not spliced onto the new bytes.
    let model = default_model(&ai);
    std::fs::remove_file(&model).expect("remove");
    let part = with_suffix(&model, ".part");
    std::fs::write(&part, &old[..10_000]).expect("part");
    std::fs::write(with_suffix(&part, ".validator"), "\"v0\"").expect("validator");
    let second = ai.run();
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert_eq!(std::fs::read(&model).expect("model"), new);
    let last = server.gets().pop().expect("a get");
    assert_eq!(last.if_range.as_deref(), Some("\"v0\""));
    assert!(!with_suffix(&part, ".validator").exists());
}

#[test]
fn a_second_pull_while_one_is_under_way_says_so_and_leaves_it_alone() {
    let body = made_up_file(20_000);
    let server = FileServer::start(Serve {
        body: body.clone(),
        ..Serve::default()
    });
    let ai = mirrored(&server.url("tiny.gguf"), &sha256(&body)).arg("--pull");
    let dir = default_model(&ai).parent().expect("dir").to_path_buf();
    std::fs::create_dir_all(&dir).expect("models dir");
    // Another pull holds the directory's lock (flock(1) stands in for it) until told to stop.
    let mut holder = std::process::Command::new("flock")
        .arg(&dir)
        .args(["-c", "read line"])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("flock");
    let start = std::time::Instant::now();
    let run = loop {
        let run = ai.run();
        // Until flock(1) holds the lock, the pull may simply succeed: then try again.
        if run.code != 0 || start.elapsed() > std::time::Duration::from_secs(10) {
            break run;
        }
        std::fs::remove_file(default_model(&ai)).expect("remove");
    };
    drop(holder.stdin.take());
    let _ = holder.wait();
    assert_eq!(run.code, 1, "{}", run.stderr);
    // The line it starts with, then the error in one line.
    let last = run.stderr.lines().last().unwrap_or_default();
    assert!(last.contains("another ai is downloading"), "{}", run.stderr);
    assert!(run.stderr.lines().count() <= 2, "{}", run.stderr);
    assert!(!with_suffix(&default_model(&ai), ".part").exists());
    let again = ai.run();
    assert_eq!(again.code, 0, "{}", again.stderr);
}

#[test]
fn a_server_that_ignores_range_is_read_again_from_the_start() {
    let body = made_up_file(40_000);
    let server = FileServer::start(Serve {
        body: body.clone(),
        cut_first_after: Some(10_000),
        ignore_range: true,
        ..Serve::default()
    });
    let ai = mirrored(&server.url("tiny.gguf"), &sha256(&body)).arg("--pull");
    let run = ai.run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let requests = server.gets();
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert_eq!(requests[1].range.as_deref(), Some("bytes=10000-"));
    assert_eq!(
        std::fs::read(default_model(&ai)).expect("model"),
        body,
        "the whole file, not the first part twice"
    );
}

#[test]
fn a_wrong_checksum_fails_in_one_line_and_leaves_neither_the_model_nor_the_part() {
    let body = made_up_file(20_000);
    let expected = sha256(b"some other file");
    let server = FileServer::start(Serve {
        body: body.clone(),
        ..Serve::default()
    });
    let url = server.url("tiny.gguf");
    let ai = mirrored(&url, &expected).arg("--pull");
    let run = ai.run();
    assert_eq!(run.code, 1, "{}", run.stderr);
    let line = run
        .stderr
        .lines()
        .find(|l| l.starts_with("ai: error:"))
        .unwrap_or_default();
    for part in [expected.as_str(), sha256(&body).as_str(), url.as_str()] {
        assert!(line.contains(part), "{part} missing from: {}", run.stderr);
    }
    let model = default_model(&ai);
    assert!(!model.exists());
    assert!(!with_suffix(&model, ".part").exists());
    assert!(!with_suffix(&model, ".sha256").exists());
}

#[test]
fn a_checksum_the_host_announces_on_its_redirect_is_checked_when_none_is_pinned() {
    let body = made_up_file(10_000);
    let good = FileServer::start(Serve {
        body: body.clone(),
        announce: Some(sha256(&body)),
        redirect: true,
        ..Serve::default()
    });
    let ai = Ai::bare().args(&["--pull", &good.url("resolve/mine.gguf")]);
    let run = ai.run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("verified"), "{}", run.stderr);
    let record = ai
        .root_dir()
        .join("cache/swebash-ai/models/mine.gguf.sha256");
    let record = std::fs::read_to_string(record).expect("the learned hash is recorded");
    assert!(record.starts_with(&sha256(&body)), "{record}");
    let methods: Vec<String> = good.requests().iter().map(|r| r.method.clone()).collect();
    assert_eq!(
        methods.first().map(String::as_str),
        Some("HEAD"),
        "{methods:?}"
    );
    let bad = FileServer::start(Serve {
        body,
        announce: Some(sha256(b"not it")),
        redirect: true,
        ..Serve::default()
    });
    let run = Ai::bare()
        .args(&["--pull", &bad.url("resolve/mine.gguf")])
        .run();
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains(&sha256(b"not it")), "{}", run.stderr);
}

#[test]
fn a_checksum_announced_with_the_bytes_is_checked_too() {
    let body = made_up_file(10_000);
    let server = FileServer::start(Serve {
        body,
        announce: Some(sha256(b"not it either")),
        ..Serve::default()
    });
    let run = Ai::bare().args(&["--pull", &server.url("mine.gguf")]).run();
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains(&sha256(b"not it either")),
        "{}",
        run.stderr
    );
}

#[test]
fn a_pinned_size_refuses_a_file_of_another_size() {
    let server = FileServer::start(Serve {
        body: made_up_file(5_000),
        ..Serve::default()
    });
    let ai = Ai::bare()
        .env("SWEBASH_AI_MODEL_URL", &server.url("smol.gguf"))
        .args(&["--pull", "smollm2-135m"]);
    let run = ai.run();
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("5000 bytes") && run.stderr.contains("98362432"),
        "{}",
        run.stderr
    );
    let models = ai.root_dir().join("cache/swebash-ai/models");
    let left: Vec<_> = std::fs::read_dir(&models)
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_network_error_names_the_url_and_the_ways_around_it() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/m.gguf", listener.local_addr().expect("addr"));
    drop(listener);
    let run = mirrored(&url, &"a".repeat(64)).arg("--pull").run();
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains(&url), "{}", run.stderr);
    assert!(
        run.stderr.contains("SWEBASH_AI_MODEL_PATH") && run.stderr.contains("SWEBASH_AI_MODEL_URL"),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr.contains("server running") && !run.stderr.contains("SWEBASH_AI_BASE_URL"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_unknown_model_name_is_a_usage_error_listing_the_catalogue() {
    let run = Ai::bare().args(&["--pull", "gpt-4o"]).run();
    assert_eq!(run.code, 2, "{}", run.stderr);
    for name in ["qwen3-1.7b", "qwen3-0.6b", "qwen3-4b", "smollm2-135m"] {
        assert!(run.stderr.contains(name), "{name}: {}", run.stderr);
    }
    let both = Ai::bare().args(&["--pull", "--man"]).run();
    assert_eq!(both.code, 2, "{}", both.stderr);
}

#[test]
fn a_model_file_of_ones_own_needs_no_pull() {
    let ai = Ai::bare().file("mine.gguf", "GGUF");
    let path = ai.work().join("mine.gguf").display().to_string();
    let run = ai.args(&["--pull", &path]).run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.trim(), path);
}

#[cfg(feature = "local")]
mod first_use {
    use super::*;
    use crate::harness::wait_for_raw_mode;

    /// At a terminal, a run whose model is missing asks first (name, size, where from and to),
    /// then downloads with a progress bar; a "no" downloads nothing and names `ai --pull`.
    fn first_use_at_a_terminal(answer: &str) -> (Ai, String, FileServer) {
        let body = made_up_file(400_000);
        let server = FileServer::start(Serve {
            body: body.clone(),
            slow_pieces: Some(40_000),
            ..Serve::default()
        });
        let ai = mirrored(&server.url("tiny.gguf"), &sha256(&body))
            .env("TERM", "xterm")
            .arg("what is in Cargo.toml?");
        let mut session = rexpect::session::spawn_command(ai.pty_command(), Some(20_000))
            .expect("spawn in a pty");
        session
            .exp_string("qwen3-1.7b")
            .expect("the model is named");
        session.exp_string("Apache-2.0").expect("its licence");
        session
            .exp_string("Download it now?")
            .expect("the question");
        wait_for_raw_mode(&session);
        session.send(answer).expect("send the answer");
        session.flush().expect("flush");
        let rest = session.exp_eof().unwrap_or_default();
        (ai, rest, server)
    }

    #[test]
    fn at_a_terminal_first_use_asks_then_shows_progress() {
        let (ai, rest, server) = first_use_at_a_terminal("y");
        assert!(
            rest.contains("downloading qwen3-1.7b"),
            "no progress: {rest}"
        );
        assert!(rest.contains("is ready"), "{rest}");
        assert_eq!(server.gets().len(), 1);
        assert!(default_model(&ai).exists(), "{rest}");
    }

    #[test]
    fn at_a_terminal_a_no_downloads_nothing_and_names_the_pull_command() {
        let (ai, rest, server) = first_use_at_a_terminal("n");
        assert!(rest.contains("ai --pull qwen3-1.7b"), "{rest}");
        assert!(server.gets().is_empty(), "nothing is fetched after a no");
        assert!(!default_model(&ai).exists());
    }

    #[test]
    fn no_terminal_and_no_model_exits_2_naming_the_pull_command_and_the_size() {
        let ai = Ai::bare().args(&["--json", "what is in Cargo.toml?"]);
        let run = ai.run();
        assert_eq!(run.code, 2, "{}", run.stderr);
        let line = run
            .stderr
            .lines()
            .find(|l| l.starts_with("ai: error:"))
            .unwrap_or_default();
        assert!(
            line.contains("ai --pull qwen3-1.7b")
                && line.contains("1.1 GB")
                && line.contains("SWEBASH_AI_MODEL_PATH"),
            "{}",
            run.stderr
        );
        assert_eq!(run.json()["error"]["kind"], "config");
        assert!(
            !ai.root_dir().join("cache/swebash-ai/models").exists(),
            "nothing is downloaded without asking"
        );
    }

    #[test]
    fn an_unknown_model_for_the_engine_lists_the_catalogue() {
        let run = Ai::bare()
            .env("SWEBASH_AI_MODEL", "gpt-4o")
            .arg("hello")
            .run();
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(
            run.stderr.contains("SWEBASH_AI_MODEL") && run.stderr.contains("qwen3-0.6b"),
            "{}",
            run.stderr
        );
    }

    #[test]
    fn show_config_says_why_the_engine_and_whether_its_model_is_on_disk() {
        let run = Ai::bare().arg("--show-config").run();
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(
            run.stdout.contains("nothing configured")
                && run.stdout.contains("qwen3-1.7b")
                && run.stdout.contains("not downloaded: ai --pull qwen3-1.7b"),
            "{}",
            run.stdout
        );
    }
}

#[test]
fn show_config_says_a_key_in_the_environment_chose_the_provider() {
    let run = Ai::bare()
        .env("OPENAI_API_KEY", "sk-test")
        .arg("--show-config")
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("OPENAI_API_KEY is set in the environment"),
        "{}",
        run.stdout
    );
}
