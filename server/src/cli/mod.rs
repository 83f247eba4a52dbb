//! The command line: argument parsing (clap), the shared [`Ctx`] every command acts from, and
//! exit codes (0 success, 1 findings, 2 usage, configuration or I/O failure).
//!
//! Invariant: commands hold no rule of their own; they call core modules and format results.
//! Only this module and `lsp` print, and only data goes to stdout (logs go to stderr).

mod audit;
mod audit_html;
mod audit_human;
mod check;
mod completions;
mod fix;
mod governor;
mod governor_delegation;
mod governor_html;
mod init;
mod instructions;
pub mod output;
mod progress;
mod report_table;
mod rules;
mod run;
mod sessions;
mod skills;
mod skills_listing;
mod skills_live;
mod skills_matrix;
mod skills_test;
mod values;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use alisio_base::config::{self, Host, Profile, Settings};
use alisio_base::workspace::{self, DiskFs, Env, Fs as _};

#[derive(Parser, Debug)]
#[command(
    name = "alisio-ls",
    version,
    about = "Language server and CLI for AGENTS.md and Agent Skills"
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Args, Debug, Clone, Default)]
pub struct GlobalArgs {
    /// Machine output on stdout (JSON), nothing else on stdout.
    #[arg(long, global = true)]
    pub json: bool,
    /// The directory the command acts from; relative paths are resolved against it (like git -C).
    #[arg(long, global = true, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// An extra configuration file (also makes the workspace trusted).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Trust the workspace: read project configuration and project skills.
    #[arg(long, global = true)]
    pub trust_project: bool,
    /// Whose loading rules to simulate.
    #[arg(long, global = true, value_parser = values::HOSTS, default_value = Host::Alisio.as_str())]
    pub host: Host,
    /// Which validator's rules a skill is checked against.
    #[arg(long, global = true, value_parser = values::PROFILES, default_value = Profile::Alisio.as_str())]
    pub profile: Profile,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run the language server over stdio (the default).
    Serve {
        /// Accepted because editors pass it; stdio is the only transport.
        #[arg(long)]
        stdio: bool,
    },
    /// Lint every instruction file and skill under the paths.
    Check(check::CheckArgs),
    /// Instruction files and what reaches the model.
    #[command(subcommand)]
    Context(ContextCommand),
    /// Agent Skills: the catalog and validation.
    #[command(subcommand)]
    Skills(skills::SkillsCommand),
    /// Run one agent session headless.
    Run(run::RunArgs),
    /// Stored agent sessions: list, show, report.
    #[command(subcommand)]
    Sessions(sessions::SessionsCommand),
    /// The Context Governor: analyze recorded agent transcripts.
    #[command(subcommand)]
    Governor(governor::GovernorCommand),
    /// What recorded agent sessions received: instruction files, skills, compactions, cache.
    Audit(audit::AuditArgs),
    /// The rule catalogue: every diagnostic code, or one rule explained with examples.
    Rules(rules::RulesArgs),
    /// Create the workspace root's AGENTS.md, or update the section init owns in it.
    Init(init::InitArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions(completions::CompletionsArgs),
}

#[derive(Subcommand, Debug)]
pub enum ContextCommand {
    /// Which instruction files apply to PATH, in order, with the budget applied.
    Explain(instructions::ExplainArgs),
}

/// The outcome of a command, mapped to the process exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Ok = 0,
    Findings = 1,
    Usage = 2,
    /// `run` was cancelled (SIGINT/SIGTERM).
    Cancelled = 130,
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> Self {
        ExitCode::from(e as u8)
    }
}

/// A usage, configuration or I/O failure: printed as `error: <message>` and exit 2.
#[derive(Debug)]
pub struct Failure(pub String);

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(e: E) -> Self {
        Self(e.to_string())
    }
}

/// What every command acts from: the canonical cwd, the workspace root, trust, the
/// environment snapshot and the resolved settings.
pub struct Ctx {
    pub fs: DiskFs,
    pub env: Env,
    pub cwd: PathBuf,
    pub root: PathBuf,
    pub trusted: bool,
    pub settings: Settings,
    pub layers: Vec<config::Layer>,
    pub args: GlobalArgs,
}

impl Ctx {
    /// The skill discovery input of this invocation (workspace, trust, settings, environment).
    pub(crate) fn skill_input(&self) -> alisio_rules::skills::catalog::Input<'_> {
        alisio_rules::skills::catalog::Input {
            workspace_root: &self.root,
            trusted: self.trusted,
            settings: &self.settings,
            env: &self.env,
            plugins: &[],
        }
    }
    /// Builds the context: validates `--cwd`, finds the workspace root and loads configuration.
    ///
    /// # Errors
    /// An invalid cwd or configuration (`error: <file>: <message>`).
    pub fn new(args: &GlobalArgs, env: Env) -> Result<Self, Failure> {
        let fs = DiskFs;
        let base = match &args.cwd {
            Some(d) => d.clone(),
            None => std::env::current_dir()
                .map_err(|e| Failure(format!("cannot determine the current directory: {e}")))?,
        };
        let cwd = fs
            .canonicalize(&base)
            .map_err(|e| Failure(format!("{}: invalid --cwd: {e}", base.display())))?;
        if !fs
            .metadata(&cwd)
            .is_ok_and(|m| m.file_type == workspace::FileType::Dir)
        {
            return Err(Failure(format!(
                "{}: invalid --cwd: not a directory",
                base.display()
            )));
        }
        let root = workspace::find_root(&fs, &cwd);
        let trusted = args.trust_project || args.config.is_some();
        let extra = args.config.as_ref().map(|c| {
            (
                workspace::normalize_lexically(&cwd.join(c)),
                c.to_string_lossy().into_owned(),
            )
        });
        let layers = config::load_layers(
            &fs,
            env.config_home().as_deref(),
            &root,
            trusted,
            extra.as_ref().map(|(p, d)| (p.as_path(), d.as_str())),
        )
        .map_err(|e| Failure(e.to_string()))?;
        if let Some((layer, p)) = layers
            .iter()
            .find_map(|l| l.problems.first().map(|p| (l, p)))
        {
            return Err(Failure(format!("{}: {}", layer.display, p.message)));
        }
        let settings = config::resolve(&layers, env.home.as_deref());
        Ok(Self {
            fs,
            env,
            cwd,
            root,
            trusted,
            settings,
            layers,
            args: args.clone(),
        })
    }

    /// A command-line path resolved against the cwd, `.` and `..` removed lexically.
    #[must_use]
    pub fn resolve(&self, p: &Path) -> PathBuf {
        workspace::normalize_lexically(&self.cwd.join(p))
    }

    /// How a path is shown: relative to the workspace root when inside, else absolute.
    #[must_use]
    pub fn display(&self, p: &Path) -> String {
        workspace::display_path(p, &self.root)
    }
}

/// Writes to stdout, ignoring a closed pipe (`alisio-ls check | head` must not panic).
pub fn out(s: &str) {
    let mut o = std::io::stdout().lock();
    let _ = o.write_all(s.as_bytes());
    let _ = o.flush();
}

/// A line on stderr (notes, errors).
pub fn err_line(s: &str) {
    let mut e = std::io::stderr().lock();
    let _ = writeln!(e, "{s}");
}

fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("ALISIO_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}

/// Entry point of the binary.
#[must_use]
pub fn main() -> ExitCode {
    // The process sandbox's re-exec helper (spec/sessions.md §10.4): before tracing or threads.
    if let Some(code) = alisio_sandbox::exec::intercept() {
        return code;
    }
    init_tracing();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                Exit::Usage.into()
            } else {
                Exit::Ok.into()
            };
        }
    };
    let env = Env::from_process();
    let result = match cli.command {
        None | Some(Command::Serve { .. }) => {
            let code = crate::lsp::serve(crate::lsp::ServeOptions {
                trust_project: cli.global.trust_project,
                config: cli.global.config.as_ref().map(|c| {
                    std::env::current_dir()
                        .map(|d| d.join(c))
                        .unwrap_or_else(|_| c.clone())
                }),
            });
            return ExitCode::from(code);
        }
        Some(Command::Completions(a)) => completions::run(&a),
        Some(Command::Rules(a)) => rules::run(cli.global.json, &a),
        Some(Command::Init(a)) => Ctx::new(&cli.global, env).and_then(|ctx| init::run(&ctx, &a)),
        Some(Command::Check(a)) => Ctx::new(&cli.global, env).and_then(|ctx| check::run(&ctx, &a)),
        Some(Command::Context(ContextCommand::Explain(a))) => {
            Ctx::new(&cli.global, env).and_then(|ctx| instructions::run(&ctx, &a))
        }
        Some(Command::Skills(c)) => {
            Ctx::new(&cli.global, env).and_then(|ctx| skills::run(&ctx, &c))
        }
        Some(Command::Run(a)) => Ctx::new(&cli.global, env).and_then(|ctx| run::run(&ctx, &a)),
        Some(Command::Sessions(c)) => {
            Ctx::new(&cli.global, env).and_then(|ctx| sessions::run(&ctx, &c))
        }
        Some(Command::Audit(a)) => Ctx::new(&cli.global, env).and_then(|ctx| audit::run(&ctx, &a)),
        Some(Command::Governor(c)) => {
            Ctx::new(&cli.global, env).and_then(|ctx| governor::run(&ctx, &c))
        }
    };
    match result {
        Ok(code) => code.into(),
        Err(Failure(msg)) => {
            err_line(&format!("error: {msg}"));
            Exit::Usage.into()
        }
    }
}
