//! Property tests of configuration: any config.toml text and any environment values give
//! settings or a configuration error, never a panic.

use std::path::Path;

use proptest::prelude::*;

use super::{Env, FileLayer, Flags, KEYS, env_name, resolve};

/// Values that reach the edges: huge and negative numbers, floats, odd text.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "0",
            "-1",
            "1e30",
            "1e-30",
            "NaN",
            "inf",
            "-inf",
            "18446744073709551616",
            "4294967296",
            "0.05",
            "3600.1",
            "true",
            "off",
            "",
            " ",
            "auto",
            "native",
            "required",
            "f",
            "workspace",
            "http://[::1",
            "cwd:tmp",
            ":::",
            "\u{e9}",
            "\u{0}",
        ])
        .prop_map(String::from),
        any::<String>(),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|n| n.to_string()),
    ]
}

/// TOML: mostly well-formed lines with any key and a value of any type, sometimes junk.
fn toml_text() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        4 => (prop::sample::select(KEYS), value())
            .prop_map(|(key, value)| format!("{key} = {}", toml_quote(&value))),
        2 => (prop::sample::select(KEYS), value()).prop_map(|(key, value)| format!("{key} = {value}")),
        1 => (prop::sample::select(KEYS), prop::collection::vec(value(), 0..4))
            .prop_map(|(key, items)| {
                let items: Vec<String> = items.iter().map(|v| toml_quote(v)).collect();
                format!("{key} = [{}]", items.join(", "))
            }),
        1 => Just("[[mcp_servers]]\nname = \"x\"\ncommand = \"true\"".to_string()),
        1 => Just("[mcp_servers]".to_string()),
        1 => any::<String>(),
    ];
    prop::collection::vec(line, 0..8).prop_map(|lines| lines.join("\n"))
}

/// A TOML basic string (JSON's escapes are TOML's, near enough: a rare miss is just junk).
fn toml_quote(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

proptest! {
    // 256 cases by default; `PROPTEST_CASES=20000` (read by the default config) for a long run.
    #![proptest_config(ProptestConfig::default())]

    #[test]
    fn any_config_file_and_environment_resolve_or_fail_cleanly(
        text in toml_text(),
        env_values in prop::collection::vec((prop::sample::select(KEYS), value()), 0..6),
    ) {
        let file = FileLayer::parse(&text, Path::new("/cfg/config.toml")).unwrap_or_default();
        let names: Vec<(String, String)> = env_values
            .iter()
            .map(|(key, value)| (env_name(key), value.clone()))
            .collect();
        let env = Env::from_pairs(names.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let _ = resolve(&Flags::default(), &env, &file);
    }

    #[test]
    fn deeply_nested_toml_is_an_error_not_a_stack_overflow(
        depth in prop_oneof![3 => 1usize..300, 1 => 1_000usize..50_000],
        open in prop::sample::select(vec!["[", "{a="]),
    ) {
        let text = format!("model = {}", open.repeat(depth));
        prop_assert!(FileLayer::parse(&text, Path::new("/c")).is_err());
    }
}
