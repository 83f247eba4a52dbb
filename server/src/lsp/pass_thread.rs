//! The one thread every diagnostics pass runs on (issue 25, memory). A pass builds and drops a
//! few megabytes of listings, texts and reports; on tokio's blocking pool consecutive passes
//! landed on different threads, and glibc gives every thread an allocator arena of its own that
//! keeps the pages it once used, so each pass thread held its peak. On one thread all passes
//! reuse one arena. Other blocking work (a file's own diagnostics, features, the audit) stays on
//! the pool, so an edit never waits for a pass.

use std::panic::AssertUnwindSafe;
use std::sync::OnceLock;
use std::sync::mpsc;

use super::results::Computed;
use super::state::Snapshot;

type Request = (Snapshot, tokio::sync::oneshot::Sender<Computed>);

/// The pass thread's queue, started on first use; `None` when the thread could not be started.
static PASSES: OnceLock<Option<mpsc::Sender<Request>>> = OnceLock::new();

fn queue() -> Option<&'static mpsc::Sender<Request>> {
    PASSES
        .get_or_init(|| {
            let (tx, rx) = mpsc::channel::<Request>();
            let spawned = std::thread::Builder::new()
                .name("alisio-pass".into())
                .spawn(move || {
                    for (snap, reply) in rx {
                        // A panicking pass drops `reply` (the caller logs it); the thread serves
                        // the next one.
                        if let Ok(c) = std::panic::catch_unwind(AssertUnwindSafe(|| {
                            super::analysis::compute(&snap)
                        })) {
                            let _ = reply.send(c);
                        }
                    }
                });
            match spawned {
                Ok(_) => Some(tx),
                Err(e) => {
                    tracing::warn!("cannot start the pass thread ({e}); passes use the pool");
                    None
                }
            }
        })
        .as_ref()
}

/// Computes a pass over `snap` on the pass thread (passes asked for meanwhile wait their turn).
/// `Err` when the pass panicked.
pub async fn compute(snap: Snapshot) -> Result<Computed, String> {
    if let Some(q) = queue() {
        let (tx, rx) = tokio::sync::oneshot::channel();
        if q.send((snap, tx)).is_err() {
            return Err("the pass thread has ended".into());
        }
        return rx.await.map_err(|_| "the pass panicked".to_string());
    }
    tokio::task::spawn_blocking(move || super::analysis::compute(&snap))
        .await
        .map_err(|e| e.to_string())
}
