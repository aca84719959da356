//! The safe table's network and infrastructure clients: `curl`/`wget` only fetch (no data, form,
//! upload, method or config file; output only into the project), and container, cloud and infra
//! CLIs only with their read-only verbs.

use super::safe::{Judged, operands, subcommand};
use super::shell::Word;

/// curl options that only change how a GET is made or shown; the bool says whether it takes a value.
const CURL_LONG: &[(&str, bool)] = &[
    ("--silent", false),
    ("--show-error", false),
    ("--location", false),
    ("--fail", false),
    ("--fail-with-body", false),
    ("--head", false),
    ("--include", false),
    ("--verbose", false),
    ("--insecure", false),
    ("--compressed", false),
    ("--max-time", true),
    ("--connect-timeout", true),
    ("--retry", true),
    ("--retry-delay", true),
    ("--user-agent", true),
    ("--header", true),
    ("--referer", true),
    ("--write-out", true),
    ("--output", true),
    ("--remote-name", false),
    ("--request", true),
    ("--get", false),
    ("--http1.1", false),
    ("--http2", false),
    ("--ipv4", false),
    ("--ipv6", false),
    ("--url", true),
    ("--range", true),
    ("--progress-bar", false),
    ("--no-progress-meter", false),
    ("--no-buffer", false),
    ("--globoff", false),
    ("--max-redirs", true),
    ("--max-filesize", true),
    ("--proto", true),
    ("--proto-redir", true),
    ("--location-trusted", false),
    ("--retry-all-errors", false),
    ("--json", true),
];

/// One-letter curl options allowed, and those of them that take a value.
const CURL_SHORT: &str = "sSLfIivkmAHewoOXGr46#NgZ";
const CURL_SHORT_VALUE: &str = "mAHewoXr";

pub fn curl(_name: &str, args: &[Word], judged: &mut Judged) {
    judged.network = true;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        if let Some(long) = text.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (long, None),
            };
            let flag = format!("--{name}");
            match CURL_LONG.iter().find(|(n, _)| *n == flag) {
                Some(("--json", _)) | None => {
                    judged.ask(format!(
                        "`curl {flag}` can send data, upload or write files"
                    ));
                    return;
                }
                Some((_, true)) => {
                    let value = inline.map(str::to_string).or_else(|| {
                        i += 1;
                        args.get(i).map(|w| w.text.clone())
                    });
                    curl_value(&flag, value.as_deref(), args.get(i), judged);
                }
                Some((_, false)) => {}
            }
        } else if let Some(cluster) = text.strip_prefix('-').filter(|c| !c.is_empty()) {
            for (pos, c) in cluster.char_indices() {
                if !CURL_SHORT.contains(c) {
                    judged.ask(format!("`curl -{c}` can send data, upload or write files"));
                    return;
                }
                if CURL_SHORT_VALUE.contains(c) {
                    let glued = &cluster[pos + c.len_utf8()..];
                    let value = if glued.is_empty() {
                        i += 1;
                        args.get(i).map(|w| w.text.clone())
                    } else {
                        Some(glued.to_string())
                    };
                    curl_value(&format!("-{c}"), value.as_deref(), args.get(i), judged);
                    break;
                }
                if c == 'O' {
                    judged.dirs.push(Word::literal("."));
                }
            }
        } else if let Some(path) = text.strip_prefix("file://") {
            judged.reads.push(Word::literal(path));
        }
        i += 1;
    }
}

fn curl_value(flag: &str, value: Option<&str>, word: Option<&Word>, judged: &mut Judged) {
    let value = value.unwrap_or("");
    match flag {
        "-X" | "--request"
            if !value.eq_ignore_ascii_case("GET") && !value.eq_ignore_ascii_case("HEAD") =>
        {
            judged.ask(format!("`curl -X {value}` changes data on a server"));
        }
        "-o" | "--output" if !matches!(value, "-" | "/dev/null") => {
            let mut target = word.cloned().unwrap_or_else(|| Word::literal(value));
            target.text = value.to_string();
            judged.outputs.push(target);
        }
        "-H" | "--header" if value.starts_with('@') => {
            judged.ask("`curl -H @file` sends a file's contents");
        }
        _ => {}
    }
}

pub fn wget(_name: &str, args: &[Word], judged: &mut Judged) {
    judged.network = true;
    let mut writes_here = true;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        let (flag, inline) = match text.split_once('=') {
            Some((flag, value)) if text.starts_with("--") => (flag, Some(value)),
            _ => (text, None),
        };
        match flag {
            "-q"
            | "--quiet"
            | "-S"
            | "--server-response"
            | "--spider"
            | "-nv"
            | "--no-verbose"
            | "--no-check-certificate"
            | "-c"
            | "--continue"
            | "-4"
            | "-6"
            | "--https-only" => {}
            "-T" | "--timeout" | "-t" | "--tries" | "-U" | "--user-agent" | "--header"
            | "--max-redirect" => {
                if inline.is_none() {
                    i += 1;
                }
            }
            "-O" | "--output-document" => {
                let value = inline.map(str::to_string).or_else(|| {
                    i += 1;
                    args.get(i).map(|w| w.text.clone())
                });
                if let Some(value) = value.filter(|v| v != "-" && v != "/dev/null") {
                    judged.outputs.push(Word::literal(value));
                }
                writes_here = false;
            }
            _ if flag.starts_with("-O") && flag.len() > 2 => {
                judged.outputs.push(Word::literal(&flag[2..]));
                writes_here = false;
            }
            _ if !flag.starts_with('-') => {}
            _ => {
                judged.ask(format!(
                    "`wget {flag}` can send data, upload or write files"
                ));
                return;
            }
        }
        i += 1;
    }
    if writes_here && !args.iter().any(|a| a.text == "--spider") {
        judged.dirs.push(Word::literal("."));
    }
}

/// Words that name secrets in cloud and cluster commands: reading them exposes credentials.
const SECRET_WORDS: &[&str] = &[
    "secret",
    "password",
    "credential",
    "token",
    "decrypt",
    "private",
    "key",
    "auth",
];

/// Container, cluster, infrastructure and cloud CLIs: only their read-only verbs.
pub fn infra(name: &str, args: &[Word], judged: &mut Judged) {
    judged.network = true;
    let ops: Vec<&str> = operands(args).map(|w| w.text.as_str()).collect();
    let names_secret = ops.iter().any(|op| {
        let lower = op.to_ascii_lowercase();
        SECRET_WORDS.iter().any(|s| lower.contains(s))
    });
    let first = ops.first().copied().unwrap_or("");
    let safe = match name {
        "docker" | "podman" => match first {
            "ps" | "images" | "logs" | "inspect" | "version" | "info" | "history" | "port"
            | "top" | "stats" => first != "stats" || args.iter().any(|a| a.text == "--no-stream"),
            "compose" => matches!(
                ops.get(1).copied(),
                Some("ps" | "logs" | "ls" | "images" | "version")
            ),
            "image" | "container" | "network" | "volume" | "context" => {
                matches!(ops.get(1).copied(), Some("ls" | "list" | "inspect"))
            }
            "" => args.iter().any(|a| a.text == "--version" || a.text == "-v"),
            _ => false,
        },
        "kubectl" | "oc" => match first {
            "get" | "describe" | "logs" | "explain" | "top" | "api-resources" | "api-versions"
            | "cluster-info" | "version" => true,
            "config" => {
                matches!(
                    ops.get(1).copied(),
                    Some("view" | "get-contexts" | "current-context")
                ) && !args
                    .iter()
                    .any(|a| a.text == "--raw" || a.text == "--flatten")
            }
            "auth" => ops.get(1) == Some(&"can-i"),
            _ => false,
        },
        "helm" => matches!(
            first,
            "list"
                | "ls"
                | "status"
                | "version"
                | "history"
                | "lint"
                | "template"
                | "show"
                | "search"
        ),
        "terraform" | "tofu" => match first {
            "plan" | "validate" | "show" | "version" | "providers" | "graph" => true,
            "fmt" => args
                .iter()
                .any(|a| a.text == "-check" || a.text == "--check"),
            _ => false,
        },
        "aws" => {
            let verb = ops.get(1).copied().unwrap_or("");
            verb.starts_with("describe-")
                || (verb.starts_with("list-") || verb.starts_with("get-")) && verb != "get-object"
                || (first == "s3" && verb == "ls")
                || first == "--version"
        }
        "gcloud" | "az" => {
            ops.iter()
                .any(|op| matches!(*op, "list" | "describe" | "show"))
                || first == "version"
        }
        "gh" => match first {
            "pr" | "issue" | "run" | "release" | "repo" | "workflow" => {
                matches!(
                    ops.get(1).copied(),
                    Some("list" | "view" | "status" | "diff" | "checks")
                )
            }
            "status" | "search" | "version" | "--version" => true,
            _ => false,
        },
        _ => false,
    };
    if names_secret && safe {
        judged.ask(format!(
            "`{name} {}` reads secrets or credentials",
            ops.join(" ")
        ));
    } else if !safe {
        let what = subcommand(args).unwrap_or("");
        judged.ask(infra_reason(name, what));
    }
}

fn infra_reason(name: &str, what: &str) -> String {
    let changes = match name {
        "docker" | "podman" => "containers or images",
        "kubectl" | "oc" | "helm" => "a cluster",
        "terraform" | "tofu" => "real infrastructure",
        "aws" | "gcloud" | "az" => "cloud resources",
        _ => "remote state",
    };
    format!("`{name} {what}` can change {changes} (only read-only verbs run without asking)")
}
