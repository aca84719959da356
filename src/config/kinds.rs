//! The closed sets a setting can take (output mode, tool format, sandbox mode, web search
//! backend, provider), each parsed once here so nothing below handles their spellings again.

/// Where the answer and events go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OutputMode {
    Plain,
    Json,
    Jsonl,
    /// `--command`: one shell command line, nothing else.
    Command,
}

/// How tool calls are exchanged with the model (DESIGN §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ToolFormat {
    Auto,
    Native,
    Generic,
    Hermes,
    Qwen,
    Llama3,
    Mistral,
    Json,
    Gemma,
    Lfm2,
    Granite,
}

impl ToolFormat {
    const NAMES: [(&'static str, ToolFormat); 11] = [
        ("auto", ToolFormat::Auto),
        ("native", ToolFormat::Native),
        ("generic", ToolFormat::Generic),
        ("hermes", ToolFormat::Hermes),
        ("qwen", ToolFormat::Qwen),
        ("llama3", ToolFormat::Llama3),
        ("mistral", ToolFormat::Mistral),
        ("json", ToolFormat::Json),
        ("gemma", ToolFormat::Gemma),
        ("lfm2", ToolFormat::Lfm2),
        ("granite", ToolFormat::Granite),
    ];

    /// Any case: `Qwen` is `qwen`.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        by_name(&Self::NAMES, text)
    }

    pub(crate) fn name(self) -> &'static str {
        name_of(&Self::NAMES, self)
    }
}

/// How much a sandboxed command may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SandboxMode {
    /// No sandbox.
    Off,
    /// Reads anywhere, writes nowhere but `/dev/null` and the terminal.
    ReadOnly,
    /// Reads anywhere, writes under the working directory and temp dirs.
    Workspace,
}

impl SandboxMode {
    pub(crate) fn parse(text: &str) -> Option<Self> {
        match text {
            "off" => Some(SandboxMode::Off),
            "read-only" => Some(SandboxMode::ReadOnly),
            "workspace" => Some(SandboxMode::Workspace),
            _ => None,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            SandboxMode::Off => "off",
            SandboxMode::ReadOnly => "read-only",
            SandboxMode::Workspace => "workspace",
        }
    }
}

/// The backend of the web search tool (`SWEBASH_AI_WEB_PROVIDER`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WebProvider {
    DuckDuckGo,
    Searxng,
    Brave,
}

impl WebProvider {
    const NAMES: [(&'static str, WebProvider); 3] = [
        ("duckduckgo", WebProvider::DuckDuckGo),
        ("searxng", WebProvider::Searxng),
        ("brave", WebProvider::Brave),
    ];

    /// Any case: `Brave` is `brave`.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        by_name(&Self::NAMES, text)
    }

    pub(crate) fn name(self) -> &'static str {
        name_of(&Self::NAMES, self)
    }
}

/// The provider or service named by `--provider` / `SWEBASH_AI_PROVIDER` (the `provider` module
/// holds one row of `SERVICES` per name: a test there keeps the two in step).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProviderName {
    Anthropic,
    OpenAi,
    Gemini,
    Groq,
    OpenRouter,
    DeepSeek,
    Mistral,
    Together,
    LmStudio,
    Vllm,
    LlamaCpp,
    Ollama,
    Local,
    OllamaOpenAi,
}

impl ProviderName {
    /// Every name, in the order of `provider::SERVICES`.
    pub(crate) const NAMES: [(&'static str, ProviderName); 14] = [
        ("anthropic", ProviderName::Anthropic),
        ("openai", ProviderName::OpenAi),
        ("gemini", ProviderName::Gemini),
        ("groq", ProviderName::Groq),
        ("openrouter", ProviderName::OpenRouter),
        ("deepseek", ProviderName::DeepSeek),
        ("mistral", ProviderName::Mistral),
        ("together", ProviderName::Together),
        ("lmstudio", ProviderName::LmStudio),
        ("vllm", ProviderName::Vllm),
        ("llamacpp", ProviderName::LlamaCpp),
        ("ollama", ProviderName::Ollama),
        ("local", ProviderName::Local),
        ("ollama-openai", ProviderName::OllamaOpenAi),
    ];

    /// Other spellings people use.
    const ALIASES: [(&'static str, ProviderName); 8] = [
        ("openai-compatible", ProviderName::OpenAi),
        ("openai_compatible", ProviderName::OpenAi),
        ("claude", ProviderName::Anthropic),
        ("google", ProviderName::Gemini),
        ("google-ai-studio", ProviderName::Gemini),
        ("llama.cpp", ProviderName::LlamaCpp),
        ("llama-cpp", ProviderName::LlamaCpp),
        ("lm-studio", ProviderName::LmStudio),
    ];

    /// A name or alias, in any case; `local` only in a build with the embedded engine.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        by_name(&Self::NAMES, text)
            .or_else(|| by_name(&Self::ALIASES, text))
            .filter(|p| *p != ProviderName::Local || cfg!(feature = "local"))
    }

    pub(crate) fn name(self) -> &'static str {
        name_of(&Self::NAMES, self)
    }

    /// What a valid value looks like, for the error about an invalid one.
    pub(crate) fn expected() -> String {
        let names: Vec<&str> = Self::NAMES
            .iter()
            .map(|(name, _)| *name)
            .filter(|name| *name != "local" || cfg!(feature = "local"))
            .collect();
        let local = if cfg!(feature = "local") {
            ""
        } else {
            "; `local` needs the default build (this one was built with --no-default-features)"
        };
        format!(
            "one of {} (alias openai-compatible){local}",
            names.join(", ")
        )
    }
}

/// The value spelled `text` (in any case) in a table of names.
fn by_name<T: Copy>(names: &[(&'static str, T)], text: &str) -> Option<T> {
    names
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(text))
        .map(|(_, value)| *value)
}

/// The name of `value` in a table of names (every value has one: the tests check each table).
fn name_of<T: Copy + PartialEq>(names: &[(&'static str, T)], value: T) -> &'static str {
    names
        .iter()
        .find(|(_, v)| *v == value)
        .map_or("", |(name, _)| name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_provider_name_parses_back_and_aliases_reach_their_service() {
        for (name, provider) in ProviderName::NAMES {
            if provider == ProviderName::Local && !cfg!(feature = "local") {
                assert_eq!(ProviderName::parse(name), None);
                continue;
            }
            assert_eq!(ProviderName::parse(name), Some(provider));
            assert_eq!(provider.name(), name);
        }
        assert_eq!(ProviderName::parse("Claude"), Some(ProviderName::Anthropic));
        assert_eq!(
            ProviderName::parse("openai-compatible"),
            Some(ProviderName::OpenAi)
        );
        assert_eq!(ProviderName::parse("bogus"), None);
    }

    #[test]
    fn every_tool_format_has_its_name() {
        for (name, format) in ToolFormat::NAMES {
            assert_eq!(format.name(), name);
            assert_eq!(ToolFormat::parse(&name.to_uppercase()), Some(format));
        }
    }

    #[test]
    fn web_providers_parse_in_any_case() {
        assert_eq!(WebProvider::parse("Brave"), Some(WebProvider::Brave));
        assert_eq!(WebProvider::parse("bing"), None);
        for (name, provider) in WebProvider::NAMES {
            assert_eq!(provider.name(), name);
        }
    }
}
