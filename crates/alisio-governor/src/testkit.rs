//! Builders shared by the governor's tests: requests, turns and shell calls.

use super::invariants::Sources;
use super::model::{Call, Message};
use super::session::Turn;
use super::{Ledger, Request, RequestParts};

/// A request to govern, spelled positionally.
pub(crate) fn request<'a, 'l>(
    session_id: &'a str,
    history: &'a [Message],
    parts: &'a RequestParts,
    sources: &'a Sources,
    request: Option<u64>,
    ledger: Ledger<'l>,
) -> Request<'a, 'l> {
    Request {
        session_id,
        history,
        parts,
        sources,
        request,
        ledger,
    }
}

/// One model request of a session, spelled positionally.
pub(crate) fn turn<'a>(
    session_id: &'a str,
    history: &'a [Message],
    parts: &'a RequestParts,
    sources: &'a Sources,
    request: u64,
    recovery: bool,
) -> Turn<'a> {
    Turn {
        session_id,
        history,
        parts,
        sources,
        request,
        recovery,
    }
}

/// An assistant message with one `shell` call of `command`.
pub(crate) fn shell_call(id: &str, command: &str) -> Message {
    Message::assistant(
        "",
        vec![Call::new(
            id,
            "shell",
            serde_json::json!({ "command": command }).to_string(),
        )],
    )
}
