//! spec/skills.md §8 conformance, discovery cases (1–7, 15–25, 56) through the built binary.

use std::path::Path;

use serde_json::Value;

use crate::common::{Run, Ws, range, write};

/// `X/SKILL.md` = the checklist's "valid skill X".
pub fn valid(dir: &Path) {
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    write(
        &dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: Does X.\n---\nBody\n"),
    );
}

pub fn entries(r: &Run) -> Vec<Value> {
    assert_eq!(r.code, 0, "{r:?}");
    r.json().as_array().unwrap().clone()
}

pub fn field<'a>(es: &'a [Value], key: &str) -> Vec<&'a str> {
    es.iter().map(|e| e[key].as_str().unwrap()).collect()
}

/// The names `skills list --json` shows in `ws`.
pub fn listed_names(ws: &Ws) -> Vec<String> {
    let es = entries(&ws.run(&["skills", "list", "--json"]));
    field(&es, "name").into_iter().map(String::from).collect()
}

pub fn diags(r: &Run) -> Vec<Value> {
    r.json()["diagnostics"].as_array().unwrap().clone()
}

pub fn with_code<'a>(ds: &'a [Value], code: &str) -> Vec<&'a Value> {
    ds.iter().filter(|d| d["code"] == code).collect()
}

#[test]
fn one_valid_project_skill_is_listed_with_every_field() {
    let ws = Ws::new();
    valid(&ws.root.join(".agents/skills/pdf-tools"));
    let es = entries(&ws.run(&["skills", "list", "--json", "--trust-project"]));
    assert_eq!(es.len(), 1);
    let e = &es[0];
    assert_eq!(e["id"], "pdf-tools");
    assert_eq!(e["name"], "pdf-tools");
    assert_eq!(e["displayId"], "pdf-tools");
    assert_eq!(e["scope"], "project");
    assert_eq!(e["source"], "project");
    assert_eq!(e["file"], ".agents/skills/pdf-tools/SKILL.md");
    assert_eq!(e["enabled"], true);
    assert_eq!(e["effective"], true);
    assert_eq!(e["shadowedBy"], Value::Null);
    assert_eq!(e["approximateTokens"], 13);
    assert_eq!(e["bodyTokens"], 2);
    assert_eq!(e["description"], "Does X.");
    // {"name":"pdf-tools","description":"Does X."} is 43 characters.
    assert_eq!(e["catalogTokens"], 11);
}

#[test]
fn twelve_roots_are_walked_in_precedence_order() {
    let ws = Ws::new();
    ws.dir("pkg/app");
    let mut files = Vec::new();
    for d in ["pkg/app", "pkg", ""] {
        for b in [".agents", ".alisio", ".claude"] {
            let rel = if d.is_empty() {
                format!("{b}/skills/x")
            } else {
                format!("{d}/{b}/skills/x")
            };
            valid(&ws.root.join(&rel));
            files.push(format!("{rel}/SKILL.md"));
        }
    }
    ws.file("cfg.json", r#"{"skills": ["cfg-skills"]}"#);
    valid(&ws.root.join("cfg-skills/x"));
    files.push("cfg-skills/x/SKILL.md".into());
    valid(&ws.home.join(".agents/skills/x"));
    files.push(
        ws.home
            .join(".agents/skills/x/SKILL.md")
            .display()
            .to_string(),
    );
    valid(&ws.config_home.join("skills/x"));
    files.push(
        ws.config_home
            .join("skills/x/SKILL.md")
            .display()
            .to_string(),
    );
    let es = entries(&ws.run(&[
        "skills", "list", "pkg/app", "--json", "--config", "cfg.json",
    ]));
    let ids: Vec<String> = std::iter::once("x".to_string())
        .chain((1..=11).map(|i| format!("x#shadow-{i}")))
        .collect();
    assert_eq!(field(&es, "id"), ids);
    assert_eq!(field(&es, "file"), files);
    assert_eq!(field(&es, "scope")[9..], ["config", "user", "user"]);
    assert_eq!(field(&es, "source")[9], "configured");
}

#[test]
fn untrusted_workspace_hides_project_skills_and_reports_them() {
    let ws = Ws::new();
    valid(&ws.root.join(".agents/skills/proj"));
    valid(&ws.home.join(".agents/skills/usr"));
    let r = ws.run(&["skills", "list", "--json"]);
    assert_eq!(field(&entries(&r), "name"), ["usr"]);
    assert!(r.stderr.contains("note: 1 project skill(s) not loaded: the workspace is not trusted (pass --trust-project)"), "{}", r.stderr);
    let r = ws.run(&["skills", "validate", "--json"]);
    assert_eq!(r.code, 0);
    let ds = diags(&r);
    let u = with_code(&ds, "skill-untrusted");
    assert_eq!(u.len(), 1);
    assert_eq!(u[0]["file"], ".agents/skills/proj/SKILL.md");
    assert_eq!(u[0]["severity"], "information");
    assert_eq!(range(u[0]), (0, 0, 0, 3));
    r.assert_stderr_has("note: 1 project skill(s) not loaded");
}

#[test]
fn a_config_file_makes_the_workspace_trusted() {
    let ws = Ws::new();
    valid(&ws.root.join(".agents/skills/proj"));
    ws.file("cfg.json", "{}");
    let r = ws.run(&["skills", "list", "--json", "--config", "cfg.json"]);
    assert_eq!(field(&entries(&r), "name"), ["proj"]);
    assert!(!r.stderr.contains("not trusted"));
}

#[test]
fn user_copy_of_a_project_skill_is_shadowed() {
    let ws = Ws::new();
    valid(&ws.root.join(".agents/skills/pdf"));
    valid(&ws.home.join(".agents/skills/pdf"));
    let es = entries(&ws.run(&["skills", "list", "--json", "--trust-project"]));
    assert_eq!(es.len(), 2);
    let u = &es[1];
    assert_eq!(u["id"], "pdf#shadow-1");
    assert_eq!(u["effective"], false);
    assert_eq!(u["shadowedBy"], "pdf");
    assert_eq!(u["effectiveId"], "pdf");
    let r = ws.run(&["skills", "validate", "--json", "--trust-project"]);
    let ds = diags(&r);
    let s = with_code(&ds, "skill-shadowed");
    assert_eq!(s.len(), 1);
    let home_file = ws
        .home
        .join(".agents/skills/pdf/SKILL.md")
        .display()
        .to_string();
    assert_eq!(s[0]["file"], home_file.as_str());
    assert_eq!(s[0]["severity"], "information");
    assert_eq!(
        s[0]["message"],
        "shadowed by pdf (project) from .agents/skills/pdf/SKILL.md; this copy is not used"
    );
    assert_eq!(range(s[0]), (1, 6, 1, 9));
    assert_eq!(s[0]["related"][0]["file"], ".agents/skills/pdf/SKILL.md");
    assert_eq!(range(&s[0]["related"][0]), (1, 6, 1, 9));
    assert_eq!(r.code, 0);
}

#[test]
fn agents_root_wins_over_alisio_root() {
    let ws = Ws::new();
    valid(&ws.root.join(".alisio/skills/a"));
    valid(&ws.root.join(".agents/skills/a"));
    let es = entries(&ws.run(&["skills", "list", "--json", "--trust-project"]));
    assert_eq!(
        field(&es, "file"),
        [".agents/skills/a/SKILL.md", ".alisio/skills/a/SKILL.md"]
    );
    assert_eq!(es[0]["effective"], true);
    assert_eq!(es[1]["effective"], false);
}

#[test]
fn nested_package_copy_wins_from_its_vantage_and_check_says_when() {
    let ws = Ws::new();
    valid(&ws.root.join(".agents/skills/a"));
    valid(&ws.root.join("pkg/.agents/skills/a"));
    let es = entries(&ws.run(&["skills", "list", "pkg", "--json", "--trust-project"]));
    assert_eq!(
        field(&es, "file"),
        ["pkg/.agents/skills/a/SKILL.md", ".agents/skills/a/SKILL.md"]
    );
    assert_eq!(es[0]["effective"], true);
    let r = ws.run(&["check", "--json", "--trust-project"]);
    let ds = diags(&r);
    let s = with_code(&ds, "skill-shadowed");
    assert_eq!(s.len(), 1, "{ds:?}");
    assert_eq!(s[0]["file"], ".agents/skills/a/SKILL.md");
    assert_eq!(
        s[0]["message"],
        "shadowed by a (project) from pkg/.agents/skills/a/SKILL.md; this copy is not used when working in pkg"
    );
    // From the root the root copy is effective.
    let es = entries(&ws.run(&["skills", "list", "--json", "--trust-project"]));
    assert_eq!(field(&es, "file"), [".agents/skills/a/SKILL.md"]);
}

#[test]
fn depth_five_is_found_and_depth_six_is_reported_as_not_discovered() {
    let ws = Ws::new();
    valid(&ws.root.join(".agents/skills/a/b/c/d/e"));
    valid(&ws.root.join(".agents/skills/p/q/r/s/t/u"));
    let es = entries(&ws.run(&["skills", "list", "--json", "--trust-project"]));
    assert_eq!(field(&es, "name"), ["e"]);
    let ds = diags(&ws.run(&["check", "--json", "--trust-project"]));
    let n = with_code(&ds, "skill-not-discovered");
    assert_eq!(n.len(), 1, "{ds:?}");
    assert_eq!(n[0]["file"], ".agents/skills/p/q/r/s/t/u/SKILL.md");
    assert_eq!(
        n[0]["message"],
        "not discovered: it is 6 directory levels below the root .agents/skills; discovery stops at 5"
    );
    assert_eq!(n[0]["severity"], "information");
    assert_eq!(range(n[0]), (0, 0, 0, 3));
}

fn subdirs(root: &Path, n: usize) {
    for i in 0..n {
        std::fs::create_dir_all(root.join(format!("d{i:04}"))).unwrap();
    }
}

#[test]
fn exactly_two_thousand_directories_are_within_the_bound() {
    let ws = Ws::new();
    let root = ws.home.join(".agents/skills");
    subdirs(&root, 1999);
    let r = ws.run(&["skills", "validate", "--json", "--trust-project"]);
    assert!(with_code(&diags(&r), "skill-scan-limit").is_empty());
    std::fs::create_dir(root.join("d1999")).unwrap();
    let r = ws.run(&["skills", "validate", "--json", "--trust-project"]);
    let ds = diags(&r);
    let l = with_code(&ds, "skill-scan-limit");
    assert_eq!(l.len(), 1);
    let last = root.join("d1999").display().to_string();
    assert_eq!(
        l[0]["message"],
        format!("Skill scan limit of 2000 directories reached; stopped at {last}")
    );
    assert_eq!(l[0]["file"], last.as_str());
    assert_eq!(l[0]["severity"], "warning");
    assert_eq!(range(l[0]), (0, 0, 0, 0));
    assert_eq!(r.code, 0);
}

#[test]
fn the_directory_budget_is_shared_by_all_roots() {
    let ws = Ws::new();
    let first = ws.home.join(".agents/skills");
    subdirs(&first, 999);
    valid(&first.join("s-first"));
    let second = ws.config_home.join("skills");
    subdirs(&second, 1000);
    let r = ws.run(&["skills", "list", "--json", "--trust-project"]);
    assert_eq!(field(&entries(&r), "name"), ["s-first"]);
    let ds = diags(&ws.run(&["skills", "validate", "--json", "--trust-project"]));
    let l = with_code(&ds, "skill-scan-limit");
    assert_eq!(l.len(), 1);
    assert_eq!(
        l[0]["message"],
        format!(
            "Skill scan limit of 2000 directories reached; stopped at {}",
            second.join("d0998").display()
        )
    );
}

#[test]
fn hidden_and_dependency_directories_are_skipped_but_the_root_is_walked() {
    let ws = Ws::new();
    valid(&ws.root.join(".agents/skills/.hidden/x"));
    valid(&ws.root.join(".agents/skills/node_modules/y"));
    valid(&ws.root.join(".agents/skills/z"));
    let es = entries(&ws.run(&["skills", "list", "--json", "--trust-project"]));
    assert_eq!(field(&es, "name"), ["z"]);
    let ds = diags(&ws.run(&["check", "--json", "--trust-project"]));
    let n: Vec<(&str, &str)> = with_code(&ds, "skill-not-discovered")
        .iter()
        .map(|d| (d["file"].as_str().unwrap(), d["message"].as_str().unwrap()))
        .collect();
    assert_eq!(
        n,
        [
            (
                ".agents/skills/.hidden/x/SKILL.md",
                "not discovered: it is inside the hidden directory .agents/skills/.hidden"
            ),
            (
                ".agents/skills/node_modules/y/SKILL.md",
                "not discovered: it is inside node_modules"
            ),
        ]
    );
}

#[cfg(unix)]
#[test]
fn symlinked_child_directories_are_not_followed() {
    let ws = Ws::new();
    let elsewhere = ws.tmp.path().join("elsewhere/skills");
    valid(&elsewhere.join("z"));
    let root = ws.home.join(".agents/skills");
    std::fs::create_dir_all(&root).unwrap();
    std::os::unix::fs::symlink(elsewhere.join("z"), root.join("link")).unwrap();
    let r = ws.run(&["skills", "list", "--json"]);
    assert!(entries(&r).is_empty());
    r.assert_stderr_has(&format!(
        "note: skipped symbolic link {} (symlinked directories are not followed)",
        root.join("link").display()
    ));
}

#[cfg(unix)]
#[test]
fn a_symlink_loop_terminates_and_lists_once() {
    let ws = Ws::new();
    let root = ws.home.join(".agents/skills");
    valid(&root.join("a/s"));
    std::os::unix::fs::symlink("..", root.join("a/loop")).unwrap();
    let es = entries(&ws.run(&["skills", "list", "--json"]));
    assert_eq!(field(&es, "name"), ["s"]);
}

#[cfg(unix)]
#[test]
fn a_root_that_is_a_symlink_loop_is_skipped_with_a_note() {
    let ws = Ws::new();
    let root = ws.home.join(".agents/skills");
    std::fs::create_dir_all(ws.home.join(".agents")).unwrap();
    std::os::unix::fs::symlink(&root, &root).unwrap();
    let r = ws.run(&["skills", "list"]);
    assert_eq!(r.code, 0);
    r.assert_stderr_has(&format!(
        "note: cannot read skill root {}: ",
        root.display()
    ));
}

#[cfg(unix)]
#[test]
fn two_roots_reaching_one_directory_list_the_skill_once() {
    let ws = Ws::new();
    valid(&ws.config_home.join("skills/k"));
    std::fs::create_dir_all(ws.home.join(".agents")).unwrap();
    std::os::unix::fs::symlink(
        ws.config_home.join("skills"),
        ws.home.join(".agents/skills"),
    )
    .unwrap();
    let es = entries(&ws.run(&["skills", "list", "--json"]));
    assert_eq!(field(&es, "name"), ["k"]);
    assert_eq!(es[0]["source"], "user");
    let ds = diags(&ws.run(&["skills", "validate", "--json"]));
    assert!(with_code(&ds, "skill-shadowed").is_empty());
}

#[test]
fn a_skill_nested_in_a_skill_is_not_discovered() {
    let ws = Ws::new();
    valid(&ws.root.join(".agents/skills/outer"));
    valid(&ws.root.join(".agents/skills/outer/inner"));
    let es = entries(&ws.run(&["skills", "list", "--json", "--trust-project"]));
    assert_eq!(field(&es, "name"), ["outer"]);
    let ds = diags(&ws.run(&["check", "--json", "--trust-project"]));
    let n = with_code(&ds, "skill-not-discovered");
    assert_eq!(n.len(), 1);
    assert_eq!(
        n[0]["message"],
        "not discovered: it is inside the skill .agents/skills/outer; nested skills are not scanned"
    );
}

#[test]
fn a_directory_named_skill_md_is_walked_like_any_other() {
    let ws = Ws::new();
    let root = ws.home.join(".agents/skills");
    valid(&root.join("x/SKILL.md/y"));
    let es = entries(&ws.run(&["skills", "list", "--json"]));
    assert_eq!(field(&es, "name"), ["y"]);
    assert_eq!(
        es[0]["file"],
        root.join("x/SKILL.md/y/SKILL.md")
            .display()
            .to_string()
            .as_str()
    );
}

#[cfg(unix)]
#[test]
fn a_symlinked_skill_md_is_an_error_and_is_not_walked_below() {
    let ws = Ws::new();
    let root = ws.home.join(".agents/skills");
    valid(&ws.tmp.path().join("real/x"));
    std::fs::create_dir_all(root.join("x")).unwrap();
    std::os::unix::fs::symlink(
        ws.tmp.path().join("real/x/SKILL.md"),
        root.join("x/SKILL.md"),
    )
    .unwrap();
    valid(&root.join("x/sub"));
    let es = entries(&ws.run(&["skills", "list", "--json"]));
    assert!(es.is_empty());
    let r = ws.run(&["skills", "validate", "--json"]);
    assert_eq!(r.code, 1);
    let ds = diags(&r);
    assert_eq!(ds.len(), 1, "{ds:?}");
    assert_eq!(ds[0]["code"], "skill-symlink");
    assert_eq!(ds[0]["severity"], "error");
    assert_eq!(range(&ds[0]), (0, 0, 0, 0));
}

#[test]
fn codex_host_keeps_duplicates_and_goes_deeper() {
    let ws = Ws::new();
    valid(&ws.root.join(".agents/skills/dup"));
    valid(&ws.root.join("pkg/.agents/skills/dup"));
    valid(&ws.root.join("pkg/.agents/skills/a/b/c/d/e/deep"));
    valid(&ws.root.join("pkg/.agents/skills/dup/inner"));
    let es = entries(&ws.run(&["skills", "list", "pkg", "--json", "--host", "codex"]));
    let mut names = field(&es, "name");
    names.sort_unstable();
    assert_eq!(names, ["deep", "dup", "dup", "inner"]);
    assert!(
        es.iter()
            .all(|e| e["effective"] == true && e["shadowedBy"].is_null())
    );
    let ds = diags(&ws.run(&[
        "skills", "validate", "--json", "--host", "codex", "--cwd", "pkg",
    ]));
    assert!(with_code(&ds, "skill-shadowed").is_empty(), "{ds:?}");
}

#[test]
fn claude_code_host_uses_directory_names_and_personal_wins() {
    let ws = Ws::new();
    valid(&ws.root.join(".claude/skills/tool"));
    valid(&ws.home.join(".claude/skills/tool"));
    write(
        &ws.root.join(".claude/skills/other/SKILL.md"),
        "---\nname: label\ndescription: d\n---\n",
    );
    let es = entries(&ws.run(&["skills", "list", "--json", "--host", "claude-code"]));
    assert_eq!(field(&es, "name"), ["tool", "other", "tool"]);
    assert_eq!(es[0]["scope"], "user");
    assert_eq!(es[2]["effective"], false);
}

#[test]
fn overrides_disable_entries_in_trusted_workspaces_only() {
    let ws = Ws::new();
    valid(&ws.root.join(".agents/skills/pdf"));
    valid(&ws.home.join(".agents/skills/pdf"));
    valid(&ws.root.join(".agents/skills/other"));
    ws.file(
        ".alisio/config.json",
        r#"{"skillOverrides": {"pdf": {"enabled": false}}}"#,
    );
    let es = entries(&ws.run(&["skills", "list", "--json", "--trust-project"]));
    let pdf = es.iter().find(|e| e["id"] == "pdf").unwrap();
    assert_eq!(pdf["enabled"], false);
    assert_eq!(pdf["effective"], true);
    let copy = es.iter().find(|e| e["id"] == "pdf#shadow-1").unwrap();
    assert_eq!(copy["effective"], false);
    let r = ws.run(&["skills", "list", "--trust-project"]);
    let home_pdf = ws
        .home
        .join(".agents/skills/pdf/SKILL.md")
        .display()
        .to_string();
    assert_eq!(
        r.stdout,
        format!(
            "✔  other  project  effective        ~12 tok  .agents/skills/other/SKILL.md\n\
             ○  pdf    project  disabled         ~11 tok  .agents/skills/pdf/SKILL.md\n\
             ↳  pdf    user     shadowed by pdf  ~11 tok  {home_pdf}\n"
        )
    );
    // Untrusted: the project file (and its overrides) is not read.
    let es = entries(&ws.run(&["skills", "list", "--json"]));
    assert_eq!(field(&es, "id"), ["pdf"]);
    assert_eq!(es[0]["enabled"], true);
}
