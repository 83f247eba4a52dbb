//! Host `gemini` (spec/hosts.md §3), rule by rule, through the built binary.

use serde_json::Value;

use crate::common::{Ws, write};
use crate::hosts_util::{explain, f, files, n, not_loaded};

fn imports(v: &Value, i: usize) -> Vec<(String, u64)> {
    v["files"][i]["imports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["path"].as_str().unwrap().to_string(),
                x["depth"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn gm1_gm5_gm6_names_are_prepended_startup_is_sorted_on_access_is_in_name_order() {
    let ws = Ws::new();
    ws.files(&[
        ("ZED.md", "z"),
        ("GEMINI.md", "g"),
        ("sub/ZED.md", "sz"),
        ("sub/GEMINI.md", "sg"),
        ("sub/deeper/GEMINI.md", "not on the way"),
    ]);
    let v = explain(
        &ws,
        "gemini",
        "sub/a.ts",
        r#"{"hosts":{"gemini":{"fileName":"ZED.md"}}}"#,
    );
    assert_eq!(
        files(&v),
        [
            f("GEMINI.md", "gemini", "always"),
            f("ZED.md", "gemini", "always"),
            f("sub/ZED.md", "gemini", "on-access"),
            f("sub/GEMINI.md", "gemini", "on-access"),
        ]
    );
    assert_eq!(v["files"][2]["load"], "on-read");
    assert_eq!(not_loaded(&v), []);
    // Without the setting only GEMINI.md is a name.
    let v = explain(&ws, "gemini", "sub/a.ts", "");
    assert_eq!(
        files(&v),
        [
            f("GEMINI.md", "gemini", "always"),
            f("sub/GEMINI.md", "gemini", "on-access"),
        ]
    );
}

#[test]
fn gm2_names_match_byte_for_byte() {
    let ws = Ws::new();
    ws.file("gemini.md", "lowercase");
    ws.file("GEMINI.md/keep", "a directory with the name");
    let v = explain(&ws, "gemini", "a.ts", "");
    assert_eq!(files(&v), []);
    assert_eq!(not_loaded(&v), []);
}

#[test]
fn gm3_global_files_follow_gemini_cli_home() {
    let ws = Ws::new();
    let g = write(&ws.home.join(".gemini/GEMINI.md"), "global");
    let v = explain(&ws, "gemini", "a.ts", "");
    assert_eq!(files(&v), [f(g.to_str().unwrap(), "gemini", "always")]);
    assert_eq!(v["files"][0]["scope"], "global");
    // H6: a target outside the workspace gets the global files only.
    ws.file("GEMINI.md", "project");
    let v = explain(&ws, "gemini", "/tmp/elsewhere/x.ts", "");
    assert_eq!(files(&v), [f(g.to_str().unwrap(), "gemini", "always")]);
    assert_eq!(v["outsideWorkspace"], true);
    std::fs::remove_file(ws.root.join("GEMINI.md")).unwrap();
    let other = ws.tmp.path().join("gem");
    let g2 = write(&other.join(".gemini/GEMINI.md"), "other home");
    let mut c = ws.cmd();
    c.env("GEMINI_CLI_HOME", &other);
    let r = crate::common::run_cmd(
        c.args(["context", "explain", "--json", "--host", "gemini", "a.ts"]),
    );
    assert_eq!(
        files(&r.json()),
        [f(g2.to_str().unwrap(), "gemini", "always")]
    );
}

#[test]
fn gm4_gm5_boundary_markers_move_the_project_root() {
    let ws = Ws::new();
    let parent = ws.tmp.path().canonicalize().unwrap();
    write(&parent.join("package.json"), "{}");
    let up = write(&parent.join("GEMINI.md"), "above the workspace");
    let up_agents = write(&parent.join("AGENTS.md"), "above too");
    ws.file("GEMINI.md", "root");
    ws.file("AGENTS.md", "root agents");
    // Default markers: the workspace's .git is the project root; nothing above is read.
    let v = explain(&ws, "gemini", "a.ts", "");
    assert_eq!(files(&v), [f("GEMINI.md", "gemini", "always")]);
    // `package.json` as marker: the walk goes up to the parent; sorted by absolute path, so
    // AGENTS.md precedes GEMINI.md in each directory whatever the name order.
    let v = explain(
        &ws,
        "gemini",
        "a.ts",
        r#"{"hosts":{"gemini":{"fileName":["GEMINI.md","AGENTS.md"],"memoryBoundaryMarkers":["package.json", "../x", "/abs"]}}}"#,
    );
    assert_eq!(
        files(&v),
        [
            f(up_agents.to_str().unwrap(), "gemini", "always"),
            f(up.to_str().unwrap(), "gemini", "always"),
            f("AGENTS.md", "gemini", "always"),
            f("GEMINI.md", "gemini", "always"),
        ]
    );
    assert_eq!(v["files"][0]["scope"], "ancestor");
    // An empty marker list: no project root, the workspace root alone.
    let v = explain(
        &ws,
        "gemini",
        "a.ts",
        r#"{"hosts":{"gemini":{"memoryBoundaryMarkers":[]}}}"#,
    );
    assert_eq!(files(&v), [f("GEMINI.md", "gemini", "always")]);
}

#[test]
fn gm6_new_files_directories_and_nested_repositories() {
    let ws = Ws::new();
    ws.files(&[
        ("sub/GEMINI.md", "sub"),
        ("pkg/GEMINI.md", "pkg"),
        ("vendor/GEMINI.md", "vendor"),
        ("vendor/x/GEMINI.md", "nested repo"),
    ]);
    ws.dir("vendor/x/.git");
    // write_file of a file that does not exist yet: the walk starts at its directory.
    let v = explain(&ws, "gemini", "sub/new/dir/file.ts", "");
    assert_eq!(files(&v), [f("sub/GEMINI.md", "gemini", "on-access")]);
    // list_directory pkg/: pkg's own file is included.
    let v = explain(&ws, "gemini", "pkg", "");
    assert_eq!(files(&v), [f("pkg/GEMINI.md", "gemini", "on-access")]);
    // A nested repository does not stop the walk.
    let v = explain(&ws, "gemini", "vendor/x/lib.c", "");
    assert_eq!(
        files(&v),
        [
            f("vendor/GEMINI.md", "gemini", "on-access"),
            f("vendor/x/GEMINI.md", "gemini", "on-access"),
        ]
    );
}

#[test]
fn gm8_untrusted_folders_load_only_global_files() {
    let ws = Ws::new();
    let g = write(&ws.home.join(".gemini/GEMINI.md"), "global");
    ws.file("GEMINI.md", "root");
    ws.file("sub/GEMINI.md", "sub");
    let v = explain(
        &ws,
        "gemini",
        "sub/a.ts",
        r#"{"hosts":{"gemini":{"folderTrust":"untrusted"}}}"#,
    );
    assert_eq!(files(&v), [f(g.to_str().unwrap(), "gemini", "always")]);
    let why = "folder not trusted (hosts.gemini.folderTrust is \"untrusted\")";
    assert_eq!(
        not_loaded(&v),
        [n("GEMINI.md", why), n("sub/GEMINI.md", why)]
    );
    let v = explain(
        &ws,
        "gemini",
        "sub/a.ts",
        r#"{"hosts":{"gemini":{"folderTrust":"trusted"}}}"#,
    );
    // GM7: global, startup, then on-access.
    assert_eq!(
        files(&v),
        [
            f(g.to_str().unwrap(), "gemini", "always"),
            f("GEMINI.md", "gemini", "always"),
            f("sub/GEMINI.md", "gemini", "on-access"),
        ]
    );
}

#[test]
fn gm9_empty_files_are_listed_as_empty() {
    let ws = Ws::new();
    ws.file("GEMINI.md", "  \n\t\n");
    let v = explain(&ws, "gemini", "a.ts", "");
    assert_eq!(files(&v), [f("GEMINI.md", "gemini", "always")]);
    assert_eq!(v["files"][0]["empty"], true);
    assert_eq!(v["files"][0]["bytes"], 0);
}

#[test]
fn gm10_to_gm13_imports() {
    let ws = Ws::new();
    ws.files(&[
        ("GEMINI.md", "See @docs/a.md and `@code.md`.\n~~~\n@fence.md\n~~~\nemail me @user\n@../outside.md\n@https://x.test/a.md\n"),
        ("docs/a.md", "@b.md"),
        ("docs/b.md", "leaf"),
        ("fence.md", "fenced but imported"),
    ]);
    write(&ws.tmp.path().join("outside.md"), "outside");
    let v = explain(&ws, "gemini", "a.ts", "");
    assert_eq!(
        imports(&v, 0),
        [
            ("docs/a.md".to_string(), 1),
            ("docs/b.md".to_string(), 2),
            ("fence.md".to_string(), 1)
        ]
    );
    let outside = ws.tmp.path().canonicalize().unwrap().join("outside.md");
    let root = ws.root.to_string_lossy().into_owned();
    assert_eq!(
        not_loaded(&v),
        [
            n("user", "import from GEMINI.md: not found"),
            n(
                outside.to_str().unwrap(),
                &format!("import from GEMINI.md: outside the project root {root}")
            ),
            n(
                "https://x.test/a.md",
                "import from GEMINI.md: URL imports are not supported"
            ),
        ]
    );
}

#[test]
fn gm12_depth_and_cycles() {
    let ws = Ws::new();
    // `@1.md` would not be an import (GM10: the first character is a digit).
    ws.file("GEMINI.md", "@./1.md");
    for i in 1..=6 {
        ws.file(&format!("{i}.md"), format!("@./{}.md", i + 1));
    }
    let v = explain(&ws, "gemini", "a.ts", "");
    let want: Vec<(String, u64)> = (1..=5).map(|i| (format!("{i}.md"), i)).collect();
    assert_eq!(imports(&v, 0), want);
    // A -> B -> A: the top-level file is not on the chain, so A is inlined once more in B.
    let ws = Ws::new();
    ws.file("GEMINI.md", "@b.md");
    ws.file("b.md", "@GEMINI.md");
    let v = explain(&ws, "gemini", "a.ts", "");
    assert_eq!(
        imports(&v, 0),
        [("b.md".to_string(), 1), ("GEMINI.md".to_string(), 2)]
    );
}

#[test]
fn gm11_a_non_git_project_cannot_import_from_its_parent() {
    let ws = Ws::new();
    let proj = ws.tmp.path().canonicalize().unwrap().join("plain/proj");
    write(&proj.join("GEMINI.md"), "@../common.md");
    write(&proj.join("../common.md"), "common");
    let mut c = ws.cmd();
    let r = crate::common::run_cmd(c.args([
        "context",
        "explain",
        "--json",
        "--host",
        "gemini",
        "--cwd",
        proj.to_str().unwrap(),
        "a.ts",
    ]));
    let v = r.json();
    assert_eq!(files(&v), [f("GEMINI.md", "gemini", "always")]);
    let common = proj.parent().unwrap().join("common.md");
    assert_eq!(
        not_loaded(&v),
        [n(
            common.to_str().unwrap(),
            &format!(
                "import from GEMINI.md: outside the project root {}",
                proj.display()
            )
        )]
    );
}

#[cfg(unix)]
#[test]
fn gm2_gm6_symlinks_are_followed_and_one_file_loads_once() {
    let ws = Ws::new();
    ws.file("shared/context.md", "shared");
    ws.dir("docs");
    std::os::unix::fs::symlink("../shared/context.md", ws.root.join("docs/GEMINI.md")).unwrap();
    ws.file("GEMINI.md", "root");
    ws.dir("sub");
    std::os::unix::fs::symlink("../GEMINI.md", ws.root.join("sub/GEMINI.md")).unwrap();
    let v = explain(&ws, "gemini", "docs/a.md", "");
    assert_eq!(
        files(&v),
        [
            f("GEMINI.md", "gemini", "always"),
            f("docs/GEMINI.md", "gemini", "on-access"),
        ]
    );
    // sub/GEMINI.md is the root file under another name: the same file loads once.
    let v = explain(&ws, "gemini", "sub/a.md", "");
    assert_eq!(files(&v), [f("GEMINI.md", "gemini", "always")]);
}
