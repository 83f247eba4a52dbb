//! alisio-ls's own sessions audited: two runs through the script provider (a local fake model)
//! record their deliveries, the files change, and the audit reads the store like a client's
//! session file (spec/interfaces.md §4, spec/sessions.md §1.3).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use serde_json::json;

use super::super::{Place, compare, findings};
use crate::context::DiskContext;
use crate::settings::RunOptions;
use crate::store::Store;
use crate::tools::bg::Tasks;
use crate::{RunStatus, SessionRun, run_session};
use alisio_base::config::Settings;
use alisio_base::text::sha256_hex;
use alisio_base::workspace::{DiskFs, Env};

struct Ws {
    _t: tempfile::TempDir,
    root: PathBuf,
    state: PathBuf,
    config: PathBuf,
}

fn ws() -> Ws {
    let t = tempfile::tempdir().unwrap();
    let base = t.path().canonicalize().unwrap();
    let root = base.join("ws");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    for (p, text) in [
        ("AGENTS.md", "root rules\n"),
        ("sub/AGENTS.md", "sub rules\n"),
        ("sub/x.txt", "x\n"),
        (
            ".agents/skills/greet/SKILL.md",
            "---\nname: greet\ndescription: Greets the user.\n---\nSay hello.\n",
        ),
    ] {
        let f = root.join(p);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, text).unwrap();
    }
    Ws {
        state: base.join("state"),
        config: base.join("config"),
        root,
        _t: t,
    }
}

/// Runs `script` (one model answer a line) in a new session, or resumes `session`.
fn run(w: &Ws, script: &[&str], session: Option<&str>) -> String {
    run_with(w, script, session, |_| {})
}

/// [`run`] with the options as `f` leaves them.
fn run_with(
    w: &Ws,
    script: &[&str],
    session: Option<&str>,
    f: impl FnOnce(&mut RunOptions),
) -> String {
    std::fs::write(w.root.join("s.jsonl"), script.join("\n")).unwrap();
    let mut o = RunOptions::new("p", w.root.clone(), w.root.clone(), w.state.clone());
    o.provider_overrides.insert("kind".into(), json!("script"));
    o.provider_overrides
        .insert("script".into(), json!("s.jsonl"));
    o.headless = false;
    o.session_id = session.map(String::from);
    f(&mut o);
    let mut sink = |_: &crate::events::Emitted<'_>| {};
    let r = run_session(SessionRun {
        options: &o,
        context: Arc::new(DiskContext::new(
            w.root.clone(),
            Settings::default(),
            true,
            Env::default(),
        )),
        sink: &mut sink,
        approver: None,
        grants: Arc::new(Mutex::new(crate::approvals::SessionGrants::default())),
        tasks: Arc::new(Mutex::new(Tasks::default())),
        cancel: Arc::new(AtomicBool::new(false)),
    })
    .unwrap();
    assert_eq!(r.status, RunStatus::Completed, "{:?}", r.error);
    r.session_id
}

/// A stored row as the test compares it: id, request, at_seq, kind, how, path, sha256, bytes.
type StoredRow<'a> = (i64, i64, i64, &'a str, &'a str, &'a str, &'a str, i64);
/// A delivery as the test compares it: line, prompt, how, path, bytes, onDisk, predicted.
type Seen<'a> = (
    usize,
    usize,
    &'a str,
    &'a str,
    usize,
    Option<&'a str>,
    Option<bool>,
);

const READ_SUB: &str = r#"{"toolCalls":[{"name":"read_file","arguments":{"path":"sub/x.txt"}}]}"#;

#[test]
fn the_runner_records_each_delivery_and_audit_reads_the_store_like_a_client_file() {
    let w = ws();
    let sid = run(&w, &[READ_SUB, r#"{"text":"done"}"#], None);
    let root = w.root.display().to_string();
    let skill = format!("{root}/.agents/skills/greet/SKILL.md");
    let skill_sha = sha256_hex(std::fs::read(&skill).unwrap());
    {
        let store = Store::open(&w.state).unwrap();
        let rows = store.deliveries(&sid).unwrap();
        let got: Vec<StoredRow<'_>> = rows
            .iter()
            .map(|r| {
                (
                    r.id,
                    r.request,
                    r.at_seq,
                    r.item.kind,
                    r.item.how,
                    r.item.path.as_str(),
                    r.item.sha256.as_str(),
                    r.item.bytes,
                )
            })
            .collect();
        let catalog = &rows[1].item;
        assert_eq!(
            got,
            [
                // Request 1: the section, the catalog and its skill; request 2 sent the same
                // set and recorded nothing.
                (
                    1,
                    1,
                    1,
                    "instruction",
                    "section",
                    &*format!("{root}/AGENTS.md"),
                    &*sha256_hex("root rules\n"),
                    11
                ),
                (
                    2,
                    1,
                    1,
                    "catalog",
                    "listing",
                    "",
                    catalog.sha256.as_str(),
                    catalog.bytes
                ),
                (3, 1, 1, "skill", "listing", &*skill, &*skill_sha, 16),
                // The nested file, with the tool message (seq 3) that carried it.
                (
                    4,
                    1,
                    3,
                    "instruction",
                    "nested",
                    &*format!("{root}/sub/AGENTS.md"),
                    &*sha256_hex("sub rules\n"),
                    10
                ),
            ]
        );
        assert_eq!(
            (rows[2].item.name.as_deref(), rows[2].item.detail.as_deref()),
            (Some("greet"), Some("full"))
        );
        assert_eq!(
            (
                rows[3].item.tool.as_deref(),
                rows[3].item.target.clone(),
                rows[3].item.call_id.is_some()
            ),
            (Some("read_file"), Some(format!("{root}/sub/x.txt")), true)
        );
    }
    // The root file changes; a second run of the session sends the new text.
    std::fs::write(w.root.join("AGENTS.md"), "root rules v2\n").unwrap();
    run(&w, &[r#"{"text":"ok"}"#], Some(&sid));
    // It changes again, and a global file older than the session appears where explain looks.
    std::fs::write(w.root.join("AGENTS.md"), "root rules v3\n").unwrap();
    std::fs::create_dir_all(&w.config).unwrap();
    let global = w.config.join("AGENTS.md");
    std::fs::write(&global, "global rules\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&global)
        .unwrap()
        .set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(946_684_800))
        .unwrap();

    let env = Env {
        alisio_state_home: Some(w.state.clone()),
        alisio_config_home: Some(w.config.clone()),
        ..Env::default()
    };
    let settings = Settings::default();
    let place = Place {
        fs: &DiskFs,
        env: &env,
        root: &w.root,
        cwd: &w.root,
        settings: &settings,
    };
    let before = std::fs::read(w.state.join("sessions.db")).unwrap();
    let sessions = super::super::own_sessions(&place, 5).unwrap();
    assert_eq!(std::fs::read(w.state.join("sessions.db")).unwrap(), before);
    assert_eq!(sessions.len(), 1);
    let s = &sessions[0];
    assert_eq!(
        (
            s.format,
            s.session.as_str(),
            s.cwd.as_deref(),
            s.workspace_match
        ),
        ("alisio", sid.as_str(), Some(root.as_str()), Some(true))
    );
    assert_eq!((s.lines, s.prompts, s.skipped_lines), (7, 2, 0));
    let d: Vec<Seen<'_>> = s
        .deliveries
        .iter()
        .map(|d| {
            (
                d.line,
                d.prompt,
                d.how,
                d.path.as_str(),
                d.bytes,
                d.on_disk,
                d.predicted,
            )
        })
        .collect();
    let agents = format!("{root}/AGENTS.md");
    let sub = format!("{root}/sub/AGENTS.md");
    assert_eq!(
        d,
        [
            (
                1,
                1,
                "startup",
                agents.as_str(),
                11,
                Some("older-copy"),
                Some(false)
            ),
            (4, 1, "nested", sub.as_str(), 10, Some("same"), Some(true)),
            (
                5,
                2,
                "prompt",
                agents.as_str(),
                14,
                Some("older-copy"),
                Some(false)
            ),
        ]
    );
    assert_eq!(s.deliveries[0].sha256, sha256_hex("root rules\n"));
    assert_eq!(s.deliveries[2].sha256, sha256_hex("root rules v2\n"));
    let t = s.deliveries[1].after_tool.as_ref().unwrap();
    assert_eq!(
        (t.tool.as_str(), t.target.clone(), t.line),
        ("read_file", Some(format!("{root}/sub/x.txt")), 3)
    );
    // One listing: the second run sent the same catalog.
    assert_eq!(s.skill_listings.len(), 1);
    let l = &s.skill_listings[0];
    assert_eq!((l.line, l.prompt), (2, 1));
    assert_eq!(
        l.skills
            .iter()
            .map(|k| (k.name.as_str(), k.description_chars, k.description))
            .collect::<Vec<_>>(),
        [("greet", 16, "full")]
    );
    let g = global.display().to_string();
    assert_eq!(
        s.not_received,
        [alisio_governor::audit::NotReceived {
            path: g.clone(),
            sha256: Some(sha256_hex("global rules\n")),
        }]
    );
    let f = findings::session_findings(&env, s);
    assert_eq!(
        f.iter()
            .map(|x| (x.kind, x.path.as_deref(), x.message.as_str()))
            .collect::<Vec<_>>(),
        [
            (
                "older-copy",
                Some(agents.as_str()),
                &*format!("ran an older copy of {agents}")
            ),
            (
                "not-received",
                Some(g.as_str()),
                &*format!(
                    "`context explain --host alisio` predicts {g} for {root}, but the session never received it"
                )
            ),
        ]
    );
    let audited = vec![(s, f)];
    let p = findings::pending(&audited);
    let diags = findings::diagnostics(&p, &global, "global rules\n");
    assert_eq!(diags.len(), 1);
    assert_eq!(
        diags[0].code,
        alisio_base::diagnostic::Code::AuditNotReceived
    );
    assert_eq!(
        diags[0].message,
        format!(
            "alisio-ls never received this file in 1 of the last 1 alisio-ls session(s) (newest: {sid}), but `context explain --host alisio` predicts it for the session's cwd"
        )
    );
    let lenses = findings::Lenses::new(&env, &audited);
    assert_eq!(
        lenses.titles(Path::new(&agents), false),
        ["alisio-ls, last session: delivered 1/1; 1 ran an older copy"]
    );
    assert_eq!(
        lenses.titles(&global, false),
        ["alisio-ls, last session: delivered 0/1; 1 never received it"]
    );
    // Compared again, the same answer (the comparison reads the disk, not the store).
    let mut again = s.clone();
    compare(&place, &mut again);
    assert_eq!(again.not_received, s.not_received);
}

#[test]
fn a_store_written_before_deliveries_were_recorded_says_so() {
    let w = ws();
    let sid = run(&w, &[r#"{"text":"done"}"#], None);
    // As a v2 store had it: no deliveries table.
    let c = rusqlite::Connection::open(w.state.join("sessions.db")).unwrap();
    c.execute_batch("DROP TABLE deliveries; PRAGMA user_version = 2")
        .unwrap();
    drop(c);
    let s = super::workspace_sessions(&w.state, &w.root, "db", 5).unwrap();
    assert_eq!(s.len(), 1);
    assert_eq!(
        (s[0].session.as_str(), s[0].prompts, s[0].lines),
        (sid.as_str(), 1, 0)
    );
    assert_eq!(
        s[0].problems
            .iter()
            .map(|p| (p.line, p.message.as_str()))
            .collect::<Vec<_>>(),
        [(
            0,
            "this session records no deliveries (it ran before alisio-ls recorded them, store schema 3)"
        )]
    );
    assert!(s[0].deliveries.is_empty());
    // Its request is still audited from its assistant row (the script's estimate: cold, no
    // usage); as a v1 store, without snapshots, too.
    let one = |s: &[alisio_governor::audit::SessionAudit]| {
        s[0].requests
            .iter()
            .map(|r| (r.line, r.class, r.usage))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        one(&s),
        [(2, alisio_governor::audit::CacheClass::Cold, None)]
    );
    let c = rusqlite::Connection::open(w.state.join("sessions.db")).unwrap();
    c.execute_batch("DROP TABLE snapshots; PRAGMA user_version = 1")
        .unwrap();
    drop(c);
    let v1 = super::workspace_sessions(&w.state, &w.root, "db", 5).unwrap();
    assert_eq!(one(&v1), one(&s));
    let e = super::all_sessions(&w.state.join("other.db"), "other.db").unwrap_err();
    assert!(matches!(&e, super::AuditError::NotStoreFile { shown } if shown == "other.db"));
    assert_eq!(
        e.to_string(),
        "other.db: an alisio-ls store is read as <state dir>/sessions.db"
    );
}

const SUMMARY: &str =
    r#"{"for":"summary","text":"```json\n{\"checkpoint\":{\"goal\":\"read\"}}\n```"}"#;

#[test]
fn an_alisio_sessions_requests_are_its_assistant_rows_with_the_providers_cache_figures() {
    use alisio_governor::audit::CacheClass;
    let w = ws();
    let header = r#"{"alisioScript":1,"model":"claude-sonnet-4-5"}"#;
    // Run 1: written, then read.
    let sid = run(
        &w,
        &[
            header,
            r#"{"toolCalls":[{"name":"read_file","arguments":{"path":"sub/x.txt"}}],"usage":{"input":1010,"output":10,"cacheWrite":1000}}"#,
            r#"{"text":"done","usage":{"input":1040,"output":5,"cacheRead":1000,"cacheWrite":30}}"#,
        ],
        None,
    );
    // Run 2: AGENTS.md changed, so the system text did: nothing read.
    std::fs::write(w.root.join("AGENTS.md"), "root rules v2\n").unwrap();
    run(
        &w,
        &[
            header,
            r#"{"text":"ok","usage":{"input":1800,"output":20,"cacheWrite":1790}}"#,
        ],
        Some(&sid),
    );
    // Run 3: past the window's threshold, a compaction first (its summarizer request is not
    // stored), then a request that rebuilt the cache.
    run(
        &w,
        &[
            r#"{"alisioScript":1,"model":"claude-sonnet-4-5","contextWindow":2000}"#,
            r#"{"for":"summary","text":"```json\n{\"checkpoint\":{\"goal\":\"read\"}}\n```","usage":{"input":700,"output":30}}"#,
            r#"{"text":"again","usage":{"input":600,"output":5,"cacheWrite":590}}"#,
        ],
        Some(&sid),
    );
    // Run 4: no usage in the script: the runner's estimate, which says nothing of the cache.
    run(&w, &[header, r#"{"text":"last"}"#], Some(&sid));

    // The stored times, as a pause of 10 minutes before run 2 would have left them (mode off:
    // no context_governed event, so each answer's row times its request).
    {
        let store = Store::open(&w.state).unwrap();
        for (seq, at) in [
            (2, "2026-01-01T10:00:00.000Z"),
            (4, "2026-01-01T10:00:05.000Z"),
            (6, "2026-01-01T10:10:05.000Z"),
            (9, "2026-01-01T10:10:10.000Z"),
            (11, "2026-01-01T10:10:20.500Z"),
        ] {
            assert!(store.set_answer_time(&sid, seq, at), "seq {seq}");
        }
    }
    let s = super::workspace_sessions(&w.state, &w.root, "db", 5).unwrap();
    let s = &s[0];
    let got: Vec<_> = s
        .requests
        .iter()
        .map(|r| {
            (
                r.index,
                r.line,
                r.model.as_deref(),
                r.class,
                r.cause,
                r.usage
                    .map(|u| (u.input, u.cache_write, u.cache_read, u.output)),
            )
        })
        .collect();
    let m = Some("claude-sonnet-4-5");
    assert_eq!(
        got,
        [
            (1, 2, m, CacheClass::Cold, None, Some((10, 1000, 0, 10))),
            (2, 4, m, CacheClass::Hit, None, Some((10, 30, 1000, 5))),
            (
                3,
                6,
                m,
                CacheClass::Broken,
                Some("instruction-changed"),
                Some((10, 1790, 0, 20))
            ),
            // The compaction's summary, from its event (line: the event's id), aside.
            (
                4,
                12,
                m,
                CacheClass::ExpectedRebuild,
                Some("compaction-summary"),
                Some((700, 0, 0, 30))
            ),
            (
                5,
                9,
                m,
                CacheClass::ExpectedRebuild,
                Some("compaction"),
                Some((10, 590, 0, 5))
            ),
            (6, 11, m, CacheClass::Unknown, None, None),
        ]
    );
    // The script provider assumes no lifetime (ttl 0): the 600 s pause expires nothing. The
    // summary is not timed against the conversation.
    assert_eq!(
        s.requests
            .iter()
            .map(|r| (r.gap_secs, r.ttl_secs))
            .collect::<Vec<_>>(),
        [
            (None, 0),
            (Some(5.0), 0),
            (Some(600.0), 0),
            (None, 0),
            (Some(5.0), 0),
            (Some(10.5), 0)
        ]
    );
    // The compacted rows' requests (run 1's, before the two exchanges kept) are still there;
    // every gap is measured.
    {
        let store = Store::open(&w.state).unwrap();
        let compacted = store
            .all_messages(&sid)
            .unwrap()
            .iter()
            .filter(|r| r.compacted && r.role == crate::store::Role::Assistant)
            .count();
        assert_eq!(compacted, 2);
    }
    assert_eq!(
        (
            s.cache.requests,
            s.cache.cold,
            s.cache.hits,
            s.cache.broken,
            s.cache.expected_rebuilds,
            s.cache.ttl_expired
        ),
        (6, 1, 1, 1, 2, 0)
    );
    // Sonnet's list prices: the break re-wrote the reusable prefix min(1040, 1800) − 0 at
    // write − read (3.75 − 0.30 per million).
    let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
    assert!(close(s.requests[2].extra_cost, 1040.0 * 3.45 / 1e6));
    assert!(close(s.cache.avoidable, 1040.0 * 3.45 / 1e6));
    assert!(close(
        s.requests[0].cost,
        (10.0 * 3.0 + 1000.0 * 3.75 + 10.0 * 15.0) / 1e6
    ));
    assert!(close(s.requests[3].cost, (700.0 * 3.0 + 30.0 * 15.0) / 1e6));
    assert!(close(s.requests[5].cost, 0.0));
}

#[test]
fn each_request_carries_what_rewrote_the_conversation_since_the_previous_one() {
    use crate::store::{RequestEvent, RequestRow};
    use alisio_governor::audit::cache::ReportedUsage;
    let run = |r: &str| Some(r.to_owned());
    let answer = |seq: i64, r: &str, usage: Option<&str>, handoff: bool| RequestRow::Request {
        seq,
        run_id: run(r),
        created_at: format!("2026-01-01T10:00:{seq:02}.000Z"),
        model: (seq != 11).then(|| "m".to_owned()),
        usage: usage.map(String::from),
        handoff,
    };
    let req = |seq: i64, r: &str, usage: Option<&str>| answer(seq, r, usage, false);
    let u = r#"{"input":30,"output":1,"cacheRead":20,"cacheWrite":5,"estimated":false}"#;
    let rows = vec![
        req(2, "r1", Some(u)),
        RequestRow::Checkpoint {
            seq: 5,
            run_id: run("r1"),
        },
        req(7, "r1", Some("{not json")),
        RequestRow::Reduced {
            seq: 9,
            run_id: run("r1"),
        },
        RequestRow::Checkpoint {
            seq: 10,
            run_id: run("r1"),
        },
        req(11, "r1", None),
        req(14, "r2", Some(u)),
        answer(16, "r2", Some(u), true),
    ];
    // Run r1 (anthropic): a turn; a compaction's summary, a cut-off answer and its retry; a
    // turn. Run r2 (openai): an invalid turn and its retry; the handoff (no turn_completed). Run
    // r3 (anthropic) stored no answer: a cut-off one, then one that ended the run.
    let d = r#"{"input":100,"output":2,"estimated":false}"#;
    let events: Vec<RequestEvent> = [
        ("r1", "run_started", None, Some("anthropic")),
        ("r1", "context_governed", None, None),
        ("r1", "turn_completed", Some(u), None),
        ("r1", "compaction_completed", Some(d), None),
        ("r1", "context_governed", None, None),
        ("r1", "truncation_recovery", Some(d), None),
        ("r1", "context_governed", None, None),
        ("r1", "turn_completed", Some(u), None),
        ("r1", "context_governed", None, None),
        ("r1", "turn_completed", Some(u), None),
        ("r2", "run_started", None, Some("openai")),
        ("r2", "context_governed", None, None),
        ("r2", "request_retry", Some(d), None),
        ("r2", "context_governed", None, None),
        ("r2", "turn_completed", Some(u), None),
        ("r2", "context_governed", None, None),
        ("r3", "run_started", None, Some("anthropic")),
        ("r3", "context_governed", None, None),
        ("r3", "truncation_recovery", Some(d), None),
        // Its retry's answer ended the run (a third cut-off answer): `run_failed` carries it.
        ("r3", "context_governed", None, None),
        ("r3", "run_failed", Some(d), None),
    ]
    .into_iter()
    .enumerate()
    .map(|(i, (r, ty, usage, provider))| RequestEvent {
        id: i as i64 + 1,
        run_id: r.into(),
        ty: ty.into(),
        timestamp: format!("2026-01-01T11:00:{:02}.000Z", i + 1),
        usage: usage.map(String::from),
        provider: provider.map(String::from),
        ttl_secs: None,
    })
    .collect();
    let runs = vec![
        ("r1".to_owned(), Some(11)),
        ("r2".to_owned(), Some(16)),
        ("r3".to_owned(), None),
    ];
    // A mark before the first request goes to it (it is cold whatever it carries), a rewind
    // after seq 11, a changed catalog and instruction set recorded at 12, each once, and a
    // change recorded at 16 (after the handoff: r3's request).
    let marks = vec![
        (12, "skill-listing-changed"),
        (11, "rewind"),
        (1, "instruction-changed"),
        (12, "instruction-changed"),
        (16, "instruction-changed"),
    ];
    let got: Vec<_> = super::requests(rows, marks, runs, events, Some("anthropic"))
        .into_iter()
        .map(|o| {
            (
                o.line, o.at_ms, o.model, o.usage, o.ttl_secs, o.events, o.aside,
            )
        })
        .collect();
    let t = |s: i64| Some(1_767_265_200_000 + s * 1000);
    let m = || Some("m".to_owned());
    let row = Some(ReportedUsage {
        input: 5,
        cache_write: 5,
        cache_read: 20,
        output: 1,
    });
    let discarded = Some(ReportedUsage {
        input: 100,
        cache_write: 0,
        cache_read: 0,
        output: 2,
    });
    assert_eq!(
        got,
        [
            // Timed by its context_governed event (11:00:02).
            (2, t(2), m(), row, 300, vec!["instruction-changed"], None),
            // The summary: aside, with the model of the answer its part belongs to.
            (
                4,
                t(4),
                m(),
                discarded,
                300,
                vec![],
                Some("compaction-summary")
            ),
            // The cut-off answer: the compaction is its cause, timed by its own request.
            (6, t(5), m(), discarded, 300, vec!["compaction"], None),
            (7, t(7), m(), None, 300, vec![], None),
            (
                11,
                t(9),
                None,
                None,
                300,
                vec!["budget-reduction", "compaction"],
                None
            ),
            (
                13,
                t(12),
                m(),
                discarded,
                0,
                vec!["rewind", "skill-listing-changed", "instruction-changed"],
                None
            ),
            (14, t(14), m(), row, 0, vec![], None),
            (16, t(16), m(), row, 0, vec!["relay-handoff"], None),
            (
                19,
                t(18),
                None,
                discarded,
                300,
                vec!["instruction-changed"],
                None
            ),
            // The answer that ended r3: its `run_failed` (event 21), timed by its request.
            (21, t(20), None, discarded, 300, vec![], None),
        ]
    );
    // Without events (a store older than them, mode off), each answer is timed by its row.
    let plain = super::requests(
        vec![req(2, "r1", Some(u))],
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Some("openai"),
    );
    assert_eq!(
        plain
            .iter()
            .map(|o| (o.line, o.at_ms, o.ttl_secs))
            .collect::<Vec<_>>(),
        [(2, Some(1_767_261_602_000), 0)]
    );
}

/// A rewind after two compactions restores the first compaction's checkpoint as a copy: the
/// next request is a `rewind`, not a new `compaction` (spec/interfaces.md §4).
#[test]
fn a_rewind_that_restores_a_checkpoint_is_no_compaction() {
    use alisio_governor::audit::CacheClass;
    let w = ws();
    let header = r#"{"alisioScript":1,"model":"claude-sonnet-4-5"}"#;
    let small = r#"{"alisioScript":1,"model":"claude-sonnet-4-5","contextWindow":2000}"#;
    let answer = |n: u64| {
        format!(
            r#"{{"text":"a{n}","usage":{{"input":{},"output":5,"cacheWrite":{n}}}}}"#,
            n + 10
        )
    };
    let sid = run(&w, &[header, READ_SUB, &answer(1000)], None);
    run(&w, &[header, &answer(1790)], Some(&sid));
    run(&w, &[small, SUMMARY, &answer(600)], Some(&sid));
    run(&w, &[header, READ_SUB, &answer(700)], Some(&sid));
    run(&w, &[header, &answer(1800)], Some(&sid));
    run(&w, &[small, SUMMARY, &answer(500)], Some(&sid));
    {
        let mut store = Store::open(&w.state).unwrap();
        let cps = crate::checkpoints::list(&store, &sid).unwrap();
        // Back to the start of run 6: the first compaction's checkpoint (seq 8, replaced by the
        // second's, 17) is active again, as a copy.
        let rep = crate::checkpoints::rewind(
            &mut store,
            &crate::checkpoints::RewindRequest {
                state_dir: &w.state,
                root: &w.root,
                session_id: &sid,
                checkpoint: cps.last().unwrap().checkpoint,
                resolve: crate::checkpoints::Resolve::Overwrite,
            },
        )
        .unwrap();
        assert_eq!((rep.messages.removed, rep.messages.restored), (3, 9));
        let copy = store
            .all_messages(&sid)
            .unwrap()
            .into_iter()
            .find(|r| r.seq == 19)
            .unwrap();
        assert_eq!(
            (copy.pos, copy.kind, copy.compacted, copy.replaced_by),
            (4, crate::store::RowKind::Checkpoint, false, None)
        );
        // The store counts the two real checkpoints, not the copy.
        let checkpoints: Vec<i64> = store
            .request_rows(&sid)
            .unwrap()
            .iter()
            .filter_map(|r| match r {
                crate::store::RequestRow::Checkpoint { seq, .. } => Some(*seq),
                _ => None,
            })
            .collect();
        assert_eq!(checkpoints, [8, 17]);
        assert_eq!(store.rewind_seqs(&sid).unwrap(), [18]);
    }
    run(
        &w,
        &[
            header,
            r#"{"text":"last","usage":{"input":900,"output":5,"cacheWrite":400,"cacheRead":490}}"#,
        ],
        Some(&sid),
    );
    let s = super::workspace_sessions(&w.state, &w.root, "db", 5).unwrap();
    let got: Vec<_> = s[0]
        .requests
        .iter()
        .map(|r| (r.index, r.line, r.class, r.cause))
        .collect();
    use CacheClass::{Broken, Cold, ExpectedRebuild, Unknown};
    assert_eq!(
        got,
        [
            (1, 2, Cold, None),
            (2, 4, Broken, Some("prefix-changed")),
            (3, 6, Broken, Some("prefix-changed")),
            (4, 12, ExpectedRebuild, Some("compaction-summary")),
            (5, 9, ExpectedRebuild, Some("compaction")),
            (6, 11, Unknown, None),
            (7, 13, Broken, Some("prefix-changed")),
            (8, 15, Broken, Some("prefix-changed")),
            (9, 26, ExpectedRebuild, Some("compaction-summary")),
            (10, 18, ExpectedRebuild, Some("compaction")),
            // After the rewind (which restored the checkpoint copy, seq 19): `rewind`.
            (11, 29, ExpectedRebuild, Some("rewind")),
        ]
    );
}

/// A relay (spec/sessions.md §12.5) in governor mode `shadow`: the handoff, sent without tools,
/// is a designed miss (`relay-handoff`), each request is timed by its `context_governed` event,
/// and the new session is audited on its own.
#[test]
fn a_relay_handoff_is_a_designed_miss_and_requests_are_timed_when_built() {
    use alisio_governor::audit::CacheClass;
    let w = ws();
    std::fs::write(w.root.join("big.txt"), "x".repeat(6000)).unwrap();
    let new = run_with(
        &w,
        &[
            r#"{"alisioScript":1,"model":"claude-sonnet-4-5","contextWindow":3000}"#,
            r#"{"for":"turn","toolCalls":[{"id":"r1","name":"read_file","arguments":{"path":"big.txt"}}],"usage":{"input":1010,"output":10,"cacheWrite":1000}}"#,
            r###"{"for":"handoff","text":"## Goal\ng\n## Decisions\n- d because r\n## Current state\ns\n## Open items\n- o\n## Paths\n- p","usage":{"input":2600,"output":40,"cacheWrite":2590}}"###,
            r#"{"for":"turn","text":"done","usage":{"input":800,"output":5,"cacheWrite":790}}"#,
        ],
        None,
        |o| {
            o.config.relay = Some(true);
            o.governor = alisio_base::config::GovernorMode::Shadow;
        },
    );
    let sessions = super::workspace_sessions(&w.state, &w.root, "db", 5).unwrap();
    assert_eq!(sessions.len(), 2);
    let (newer, older) = (&sessions[0], &sessions[1]);
    assert_eq!(newer.session, new);
    let rows = |s: &alisio_governor::audit::SessionAudit| {
        s.requests
            .iter()
            .map(|r| (r.index, r.line, r.class, r.cause, r.ttl_secs))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        rows(older),
        [
            (1, 2, CacheClass::Cold, None, 0),
            (2, 5, CacheClass::ExpectedRebuild, Some("relay-handoff"), 0),
        ]
    );
    assert_eq!(rows(newer), [(1, 2, CacheClass::Cold, None, 0)]);
    assert_eq!(
        (
            older.cache.expected_rebuilds,
            older.cache.broken,
            older.cache.avoidable
        ),
        (1, 0, 0.0)
    );
    // The gap is the one between the two requests' context_governed events, as stored.
    let store = Store::open(&w.state).unwrap();
    let built: Vec<i64> = store
        .events(&older.session)
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "context_governed")
        .map(|e| alisio_governor::audit::timestamp_ms(e["timestamp"].as_str().unwrap()).unwrap())
        .collect();
    assert_eq!(built.len(), 2);
    assert_eq!(
        older.requests[1].gap_secs,
        Some((built[1] - built[0]) as f64 / 1000.0)
    );
}

/// A child session (a sub-agent's, spec/sessions.md §9) is audited as its own session: its
/// request and its parent's are apart, each cold at its start, and the child's events (stored
/// under its id) time and cut only its own requests.
#[test]
fn a_child_sessions_requests_are_its_own() {
    use alisio_governor::audit::CacheClass;
    let w = ws();
    let parent = run_with(
        &w,
        &[
            r#"{"alisioScript":1,"model":"claude-sonnet-4-5"}"#,
            r#"{"toolCalls":[{"id":"t1","name":"task","arguments":{"description":"d","prompt":"look"}}],"usage":{"input":1010,"output":10,"cacheWrite":1000}}"#,
            r#"{"text":"found","usage":{"input":300,"output":5,"cacheWrite":290}}"#,
            r#"{"text":"done","usage":{"input":1100,"output":5,"cacheWrite":80,"cacheRead":1000}}"#,
        ],
        None,
        |o| o.governor = alisio_base::config::GovernorMode::Shadow,
    );
    let sessions = super::workspace_sessions(&w.state, &w.root, "db", 5).unwrap();
    assert_eq!(sessions.len(), 2);
    let by = |id: &str| sessions.iter().find(|s| s.session == id).unwrap();
    let child = sessions.iter().find(|s| s.session != parent).unwrap();
    let rows = |s: &alisio_governor::audit::SessionAudit| {
        s.requests
            .iter()
            .map(|r| {
                (
                    r.index,
                    r.line,
                    r.class,
                    r.usage.map(|u| (u.input, u.cache_write, u.cache_read)),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        rows(by(&parent)),
        [
            (1, 2, CacheClass::Cold, Some((10, 1000, 0))),
            (2, 4, CacheClass::Hit, Some((20, 80, 1000))),
        ]
    );
    assert_eq!(rows(child), [(1, 2, CacheClass::Cold, Some((10, 290, 0)))]);
}
