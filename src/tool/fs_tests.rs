//! Tests of the filesystem tool on real files in temp dirs.

use super::*;

fn ctx(dir: &Path, max: u64) -> ToolContext {
    let cwd = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    ToolContext {
        cwd,
        home: None,
        secret: |path, _| path.ends_with("secret.key").then(|| "a test secret".into()),
        fs_max_size: max,
        exec: crate::tool::ExecSettings {
            shell: "/bin/sh".into(),
            timeout: std::time::Duration::from_secs(5),
            strip_env: Vec::new(),
            sandbox_env: Vec::new(),
        },
    }
}

fn call(dir: &Path, max: u64, args: Value) -> ToolOutcome {
    let parsed: Result<FsArgs, _> = parse_arguments(&args);
    match parsed {
        Ok(parsed) => run(&parsed, &ctx(dir, max)),
        Err(message) => panic_free_invalid(&message),
    }
}

fn panic_free_invalid(message: &str) -> ToolOutcome {
    ToolOutcome::failed(
        CallErrorCode::InvalidArguments,
        ToolResult::fail(ToolErrorType::ValidationError, message),
    )
}

#[test]
fn the_schema_still_requires_a_path_so_constrained_models_always_give_one() {
    let schema = schema_of::<FsArgs>();
    let required = schema["required"].as_array().cloned().unwrap_or_default();
    assert!(required.contains(&json!("path")), "{schema}");
    assert!(required.contains(&json!("operation")), "{schema}");
}

#[test]
fn a_link_that_leads_to_a_secret_when_opened_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("secret.key"), "PRIVATE").unwrap();
    // The name looks harmless; what it opens is the secret (as after a swap).
    std::os::unix::fs::symlink(dir.path().join("secret.key"), dir.path().join("notes.txt"))
        .unwrap();
    let out = call(
        dir.path(),
        1 << 20,
        json!({"operation": "read", "path": "notes.txt"}),
    );
    assert!(!out.result.success);
    assert_eq!(out.error_code, Some(CallErrorCode::Denied));
    assert!(!out.result.data.to_string().contains("PRIVATE"));
}

/// A hard link is the same file under another name: read through a harmless name, a secret
/// under its other name is still refused (sandbox round 16: a call linked `.env.local` to a
/// name of its own before the user wrote the key in).
#[test]
fn a_hard_link_of_a_secret_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "API_KEY=PRIVATE").unwrap();
    std::fs::hard_link(dir.path().join("notes.txt"), dir.path().join(".env.local")).unwrap();
    let out = call(
        dir.path(),
        1 << 20,
        json!({"operation": "read", "path": "notes.txt"}),
    );
    assert_eq!(
        out.error_code,
        Some(CallErrorCode::Denied),
        "{:?}",
        out.result
    );
    assert!(!out.result.data.to_string().contains("PRIVATE"));
    std::fs::remove_file(dir.path().join(".env.local")).unwrap();
    crate::config::forget_other_names();
    let out = call(
        dir.path(),
        1 << 20,
        json!({"operation": "read", "path": "notes.txt"}),
    );
    assert!(
        out.result.success,
        "one name again, it is read: {:?}",
        out.result
    );
}

/// A tool's settings file holding a credential is a secret to every reader, as to the
/// sandbox (sandbox round 17: `database.yml` was hidden from calls but read for the model).
#[test]
fn a_settings_file_holding_a_credential_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("gradle.properties"),
        "org.gradle.jvmargs=-Xmx2g\nsigning.password=PRIVATE\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("settings.xml"), "<settings/>").unwrap();
    let ctx = ToolContext {
        secret: crate::config::sensitive,
        ..ctx(dir.path(), 1 << 20)
    };
    let read = |path: &str| {
        let args: FsArgs = parse_arguments(&json!({"operation": "read", "path": path})).unwrap();
        run(&args, &ctx)
    };
    let out = read("gradle.properties");
    assert_eq!(
        out.error_code,
        Some(CallErrorCode::Denied),
        "{:?}",
        out.result
    );
    assert!(!out.result.data.to_string().contains("PRIVATE"));
    assert!(read("settings.xml").result.success, "no credential, read");
}

/// A file a secret-named link leads to is a secret, and so is all below a secret-named link to
/// a directory: what the user writes there lands in it (sandbox rounds 18 and 19:
/// `.env.local -> notes.md`, `.envs -> notes`).
#[test]
fn a_file_a_secret_named_link_leads_to_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("notes/.production")).unwrap();
    std::fs::write(dir.path().join("notes.md"), "STRIPE_SECRET_KEY=PRIVATE").unwrap();
    std::fs::write(dir.path().join("notes/.production/.django"), "KEY=PRIVATE").unwrap();
    std::os::unix::fs::symlink("notes.md", dir.path().join(".env.local")).unwrap();
    std::os::unix::fs::symlink("notes", dir.path().join(".envs")).unwrap();
    crate::config::forget_other_names();
    for path in ["notes.md", "notes/.production/.django"] {
        let out = call(
            dir.path(),
            1 << 20,
            json!({"operation": "read", "path": path}),
        );
        assert_eq!(
            out.error_code,
            Some(CallErrorCode::Denied),
            "{path}: {:?}",
            out.result
        );
        assert!(!out.result.data.to_string().contains("PRIVATE"));
    }
}

#[test]
fn read_numbers_lines_and_windows_them() {
    let dir = tempfile::tempdir().unwrap();
    assert!(std::fs::write(dir.path().join("f.txt"), "one\ntwo\nthree\nfour\n").is_ok());
    let out = call(
        dir.path(),
        1 << 20,
        json!({"operation": "read", "path": "f.txt", "offset": 2, "limit": 2}),
    );
    assert!(out.result.success);
    assert_eq!(
        out.result.data["content"],
        json!("     2\ttwo\n     3\tthree\n")
    );
    assert_eq!(out.result.data["next_offset"], json!(4));
    assert_eq!(out.result.data["total_lines"], json!(4));
    assert!(out.output_truncated);
}

#[test]
fn read_stops_at_the_size_limit_and_says_where_to_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..100).map(|i| format!("line {i}\n")).collect();
    assert!(std::fs::write(dir.path().join("big.txt"), text).is_ok());
    let out = call(
        dir.path(),
        64,
        json!({"operation": "read", "path": "big.txt"}),
    );
    let content = out.result.data["content"].as_str().unwrap_or_default();
    assert!(content.len() <= 64 && !content.is_empty());
    assert!(out.result.data["next_offset"].as_u64().is_some());
}

#[test]
fn binary_and_non_utf8_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    assert!(std::fs::write(dir.path().join("b.bin"), [0u8, 1, 2, 3]).is_ok());
    assert!(
        std::fs::write(
            dir.path().join("l.txt"),
            [b'o', b'k', b'\n', 0xff, 0xfe, b'\n']
        )
        .is_ok()
    );
    let bin = call(
        dir.path(),
        1 << 20,
        json!({"operation": "read", "path": "b.bin"}),
    );
    assert!(!bin.result.success && bin.result.error.unwrap_or_default().contains("binary"));
    let latin = call(
        dir.path(),
        1 << 20,
        json!({"operation": "read", "path": "l.txt"}),
    );
    assert!(
        latin
            .result
            .error
            .unwrap_or_default()
            .contains("not UTF-8 text (line 2)")
    );
}

#[test]
fn list_respects_gitignore_and_marks_directories() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    assert!(
        std::fs::create_dir_all(p.join("src")).is_ok()
            && std::fs::create_dir_all(p.join("target")).is_ok()
    );
    assert!(std::fs::write(p.join(".gitignore"), "target/\n*.log\n").is_ok());
    assert!(
        std::fs::write(p.join("a.log"), "x").is_ok()
            && std::fs::write(p.join("Cargo.toml"), "x").is_ok()
    );
    let out = call(p, 1 << 20, json!({"operation": "list", "path": "."}));
    assert_eq!(
        out.result.data["entries"],
        json!([".gitignore", "Cargo.toml", "src/"])
    );
}

#[test]
fn exists_metadata_and_missing_files() {
    let dir = tempfile::tempdir().unwrap();
    assert!(std::fs::write(dir.path().join("f"), "abc").is_ok());
    let yes = call(
        dir.path(),
        1 << 20,
        json!({"operation": "exists", "path": "f"}),
    );
    assert_eq!(yes.result.data["exists"], json!(true));
    let no = call(
        dir.path(),
        1 << 20,
        json!({"operation": "exists", "path": "g"}),
    );
    assert_eq!(no.result.data["exists"], json!(false));
    let meta = call(
        dir.path(),
        1 << 20,
        json!({"operation": "metadata", "path": "f"}),
    );
    assert_eq!(meta.result.data["size"], json!(3));
    let missing = call(
        dir.path(),
        1 << 20,
        json!({"operation": "read", "path": "g"}),
    );
    assert_eq!(missing.result.error_type, Some(ToolErrorType::UserError));
}

#[test]
fn validation_names_the_field() {
    let tool = FilesystemTool;
    let missing = tool
        .validate(&json!({"operation": "read"}))
        .err()
        .unwrap_or_default();
    assert!(missing.contains("`path`"), "{missing}");
    let bad_op = tool
        .validate(&json!({"operation": "write", "path": "x"}))
        .err()
        .unwrap_or_default();
    assert!(bad_op.contains("`write`"), "{bad_op}");
    assert!(
        tool.validate(&json!({"operation": "read", "path": "x", "offset": 0}))
            .is_err()
    );
}

#[test]
fn a_fifo_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    // On today's code this open blocks forever: no writer ever comes.
    let out = call(
        dir.path(),
        1 << 20,
        json!({"operation": "read", "path": "pipe"}),
    );
    let error = out.result.error.unwrap_or_default();
    assert!(error.contains("is a fifo, not a regular file"), "{error}");
    let meta = call(
        dir.path(),
        1 << 20,
        json!({"operation": "metadata", "path": "pipe"}),
    );
    assert_eq!(meta.result.data["type"], json!("fifo"));
}

#[test]
fn devices_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = call(
        dir.path(),
        1 << 20,
        json!({"operation": "read", "path": "/dev/zero"}),
    );
    let error = out.result.error.unwrap_or_default();
    assert!(error.contains("is a device"), "{error}");
}

#[test]
fn a_huge_sparse_file_costs_at_most_the_size_limit() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sparse.txt");
    let file = File::create(&path).unwrap();
    let text: String = (1..=2000).map(|i| format!("line {i}\n")).collect();
    std::io::Write::write_all(&mut &file, text.as_bytes()).unwrap();
    // 64 GiB on paper, nothing on disk: one endless line of NULs after the text.
    file.set_len(64 << 30).unwrap();
    let out = call(
        dir.path(),
        4096,
        json!({"operation": "read", "path": "sparse.txt"}),
    );
    assert!(out.result.success, "{:?}", out.result.error);
    let content = out.result.data["content"].as_str().unwrap();
    assert!(content.starts_with("     1\tline 1\n") && content.len() <= 4096);
    assert_eq!(out.result.data["truncated"], json!(true));
    assert!(
        out.result.data["note"]
            .as_str()
            .unwrap()
            .contains("4096 bytes")
    );
    let far = call(
        dir.path(),
        4096,
        json!({"operation": "read", "path": "sparse.txt", "offset": 1500}),
    );
    let error = far.result.error.unwrap_or_default();
    assert!(error.contains("past the first 4096 bytes"), "{error}");
}
