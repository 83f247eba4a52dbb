use super::*;

#[test]
fn every_code_is_a_rule_exactly_once() {
    for &c in Code::ALL {
        let n = skills::RULES
            .iter()
            .chain(instructions::RULES)
            .chain(audit::RULES)
            .chain(families::RULES)
            .chain(breadth::RULES)
            .chain(copilot::RULES)
            .filter(|r| r.code == c)
            .count();
        assert_eq!(n, 1, "{c} has {n} catalogue entries");
    }
    assert_eq!(all().len(), Code::ALL.len());
}

#[test]
fn every_rule_has_a_summary_evidence_hosts_and_two_examples() {
    for r in all() {
        let id = r.code.as_str();
        assert!(
            !r.summary.is_empty() && !r.summary.ends_with('.'),
            "{id}: summary"
        );
        assert!(!r.summary.contains('\n'), "{id}: one line");
        assert!(!r.evidence.is_empty(), "{id}: evidence");
        assert!(
            !r.files.is_empty() && !r.hosts.is_empty(),
            "{id}: files, hosts"
        );
        for h in r.hosts {
            assert!(ALL_HOSTS.contains(h), "{id}: host {h}");
        }
        for p in r.profiles {
            assert!(ALL_PROFILES.contains(p), "{id}: profile {p}");
        }
        for e in [&r.good, &r.bad] {
            assert!(
                e.files.is_empty() != e.note.is_empty(),
                "{id}: an example is files or a note"
            );
        }
        assert!(!r.good.files.is_empty(), "{id}: the good example is files");
    }
}

#[test]
fn the_json_of_a_rule_has_every_field() {
    let r = get(Code::InstructionsApplyToList).unwrap().to_json();
    assert_eq!(r["id"], "instructions-apply-to-list");
    assert_eq!(r["severity"], "warning");
    assert_eq!(r["tier"], "default");
    assert_eq!(r["fix"], "safe");
    assert_eq!(r["hosts"], serde_json::json!(["copilot"]));
    assert_eq!(r["bad"]["args"], serde_json::json!(["--host", "copilot"]));
    assert_eq!(
        r["bad"]["files"][0]["path"],
        ".github/instructions/ts.instructions.md"
    );
    assert_eq!(r["bad"]["note"], serde_json::Value::Null);
}

/// docs/rules.md is generated: regenerate it with `alisio-ls rules --markdown > docs/rules.md`.
#[test]
fn docs_rules_md_matches_the_catalogue() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/rules.md");
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == markdown(),
        "docs/rules.md drifted from the catalogue; run `alisio-ls rules --markdown > docs/rules.md`"
    );
}
