//! The value enums of the configuration: governor mode, Claude Code instruction files, host and
//! validator profile.

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum GovernorMode {
    #[default]
    Off,
    Shadow,
    On,
}

impl GovernorMode {
    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "off" => Some(Self::Off),
            "shadow" => Some(Self::Shadow),
            "on" => Some(Self::On),
            _ => None,
        }
    }
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Shadow => "shadow",
            Self::On => "on",
        }
    }
}

/// `hosts.claudeCode.instructionFiles` (spec/instructions.md §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ClaudeInstructionFiles {
    #[default]
    ClaudeMdOrAgentsMd,
    ClaudeMdAndAgentsMd,
    ClaudeMd,
    ManagedOnly,
}

/// Which host's loading rules to simulate (`--host`, LS `host`; the CLI parses it in
/// `cli::values`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Host {
    #[default]
    Alisio,
    Codex,
    ClaudeCode,
    Copilot,
    Gemini,
    Cursor,
}

impl Host {
    /// Every host, in the order hovers list them (hosts.md H9).
    pub const ALL: [Self; 6] = [
        Self::Alisio,
        Self::Codex,
        Self::ClaudeCode,
        Self::Copilot,
        Self::Gemini,
        Self::Cursor,
    ];

    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Alisio => "alisio",
            Self::Codex => "codex",
            Self::ClaudeCode => "claude-code",
            Self::Copilot => "copilot",
            Self::Gemini => "gemini",
            Self::Cursor => "cursor",
        }
    }

    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|h| h.as_str() == s)
    }
}

/// Which validator's rules a SKILL.md is checked against (`--profile`, LS `profile`; the CLI
/// parses it in `cli::values`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Profile {
    #[default]
    Alisio,
    Spec,
    Codex,
    ClaudeCode,
}

impl Profile {
    /// Every profile, in the order `--help` lists them.
    pub const ALL: [Self; 4] = [Self::Alisio, Self::Spec, Self::Codex, Self::ClaudeCode];

    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Alisio => "alisio",
            Self::Spec => "spec",
            Self::Codex => "codex",
            Self::ClaudeCode => "claude-code",
        }
    }
}
