//! The agent's configuration file (`~/.pawns-agent.json`; the seed's fields). Read with
//! clear errors, written atomically with mode 0600 (it holds keys), shown with the keys
//! masked. The environment overrides the key (`PAWNS_AGENT_KEY`, or the seed's `DP_KEY`),
//! the LLM's key (`PAWNS_LLM_KEY`) and the file's path (`PAWNS_AGENT_CONFIG`, `DP_CONFIG`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::AgentError;

/// Context budget tiers (the server sizes the injected memory by the same names).
pub const TIERS: [&str; 4] = ["small", "medium", "large", "unlimited"];

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct AgentConfig {
    /// The agent key (`dp_` + 64 hex): the character's password.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub key: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub player_name: String,
    pub tier: String,
    pub model_fast: String,
    pub model_fallback: String,
    /// An OpenAI-compatible endpoint (`http://host:port`); the seed calls it `litellm_endpoint`.
    #[serde(alias = "litellm_endpoint", skip_serializing_if = "String::is_empty")]
    pub llm_endpoint: String,
    /// The LLM endpoint's own key (never the game key).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub llm_key: String,
    pub game_host: String,
    pub game_port: u16,
    pub temperature: f32,
    pub valence: bool,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub log_dir: String,
    pub log_level: String,
    /// Fields this version does not know, kept as they were.
    #[serde(flatten)]
    pub other: BTreeMap<String, serde_json::Value>,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            key: String::new(),
            player_name: String::new(),
            tier: "medium".into(),
            model_fast: "zai/glm-5-turbo".into(),
            model_fallback: "deepseek-v4-flash".into(),
            llm_endpoint: String::new(),
            llm_key: String::new(),
            game_host: "localhost".into(),
            game_port: 4350,
            temperature: 0.0,
            valence: true,
            log_dir: String::new(),
            log_level: "info".into(),
            other: BTreeMap::new(),
        }
    }
}

/// `dp_abcd…wxyz`: enough to recognise a key, not enough to use it.
pub fn mask(secret: &str) -> String {
    if secret.is_empty() {
        return "(not set)".into();
    }
    let chars: Vec<char> = secret.chars().collect();
    if chars.len() <= 10 {
        return "*".repeat(chars.len());
    }
    let head: String = chars[..7].iter().collect();
    let tail: String = chars[chars.len() - 4..].iter().collect();
    format!("{head}…{tail}")
}

/// Where the config lives: `--config`, then `PAWNS_AGENT_CONFIG`, `DP_CONFIG`, then `~/.pawns-agent.json`.
pub fn default_path() -> PathBuf {
    for var in ["PAWNS_AGENT_CONFIG", "DP_CONFIG"] {
        if let Ok(p) = std::env::var(var) {
            if !p.is_empty() {
                return PathBuf::from(p);
            }
        }
    }
    let home = std::env::var("HOME").unwrap_or_else(|_| ".".into());
    Path::new(&home).join(".pawns-agent.json")
}

impl AgentConfig {
    /// Reads the file; a missing file is the defaults. Errors name the file and the problem.
    pub fn load(path: &Path) -> Result<AgentConfig, AgentError> {
        match std::fs::read_to_string(path) {
            Ok(text) if text.trim().is_empty() => Ok(AgentConfig::default()),
            Ok(text) => {
                let cfg: AgentConfig = serde_json::from_str(&text)
                    .map_err(|e| AgentError::Config(format!("{} is not a valid agent config: {e}", path.display())))?;
                cfg.check().map_err(|e| AgentError::Config(format!("{}: {e}", path.display())))?;
                Ok(cfg)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(AgentConfig::default()),
            Err(e) => Err(AgentError::Config(format!("cannot read {}: {e}", path.display()))),
        }
    }

    /// The file's values with the environment's overrides on top.
    pub fn with_env(mut self) -> AgentConfig {
        for var in ["PAWNS_AGENT_KEY", "DP_KEY"] {
            if let Ok(k) = std::env::var(var) {
                if !k.is_empty() {
                    self.key = k;
                    break;
                }
            }
        }
        if let Ok(k) = std::env::var("PAWNS_LLM_KEY") {
            if !k.is_empty() {
                self.llm_key = k;
            }
        }
        self
    }

    /// Values that cannot work, explained.
    pub fn check(&self) -> Result<(), String> {
        if !TIERS.contains(&self.tier.as_str()) {
            return Err(format!("tier must be one of {} (got {:?})", TIERS.join(", "), self.tier));
        }
        if !(0.0..=2.0).contains(&self.temperature) {
            return Err(format!("temperature must be between 0 and 2 (got {})", self.temperature));
        }
        if !["debug", "info", "warn", "error"].contains(&self.log_level.as_str()) {
            return Err(format!("log_level must be debug, info, warn or error (got {:?})", self.log_level));
        }
        if !self.key.is_empty() && !crate::auth::keys::is_well_formed(&self.key) {
            return Err("key must be dp_ followed by 64 lowercase hex characters (make one with `pawns keygen --name NAME`)".into());
        }
        if !self.player_name.is_empty() {
            if let Err(m) = crate::auth::names::check(&self.player_name) {
                return Err(format!("player_name {:?}: {m}", self.player_name));
            }
        }
        if self.game_host.trim().is_empty() {
            return Err("game_host is empty".into());
        }
        Ok(())
    }

    /// Writes the file atomically (a temporary file renamed over it), readable by its owner only.
    pub fn save(&self, path: &Path) -> Result<(), AgentError> {
        self.check().map_err(AgentError::Config)?;
        let text = serde_json::to_string_pretty(self).map_err(|e| AgentError::Config(e.to_string()))? + "\n";
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(|e| AgentError::Config(format!("cannot create {}: {e}", dir.display())))?;
        let tmp = dir.join(format!(".{}.tmp", path.file_name().and_then(|n| n.to_str()).unwrap_or("pawns-agent.json")));
        let write = || -> std::io::Result<()> {
            use std::io::Write;
            let mut opts = std::fs::OpenOptions::new();
            opts.write(true).create(true).truncate(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                opts.mode(0o600);
            }
            let mut f = opts.open(&tmp)?;
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
            }
            f.write_all(text.as_bytes())?;
            f.sync_all()?;
            std::fs::rename(&tmp, path)
        };
        write().map_err(|e| AgentError::Config(format!("cannot write {}: {e}", path.display())))
    }

    /// The key, or the error that says how to get one.
    pub fn require_key(&self) -> Result<(), AgentError> {
        if self.key.is_empty() {
            return Err(AgentError::Config(
                "no agent key: set one with `pawns agent config --key dp_…` or PAWNS_AGENT_KEY (make one with `pawns keygen --name NAME`)"
                    .into(),
            ));
        }
        Ok(())
    }

    /// How this config logs in; `model` is what decides (stored with the session).
    pub fn login(&self, model: &str) -> Result<super::conn::Login, AgentError> {
        self.require_key()?;
        Ok(super::conn::Login {
            url: self.ws_url(),
            player_name: self.player_name.clone(),
            key: self.key.clone(),
            tier: self.tier.clone(),
            valence: self.valence,
            model: model.to_string(),
        })
    }

    /// The game's WebSocket URL.
    pub fn ws_url(&self) -> String {
        format!("ws://{}:{}/ws", self.host_for_url(), self.game_port)
    }

    /// The game's HTTP base URL.
    pub fn http_url(&self) -> String {
        format!("http://{}:{}", self.host_for_url(), self.game_port)
    }

    fn host_for_url(&self) -> String {
        let h = self.game_host.trim();
        if h.contains(':') && !h.starts_with('[') {
            format!("[{h}]")
        } else {
            h.to_string()
        }
    }

    /// The prompt's token budget for this tier (`None`: unlimited).
    pub fn prompt_budget(&self) -> Option<usize> {
        prompt_budget(&self.tier)
    }

    /// The config as people should see it: keys masked.
    pub fn masked(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).unwrap_or_default();
        if let Some(m) = v.as_object_mut() {
            m.insert("key".into(), mask(&self.key).into());
            m.insert("llm_key".into(), mask(&self.llm_key).into());
        }
        v
    }
}

/// Prompt tokens by tier: the memory the server injects is sized for the same tiers
/// (250 / 500 / 1,000), and the rest is state and recent history.
pub fn prompt_budget(tier: &str) -> Option<usize> {
    match tier {
        "small" => Some(1_000),
        "large" => Some(4_000),
        "unlimited" => None,
        _ => Some(2_000),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_keys_and_round_trips_with_unknown_fields() {
        let key = format!("dp_{}", "ab".repeat(32));
        assert_eq!(mask(&key), "dp_abab…abab");
        assert_eq!(mask(""), "(not set)");
        assert_eq!(mask("short"), "*****");
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub").join("agent.json");
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, format!(r#"{{"key":"{key}","player_name":"brenda","litellm_endpoint":"http://x:4000","future":7}}"#)).unwrap();
        let c = AgentConfig::load(&p).unwrap();
        assert_eq!(c.llm_endpoint, "http://x:4000");
        assert_eq!(c.tier, "medium");
        assert_eq!(c.game_port, 4350);
        c.save(&p).unwrap();
        let again = AgentConfig::load(&p).unwrap();
        assert_eq!(again, c);
        assert_eq!(again.other.get("future"), Some(&serde_json::json!(7)));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o600);
        }
        let shown = c.masked().to_string();
        assert!(!shown.contains(&key), "{shown}");
    }

    #[test]
    fn bad_files_and_values_are_refused_with_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.json");
        std::fs::write(&p, "{not json").unwrap();
        assert!(AgentConfig::load(&p).unwrap_err().to_string().contains("not a valid agent config"));
        std::fs::write(&p, r#"{"tier":"huge"}"#).unwrap();
        assert!(AgentConfig::load(&p).unwrap_err().to_string().contains("tier must be one of"));
        std::fs::write(&p, r#"{"key":"dp_123"}"#).unwrap();
        assert!(AgentConfig::load(&p).unwrap_err().to_string().contains("64 lowercase hex"));
        std::fs::write(&p, r#"{"game_port":"x"}"#).unwrap();
        assert!(AgentConfig::load(&p).is_err());
        assert_eq!(AgentConfig::load(&dir.path().join("missing.json")).unwrap(), AgentConfig::default());
        let c = AgentConfig { game_host: "::1".into(), ..Default::default() };
        assert_eq!(c.ws_url(), "ws://[::1]:4350/ws");
    }
}
