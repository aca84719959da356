//! How a command run in the sandbox failed, read from its exit code and error output: a limit
//! stopped it, or the sandbox refused something (which must never be reported as success).

/// What the sandbox refused, read from a failed command's error output: `None` when nothing
/// there looks like a refusal. Landlock answers EACCES or EPERM; with the network closed
/// (`network_closed`) every failed connection is the sandbox's doing, whatever the client
/// makes of the error (curl: "Couldn't connect to server").
pub(crate) fn refusal(stderr: &str, network_closed: bool) -> Option<String> {
    const SIGNS: &[&str] = &[
        "Permission denied",
        "Operation not permitted",
        "Read-only file system",
        "EACCES",
        "EPERM",
    ];
    const NETWORK: &[&str] = &[
        "Couldn't connect to server",
        "Failed to connect",
        "Network is unreachable",
        "Connection refused",
    ];
    let signs = || {
        let network = NETWORK.iter().filter(|_| network_closed);
        SIGNS.iter().chain(network)
    };
    let line = stderr
        .lines()
        .find(|line| signs().any(|sign| line.contains(sign)))?;
    let line: String = line.trim().chars().take(300).collect();
    Some(line)
}

/// A note for a command a limit stopped (`None` when none did).
pub(crate) fn limit_note(exit_code: Option<i32>, stderr: &str) -> Option<String> {
    const SIGXFSZ_EXIT: i32 = 128 + 25;
    if exit_code == Some(SIGXFSZ_EXIT) || stderr.contains("File size limit exceeded") {
        return Some("stopped by the sandbox: a file reached its size limit".into());
    }
    let fork_failed = [
        "Cannot fork",
        "fork: Resource temporarily unavailable",
        "fork: retry",
    ];
    if fork_failed.iter().any(|s| stderr.contains(s)) {
        return Some("stopped by the sandbox: the command reached its process limit".into());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_are_named_by_the_line_that_shows_them() {
        let stderr = "building\ntouch: cannot touch '/home/u/x': Permission denied\nmore\n";
        assert_eq!(
            refusal(stderr, false).as_deref(),
            Some("touch: cannot touch '/home/u/x': Permission denied")
        );
        assert_eq!(refusal("error: no such file\n", true), None);
        let curl = "curl: (7) Failed to connect to 127.0.0.1 port 9: Couldn't connect to server";
        assert!(refusal(curl, true).is_some());
        assert_eq!(refusal(curl, false), None);
    }

    #[test]
    fn limits_are_recognised_by_signal_or_message() {
        assert!(limit_note(Some(153), "").is_some());
        assert!(limit_note(Some(2), "sh: 1: Cannot fork").is_some());
        assert_eq!(limit_note(Some(1), "Permission denied"), None);
    }
}
