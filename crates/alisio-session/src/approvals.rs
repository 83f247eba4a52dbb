//! Effects and approvals (spec/sessions.md §4): per-effect policy, allow-once and allow-session
//! grants, approved external directories, and the [`Approver`] callback the editor answers.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use super::tools::Effect;

/// Per-effect policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    Allow,
    Ask,
    Deny,
    /// `approvals.process: sandboxed` (spec/sessions.md §4.2): allow when the run's sandbox is
    /// active, else `ask` (headless: `deny`). Resolved by [`Policies::with_sandbox`].
    Sandboxed,
}

impl Policy {
    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "allow" => Some(Self::Allow),
            "ask" => Some(Self::Ask),
            "deny" => Some(Self::Deny),
            "sandboxed" => Some(Self::Sandboxed),
            _ => None,
        }
    }
}

/// Session grants kept in memory (per root session in the LSP server; per run in the CLI).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SessionGrants {
    /// `write`, `process`.
    pub effects: BTreeSet<String>,
    /// Canonical external directories approved for the session.
    pub dirs: Vec<PathBuf>,
}

/// What the runner asks the client: the params of `alisio/approve` (`lsp::ext::Approve`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRequest {
    pub session_id: String,
    pub call_id: String,
    pub tool: String,
    /// `write`, `process` or `external`.
    pub effect: String,
    pub summary: String,
    pub paths: Vec<String>,
    /// What the call would do (`tools::preview`), shown before the user answers (docs/editors.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<serde_json::Value>,
    /// `{mode, network}` of the sandbox a `process` call runs in (spec/sessions.md §10.4), else null.
    #[serde(default)]
    pub sandbox: serde_json::Value,
}

/// The client's answer, or why there is none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    AllowOnce,
    AllowSession,
    Deny,
    /// JSON-RPC -32601.
    Unsupported,
    /// Another error or a malformed result.
    ClientError,
    /// No reply within `approvals.timeoutMs` (seconds waited).
    Timeout(u64),
    /// The run was cancelled while asking.
    Cancelled,
}

/// How the user changed an approved `write_file`/`edit_file` before approving it
/// (spec/sessions.md §4.4): the text to write, or one flag per hunk of the preview.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Review {
    Content(String),
    Hunks(Vec<bool>),
}

/// Asks the user. The LSP server implements it with `alisio/approve`; headless runs have none.
pub trait Approver: Send + Sync {
    fn approve(&self, req: &ApprovalRequest, cancel: &AtomicBool) -> Reply;
    /// [`Approver::approve`] with the user's review of a write (`None`: as proposed).
    fn approve_reviewed(
        &self,
        req: &ApprovalRequest,
        cancel: &AtomicBool,
    ) -> (Reply, Option<Review>) {
        (self.approve(req, cancel), None)
    }
    /// True once the client proved it cannot answer (-32601): it counts as headless from then on.
    fn headless(&self) -> bool {
        false
    }
}

/// The decision, its source, and the denial text (spec/sessions.md §4.4).
#[must_use]
pub fn resolve(reply: &Reply) -> (&'static str, &'static str, Option<String>) {
    match reply {
        Reply::AllowOnce => ("allow-once", "user", None),
        Reply::AllowSession => ("allow-session", "user", None),
        Reply::Deny => (
            "deny",
            "user",
            Some("Denied: the user did not approve this call.".into()),
        ),
        Reply::Unsupported => (
            "deny",
            "unsupported",
            Some(
                "Denied: the approval request failed (the client does not support alisio/approve)."
                    .into(),
            ),
        ),
        Reply::ClientError => (
            "deny",
            "client-error",
            Some("Denied: the approval request failed (invalid reply).".into()),
        ),
        Reply::Timeout(s) => (
            "deny",
            "timeout",
            Some(format!(
                "Denied: the approval request failed (timed out after {s} s)."
            )),
        ),
        Reply::Cancelled => ("cancelled", "cancelled", None),
    }
}

/// The effective policy of an effect for a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policies {
    pub write: Policy,
    pub process: Policy,
}

impl Policies {
    /// Applies `--allow`, `--read-only` and headless (spec/sessions.md §4.2).
    #[must_use]
    pub fn effective(self, allow: &[Effect], read_only: bool, headless: bool) -> Self {
        let one = |p: Policy, e: Effect| {
            if read_only {
                Policy::Deny
            } else if allow.contains(&e) {
                Policy::Allow
            } else if headless && p == Policy::Ask {
                Policy::Deny
            } else {
                p
            }
        };
        Self {
            write: one(self.write, Effect::Write),
            process: one(self.process, Effect::Process),
        }
    }

    /// Resolves `sandboxed` once the run knows whether its sandbox is active: `allow` inside
    /// one, otherwise what `ask` is (headless: `deny`).
    #[must_use]
    pub fn with_sandbox(self, active: bool, headless: bool) -> Self {
        let one = |p: Policy| match p {
            Policy::Sandboxed if active => Policy::Allow,
            Policy::Sandboxed if headless => Policy::Deny,
            Policy::Sandboxed => Policy::Ask,
            p => p,
        };
        Self {
            write: one(self.write),
            process: one(self.process),
        }
    }

    #[must_use]
    pub fn of(&self, e: Effect) -> Policy {
        match e {
            Effect::Read => Policy::Allow,
            Effect::Write => self.write,
            Effect::Process => self.process,
        }
    }
}

/// An `--allow` item that names no effect.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("Unknown effect in --allow: {0} (expected write, process)")]
pub struct UnknownEffect(pub String);

/// Parses `--allow write,process`.
///
/// # Errors
/// `Unknown effect in --allow: <x> (expected write, process)`.
pub fn parse_allow(list: &[String]) -> Result<Vec<Effect>, UnknownEffect> {
    let mut out = Vec::new();
    for item in list.iter().flat_map(|s| s.split(',')) {
        match item.trim() {
            "write" => out.push(Effect::Write),
            "process" => out.push(Effect::Process),
            x => return Err(UnknownEffect(x.to_string())),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headless_turns_ask_into_deny_and_allow_wins() {
        let p = Policies {
            write: Policy::Ask,
            process: Policy::Ask,
        };
        let e = p.effective(&[Effect::Write], false, true);
        assert_eq!((e.write, e.process), (Policy::Allow, Policy::Deny));
        let r = p.effective(&[], true, false);
        assert_eq!((r.write, r.process), (Policy::Deny, Policy::Deny));
    }

    #[test]
    fn sandboxed_allows_only_inside_an_active_sandbox() {
        let p = Policies {
            write: Policy::Ask,
            process: Policy::Sandboxed,
        };
        let e = p.effective(&[], false, true);
        assert_eq!(e.process, Policy::Sandboxed);
        assert_eq!(e.with_sandbox(true, true).process, Policy::Allow);
        assert_eq!(e.with_sandbox(false, true).process, Policy::Deny);
        assert_eq!(e.with_sandbox(false, false).process, Policy::Ask);
        assert_eq!(e.with_sandbox(true, true).write, Policy::Deny);
        assert_eq!(p.effective(&[], true, false).process, Policy::Deny);
        assert_eq!(
            p.effective(&[Effect::Process], false, true)
                .with_sandbox(false, true)
                .process,
            Policy::Allow
        );
    }

    #[test]
    fn allow_lists_are_parsed_and_unknown_effects_named() {
        assert_eq!(
            parse_allow(&["write,process".into()]).unwrap(),
            vec![Effect::Write, Effect::Process]
        );
        let e = parse_allow(&["net".into()]).unwrap_err();
        assert_eq!(e, UnknownEffect("net".into()));
        assert_eq!(
            e.to_string(),
            "Unknown effect in --allow: net (expected write, process)"
        );
    }
}
