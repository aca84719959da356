//! OpenAI-compatible services are rows of a table, not code: a name, a base URL, the variable that
//! holds its key and a default model. Choosing the endpoint from settings happens here too.

use std::process::Command;

use crate::config::{ANTHROPIC_BASE_URL, ForeignVars, OLLAMA_HOST, ProviderName, Secret, Settings};
use crate::engine::model::{LocalModel, choose};
use crate::error::ConfigError;

/// The wire protocol a service speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Protocol {
    OpenAi,
    Anthropic,
    Ollama,
    Gemini,
    /// The embedded llama.cpp engine (cargo feature `local`).
    Local,
}

/// One service: a wire protocol at a base URL, with its key variable and default model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Service {
    pub(crate) name: &'static str,
    pub(crate) protocol: Protocol,
    pub(crate) base_url: &'static str,
    /// The variable holding its API key; `None` for local servers that need none.
    pub(crate) key_var: Option<&'static str>,
    /// `None`: ask the server which models it serves and take the first.
    pub(crate) default_model: Option<&'static str>,
}

/// In the order auto-detection tries their keys.
pub(crate) const SERVICES: &[Service] = &[
    Service {
        name: "anthropic",
        protocol: Protocol::Anthropic,
        base_url: "https://api.anthropic.com",
        key_var: Some("ANTHROPIC_API_KEY"),
        default_model: Some("claude-sonnet-4-5"),
    },
    Service {
        name: "openai",
        protocol: Protocol::OpenAi,
        base_url: "https://api.openai.com/v1",
        key_var: Some("OPENAI_API_KEY"),
        default_model: Some("gpt-4o-mini"),
    },
    Service {
        name: "gemini",
        protocol: Protocol::Gemini,
        base_url: "https://generativelanguage.googleapis.com",
        key_var: Some("GEMINI_API_KEY"),
        default_model: Some("gemini-2.5-flash"),
    },
    Service {
        name: "groq",
        protocol: Protocol::OpenAi,
        base_url: "https://api.groq.com/openai/v1",
        key_var: Some("GROQ_API_KEY"),
        default_model: Some("llama-3.3-70b-versatile"),
    },
    Service {
        name: "openrouter",
        protocol: Protocol::OpenAi,
        base_url: "https://openrouter.ai/api/v1",
        key_var: Some("OPENROUTER_API_KEY"),
        default_model: Some("openai/gpt-4o-mini"),
    },
    Service {
        name: "deepseek",
        protocol: Protocol::OpenAi,
        base_url: "https://api.deepseek.com/v1",
        key_var: Some("DEEPSEEK_API_KEY"),
        default_model: Some("deepseek-chat"),
    },
    Service {
        name: "mistral",
        protocol: Protocol::OpenAi,
        base_url: "https://api.mistral.ai/v1",
        key_var: Some("MISTRAL_API_KEY"),
        default_model: Some("mistral-small-latest"),
    },
    Service {
        name: "together",
        protocol: Protocol::OpenAi,
        base_url: "https://api.together.xyz/v1",
        key_var: Some("TOGETHER_API_KEY"),
        default_model: Some("meta-llama/Llama-3.3-70B-Instruct-Turbo"),
    },
    Service {
        name: "lmstudio",
        protocol: Protocol::OpenAi,
        base_url: "http://127.0.0.1:1234/v1",
        key_var: None,
        default_model: None,
    },
    Service {
        name: "vllm",
        protocol: Protocol::OpenAi,
        base_url: "http://127.0.0.1:8000/v1",
        key_var: Some("VLLM_API_KEY"),
        default_model: None,
    },
    Service {
        name: "llamacpp",
        protocol: Protocol::OpenAi,
        base_url: "http://127.0.0.1:8080/v1",
        key_var: None,
        default_model: None,
    },
    Service {
        name: "ollama",
        protocol: Protocol::Ollama,
        base_url: "http://127.0.0.1:11434",
        key_var: None,
        default_model: None,
    },
    Service {
        name: "local",
        protocol: Protocol::Local,
        base_url: "local:",
        key_var: None,
        default_model: None,
    },
    Service {
        name: "ollama-openai",
        base_url: "http://127.0.0.1:11434/v1",
        protocol: Protocol::OpenAi,
        key_var: None,
        default_model: None,
    },
];

/// The endpoint a run talks to.
#[derive(Debug, Clone)]
pub(crate) struct Endpoint {
    pub(crate) service: &'static str,
    pub(crate) protocol: Protocol,
    pub(crate) base_url: String,
    pub(crate) api_key: Option<Secret>,
    /// `None` until asked of the server's `/models`.
    pub(crate) model: Option<String>,
    /// The embedded engine's model (the `local` provider only).
    pub(crate) local: Option<LocalModel>,
    /// Why this provider: what named it, or what auto-detection found (`--show-config`).
    pub(crate) why: String,
}

/// Chooses the endpoint: the named provider, else an explicit base URL (OpenAI-compatible), else
/// the first service whose key is in the environment (as `settings.foreign` holds it).
pub(crate) fn select_endpoint(settings: &Settings) -> Result<Endpoint, ConfigError> {
    let vars = &settings.foreign;
    let (service, why) = match chosen(settings)? {
        Chosen::Engine(why) => return local_endpoint(settings, why),
        Chosen::Service(service, why) => (service, why),
    };
    // The SDKs' own variables name a service's URL; a key may follow it there.
    let own_override = match service.protocol {
        Protocol::Anthropic => vars
            .anthropic_base_url
            .as_ref()
            .map(|url| (url.clone(), ANTHROPIC_BASE_URL)),
        Protocol::Ollama => vars
            .ollama_host
            .as_deref()
            .map(|host| (ollama_url(host), OLLAMA_HOST)),
        _ => None,
    };
    // `SWEBASH_AI_BASE_URL` was checked where it was set; a service's own variable is checked here.
    if let Some((url, var)) = own_override
        .as_ref()
        .filter(|_| settings.base_url.is_none())
        && !(url.starts_with("http://") || url.starts_with("https://"))
    {
        return Err(ConfigError::Invalid {
            name: (*var).into(),
            value: url.clone(),
            expected: "an http:// or https:// URL".into(),
        });
    }
    let base_url = settings
        .base_url
        .clone()
        .or_else(|| own_override.as_ref().map(|(url, _)| url.clone()))
        .unwrap_or_else(|| service.base_url.to_string())
        .trim_end_matches('/')
        .to_string();
    let own_url = base_url == service.base_url
        || own_override.is_some_and(|(url, _)| url.trim_end_matches('/') == base_url);
    let api_key = match (&settings.api_key, &settings.api_key_cmd) {
        (Some(key), _) => Some(key.clone()),
        (None, Some(cmd)) => Some(key_from_command(cmd, &settings.origin_of("api_key_cmd"))?),
        // A service's own key goes only to that service's own URL: never leak it elsewhere.
        (None, None) if own_url => key_of(service, vars),
        (None, None) => None,
    };
    if let (None, Some(var), true) = (&api_key, service.key_var, own_url) {
        // A cloud service refuses every request without its key: say so before the network does.
        if base_url.starts_with("https://") {
            return Err(ConfigError::NoKey {
                provider: service.name.into(),
                var: var.into(),
            });
        }
    }
    let model = settings
        .model
        .clone()
        .or_else(|| service.default_model.filter(|_| own_url).map(String::from));
    Ok(Endpoint {
        service: service.name,
        protocol: service.protocol,
        base_url,
        api_key,
        model,
        local: None,
        why,
    })
}

/// What the settings choose before any URL or key is looked at, and why.
enum Chosen {
    Service(&'static Service, String),
    /// The embedded engine.
    Engine(String),
}

/// The named provider, else an explicit base URL (OpenAI-compatible), else what detection finds,
/// else (in a build with it) the embedded engine.
fn chosen(settings: &Settings) -> Result<Chosen, ConfigError> {
    Ok(match settings.provider {
        Some(ProviderName::Local) => {
            Chosen::Engine(format!("named by {}", settings.origin_of("provider")))
        }
        Some(name) => Chosen::Service(
            service_named(name.name()),
            format!("named by {}", settings.origin_of("provider")),
        ),
        None if settings.base_url.is_some() => Chosen::Service(
            service_named("openai"),
            format!(
                "{} names an OpenAI-compatible server",
                settings.origin_of("base_url")
            ),
        ),
        None => match detect(&settings.foreign, settings.probe) {
            Some((service, why)) => Chosen::Service(service, why),
            // Built with the embedded engine: nothing configured means the local model.
            None if cfg!(feature = "local") => {
                let probed = if settings.probe {
                    "no server answers on the usual ports"
                } else {
                    "no server looked for (SWEBASH_AI_PROBE=off)"
                };
                let why = format!(
                    "nothing configured: no provider named, no provider key in the environment, {probed}"
                );
                Chosen::Engine(why)
            }
            None => return Err(ConfigError::NoProvider),
        },
    })
}

/// The embedded engine (settings name it only in a build with it) and the model it runs: a
/// model name that is not in the catalogue, a path or a URL is a configuration error.
fn local_endpoint(settings: &Settings, why: String) -> Result<Endpoint, ConfigError> {
    let model = choose(&settings.local, None).map_err(|err| {
        let (name, value, expected) = err.parts();
        ConfigError::Invalid {
            name,
            value,
            expected,
        }
    })?;
    Ok(Endpoint {
        service: "local",
        protocol: Protocol::Local,
        base_url: "local:".into(),
        api_key: None,
        model: Some(model.name.clone()),
        local: Some(model),
        why,
    })
}

fn service_named(name: &str) -> &'static Service {
    SERVICES
        .iter()
        .find(|s| s.name == name)
        .unwrap_or(&SERVICES[0])
}

/// A service's key from the environment (Gemini's also under `GOOGLE_API_KEY`).
fn key_of(service: &Service, vars: &ForeignVars) -> Option<Secret> {
    let key = service.key_var.and_then(|var| vars.key(var));
    let key = match service.protocol {
        Protocol::Gemini => key.or_else(|| vars.key(GEMINI_FALLBACK_VAR)),
        _ => key,
    };
    key.cloned()
}

/// Where Gemini's key is looked for when `GEMINI_API_KEY` is unset.
const GEMINI_FALLBACK_VAR: &str = "GOOGLE_API_KEY";

/// With no provider named: the first service whose key is set, else a local server that
/// answers on its usual port (probed briefly, only when no key is set, and not at all with
/// `SWEBASH_AI_PROBE=off`; Ollama is looked for where `OLLAMA_HOST` says); and why.
fn detect(vars: &ForeignVars, probe: bool) -> Option<(&'static Service, String)> {
    if let Some(service) = SERVICES
        .iter()
        .find(|s| s.protocol != Protocol::Local && key_of(s, vars).is_some())
    {
        let var = match service.key_var.filter(|var| vars.key(var).is_some()) {
            Some(var) => var,
            None => GEMINI_FALLBACK_VAR,
        };
        return Some((service, format!("{var} is set in the environment")));
    }
    if !probe {
        return None;
    }
    let ollama = vars
        .ollama_host
        .as_deref()
        .map_or_else(|| "127.0.0.1:11434".to_string(), ollama_authority);
    let local = [
        ("ollama", ollama),
        ("llamacpp", "127.0.0.1:8080".to_string()),
        ("lmstudio", "127.0.0.1:1234".to_string()),
    ];
    let timeout = std::time::Duration::from_millis(150);
    local.iter().find_map(|(name, authority)| {
        // Resolving a name (`localhost:11434`) blocks briefly; it runs before the runtime starts.
        let addr = std::net::ToSocketAddrs::to_socket_addrs(authority.as_str())
            .ok()?
            .next()?;
        std::net::TcpStream::connect_timeout(&addr, timeout)
            .ok()
            .map(|_| {
                let why = format!("a {name} server answers on {authority}");
                (service_named(name), why)
            })
    })
}

/// `host:port` of an `OLLAMA_HOST` value (port 11434 when it names none).
fn ollama_authority(host: &str) -> String {
    let url = ollama_url(host);
    let authority = url
        .split_once("://")
        .map_or(url.as_str(), |(_, rest)| rest)
        .split('/')
        .next()
        .unwrap_or_default();
    if authority
        .rsplit_once(':')
        .is_some_and(|(_, port)| port.parse::<u16>().is_ok())
    {
        authority.to_string()
    } else {
        format!("{authority}:11434")
    }
}

/// `OLLAMA_HOST` as a URL: it is often written `host:port` or `0.0.0.0:11434`.
fn ollama_url(host: &str) -> String {
    let host = host.replace("0.0.0.0", "127.0.0.1");
    if host.starts_with("http://") || host.starts_with("https://") {
        host
    } else {
        format!("http://{host}")
    }
}

/// Runs `SWEBASH_AI_API_KEY_CMD` and takes its first line as the key; its output is never shown.
/// `origin` names where the command was set, for the error when it fails.
fn key_from_command(cmd: &str, origin: &str) -> Result<Secret, ConfigError> {
    let failed = |why: String| ConfigError::Invalid {
        name: origin.to_string(),
        value: cmd.to_string(),
        expected: format!("a command that prints the key ({why})"),
    };
    // Not in the project, where a sandboxed call may have planted what the command runs.
    let output = Command::new(crate::config::own_program("sh"))
        .arg("-c")
        .arg(cmd)
        .current_dir("/")
        .env("PYTHONSAFEPATH", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|err| failed(err.to_string()))?;
    if !output.status.success() {
        return Err(failed(format!("it exited with {}", output.status)));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    match text.lines().next().map(str::trim).filter(|k| !k.is_empty()) {
        Some(key) => Ok(Secret::new(key)),
        None => Err(failed("it printed nothing".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Cli;
    use crate::config::{Env, FileLayer, KEY_VARS, resolve};
    use clap::Parser;

    fn endpoint(args: &[&str], env: &[(&str, &str)]) -> Result<Endpoint, ConfigError> {
        let mut argv = vec!["ai"];
        argv.extend_from_slice(args);
        let cli = Cli::try_parse_from(argv).unwrap_or_default();
        let env = Env::from_pairs(env.iter().copied());
        let settings = resolve(&crate::app::flags(&cli), &env, &FileLayer::default())?;
        select_endpoint(&settings)
    }

    #[test]
    fn nothing_configured_is_no_provider_or_the_embedded_engine() {
        // Probing is off: whether this machine runs a server on a usual port must not matter.
        let chosen = endpoint(&[], &[("SWEBASH_AI_PROBE", "off"), ("HOME", "/home/u")]);
        if cfg!(feature = "local") {
            // Built with the embedded engine, nothing configured means the local model, the
            // default of the catalogue, and says why.
            let chosen = chosen.ok();
            assert_eq!(chosen.as_ref().map(|e| e.service), Some("local"));
            assert_eq!(
                chosen.as_ref().and_then(|e| e.model.as_deref()),
                Some(crate::engine::catalogue::DEFAULT_MODEL)
            );
            assert!(chosen.is_some_and(|e| e.why.starts_with("nothing configured")));
        } else {
            assert_eq!(chosen.err(), Some(ConfigError::NoProvider));
        }
    }

    #[test]
    fn help_for_provider_lists_every_service() {
        use clap::CommandFactory;
        let command = Cli::command();
        let help = command
            .get_arguments()
            .find(|a| a.get_id() == "provider")
            .and_then(|a| a.get_help())
            .map(ToString::to_string)
            .unwrap_or_default();
        for service in SERVICES {
            assert!(
                help.contains(service.name),
                "{} missing: {help}",
                service.name
            );
        }
    }

    #[test]
    fn a_cloud_provider_without_its_key_is_a_config_error_naming_the_variable() {
        for (provider, var) in [
            ("openai", "OPENAI_API_KEY"),
            ("anthropic", "ANTHROPIC_API_KEY"),
            ("gemini", "GEMINI_API_KEY"),
        ] {
            assert_eq!(
                endpoint(&["--provider", provider], &[]).err(),
                Some(ConfigError::NoKey {
                    provider: provider.into(),
                    var: var.into()
                })
            );
        }
        // A server of one's own needs no key.
        let own = endpoint(
            &[
                "--provider",
                "openai",
                "--base-url",
                "http://127.0.0.1:9/v1",
            ],
            &[],
        );
        assert!(own.is_ok(), "{own:?}");
    }

    #[test]
    fn a_base_url_means_openai_compatible_without_leaking_the_openai_key() {
        let e = endpoint(
            &[],
            &[
                ("SWEBASH_AI_BASE_URL", "http://127.0.0.1:9/v1/"),
                ("OPENAI_API_KEY", "sk-x"),
            ],
        );
        let e = e.ok();
        assert_eq!(
            e.as_ref().map(|e| e.base_url.as_str()),
            Some("http://127.0.0.1:9/v1")
        );
        assert_eq!(e.as_ref().map(|e| e.api_key.is_none()), Some(true));
        assert_eq!(e.and_then(|e| e.model), None);
    }

    #[test]
    fn a_service_key_in_the_environment_selects_that_service() {
        let e = endpoint(&[], &[("GROQ_API_KEY", "gsk")]).ok();
        assert_eq!(e.as_ref().map(|e| e.service), Some("groq"));
        assert_eq!(
            e.as_ref()
                .and_then(|e| e.api_key.as_ref())
                .map(|k| k.expose().to_string())
                .as_deref(),
            Some("gsk")
        );
        assert_eq!(
            e.and_then(|e| e.model).as_deref(),
            Some("llama-3.3-70b-versatile")
        );
    }

    #[test]
    fn provider_alias_and_unknown_provider() {
        let e = endpoint(
            &[
                "--provider",
                "openai-compatible",
                "--base-url",
                "http://h/v1",
            ],
            &[],
        )
        .ok();
        assert_eq!(e.map(|e| e.service), Some("openai"));
        let err = endpoint(&["--provider", "nope"], &[]).err();
        assert!(matches!(err, Some(ConfigError::Invalid { ref name, .. }) if name == "--provider"));
    }

    #[test]
    fn every_provider_name_has_one_service_and_every_service_a_name() {
        let names: Vec<&str> = ProviderName::NAMES.iter().map(|(n, _)| *n).collect();
        let services: Vec<&str> = SERVICES.iter().map(|s| s.name).collect();
        assert_eq!(names, services);
    }

    #[test]
    fn every_key_variable_the_services_name_is_one_config_snapshots() {
        let named = SERVICES
            .iter()
            .filter_map(|s| s.key_var)
            .chain([GEMINI_FALLBACK_VAR]);
        for var in named {
            assert!(
                KEY_VARS.contains(&var),
                "{var} is missing from config's KEY_VARS"
            );
        }
    }

    fn key_of_endpoint(args: &[&str], env: &[(&str, &str)]) -> Option<String> {
        let e = endpoint(args, env).ok()?;
        e.api_key.map(|k| k.expose().to_string())
    }

    #[test]
    fn each_service_takes_its_key_from_its_variable() {
        for service in SERVICES {
            let Some(var) = service.key_var else { continue };
            let key = key_of_endpoint(&["--provider", service.name], &[(var, "k-1")]);
            assert_eq!(key.as_deref(), Some("k-1"), "{var}");
        }
        let google = key_of_endpoint(&["--provider", "gemini"], &[("GOOGLE_API_KEY", "g-1")]);
        assert_eq!(google.as_deref(), Some("g-1"));
    }

    #[test]
    fn detection_takes_the_first_service_of_the_table_with_a_key() {
        let env = [
            ("SWEBASH_AI_PROBE", "off"),
            ("OPENAI_API_KEY", "sk"),
            ("GOOGLE_API_KEY", "g"),
            ("ANTHROPIC_API_KEY", "ak"),
        ];
        assert_eq!(
            endpoint(&[], &env).ok().map(|e| e.service),
            Some("anthropic")
        );
        let google = endpoint(&[], &[("SWEBASH_AI_PROBE", "off"), ("GOOGLE_API_KEY", "g")]);
        assert_eq!(google.ok().map(|e| e.service), Some("gemini"));
    }

    #[test]
    fn the_sdks_base_url_variables_move_their_service() {
        let e = endpoint(
            &["--provider", "anthropic"],
            &[
                ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/"),
                ("ANTHROPIC_API_KEY", "ak"),
            ],
        )
        .ok();
        assert_eq!(
            e.as_ref().map(|e| e.base_url.as_str()),
            Some("http://127.0.0.1:9")
        );
        assert!(e.is_some_and(|e| e.api_key.is_some()));
        let err = endpoint(
            &["--provider", "anthropic"],
            &[("ANTHROPIC_BASE_URL", "api.example")],
        )
        .err();
        assert!(
            matches!(err, Some(ConfigError::Invalid { ref name, .. }) if name == "ANTHROPIC_BASE_URL")
        );
        let e = endpoint(&["--provider", "ollama"], &[("OLLAMA_HOST", "0.0.0.0:7")]).ok();
        assert_eq!(
            e.map(|e| e.base_url),
            Some("http://127.0.0.1:7".to_string())
        );
    }

    #[test]
    fn key_command_output_becomes_the_key() {
        let e = endpoint(
            &["--base-url", "http://h/v1"],
            &[("SWEBASH_AI_API_KEY_CMD", "echo from-cmd")],
        )
        .ok();
        assert_eq!(
            e.and_then(|e| e.api_key)
                .map(|k| k.expose().to_string())
                .as_deref(),
            Some("from-cmd")
        );
        let err = endpoint(
            &["--base-url", "http://h/v1"],
            &[("SWEBASH_AI_API_KEY_CMD", "exit 3")],
        )
        .err();
        assert!(
            matches!(err, Some(ConfigError::Invalid { ref name, .. }) if name == "SWEBASH_AI_API_KEY_CMD")
        );
    }

    #[test]
    fn a_failing_key_command_from_the_file_names_the_file_key() {
        let file = FileLayer::parse(
            "base_url = \"http://h/v1\"\napi_key_cmd = \"exit 3\"\n",
            std::path::Path::new("/cfg/config.toml"),
        );
        let settings = file.and_then(|file| resolve(&Default::default(), &Env::default(), &file));
        let err = settings.and_then(|s| select_endpoint(&s)).err();
        assert!(
            matches!(err, Some(ConfigError::Invalid { ref name, .. })
                if name == "`api_key_cmd` in /cfg/config.toml, line 2"),
            "{err:?}"
        );
    }
}
