//! The sandbox through [`crate::run_session`] with an approver (as the language server
//! runs it): where the sandbox cannot be applied, `approvals.process: sandboxed` asks, the
//! summary says ` [no sandbox]`, the fallback is announced once, and the result is labelled.
//! (Real confinement is tested on real processes in `tests/hostile/sandbox.rs`.)

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use crate::approvals::{ApprovalRequest, Approver, Policy, Reply, SessionGrants};
use crate::context::DiskContext;
use crate::settings::RunOptions;
use crate::tools::bg::Tasks;
use crate::{SessionRun, run_session};

struct Once(Mutex<Vec<ApprovalRequest>>);

impl Approver for Once {
    fn approve(&self, req: &ApprovalRequest, _cancel: &AtomicBool) -> Reply {
        self.0.lock().unwrap().push(req.clone());
        Reply::AllowOnce
    }
}

#[test]
fn sandboxed_asks_when_the_sandbox_is_unavailable_and_says_so_once() {
    // The probe fails the way it does on a kernel without Landlock.
    alisio_sandbox::force_unavailable("this kernel has no Landlock");
    let t = tempfile::tempdir().unwrap();
    let base = t.path().canonicalize().unwrap();
    let root = base.join("ws");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(
        root.join("s.jsonl"),
        [
            r#"{"toolCalls":[{"id":"c1","name":"shell","arguments":{"command":"echo hi"}}]}"#,
            r#"{"toolCalls":[{"id":"c2","name":"run_process","arguments":{"command":"true","args":[]}}]}"#,
            r#"{"text":"done"}"#,
        ]
        .join("\n"),
    )
    .unwrap();
    let mut o = RunOptions::new("p", root.clone(), root.clone(), base.join("state"));
    o.provider_overrides.insert("kind".into(), json!("script"));
    o.provider_overrides
        .insert("script".into(), json!("s.jsonl"));
    o.headless = false;
    o.config.process = Policy::Sandboxed;
    let ap = Once(Mutex::new(Vec::new()));
    let mut evs: Vec<Value> = Vec::new();
    let mut sink = |e: &crate::events::Emitted<'_>| evs.push(e.json.clone());
    let ctx = Arc::new(DiskContext::new(
        root.clone(),
        alisio_base::config::Settings::default(),
        false,
        alisio_base::workspace::Env::default(),
    ));
    run_session(SessionRun {
        options: &o,
        context: ctx,
        sink: &mut sink,
        approver: Some(&ap),
        grants: Arc::new(Mutex::new(SessionGrants::default())),
        tasks: Arc::new(Mutex::new(Tasks::default())),
        cancel: Arc::new(AtomicBool::new(false)),
    })
    .unwrap();
    let of = |t: &str| evs.iter().filter(|e| e["type"] == t).collect::<Vec<_>>();
    let n = of("sandbox_unavailable");
    assert_eq!(n.len(), 1);
    assert_eq!(n[0]["data"]["requested"], json!("workspace-write"));
    assert_eq!(
        n[0]["data"]["reason"],
        json!("this kernel has no Landlock"),
        "{}",
        n[0]
    );
    assert_eq!(
        of("run_started")[0]["data"]["sandbox"],
        json!({"mode":"off","network":true})
    );
    let asked = ap.0.lock().unwrap();
    let summaries: Vec<&str> = asked.iter().map(|r| r.summary.as_str()).collect();
    assert_eq!(
        summaries,
        ["Run shell: echo hi [no sandbox]", "Run true [no sandbox]"]
    );
    let req = of("approval_requested");
    assert_eq!(
        req[0]["data"]["sandbox"],
        json!({"mode":"off","network":true})
    );
    let done = of("tool_completed");
    let out: Value = serde_json::from_str(done[0]["data"]["preview"].as_str().unwrap()).unwrap();
    assert_eq!(out["stdout"], json!("hi\n"));
    assert_eq!(out["sandbox"], json!({"mode":"off","network":true}));
}
