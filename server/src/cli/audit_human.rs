//! The human form of `audit` (spec/interfaces.md §4.4): per session, a header, the
//! instruction files delivered, imports, skill listings and skills invoked, compactions and the
//! per-request cache table with its totals.

use std::fmt::Write as _;

use alisio_governor::audit::{CacheClass, ContextState, SessionAudit};

fn short(sha: &str) -> &str {
    &sha[..sha.len().min(12)]
}

fn class(c: CacheClass) -> &'static str {
    match c {
        CacheClass::Cold => "cold",
        CacheClass::Hit => "hit",
        CacheClass::ExpectedRebuild => "expected-rebuild",
        CacheClass::TtlExpired => "ttl-expired",
        CacheClass::Broken => "broken",
        CacheClass::Unknown => "unknown",
    }
}

fn list(v: &[String]) -> String {
    if v.is_empty() {
        "-".into()
    } else {
        v.join(", ")
    }
}

fn state(s: &ContextState) -> String {
    format!(
        "instruction files: {}; skill listing: {}; skill bodies: {}; todos: {}",
        list(&s.instruction_files),
        if s.skill_listing { "yes" } else { "no" },
        list(&s.skill_bodies),
        s.todos.len()
    )
}

fn header(o: &mut String, s: &SessionAudit) {
    let _ = writeln!(
        o,
        "{} [{}] {}{}",
        s.file,
        if s.session.is_empty() {
            "-"
        } else {
            &s.session
        },
        s.format,
        s.client_version
            .as_ref()
            .map(|v| format!(" {v}"))
            .unwrap_or_default()
    );
    let place = match (&s.cwd, s.workspace_match) {
        (Some(c), Some(true)) => format!("cwd {c} (in this workspace)"),
        (Some(c), _) => format!("cwd {c} (not in this workspace)"),
        (None, _) => "no cwd recorded: this transcript cannot be matched to a workspace".into(),
    };
    let _ = writeln!(o, "  {place}");
    let _ = writeln!(
        o,
        "  {} lines, {} skipped, {} prompts",
        s.lines, s.skipped_lines, s.prompts
    );
    for p in &s.problems {
        if p.line == 0 {
            let _ = writeln!(o, "  note: {}", p.message);
        } else {
            let _ = writeln!(o, "  skipped line {}: {}", p.line, p.message);
        }
    }
}

/// The files explain predicts that the session never received (`NOT-RECEIVED`).
fn not_received(o: &mut String, s: &SessionAudit) {
    for n in &s.not_received {
        let _ = writeln!(
            o,
            "  NOT-RECEIVED: {} (explain predicts it for the session's cwd)",
            n.path
        );
    }
}

fn deliveries(o: &mut String, s: &SessionAudit) {
    if s.deliveries.is_empty() {
        let _ = writeln!(o, "  instruction files delivered: none");
        not_received(o, s);
        return;
    }
    let _ = writeln!(o, "  instruction files delivered:");
    let _ = writeln!(
        o,
        "    prompt  line  how               sha256        disk        explain     path"
    );
    for d in &s.deliveries {
        let how = match &d.after_tool {
            Some(t) if d.how == "nested" => format!("nested after {} (line {})", t.tool, t.line),
            _ => d.how.to_owned(),
        };
        let pred = match d.predicted {
            Some(true) => "predicted",
            Some(false) => "NOT-PREDICTED",
            None => "-",
        };
        let disk = match d.on_disk {
            Some("older-copy") => "OLDER-COPY",
            Some(x) => x,
            None => "-",
        };
        let _ = writeln!(
            o,
            "    {:<6}  {:<4}  {:<16}  {:<12}  {:<10}  {:<10}  {}",
            d.prompt,
            d.line,
            how,
            short(&d.sha256),
            disk,
            pred,
            d.path
        );
        for i in &d.imports {
            let _ = writeln!(
                o,
                "            import {} {}",
                i.token,
                if i.expanded {
                    "expanded"
                } else {
                    "NOT expanded"
                }
            );
        }
    }
    not_received(o, s);
}

fn skills(o: &mut String, s: &SessionAudit) {
    for l in &s.skill_listings {
        let pick = |k: &str| -> Vec<String> {
            l.skills
                .iter()
                .filter(|x| x.description == k)
                .map(|x| x.name.clone())
                .collect()
        };
        let _ = writeln!(
            o,
            "  skill listing (line {}, prompt {}): {} skills, {} bytes, sha256 {}; shortened: {}; dropped: {}",
            l.line,
            l.prompt,
            l.skills.len(),
            l.bytes,
            short(&l.sha256),
            list(&pick("shortened")),
            list(&pick("dropped"))
        );
    }
    for u in &s.skills_invoked {
        let _ = writeln!(
            o,
            "  skill invoked: {} (line {}){}; unread references: {}",
            u.name,
            u.line,
            if u.body_sha256.is_some() {
                ", body loaded"
            } else {
                ", body not seen"
            },
            list(&u.unread_references)
        );
    }
}

fn cache(o: &mut String, s: &SessionAudit) {
    let t = &s.cache;
    let _ = writeln!(
        o,
        "  cache: {} requests: {} cold, {} hits, {} expected rebuilds, {} ttl-expired, {} broken; cost ${:.4}, avoidable ${:.4}, ttl ${:.4}",
        t.requests,
        t.cold,
        t.hits,
        t.expected_rebuilds,
        t.ttl_expired,
        t.broken,
        t.cost,
        t.avoidable,
        t.ttl_cost
    );
    if s.requests.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "    #     line  class             cause                     gap s   prompt tokens  cached    cost"
    );
    for r in &s.requests {
        // No usage reported (alisio-ls: the runner's estimate): no figures, not zeros.
        let (prompt, cached) = r.usage.map_or_else(
            || ("-".to_owned(), "-".to_owned()),
            |u| {
                (
                    (u.input + u.cache_write + u.cache_read).to_string(),
                    u.cache_read.to_string(),
                )
            },
        );
        let _ = writeln!(
            o,
            "    {:<4}  {:<4}  {:<16}  {:<24}  {:>6}  {:>13}  {:>6}  {:.4}",
            r.index,
            r.line,
            class(r.class),
            r.cause.unwrap_or("-"),
            r.gap_secs.map_or_else(|| "-".into(), |g| format!("{g:.0}")),
            prompt,
            cached,
            r.cost
        );
    }
}

/// The whole human report.
#[must_use]
pub fn render(sessions: &[SessionAudit]) -> String {
    let mut o = String::new();
    for s in sessions {
        header(&mut o, s);
        deliveries(&mut o, s);
        skills(&mut o, s);
        for c in &s.compactions {
            let _ = writeln!(
                o,
                "  compaction (line {}, {}): before: {}\n    after: {}\n    lost: {}",
                c.line,
                c.trigger,
                state(&c.before),
                state(&c.after),
                state(&c.lost)
            );
        }
        cache(&mut o, s);
        o.push('\n');
    }
    let _ = writeln!(o, "{} session(s) audited", sessions.len());
    o
}
