//! The audit's reads against real SQL (spec/interfaces.md §4): a hand-made store with every kind
//! of row a session can leave, including rows that must not count.

use super::super::{Store, StoreError};
use super::{RequestEvent, RequestRow};
use rusqlite::params;

/// A store with session `s1` (and `s2`, whose rows must never show in `s1`'s reads).
fn store() -> (tempfile::TempDir, Store) {
    let t = tempfile::tempdir().unwrap();
    let s = Store::open(t.path()).unwrap();
    for id in ["s1", "s2"] {
        s.connection
            .execute(
                "INSERT INTO sessions(id,title,workspace,cwd,created_at,updated_at,provider) VALUES(?1,'t','/w','/w','2026-01-01T10:00:00.000Z','2026-01-01T10:00:00.000Z','{}')",
                [id],
            )
            .unwrap();
    }
    (t, s)
}

#[allow(clippy::too_many_arguments)]
fn msg(
    s: &Store,
    sid: &str,
    seq: i64,
    pos: i64,
    role: &str,
    kind: &str,
    json: &str,
    compacted: i64,
    replaced_by: Option<i64>,
    run: &str,
) {
    s.connection
        .execute(
            "INSERT INTO messages(session_id,seq,pos,role,kind,json,compacted,replaced_by,run_id,created_at) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)",
            params![sid, seq, pos, role, kind, json, compacted, replaced_by, run, format!("2026-01-01T10:00:{seq:02}.000Z")],
        )
        .unwrap();
}

const USER: &str = r#"{"role":"user","content":[{"type":"text","text":"p"}]}"#;
const ANSWER: &str = r#"{"role":"assistant","content":[],"model":"m1","usage":{"input":30,"output":1,"cacheRead":20,"estimated":false}}"#;

/// Session `s1`: a compaction (checkpoint 5 replaced 1 and 2), a malformed answer (4), a
/// handoff whose model is not a string (6), a budget-reduced copy of 3 (7), then a rewind that
/// restored copies of 5, 4 and 7 (8, 9, 10: nothing points to them), and in `s2` a row whose
/// `replaced_by` names seq 8.
fn rows(s: &Store) {
    msg(s, "s1", 1, 1, "user", "message", USER, 1, Some(5), "r1");
    msg(
        s,
        "s1",
        2,
        2,
        "assistant",
        "message",
        ANSWER,
        1,
        Some(5),
        "r1",
    );
    msg(s, "s1", 3, 3, "user", "message", USER, 1, Some(7), "r1");
    msg(
        s,
        "s1",
        4,
        4,
        "assistant",
        "message",
        "{not json",
        1,
        None,
        "r1",
    );
    msg(s, "s1", 5, 2, "user", "checkpoint", USER, 1, None, "r1");
    msg(
        s,
        "s1",
        6,
        6,
        "assistant",
        "message",
        r#"{"role":"assistant","content":[],"model":7,"handoff":true}"#,
        1,
        None,
        "r1",
    );
    msg(s, "s1", 7, 3, "user", "reduced", USER, 1, None, "r1");
    msg(s, "s1", 8, 2, "user", "checkpoint", USER, 0, None, "r1");
    msg(s, "s1", 9, 4, "assistant", "message", ANSWER, 0, None, "r1");
    msg(s, "s1", 10, 3, "user", "reduced", USER, 0, None, "r1");
    msg(s, "s2", 1, 1, "user", "message", USER, 1, Some(8), "r9");
}

#[test]
fn request_rows_count_only_appended_answers_and_rows_that_replaced_others() {
    let (_t, s) = store();
    rows(&s);
    let r1 = || Some("r1".to_owned());
    assert_eq!(
        s.request_rows("s1").unwrap(),
        [
            RequestRow::Request {
                seq: 2,
                run_id: r1(),
                created_at: "2026-01-01T10:00:02.000Z".into(),
                model: Some("m1".into()),
                usage: Some(r#"{"input":30,"output":1,"cacheRead":20,"estimated":false}"#.into()),
                handoff: false,
            },
            // Truly malformed JSON: a request, with nothing extracted.
            RequestRow::Request {
                seq: 4,
                run_id: r1(),
                created_at: "2026-01-01T10:00:04.000Z".into(),
                model: None,
                usage: None,
                handoff: false,
            },
            RequestRow::Checkpoint {
                seq: 5,
                run_id: r1()
            },
            RequestRow::Request {
                seq: 6,
                run_id: r1(),
                created_at: "2026-01-01T10:00:06.000Z".into(),
                model: None,
                usage: None,
                handoff: true,
            },
            RequestRow::Reduced {
                seq: 7,
                run_id: r1()
            },
        ]
    );
    assert_eq!(s.request_rows("s3").unwrap(), []);
}

#[test]
fn runs_end_at_their_own_rows_and_rewinds_are_read_in_order() {
    let (_t, s) = store();
    rows(&s);
    for (id, at) in [
        ("r1", "2026-01-01T10:00:00.000Z"),
        ("r2", "2026-01-01T11:00:00.000Z"),
    ] {
        s.connection
            .execute(
                "INSERT INTO runs(id,session_id,started_at,status) VALUES(?1,'s1',?2,'completed')",
                params![id, at],
            )
            .unwrap();
    }
    // r1's rewind copies (8-10) keep its run id but are not its rows.
    assert_eq!(
        s.run_last_seqs("s1").unwrap(),
        [("r1".to_owned(), Some(7)), ("r2".to_owned(), None)]
    );
    for (id, kind, at) in [(1, "pre", 7), (2, "rewind", 7), (3, "rewind", 12)] {
        s.connection
            .execute(
                "INSERT INTO snapshots(session_id,id,kind,at_seq,created_at) VALUES('s1',?1,?2,?3,'x')",
                params![id, kind, at],
            )
            .unwrap();
    }
    assert_eq!(s.rewind_seqs("s1").unwrap(), [7, 12]);
}

#[test]
fn request_events_carry_the_usage_and_the_provider_kind_and_cache_lifetime() {
    let (_t, s) = store();
    for (sid, ty, data) in [
        (
            "s1",
            "run_started",
            r#"{"provider":"anthropic","model":"m","promptCacheTtlSeconds":60}"#,
        ),
        (
            "s1",
            "context_governed",
            r#"{"mode":"shadow","usage":{"input":1}}"#,
        ),
        ("s1", "text_delta", r#"{"usage":{"input":2}}"#),
        (
            "s1",
            "truncation_recovery",
            r#"{"attempt":1,"usage":{"input":9,"output":3}}"#,
        ),
        ("s1", "request_retry", r#"{"attempt":1,"usage":null}"#),
        ("s2", "turn_completed", r#"{"usage":{"input":5}}"#),
        ("s1", "turn_completed", "{broken"),
        ("s1", "compaction_completed", r#"{"usage":{"input":4}}"#),
    ] {
        s.connection
            .execute(
                "INSERT INTO events(session_id,run_id,seq,type,timestamp,data) VALUES(?1,'r1',1,?2,'2026-01-01T10:00:00.000Z',?3)",
                params![sid, ty, data],
            )
            .unwrap();
    }
    let e = |id: i64, ty: &str, usage: Option<&str>, provider: Option<&str>| RequestEvent {
        id,
        run_id: "r1".into(),
        ty: ty.into(),
        timestamp: "2026-01-01T10:00:00.000Z".into(),
        usage: usage.map(String::from),
        provider: provider.map(String::from),
        ttl_secs: None,
    };
    let started = RequestEvent {
        ttl_secs: Some(60),
        ..e(1, "run_started", None, Some("anthropic"))
    };
    assert_eq!(
        s.request_events("s1").unwrap(),
        [
            started,
            e(2, "context_governed", Some(r#"{"input":1}"#), None),
            e(
                4,
                "truncation_recovery",
                Some(r#"{"input":9,"output":3}"#),
                None
            ),
            e(5, "request_retry", None, None),
            e(7, "turn_completed", None, None),
            e(8, "compaction_completed", Some(r#"{"input":4}"#), None),
        ]
    );
}

#[test]
fn a_read_snapshot_ends_its_transaction_whatever_its_reads_return() {
    let (_t, s) = store();
    rows(&s);
    let failed: Result<(), String> = s.read_snapshot(|e| e.to_string(), |_| Err("no".into()));
    assert_eq!(failed, Err("no".to_owned()));
    // The transaction ended: another one begins, and reads in it.
    let n = s
        .read_snapshot(
            |e: StoreError| e.to_string(),
            |s| Ok::<_, String>(s.request_rows("s1").map_err(|e| e.to_string())?.len()),
        )
        .unwrap();
    assert_eq!(n, 5);
    assert!(s.connection.is_autocommit());
}

/// A file cut by the budget changes the system text though its path and text did not: the next
/// request's miss is `instruction-changed` (the key has `bytes` and `detail`), and it is no new
/// delivery (that is a file whose path or text the previous set did not have).
#[test]
fn a_file_cut_by_the_budget_changes_the_instructions() {
    use alisio_governor::audit::CacheClass;
    let (t, s) = store();
    for (id, at) in [
        ("r1", "2026-01-01T10:00:00.000Z"),
        ("r2", "2026-01-01T10:01:00.000Z"),
    ] {
        s.connection
            .execute(
                "INSERT INTO runs(id,session_id,started_at,status) VALUES(?1,'s1',?2,'completed')",
                params![id, at],
            )
            .unwrap();
    }
    let answer = |write: u64| {
        format!(
            r#"{{"role":"assistant","content":[],"model":"claude-sonnet-4-5","usage":{{"input":{},"output":1,"cacheWrite":{write}}}}}"#,
            write + 10
        )
    };
    msg(&s, "s1", 1, 1, "user", "message", USER, 0, None, "r1");
    msg(
        &s,
        "s1",
        2,
        2,
        "assistant",
        "message",
        &answer(1000),
        0,
        None,
        "r1",
    );
    msg(&s, "s1", 3, 3, "user", "message", USER, 0, None, "r2");
    msg(
        &s,
        "s1",
        4,
        4,
        "assistant",
        "message",
        &answer(900),
        0,
        None,
        "r2",
    );
    for (id, run, at, bytes, detail) in
        [(1, "r1", 1, 100, None), (2, "r2", 3, 40, Some("truncated"))]
    {
        s.connection
            .execute(
                "INSERT INTO deliveries(session_id,id,run_id,request,at_seq,kind,how,path,sha256,bytes,detail,created_at) VALUES('s1',?1,?2,1,?3,'instruction','section','/w/AGENTS.md','abc',?4,?5,'x')",
                params![id, run, at, bytes, detail],
            )
            .unwrap();
    }
    drop(s);
    let got = crate::audit::own::workspace_sessions(t.path(), std::path::Path::new("/w"), "db", 5)
        .unwrap();
    let a = got.iter().find(|a| a.session == "s1").unwrap();
    assert_eq!(
        a.requests
            .iter()
            .map(|r| (r.line, r.class, r.cause))
            .collect::<Vec<_>>(),
        [
            (2, CacheClass::Cold, None),
            (4, CacheClass::Broken, Some("instruction-changed")),
        ]
    );
    assert_eq!(
        a.deliveries
            .iter()
            .map(|d| (d.line, d.how, d.bytes))
            .collect::<Vec<_>>(),
        [(1, "startup", 100)]
    );
}
