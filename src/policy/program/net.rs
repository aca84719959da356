//! Records of network and infrastructure clients: `curl`/`wget` only fetch (no data, form,
//! upload, method or config file; output only into the project), and container, cloud and infra
//! CLIs only with their read-only verbs.

use super::Program;
use crate::policy::args::{operands, subcommand};
use crate::policy::judged::Judged;
use crate::policy::shell::Word;

pub(super) const PROGRAMS: &[Program] = &[
    Program::new(&["curl"]).checked(fetch),
    Program::new(&["wget"]).checked(fetch),
    // Container, cloud and forge clients: read-only subcommands only (`client`).
    Program::new(&["docker", "podman"]).checked(docker),
    Program::new(&["kubectl", "oc"]).checked(kubectl),
    Program::new(&["terraform", "tofu"]).checked(terraform),
    Program::new(&["aws"]).checked(aws),
    Program::new(&["gcloud"]).checked(gcloud_az),
    Program::new(&["az"]).checked(gcloud_az),
    Program::new(&["gh"]).checked(gh),
];

/// `curl`, `wget`: every request can carry what the model has read (in its URL, its headers or
/// its body), so none runs unasked; `file://` and `@file` arguments are still checked for secrets
/// (a secret is denied even with approval).
pub(crate) fn fetch(name: &str, _args: &[Word], judged: &mut Judged) {
    judged.network = true;
    judged.ask(format!(
        "`{name}` sends a request over the network, which can carry what the model has read"
    ));
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

/// Its read-only forms, by its first operand, all its operands and its arguments.
type ReadOnly = fn(&str, &[&str], &[Word]) -> bool;

/// Options that point a client at another server, account or directory of code.
const ELSEWHERE: &[&str] = &[
    "--server",
    "-s",
    "--kubeconfig",
    "--token",
    "--context",
    "--cluster",
    "--as",
    "--endpoint-url",
    "--profile",
    "-H",
    "--host",
    "--config",
    "-chdir",
    "--chdir",
    "--registry-config",
    "--post-renderer",
    "--repo",
    "-out",
    "--kube-apiserver",
];

/// A container, cluster, infrastructure or cloud client: it talks to the network; options that
/// point it elsewhere ask; only its read-only forms (`safe`), naming no secret, run unasked.
fn client(name: &str, args: &[Word], judged: &mut Judged, changes: &str, safe: ReadOnly) {
    judged.network = true;
    if let Some(arg) = args.iter().find(|a| {
        let name = a.text.split_once('=').map_or(a.text.as_str(), |(n, _)| n);
        ELSEWHERE.contains(&name) || name.starts_with("--flat") || name.starts_with("--raw")
    }) {
        judged.ask(format!(
            "`{name} {}` points it at another server, account or directory, or prints raw \
             credentials",
            arg.text
        ));
        return;
    }
    let names_secret = args.iter().any(|arg| {
        let lower = arg.text.to_ascii_lowercase();
        SECRET_WORDS.iter().any(|s| lower.contains(s)) || lower.starts_with("--raw")
    });
    let ops: Vec<&str> = operands(args).map(|w| w.text.as_str()).collect();
    let first = ops.first().copied().unwrap_or("");
    let safe = safe(first, &ops, args);
    if names_secret && safe {
        let words: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
        judged.ask(format!(
            "`{name} {}` reads secrets or credentials",
            words.join(" ")
        ));
    } else if !safe {
        let what = subcommand(args).unwrap_or("");
        judged.ask(format!(
            "`{name} {what}` can change {changes} (only read-only verbs run without asking)"
        ));
    }
}

fn docker(name: &str, args: &[Word], judged: &mut Judged) {
    // `compose -f FILE` runs what FILE describes: the project's own only.
    if name.ends_with("-compose") || args.iter().any(|a| a.text == "compose") {
        let files = crate::policy::args::option_values(args, &["-f", "--file"]);
        judged.scripts.extend(files);
        let dirs = crate::policy::args::option_values(args, &["--project-directory"]);
        judged.dirs.extend(dirs);
        // An env file feeds the compose file's interpolation: the project's own only.
        let env_files = crate::policy::args::option_values(args, &["--env-file"]);
        judged.scripts.extend(env_files);
    }
    client(
        name,
        args,
        judged,
        "containers or images",
        |first, ops, args| match first {
            "ps" | "images" | "logs" | "version" | "info" | "history" | "port" | "top"
            | "stats" => first != "stats" || args.iter().any(|a| a.text == "--no-stream"),
            "compose" => matches!(
                ops.get(1).copied(),
                Some("ps" | "logs" | "ls" | "images" | "version")
            ),
            "image" | "container" | "network" | "volume" | "context" => {
                matches!(ops.get(1).copied(), Some("ls" | "list"))
            }
            "" => args.iter().any(|a| a.text == "--version" || a.text == "-v"),
            _ => false,
        },
    );
}

fn kubectl(name: &str, args: &[Word], judged: &mut Judged) {
    client(
        name,
        args,
        judged,
        "a cluster",
        |first, ops, args| match first {
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
    );
}

fn terraform(name: &str, args: &[Word], judged: &mut Judged) {
    client(
        name,
        args,
        judged,
        "real infrastructure",
        |first, _, args| match first {
            "plan" | "validate" | "version" | "providers" | "graph" => true,
            "fmt" => args
                .iter()
                .any(|a| a.text == "-check" || a.text == "--check"),
            _ => false,
        },
    );
}

fn aws(name: &str, args: &[Word], judged: &mut Judged) {
    client(name, args, judged, "cloud resources", |first, ops, _| {
        let verb = ops.get(1).copied().unwrap_or("");
        verb.starts_with("describe-")
            || (verb.starts_with("list-") || verb.starts_with("get-")) && verb != "get-object"
            || (first == "s3" && verb == "ls")
            || first == "--version"
    });
}

fn gcloud_az(name: &str, args: &[Word], judged: &mut Judged) {
    client(name, args, judged, "cloud resources", |first, ops, _| {
        ops.iter()
            .any(|op| matches!(*op, "list" | "describe" | "show"))
            || first == "version"
    });
}

fn gh(name: &str, args: &[Word], judged: &mut Judged) {
    client(
        name,
        args,
        judged,
        "remote state",
        |first, ops, _| match first {
            "pr" | "issue" | "run" | "release" | "repo" | "workflow" => {
                matches!(
                    ops.get(1).copied(),
                    Some("list" | "view" | "status" | "diff" | "checks")
                )
            }
            "status" | "search" | "version" | "--version" => true,
            _ => false,
        },
    );
}
