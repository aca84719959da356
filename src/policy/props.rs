//! Property tests of the command classifier: any text, any nesting, gives a verdict and never a
//! panic or a stack overflow; deep nesting asks; a safe line stays safe inside `bash -c`.

use proptest::prelude::*;

use super::{Policy, Roots, Rules, Verdict};

fn policy() -> Policy {
    let cwd = std::env::temp_dir();
    let roots = Roots::new(&["cwd".into()], &cwd, &cwd, None);
    Policy::new(
        roots,
        Some("/nonexistent-home".into()),
        cwd.clone(),
        cwd,
        Rules::default(),
    )
}

/// Shell-ish text: the characters that make the grammar interesting, and any Unicode.
fn shellish() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("$(".to_string()),
            Just(")".to_string()),
            Just("`".to_string()),
            Just("'".to_string()),
            Just("\"".to_string()),
            Just("<(".to_string()),
            Just(" | ".to_string()),
            Just(" && ".to_string()),
            Just("; ".to_string()),
            Just(" > ".to_string()),
            Just("<<EOF\n".to_string()),
            Just("bash -c ".to_string()),
            Just("{a,b}".to_string()),
            Just("*".to_string()),
            Just("\\".to_string()),
            Just("rm -rf ".to_string()),
            Just("ls ".to_string()),
            "[a-z~/.$]{1,6}",
            any::<String>(),
        ],
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #[test]
    fn any_text_gets_a_verdict(line in shellish()) {
        let assessment = policy().command(&line);
        prop_assert!(!assessment.reasons.is_empty());
    }

    #[test]
    fn deep_nesting_asks_instead_of_overflowing(depth in 257usize..320, kind in 0usize..4) {
        let (open, close) = [("$(", ")"), ("(", ")"), ("`echo ", "`"), ("{ ", "; }")][kind];
        let line = format!("{}ls{}", open.repeat(depth), close.repeat(depth));
        let assessment = policy().command(&line);
        prop_assert!(assessment.verdict >= Verdict::Ask, "{:?}", assessment.reasons);
    }

    #[test]
    fn nested_shell_strings_are_bounded(depth in 1usize..9) {
        let mut line = "ls".to_string();
        for _ in 0..depth {
            line = format!("bash -c {}", shell_quote(&line));
        }
        let assessment = policy().command(&line);
        let want = if depth <= 6 { Verdict::Allow } else { Verdict::Ask };
        prop_assert_eq!(assessment.verdict, want, "{:?}", assessment.reasons);
    }
}

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}
