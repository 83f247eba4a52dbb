//! Library-level tests of [`run_session`] with the callbacks the language server passes: an
//! approver answering like `alisio/approve`, a cancellation flag, an event sink (sessions.md
//! spec/sessions.md §11 cases 20, 25–28, 51).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::approvals::{ApprovalRequest, Approver, Reply, SessionGrants};
use super::context::DiskContext;
use super::settings::RunOptions;
use super::tools::bg::Tasks;
use super::{RunResult, RunStatus, SessionRun, run_session};

struct Fixed {
    replies: Mutex<Vec<Reply>>,
    asked: Mutex<Vec<ApprovalRequest>>,
    unsupported: AtomicBool,
}

impl Fixed {
    fn new(replies: Vec<Reply>) -> Self {
        Self {
            replies: Mutex::new(replies),
            asked: Mutex::new(Vec::new()),
            unsupported: AtomicBool::new(false),
        }
    }
}

impl Approver for Fixed {
    fn approve(&self, req: &ApprovalRequest, _cancel: &AtomicBool) -> Reply {
        self.asked.lock().unwrap().push(req.clone());
        let r = self.replies.lock().unwrap().remove(0);
        if r == Reply::Unsupported {
            self.unsupported.store(true, Ordering::Relaxed);
        }
        r
    }
    fn headless(&self) -> bool {
        self.unsupported.load(Ordering::Relaxed)
    }
}

struct Ws {
    _t: tempfile::TempDir,
    root: PathBuf,
    state: PathBuf,
}

fn ws() -> Ws {
    let t = tempfile::tempdir().unwrap();
    let base = t.path().canonicalize().unwrap();
    let root = base.join("ws");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    Ws {
        state: base.join("state"),
        root,
        _t: t,
    }
}

fn opts(w: &Ws, script: &[&str], session: Option<&str>) -> RunOptions {
    std::fs::write(w.root.join("s.jsonl"), script.join("\n")).unwrap();
    let mut o = RunOptions::new("p", w.root.clone(), w.root.clone(), w.state.clone());
    o.provider_overrides.insert("kind".into(), json!("script"));
    o.provider_overrides
        .insert("script".into(), json!("s.jsonl"));
    o.headless = false;
    o.session_id = session.map(String::from);
    o
}

fn ctx(root: &Path) -> Arc<DiskContext> {
    Arc::new(DiskContext::new(
        root.to_path_buf(),
        alisio_base::config::Settings::default(),
        false,
        alisio_base::workspace::Env::default(),
    ))
}

fn go(
    w: &Ws,
    o: &RunOptions,
    ap: Option<&dyn Approver>,
    grants: &Arc<Mutex<SessionGrants>>,
    cancel: Arc<AtomicBool>,
) -> (RunResult, Vec<Value>) {
    let mut evs = Vec::new();
    let mut sink = |e: &crate::events::Emitted<'_>| evs.push(e.json.clone());
    let r = run_session(SessionRun {
        options: o,
        context: ctx(&w.root),
        sink: &mut sink,
        approver: ap,
        grants: Arc::clone(grants),
        tasks: Arc::new(Mutex::new(Tasks::default())),
        cancel,
    })
    .unwrap();
    (r, evs)
}

/// A new session of `script`, not cancelled.
fn go_script(
    w: &Ws,
    script: &[&str],
    ap: Option<&dyn Approver>,
    grants: &Arc<Mutex<SessionGrants>>,
) -> (RunResult, Vec<Value>) {
    let o = opts(w, script, None);
    go(w, &o, ap, grants, Arc::new(AtomicBool::new(false)))
}

fn types(ev: &[Value]) -> Vec<&str> {
    ev.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

const WRITE_A: &str = r#"{"toolCalls":[{"name":"write_file","arguments":{"path":"a.txt","content":"A","expectedHash":null}}]}"#;
const WRITE_B: &str = r#"{"toolCalls":[{"name":"write_file","arguments":{"path":"b.txt","content":"B","expectedHash":null}}]}"#;

// 25
#[test]
fn allow_once_runs_the_call_and_the_next_write_asks_again() {
    let w = ws();
    let ap = Fixed::new(vec![Reply::AllowOnce, Reply::AllowOnce]);
    let g = Arc::new(Mutex::new(SessionGrants::default()));
    let (r, ev) = go_script(&w, &[WRITE_A, WRITE_B, r#"{"text":"ok"}"#], Some(&ap), &g);
    assert_eq!(r.status, RunStatus::Completed);
    let asked = ap.asked.lock().unwrap();
    assert_eq!(asked.len(), 2);
    assert_eq!(asked[0].summary, "Write a.txt (1 bytes)");
    assert_eq!(asked[0].effect, "write");
    assert_eq!(asked[0].paths, vec!["a.txt".to_string()]);
    let res: Vec<&Value> = ev
        .iter()
        .filter(|e| e["type"] == "approval_resolved")
        .collect();
    assert_eq!(
        res[0]["data"],
        json!({"callId":asked[0].call_id,"decision":"allow-once","source":"user"})
    );
    assert!(w.root.join("a.txt").is_file() && w.root.join("b.txt").is_file());
}

// 26
#[test]
fn allow_session_grants_the_effect_for_the_rest_of_the_session() {
    let w = ws();
    let ap = Fixed::new(vec![Reply::AllowSession]);
    let g = Arc::new(Mutex::new(SessionGrants::default()));
    let (r, _) = go_script(&w, &[WRITE_A, WRITE_B, r#"{"text":"ok"}"#], Some(&ap), &g);
    assert_eq!(r.status, RunStatus::Completed);
    assert_eq!(ap.asked.lock().unwrap().len(), 1);
    assert!(g.lock().unwrap().effects.contains("write"));
    assert!(w.root.join("b.txt").is_file());
}

// 27
#[test]
fn deny_and_an_unsupported_client_refuse_the_call_and_the_run_continues() {
    let w = ws();
    let ap = Fixed::new(vec![Reply::Deny]);
    let g = Arc::new(Mutex::new(SessionGrants::default()));
    let (r, ev) = go_script(&w, &[WRITE_A, r#"{"text":"ok"}"#], Some(&ap), &g);
    assert_eq!(r.status, RunStatus::Completed);
    let done: Vec<&Value> = ev
        .iter()
        .filter(|e| e["type"] == "tool_completed")
        .collect();
    assert_eq!(done[0]["data"]["outcome"], "denied");
    assert_eq!(
        done[0]["data"]["preview"],
        "Denied: the user did not approve this call."
    );
    assert!(!w.root.join("a.txt").exists());

    let ap = Fixed::new(vec![Reply::Unsupported]);
    let script = [
        WRITE_A,
        r#"{"expect":{"tools":["read_file","list_files","search_text","context_explain","result_read","task"]},"text":"ok"}"#,
    ];
    let (r, ev) = go_script(&w, &script, Some(&ap), &g);
    assert_eq!(r.status, RunStatus::Completed, "{:?}", r.error);
    let res: Vec<&Value> = ev
        .iter()
        .filter(|e| e["type"] == "approval_resolved")
        .collect();
    assert_eq!(res[0]["data"]["decision"], "deny");
    assert_eq!(res[0]["data"]["source"], "unsupported");
    let done: Vec<&Value> = ev
        .iter()
        .filter(|e| e["type"] == "tool_completed")
        .collect();
    assert_eq!(
        done[0]["data"]["preview"],
        "Denied: the approval request failed (the client does not support alisio/approve)."
    );
    // A later run with the same (now headless) client is not offered write tools.
    let (r, _) = go(
        &w,
        &opts(
            &w,
            &[
                r#"{"expect":{"tools":["read_file","list_files","search_text","context_explain","result_read","task"]},"text":"ok"}"#,
            ],
            None,
        ),
        Some(&ap),
        &g,
        Arc::new(AtomicBool::new(false)),
    );
    assert_eq!(r.status, RunStatus::Completed, "{:?}", r.error);
}

// 28
#[test]
fn read_only_sends_no_approval_and_offers_no_write_or_process_tools() {
    let w = ws();
    let ap = Fixed::new(vec![]);
    let g = Arc::new(Mutex::new(SessionGrants::default()));
    let mut o = opts(
        &w,
        &[
            r#"{"expect":{"tools":["read_file","list_files","search_text","context_explain","result_read","task"]},"toolCalls":[{"name":"shell","arguments":{"command":"true"}}]}"#,
            r#"{"text":"ok"}"#,
        ],
        None,
    );
    o.read_only = true;
    let (r, _) = go(&w, &o, Some(&ap), &g, Arc::new(AtomicBool::new(false)));
    assert_eq!(r.status, RunStatus::Completed, "{:?}", r.error);
    assert!(ap.asked.lock().unwrap().is_empty());
}

// 20
#[test]
fn cancelling_during_a_slow_response_ends_the_run_and_the_session_resumes() {
    let w = ws();
    let g = Arc::new(Mutex::new(SessionGrants::default()));
    let cancel = Arc::new(AtomicBool::new(false));
    let c2 = Arc::clone(&cancel);
    let t = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(200));
        c2.store(true, Ordering::Relaxed);
    });
    let (r, ev) = go(
        &w,
        &opts(&w, &[r#"{"delayMs":5000,"text":"late"}"#], None),
        None,
        &g,
        cancel,
    );
    t.join().unwrap();
    assert_eq!(r.status, RunStatus::Cancelled);
    assert_eq!(ev.last().unwrap()["type"], "run_cancelled");
    assert_eq!(
        ev.last().unwrap()["data"],
        json!({"reason":"client","error":"Cancelled"})
    );
    let (r2, _) = go(
        &w,
        &opts(&w, &[r#"{"text":"ok"}"#], Some(&r.session_id)),
        None,
        &g,
        Arc::new(AtomicBool::new(false)),
    );
    assert_eq!(r2.status, RunStatus::Completed);
    assert_eq!(r2.text, "ok");
}

// 51 (library half: the same envelopes a CLI run prints, in order)
#[test]
fn the_sink_receives_envelopes_in_seq_order_with_event_ids_on_stored_events() {
    let w = ws();
    std::fs::write(w.root.join("a.txt"), "x").unwrap();
    let g = Arc::new(Mutex::new(SessionGrants::default()));
    let (_, ev) = go(
        &w,
        &opts(
            &w,
            &[
                r#"{"toolCalls":[{"name":"read_file","arguments":{"path":"a.txt"}}]}"#,
                r#"{"text":"ok"}"#,
            ],
            None,
        ),
        None,
        &g,
        Arc::new(AtomicBool::new(false)),
    );
    assert_eq!(
        types(&ev),
        [
            "run_started",
            "tool_started",
            "tool_completed",
            "turn_completed",
            "text_delta",
            "turn_completed",
            "run_completed"
        ]
    );
    for (i, e) in ev.iter().enumerate() {
        assert_eq!(e["seq"], json!(i + 1));
        assert_eq!(e.get("eventId").is_some(), e["type"] != "text_delta");
    }
}

// 53 (editor half)
#[test]
fn a_child_write_asks_with_the_child_id_and_cancelling_the_parent_cancels_the_child() {
    let w = ws();
    let ap = Fixed::new(vec![Reply::AllowOnce]);
    let g = Arc::new(Mutex::new(SessionGrants::default()));
    let script = [
        r#"{"toolCalls":[{"id":"t1","name":"task","arguments":{"description":"d","prompt":"write"}}]}"#,
        WRITE_A,
        r#"{"text":"wrote"}"#,
        r#"{"text":"done"}"#,
    ];
    let (r, ev) = go_script(&w, &script, Some(&ap), &g);
    assert_eq!(r.status, RunStatus::Completed, "{:?}", r.error);
    let child = ev
        .iter()
        .filter(|e| e["type"] == "run_started")
        .nth(1)
        .unwrap()["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(ap.asked.lock().unwrap()[0].session_id, child);
    let asked = ev
        .iter()
        .find(|e| e["type"] == "approval_requested")
        .unwrap();
    assert_eq!(asked["sessionId"], json!(child));

    let cancel = Arc::new(AtomicBool::new(false));
    let c2 = Arc::clone(&cancel);
    let t = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(200));
        c2.store(true, Ordering::Relaxed);
    });
    let script = [
        r#"{"toolCalls":[{"id":"t2","name":"task","arguments":{"description":"d","prompt":"slow"}}]}"#,
        r#"{"delayMs":5000,"text":"late"}"#,
    ];
    let (r, ev) = go(&w, &opts(&w, &script, None), None, &g, cancel);
    t.join().unwrap();
    assert_eq!(r.status, RunStatus::Cancelled);
    let cancels: Vec<&Value> = ev.iter().filter(|e| e["type"] == "run_cancelled").collect();
    assert_eq!(cancels.len(), 2);
    assert_eq!(cancels[0]["data"]["reason"], "parent");
    assert_eq!(cancels[1]["data"]["reason"], "client");
    assert_eq!(ev.last().unwrap()["sessionId"], json!(r.session_id));
}

type Rows = Vec<(i64, i64, String, String)>;

/// Every stored message row of every session, by session id then `seq`.
fn rows(state: &Path) -> Rows {
    let store = super::store::Store::open(state).unwrap();
    let mut ids: Vec<String> = store
        .list("", true)
        .unwrap()
        .into_iter()
        .map(|(s, _, _)| s.id)
        .collect();
    ids.sort();
    ids.iter()
        .flat_map(|id| store.all_messages(id).unwrap())
        .map(|m| (m.seq, m.pos, m.role.to_string(), m.json))
        .collect()
}

// The stored transcript is byte-identical before and after every governed request.
#[test]
fn governed_requests_never_change_the_stored_transcript() {
    let w = ws();
    std::fs::write(w.root.join("a.rs"), "fn greeting() {}\n").unwrap();
    let search = r#"{"toolCalls":[{"name":"search_text","arguments":{"pattern":"greeting"}}]}"#;
    let read = r#"{"toolCalls":[{"name":"read_file","arguments":{"path":"a.rs"}}]}"#;
    let mut script = Vec::new();
    for _ in 0..5 {
        script.push(search);
        script.push(read);
    }
    script.push(r#"{"text":"done"}"#);
    let mut o = opts(&w, &script, None);
    o.governor = alisio_base::config::GovernorMode::On;
    o.settings.elide_epoch_messages = Some(0);
    o.settings.elide_min_age_turns = 1;
    let snapshots: Arc<Mutex<Vec<(Rows, u64)>>> = Arc::new(Mutex::new(Vec::new()));
    let snaps = Arc::clone(&snapshots);
    let state = w.state.clone();
    let mut sink = |e: &crate::events::Emitted<'_>| {
        let e = e.json;
        if e["type"] == "context_governed" || e["type"] == "turn_completed" {
            snaps
                .lock()
                .unwrap()
                .push((rows(&state), e["data"]["elided"].as_u64().unwrap_or(0)));
        }
    };
    let g = Arc::new(Mutex::new(SessionGrants::default()));
    let r = run_session(SessionRun {
        options: &o,
        context: ctx(&w.root),
        sink: &mut sink,
        approver: None,
        grants: g,
        tasks: Arc::new(Mutex::new(Tasks::default())),
        cancel: Arc::new(AtomicBool::new(false)),
    })
    .unwrap();
    assert_eq!(r.status, RunStatus::Completed, "{:?}", r.error);
    let snaps = snapshots.lock().unwrap();
    assert!(
        snaps.iter().any(|(_, elided)| *elided > 0),
        "the projection elided something"
    );
    let last = rows(&w.state);
    for (before, _) in snaps.iter() {
        assert_eq!(
            &last[..before.len()],
            &before[..],
            "every stored row is unchanged by later requests"
        );
    }
    assert!(
        last.iter().all(|r| !r.3.contains("[elided:")),
        "stubs are never stored"
    );
}

// 26 (mode on): an allow-session grant is named under "Active grants" after a compaction.
#[test]
fn a_session_grant_appears_in_the_invariants_block_after_a_compaction() {
    let w = ws();
    let ap = Fixed::new(vec![Reply::AllowSession]);
    let g = Arc::new(Mutex::new(SessionGrants::default()));
    let (r, _) = go(
        &w,
        &opts(
            &w,
            &[
                WRITE_A,
                r#"{"text":"wrote","usage":{"input":1690,"output":20}}"#,
            ],
            None,
        ),
        Some(&ap),
        &g,
        Arc::new(AtomicBool::new(false)),
    );
    assert_eq!(r.status, RunStatus::Completed);
    let script = [
        r#"{"alisioScript":1,"contextWindow":2000}"#,
        r#"{"for":"summary","text":"{\"checkpoint\":{\"goal\":\"write a\"}}"}"#,
        r###"{"expect":{"contains":["## Active grants","- \\\"effect: write\\\""]},"text":"ok"}"###,
    ];
    let mut o = opts(&w, &script, Some(&r.session_id));
    o.governor = alisio_base::config::GovernorMode::On;
    let (r2, ev) = go(&w, &o, Some(&ap), &g, Arc::new(AtomicBool::new(false)));
    assert_eq!(r2.status, RunStatus::Completed, "{:?}", r2.error);
    assert!(ev.iter().any(|e| e["type"] == "compaction_completed"));
}
