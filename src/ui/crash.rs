//! The last line of defence: a panic (a bug, never bad input) ends `ai` with one line on stderr
//! and exit code 1, whatever the build's panic strategy, with what was already printed kept.

use std::io::Write;
use std::panic::PanicHookInfo;

/// The exit code of an internal error: a runtime failure (DESIGN §2), not Rust's 101 or abort's 134.
const INTERNAL_ERROR_EXIT: i32 = 1;

/// Replaces Rust's panic message and backtrace with one line asking for a report. The backtrace
/// is printed only when `backtrace` (`RUST_BACKTRACE`) asks for it.
pub(crate) fn install_panic_hook(backtrace: bool) {
    std::panic::set_hook(Box::new(move |info| {
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(stderr, "{}", internal_error_line(info));
        if backtrace {
            let _ = writeln!(stderr, "{}", std::backtrace::Backtrace::force_capture());
        }
        // Exiting here (rather than unwinding or aborting) flushes the answer printed so far and
        // gives the same code in the `dist` profile, which aborts on panic.
        let _ = std::io::stdout().flush();
        std::process::exit(INTERNAL_ERROR_EXIT);
    }));
}

fn internal_error_line(info: &PanicHookInfo<'_>) -> String {
    let payload = info.payload();
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string());
    let place = info
        .location()
        .map(|l| format!(" at {}:{}", l.file(), l.line()))
        .unwrap_or_default();
    let what = super::sanitize(&what).replace('\n', " ");
    format!("ai: internal error: {what}{place} (please report)")
}
