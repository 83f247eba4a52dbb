//! The language server: tower-lsp-server over stdio. Only this module knows the protocol; it
//! adapts the core modules and never holds a rule of its own (see ARCHITECTURE.md).

mod analysis;
mod attachments;
mod audit;
mod audit_result;
mod audit_run;
mod diagnostics;
mod disk;
mod documents;
pub mod ext;
mod features;
mod host_fixes;
mod init;
mod jobs;
mod pass_thread;
mod positions;
mod results;
mod server;
mod sessions;
mod skills;
mod snippets;
mod state;
mod suppress;
mod transport;
mod watch;

/// Entry points for the fuzz targets in `fuzz/` and the hostile-input tests: the document
/// model with incremental edits, LSP position conversion and the stdio framing guard's parser.
/// Not a stable API.
#[doc(hidden)]
pub mod fuzzing {
    pub use super::documents::Document;
    pub use super::positions::from_lsp;
    pub use super::transport::{FrameStep, Framer, check};
}

use std::path::PathBuf;
use std::sync::atomic::Ordering;

use tower_lsp_server::jsonrpc::Method;
use tower_lsp_server::{LspService, LspServiceBuilder, Server};

use ext::{
    AuditSessions, Checkpoints, ClientRequest, ContextExplain, ContextReport, InitAgentsMd,
    KeepChanges, ListSessions, Rewind, RunSession, SessionChanges, SessionTranscript,
    SetSkillEnabled, SkillCatalog, TestSkillTriggers, UndoChange,
};

/// Registers a custom request through its declaration: the handler takes `R::Params` and
/// returns `R::Result`, so a handler whose types differ from `ext.rs` does not compile
/// (tower-lsp-server's `custom_method` alone accepts any types under any method name).
trait Bind: Sized {
    fn request<R, F>(self, handler: F) -> Self
    where
        R: ClientRequest,
        F: for<'a> Method<
                &'a server::Backend,
                (R::Params,),
                tower_lsp_server::jsonrpc::Result<R::Result>,
            > + Clone
            + Send
            + Sync
            + 'static;
}

impl Bind for LspServiceBuilder<server::Backend> {
    fn request<R, F>(self, handler: F) -> Self
    where
        R: ClientRequest,
        F: for<'a> Method<
                &'a server::Backend,
                (R::Params,),
                tower_lsp_server::jsonrpc::Result<R::Result>,
            > + Clone
            + Send
            + Sync
            + 'static,
    {
        self.custom_method(R::METHOD, handler)
    }
}

/// How `serve` was started.
#[derive(Clone, Debug, Default)]
pub struct ServeOptions {
    pub trust_project: bool,
    pub config: Option<PathBuf>,
}

/// Runs the server on stdin/stdout until `exit` or end of input. Returns the process exit code:
/// 0 after `shutdown` + `exit`, 1 otherwise (spec/interfaces.md §1).
#[must_use]
pub fn serve(opts: ServeOptions) -> u8 {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            tracing::error!("cannot start the async runtime: {e}");
            return 1;
        }
    };
    let code = runtime.block_on(async move {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let mut shutdown_flag = None;
        let mut sessions = None;
        let (service, socket) = LspService::build(|client| {
            let backend = server::Backend::new(client, tx, opts.clone());
            shutdown_flag = Some(backend.shutdown_flag());
            sessions = Some(backend.sessions());
            backend
        })
        .request::<ContextExplain, _>(server::Backend::context_explain)
        .request::<SkillCatalog, _>(server::Backend::skill_catalog)
        .request::<SetSkillEnabled, _>(server::Backend::set_skill_enabled)
        .request::<TestSkillTriggers, _>(server::Backend::test_skill_triggers)
        .request::<RunSession, _>(server::Backend::run_session)
        .request::<ContextReport, _>(server::Backend::context_report)
        .request::<ListSessions, _>(server::Backend::list_sessions)
        .request::<SessionTranscript, _>(server::Backend::session_transcript)
        .request::<InitAgentsMd, _>(server::Backend::init_agents_md)
        .request::<Checkpoints, _>(server::Backend::checkpoints)
        .request::<Rewind, _>(server::Backend::rewind)
        .request::<SessionChanges, _>(server::Backend::session_changes)
        .request::<KeepChanges, _>(server::Backend::keep_changes)
        .request::<UndoChange, _>(server::Backend::undo_change)
        .request::<AuditSessions, _>(server::Backend::audit_sessions)
        .custom_method(
            "window/workDoneProgress/cancel",
            server::Backend::progress_cancel,
        )
        .finish();
        let inner = service.inner();
        let worker = tokio::spawn(server::worker(inner.client().clone(), inner.state(), rx));
        let stdin = CancelRunsAtEof {
            inner: tokio::io::stdin(),
            sessions: sessions.clone(),
        };
        let (input, output, writer) = transport::guard(stdin, tokio::io::stdout());
        Server::new(input, output, socket).serve(service).await;
        worker.abort();
        // Background tasks of agent sessions end with the server.
        if let Some(s) = &sessions {
            s.kill_all();
        }
        alisio_session::tools::process::end_live_groups(std::time::Duration::from_secs(2));
        let _ = tokio::time::timeout(std::time::Duration::from_secs(2), writer).await;
        match shutdown_flag {
            Some(f) if f.load(Ordering::SeqCst) => 0,
            _ => 1,
        }
    });
    // Do not wait for blocking tasks (a scan in progress) once the client is gone.
    runtime.shutdown_background();
    code
}

/// Standard input that cancels every running agent session when it ends or fails (and every
/// session whose request was read before the end but whose handler starts after it):
/// tower-lsp-server waits for in-flight requests before `serve` returns, so a run whose client
/// is gone would otherwise keep the server and its processes alive until it ends by itself.
struct CancelRunsAtEof<R> {
    inner: R,
    sessions: Option<std::sync::Arc<sessions::Sessions>>,
}

impl<R: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for CancelRunsAtEof<R> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let wanted = buf.remaining() > 0;
        let r = std::pin::Pin::new(&mut self.inner).poll_read(cx, buf);
        if let std::task::Poll::Ready(res) = &r
            && (res.is_err() || (wanted && buf.filled().len() == before))
            && let Some(s) = &self.sessions
        {
            s.cancel_all();
        }
        r
    }
}
