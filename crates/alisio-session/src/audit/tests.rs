use super::*;

#[test]
fn a_line_over_the_cap_is_skipped_and_counted_and_the_next_is_read() {
    let user = r#"{"type":"user","sessionId":"s","uuid":"a","cwd":"/w","message":{"role":"user","content":"hi"}}"#;
    let text = format!("{user}\n{}\n{user}\n{}", "x".repeat(500), "y".repeat(300));
    let mut a = Auditor::new("t");
    stream(
        std::io::BufReader::with_capacity(16, text.as_bytes()),
        &mut a,
        200,
    )
    .unwrap();
    let s = a.finish(None);
    assert_eq!((s.lines, s.skipped_lines, s.prompts), (4, 2, 2));
    let p: Vec<(usize, &str)> = s
        .problems
        .iter()
        .map(|p| (p.line, p.message.as_str()))
        .collect();
    assert_eq!(
        p,
        [
            (2, "line longer than 200 bytes"),
            (4, "line longer than 200 bytes")
        ]
    );
}

#[test]
fn claude_project_dir_names() {
    assert_eq!(
        claude_project_dir(Path::new("/home/a/my.repo_x")),
        "-home-a-my-repo-x"
    );
}

#[test]
fn recent_files_keeps_the_newest_of_each_client_and_only_this_workspace_codex_files() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("w");
    std::fs::create_dir_all(&root).unwrap();
    let root = std::fs::canonicalize(&root).unwrap();
    let env = Env {
        home: Some(home.path().to_path_buf()),
        ..Env::default()
    };
    let claude = home
        .path()
        .join(".claude/projects")
        .join(claude_project_dir(&root));
    std::fs::create_dir_all(&claude).unwrap();
    let codex = home.path().join(".codex/sessions/2026/12/01");
    std::fs::create_dir_all(&codex).unwrap();
    let meta = |cwd: &Path| {
        format!(
            "{}\n",
            serde_json::json!({"type": "session_meta", "payload": {"id": "x", "cwd": cwd}})
        )
    };
    let t0 = std::time::SystemTime::now() - std::time::Duration::from_secs(1000);
    for (i, name) in ["a", "b", "c"].iter().enumerate() {
        let f = claude.join(format!("{name}.jsonl"));
        std::fs::write(&f, "{}\n").unwrap();
        let t = t0 + std::time::Duration::from_secs(u64::try_from(i).unwrap() * 10);
        std::fs::File::options()
            .write(true)
            .open(&f)
            .unwrap()
            .set_modified(t)
            .unwrap();
    }
    for (i, (name, cwd)) in [
        ("r1", root.clone()),
        ("r2", PathBuf::from("/elsewhere")),
        ("r3", root.join("pkg")),
    ]
    .iter()
    .enumerate()
    {
        let f = codex.join(format!("{name}.jsonl"));
        std::fs::write(&f, meta(cwd)).unwrap();
        let t = t0 + std::time::Duration::from_secs(u64::try_from(i).unwrap() * 10);
        std::fs::File::options()
            .write(true)
            .open(&f)
            .unwrap()
            .set_modified(t)
            .unwrap();
    }
    let names: Vec<String> = recent_files(&env, &root, 2)
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["c.jsonl", "b.jsonl", "r3.jsonl", "r1.jsonl"]);
}

#[test]
fn a_sibling_repository_whose_directory_name_extends_the_root_is_not_this_workspace() {
    let home = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(home.path()).unwrap();
    let root = base.join("a/repo");
    let env = Env {
        home: Some(base.clone()),
        ..Env::default()
    };
    let projects = base.join(".claude/projects");
    let user = |cwd: &Path| {
        format!(
            "{}\n",
            serde_json::json!({"type": "user", "sessionId": "s", "uuid": "a", "cwd": cwd,
                "message": {"role": "user", "content": "hi"}})
        )
    };
    // (directory name, file, the cwd the file records; None: no cwd recorded)
    let files: [(&str, &str, Option<PathBuf>); 6] = [
        ("repo", "root.jsonl", Some(root.clone())),
        ("repo", "nocwd.jsonl", None),
        ("repo-pkg", "pkg.jsonl", Some(root.join("pkg"))),
        ("repo-2", "sibling.jsonl", Some(base.join("a/repo-2"))),
        ("repo-2", "sibling-nocwd.jsonl", None),
        // `/a/repo/2` and `/a/repo-2` have the same directory name: the cwd decides.
        ("repo-2", "sub2.jsonl", Some(root.join("2"))),
    ];
    for (dir, name, cwd) in &files {
        let d = projects.join(format!("{}-{dir}", claude_project_dir(&base.join("a"))));
        std::fs::create_dir_all(&d).unwrap();
        let text = cwd.as_ref().map_or_else(
            || "{\"type\":\"summary\",\"summary\":\"x\",\"leafUuid\":\"l\"}\n".to_owned(),
            |c| user(c),
        );
        std::fs::write(d.join(name), text).unwrap();
    }
    let (claude, codex) = default_files(&env, &root);
    let names: Vec<String> = claude
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        ["nocwd.jsonl", "root.jsonl", "sub2.jsonl", "pkg.jsonl"]
    );
    assert!(codex.is_empty());
    let sibling = default_files(&env, &base.join("a/repo-2")).0;
    let names: Vec<String> = sibling
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["sibling-nocwd.jsonl", "sibling.jsonl"]);
}
