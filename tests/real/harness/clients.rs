//! The real clients: where `.ci/setup-clients.sh` installs them (`target/clients/`), the
//! pinned versions (`tests/real/pins.txt`, read by that script too), and how each one is started
//! offline against the fake server.

use std::path::{Path, PathBuf};

use super::model::Api;
use super::netns::PORT;

/// `package version` lines: the one list of pins, shared with `.ci/setup-clients.sh`.
pub const PINS: &str = include_str!("../pins.txt");

/// A client under test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Client {
    ClaudeCode,
    Codex,
    Gemini,
}

impl Client {
    /// The npm package.
    #[must_use]
    pub const fn package(self) -> &'static str {
        match self {
            Self::ClaudeCode => "@anthropic-ai/claude-code",
            Self::Codex => "@openai/codex",
            Self::Gemini => "@google/gemini-cli",
        }
    }

    /// The alisio-ls host that simulates it.
    #[must_use]
    pub const fn host(self) -> &'static str {
        match self {
            Self::ClaudeCode => "claude-code",
            Self::Codex => "codex",
            Self::Gemini => "gemini",
        }
    }

    #[must_use]
    pub const fn api(self) -> Api {
        match self {
            Self::ClaudeCode => Api::Anthropic,
            Self::Codex => Api::OpenAiResponses,
            Self::Gemini => Api::Gemini,
        }
    }

    /// The pinned version (`tests/real/pins.txt`).
    #[must_use]
    pub fn pinned(self) -> &'static str {
        PINS.lines()
            .filter_map(|l| l.split_once(' '))
            .find(|(p, _)| *p == self.package())
            .map_or("", |(_, v)| v.trim())
    }
}

/// `target/clients` (or `ALISIO_REAL_CLIENTS`).
#[must_use]
pub fn clients_dir() -> PathBuf {
    if let Some(p) = std::env::var_os("ALISIO_REAL_CLIENTS").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .filter(|p| !p.is_empty())
        .map_or_else(
            || Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"),
            PathBuf::from,
        );
    target.join("clients")
}

fn installed_version(pkg: &Path) -> Option<String> {
    let text = std::fs::read_to_string(pkg.join("package.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["version"].as_str().map(str::to_string)
}

/// What starts the client, or why it cannot be run here (a skip reason).
#[derive(Clone, Debug)]
pub struct Installed {
    pub client: Client,
    /// The program and its leading arguments (`node …/gemini.js`).
    pub program: Vec<String>,
    pub version: String,
}

/// Finds the installed client at its pinned version.
///
/// # Errors
/// The reason it cannot run (not installed, another version, no `node`).
pub fn find(client: Client) -> Result<Installed, String> {
    let root = clients_dir().join("node_modules");
    let pkg = root.join(client.package());
    let version = installed_version(&pkg).ok_or_else(|| {
        format!(
            "{} is not installed in {} (run .ci/setup-clients.sh)",
            client.package(),
            clients_dir().display()
        )
    })?;
    if version != client.pinned() {
        return Err(format!(
            "{} {version} is installed, the pin is {} (run .ci/setup-clients.sh)",
            client.package(),
            client.pinned()
        ));
    }
    let program = match client {
        Client::ClaudeCode => {
            let native = root.join("@anthropic-ai/claude-code-linux-x64/claude");
            if !native.is_file() {
                return Err(format!(
                    "{} has no native binary (the platform package @anthropic-ai/claude-code-linux-x64 is missing)",
                    native.display()
                ));
            }
            vec![native.display().to_string()]
        }
        Client::Codex => {
            let native =
                root.join("@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex");
            if !native.is_file() {
                return Err(format!("{} is missing", native.display()));
            }
            vec![native.display().to_string()]
        }
        Client::Gemini => {
            let node = which("node").ok_or("gemini needs node on PATH")?;
            vec![
                node.display().to_string(),
                pkg.join("bundle/gemini.js").display().to_string(),
            ]
        }
    };
    Ok(Installed {
        client,
        program,
        version,
    })
}

/// The first `name` on `PATH`.
#[must_use]
pub fn which(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The minimal environment every client gets: `PATH`, the temporary `HOME`, a C locale, no
/// telemetry.
#[must_use]
pub fn base_env(home: &Path) -> Vec<(String, String)> {
    vec![
        (
            "PATH".into(),
            std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into()),
        ),
        ("HOME".into(), home.display().to_string()),
        ("LANG".into(), "C.UTF-8".into()),
        ("TERM".into(), "dumb".into()),
        ("NO_COLOR".into(), "1".into()),
        ("DISABLE_TELEMETRY".into(), "1".into()),
        (
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(),
            "1".into(),
        ),
        ("DO_NOT_TRACK".into(), "1".into()),
    ]
}

/// Argument vector and environment for one headless prompt of `inst` with `HOME` = `home`.
/// Claude Code: `-p PROMPT --output-format json`; Codex: `exec` with a model provider in
/// `$CODEX_HOME/config.toml` (written by the caller; see [`codex_provider`]); Gemini: `-p` with
/// an API key, a fixed model (no routing classifier) and the workspace trusted.
#[must_use]
pub fn command(
    inst: &Installed,
    home: &Path,
    prompt: &str,
) -> (Vec<String>, Vec<(String, String)>) {
    let mut argv = inst.program.clone();
    let mut env = base_env(home);
    let base = format!("http://127.0.0.1:{PORT}");
    match inst.client {
        Client::ClaudeCode => {
            argv.extend(
                [
                    "-p",
                    prompt,
                    "--output-format",
                    "json",
                    "--allowedTools",
                    "Read",
                ]
                .map(String::from),
            );
            env.extend([
                ("ANTHROPIC_BASE_URL".into(), base),
                ("ANTHROPIC_API_KEY".into(), "sk-ant-dummy".into()),
                ("CLAUDE_CODE_DISABLE_AUTOUPDATER".into(), "1".into()),
                ("DISABLE_AUTOUPDATER".into(), "1".into()),
                ("DISABLE_ERROR_REPORTING".into(), "1".into()),
            ]);
        }
        Client::Codex => {
            argv.extend(
                [
                    "exec",
                    "--skip-git-repo-check",
                    "--sandbox",
                    "read-only",
                    prompt,
                ]
                .map(String::from),
            );
            env.extend([
                (
                    "CODEX_HOME".into(),
                    home.join(".codex").display().to_string(),
                ),
                ("FAKE_API_KEY".into(), "dummy".into()),
            ]);
        }
        Client::Gemini => {
            argv.extend(["-m", "gemini-2.5-flash", "-p", prompt].map(String::from));
            env.extend([
                ("GEMINI_API_KEY".into(), "dummy".into()),
                ("GOOGLE_GEMINI_BASE_URL".into(), base),
                ("GEMINI_CLI_TRUST_WORKSPACE".into(), "true".into()),
                // No second node process with a larger heap (bundle/gemini.js `run`): the same
                // CLI in one process, twice as fast to start.
                ("GEMINI_CLI_NO_RELAUNCH".into(), "true".into()),
            ]);
        }
    }
    (argv, env)
}

/// The `config.toml` lines that point Codex at the fake server (appended to a case's own), with
/// analytics and OpenTelemetry export off: without them Codex spends ~5 s at exit trying to
/// reach `ab.chatgpt.com`, which the namespace makes unresolvable.
#[must_use]
pub fn codex_provider() -> String {
    format!(
        "model = \"gpt-fake\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"fake\"\nbase_url = \"http://127.0.0.1:{PORT}/v1\"\nwire_api = \"responses\"\nenv_key = \"FAKE_API_KEY\"\n\n[analytics]\nenabled = false\n\n[otel]\nexporter = \"none\"\nmetrics_exporter = \"none\"\ntrace_exporter = \"none\"\n"
    )
}

/// The Gemini `settings.json` keys every run needs (API-key auth), merged under a case's own.
#[must_use]
pub fn gemini_settings(extra: &serde_json::Value) -> serde_json::Value {
    let mut v = serde_json::json!({"security": {"auth": {"selectedType": "gemini-api-key"}}});
    if let (Some(obj), Some(extra)) = (v.as_object_mut(), extra.as_object()) {
        for (k, val) in extra {
            obj.insert(k.clone(), val.clone());
        }
    }
    v
}
