//! How fast the prompt-based parsers are: 1 MB of model text parsed whole, and fed to the
//! streaming parser one byte (character) at a time. Prints MB/s; run with `cargo bench`.

#![allow(clippy::print_stdout)] // a benchmark reports on stdout

use std::time::Instant;

use swebash_ai::toolformat::bench::{families, parse_both_ways, parse_streamed, parse_whole};

fn corpus() -> String {
    let mut text = String::new();
    while text.len() < 1 << 20 {
        text.push_str("Some prose with `inline code`, a [link](x) and <b>tags</b>. ");
        text.push_str("```rust\nfn main() { println!(\"{}\", 1); }\n```\n");
    }
    text.push_str("<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>");
    text
}

fn main() {
    let text = corpus();
    let mb = text.len() as f64 / (1 << 20) as f64;
    for family in families() {
        let started = Instant::now();
        let whole = parse_whole(family, &text).unwrap_or_default();
        let whole_secs = started.elapsed().as_secs_f64();
        let started = Instant::now();
        parse_streamed(family, &text);
        let stream_secs = started.elapsed().as_secs_f64();
        assert!(
            parse_both_ways(family, &text).is_some(),
            "{family}: streaming and whole parses differ"
        );
        println!(
            "{family:<8} whole {:>7.1} MB/s   streamed a character at a time {:>7.1} MB/s   ({whole} calls)",
            mb / whole_secs,
            mb / stream_secs,
        );
    }
}
