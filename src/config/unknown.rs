//! Settings that look meant for `ai` but are not ones it reads: a misspelt variable would
//! otherwise be ignored in silence, and the user would wonder why their setting does nothing.

use super::{ENV_PREFIX as PREFIX, Env, FileLayer, KEYS, PROBE_VAR, env_name};

/// Tables of the file that are read outside the settings table.
const FILE_TABLES: &[&str] = &["policy", "mcp_servers"];

/// One warning per key or table of the config file that is no setting, with the closest known
/// one when one is near (`[polciy]`: did you mean `[policy]`?).
pub(crate) fn unknown_file_keys(file: &FileLayer) -> Vec<String> {
    let known: Vec<String> = (KEYS.iter().chain(FILE_TABLES))
        .map(|k| (*k).to_string())
        .collect();
    file.keys()
        .filter(|key| !known.iter().any(|k| k == key))
        .map(|key| {
            let place = file.place(key);
            match closest(key, &known) {
                Some(near) if FILE_TABLES.contains(&near) => {
                    format!("{place} is not a setting of ai (did you mean [{near}]?)")
                }
                Some(near) => format!("{place} is not a setting of ai (did you mean `{near}`?)"),
                None => format!("{place} is not a setting of ai (ai --show-config lists them)"),
            }
        })
        .collect()
}

/// Variables read outside the settings table (`SWEBASH_AI_TEST_*` belong to the test suite).
const OTHER_VARS: &[&str] = &[PROBE_VAR];

/// One warning per unknown `SWEBASH_AI_*` variable, with the closest known name when one is near.
pub(crate) fn unknown_env_vars(env: &Env) -> Vec<String> {
    let known: Vec<String> = KEYS
        .iter()
        .map(|key| env_name(key))
        .chain(OTHER_VARS.iter().map(|v| (*v).to_string()))
        .collect();
    let mut names: Vec<&str> = env
        .names()
        .filter(|name| name.starts_with(PREFIX) && !name.starts_with("SWEBASH_AI_TEST_"))
        .filter(|name| !known.iter().any(|k| k == name))
        .collect();
    names.sort_unstable();
    names
        .into_iter()
        .map(|name| match closest(name, &known) {
            Some(near) => format!("{name} is not a setting of ai (did you mean {near}?)"),
            None => format!("{name} is not a setting of ai (ai --show-config lists them)"),
        })
        .collect()
}

/// The known name nearest to `name`, if near enough to be a typo.
fn closest<'a>(name: &str, known: &'a [String]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (distance(name, k), k))
        .filter(|(d, _)| *d <= 3)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k.as_str())
}

/// Levenshtein distance over bytes (the names are ASCII).
fn distance(a: &str, b: &str) -> usize {
    let b = b.as_bytes();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.bytes().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = previous + usize::from(ca != *cb);
            previous = row[j + 1];
            row[j + 1] = substitute.min(previous + 1).min(row[j] + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_gets_the_name_it_meant() {
        let env = Env::from_pairs([("SWEBASH_AI_TOOLS_MAXITER", "3"), ("SWEBASH_AI_MODEL", "m")]);
        assert_eq!(
            unknown_env_vars(&env),
            [
                "SWEBASH_AI_TOOLS_MAXITER is not a setting of ai (did you mean SWEBASH_AI_TOOLS_MAX_ITER?)"
            ]
        );
    }

    #[test]
    fn a_name_far_from_every_setting_gets_no_guess_and_others_are_ignored() {
        let env = Env::from_pairs([
            ("SWEBASH_AI_COLOUR_SCHEME", "x"),
            ("SWEBASH_AI_TEST_PANIC", "1"),
            ("OPENAI_API_KEY", "k"),
        ]);
        let warnings = unknown_env_vars(&env);
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("--show-config"), "{warnings:?}");
    }

    #[test]
    fn a_misspelt_table_or_key_of_the_file_gets_the_name_it_meant() {
        let text =
            "tools_max_itr = 3\nmodel = \"m\"\n\n[polciy]\ndeny = [\"rm *\"]\n\n[colours]\nx = 1\n";
        let file = FileLayer::parse(text, std::path::Path::new("/c/config.toml"));
        let warnings = file.map(|f| unknown_file_keys(&f)).unwrap_or_default();
        assert_eq!(
            warnings,
            [
                "`tools_max_itr` in /c/config.toml, line 1 is not a setting of ai (did you mean `tools_max_iter`?)",
                "`colours` in /c/config.toml, line 7 is not a setting of ai (ai --show-config lists them)",
                "`polciy` in /c/config.toml, line 4 is not a setting of ai (did you mean [policy]?)",
            ]
        );
    }

    #[test]
    fn distance_counts_edits() {
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("same", "same"), 0);
    }
}
