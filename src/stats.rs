//! `ai --stats`: the metrics of the tool-calling design, read back from the audit log: calls per
//! tool with success and failure rates and median and p95 durations, the distribution of
//! iteration depth, and tokens in and out per model for turns with tools and without. Lines are
//! parsed into borrowed structs (no `Value` trees), so 10,000 lines take milliseconds.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One audit line: a tool call, or (with `type: "turn"`) the end of a turn.
#[derive(Deserialize)]
struct Line<'a> {
    #[serde(default, rename = "type")]
    kind: Option<&'a str>,
    #[serde(default)]
    time_unix_ms: u64,
    #[serde(default)]
    tool: Option<&'a str>,
    #[serde(default)]
    ok: Option<bool>,
    #[serde(default)]
    exit_code: Option<i64>,
    #[serde(default)]
    duration_ms: Option<u64>,
    #[serde(default)]
    model: Option<&'a str>,
    #[serde(default)]
    iterations: Option<u32>,
    #[serde(default)]
    tool_calls: Option<u32>,
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
}

#[derive(Debug, Default, Serialize, PartialEq)]
pub(crate) struct ToolStats {
    pub(crate) calls: u64,
    /// Ran and worked: no error and, for a command, exit status 0.
    pub(crate) succeeded: u64,
    pub(crate) failed: u64,
    pub(crate) success_rate: f64,
    pub(crate) median_ms: u64,
    pub(crate) p95_ms: u64,
    #[serde(skip)]
    durations: Vec<u64>,
}

#[derive(Debug, Default, Serialize, PartialEq)]
pub(crate) struct Tokens {
    pub(crate) turns: u64,
    /// `null` when no server reported token counts for these turns.
    pub(crate) input_tokens: Option<u64>,
    pub(crate) output_tokens: Option<u64>,
}

#[derive(Debug, Default, Serialize, PartialEq)]
pub(crate) struct ModelStats {
    pub(crate) with_tools: Tokens,
    pub(crate) without_tools: Tokens,
}

#[derive(Debug, Default, Serialize, PartialEq)]
pub(crate) struct Stats {
    pub(crate) since_unix_ms: u64,
    pub(crate) tool_calls: u64,
    pub(crate) turns: u64,
    pub(crate) tools: BTreeMap<String, ToolStats>,
    /// Turns by how many model requests they made.
    pub(crate) iterations: BTreeMap<u32, u64>,
    pub(crate) models: BTreeMap<String, ModelStats>,
    /// Lines that were not JSON (a crash mid-write) and were skipped.
    pub(crate) unreadable_lines: u64,
}

/// The statistics of the audit `texts` (oldest first) from `since_unix_ms` on.
pub(crate) fn compute<'a>(texts: impl IntoIterator<Item = &'a str>, since_unix_ms: u64) -> Stats {
    let mut stats = Stats {
        since_unix_ms,
        ..Stats::default()
    };
    for text in texts {
        for raw in text.lines().filter(|l| !l.trim().is_empty()) {
            match serde_json::from_str::<Line<'_>>(raw) {
                Ok(line) if line.time_unix_ms >= since_unix_ms => add(&mut stats, &line),
                Ok(_) => {}
                Err(_) => stats.unreadable_lines += 1,
            }
        }
    }
    for tool in stats.tools.values_mut() {
        finish(tool);
    }
    stats
}

fn add(stats: &mut Stats, line: &Line<'_>) {
    if line.kind == Some("turn") {
        stats.turns += 1;
        *stats
            .iterations
            .entry(line.iterations.unwrap_or(0))
            .or_default() += 1;
        let model = stats
            .models
            .entry(line.model.unwrap_or("unknown").to_string())
            .or_default();
        let tokens = if line.tool_calls.unwrap_or(0) > 0 {
            &mut model.with_tools
        } else {
            &mut model.without_tools
        };
        tokens.turns += 1;
        add_tokens(&mut tokens.input_tokens, line.input_tokens);
        add_tokens(&mut tokens.output_tokens, line.output_tokens);
        return;
    }
    let Some(name) = line.tool else {
        return;
    };
    stats.tool_calls += 1;
    let tool = stats.tools.entry(name.to_string()).or_default();
    tool.calls += 1;
    if line.ok == Some(true) && line.exit_code.unwrap_or(0) == 0 {
        tool.succeeded += 1;
    } else {
        tool.failed += 1;
    }
    tool.durations.push(line.duration_ms.unwrap_or(0));
}

fn add_tokens(total: &mut Option<u64>, more: Option<u64>) {
    if let Some(more) = more {
        *total = Some(total.unwrap_or(0) + more);
    }
}

fn finish(tool: &mut ToolStats) {
    tool.durations.sort_unstable();
    tool.median_ms = percentile(&tool.durations, 50);
    tool.p95_ms = percentile(&tool.durations, 95);
    // Counts of calls stay far below 2^52: the conversion is exact.
    #[allow(clippy::cast_precision_loss)]
    let rate = tool.succeeded as f64 / tool.calls.max(1) as f64;
    tool.success_rate = (rate * 1000.0).round() / 1000.0;
}

/// The nearest-rank percentile of sorted values.
fn percentile(sorted: &[u64], p: usize) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (p * sorted.len()).div_ceil(100).max(1);
    sorted[rank.min(sorted.len()) - 1]
}

/// `7d`, `12h`, `30m` or `45s` in milliseconds.
pub(crate) fn parse_period(text: &str) -> Option<u64> {
    let text = text.trim();
    let unit = text.chars().last()?;
    let count: u64 = text[..text.len() - unit.len_utf8()].parse().ok()?;
    let seconds = match unit {
        'd' => 86_400,
        'h' => 3_600,
        'm' => 60,
        's' => 1,
        _ => return None,
    };
    count.checked_mul(seconds)?.checked_mul(1000)
}

/// The plain table for a terminal.
pub(crate) fn table(stats: &Stats) -> String {
    let mut out = format!(
        "{} tool calls in {} turns\n\n{:<20} {:>6} {:>6} {:>6} {:>8} {:>9} {:>9}\n",
        stats.tool_calls, stats.turns, "tool", "calls", "ok", "failed", "success", "median", "p95"
    );
    for (name, tool) in &stats.tools {
        out.push_str(&format!(
            "{:<20} {:>6} {:>6} {:>6} {:>7.1}% {:>6} ms {:>6} ms\n",
            name,
            tool.calls,
            tool.succeeded,
            tool.failed,
            tool.success_rate * 100.0,
            tool.median_ms,
            tool.p95_ms
        ));
    }
    out.push_str("\nmodel requests per turn:");
    for (depth, count) in &stats.iterations {
        out.push_str(&format!("  {depth}: {count}"));
    }
    out.push_str(&format!(
        "\n\n{:<32} {:>14} {:>10} {:>10}\n",
        "model", "", "in", "out"
    ));
    let shown = |n: Option<u64>| n.map_or_else(|| "-".to_string(), |n| n.to_string());
    for (name, model) in &stats.models {
        for (label, tokens) in [
            ("with tools", &model.with_tools),
            ("without tools", &model.without_tools),
        ] {
            if tokens.turns > 0 {
                out.push_str(&format!(
                    "{:<32} {:>14} {:>10} {:>10}\n",
                    name,
                    format!("{label} ({})", tokens.turns),
                    shown(tokens.input_tokens),
                    shown(tokens.output_tokens)
                ));
            }
        }
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = r#"{"time_unix_ms":10,"tool":"execute_command","ok":true,"exit_code":101,"duration_ms":800}
{"time_unix_ms":11,"tool":"execute_command","ok":true,"exit_code":0,"duration_ms":200}
{"time_unix_ms":12,"tool":"filesystem","ok":true,"exit_code":null,"duration_ms":1}
{"type":"turn","time_unix_ms":13,"model":"openai/m","iterations":3,"tool_calls":3,"input_tokens":100,"output_tokens":10}
{"type":"turn","time_unix_ms":14,"model":"openai/m","iterations":1,"tool_calls":0,"input_tokens":null,"output_tokens":null}
{"time_unix_ms":15,"tool":"filesy
"#;

    #[test]
    fn counts_rates_durations_depths_and_tokens() {
        let stats = compute([LOG], 0);
        assert_eq!(stats.tool_calls, 3);
        assert_eq!(stats.turns, 2);
        assert_eq!(stats.unreadable_lines, 1);
        let exec = &stats.tools["execute_command"];
        assert_eq!((exec.calls, exec.succeeded, exec.failed), (2, 1, 1));
        assert!((exec.success_rate - 0.5).abs() < f64::EPSILON);
        assert_eq!((exec.median_ms, exec.p95_ms), (200, 800));
        assert_eq!(stats.iterations[&3], 1);
        assert_eq!(stats.iterations[&1], 1);
        let model = &stats.models["openai/m"];
        assert_eq!(model.with_tools.input_tokens, Some(100));
        assert_eq!(model.without_tools.turns, 1);
        assert_eq!(model.without_tools.input_tokens, None);
        assert!(table(&stats).contains("execute_command"));
    }

    #[test]
    fn a_period_leaves_out_older_lines() {
        let stats = compute([LOG], 12);
        assert_eq!(stats.tool_calls, 1);
        assert_eq!(stats.turns, 2);
    }

    #[test]
    fn periods_parse() {
        assert_eq!(parse_period("7d"), Some(604_800_000));
        assert_eq!(parse_period("30m"), Some(1_800_000));
        assert_eq!(parse_period("7"), None);
        assert_eq!(parse_period("d"), None);
        assert_eq!(parse_period("99999999999999999d"), None);
    }
}
