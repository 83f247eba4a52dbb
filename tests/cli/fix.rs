//! `check --fix`, `--unsafe-fixes`, `--diff` (spec/rules.md §4): every safe fix, idempotence, the
//! atomic write, suppressions respected, and the refusal of symlinks and files below them.

use std::path::Path;

use crate::common::Ws;

const SKILL: &str = ".agents/skills/demo/SKILL.md";
const INSTR: &str = ".github/instructions/ts.instructions.md";

fn read(ws: &Ws, rel: &str) -> String {
    std::fs::read_to_string(ws.root.join(rel)).unwrap()
}

/// Runs `check --fix` on one file and returns its text afterwards; a second run changes nothing.
fn fixed(rel: &str, text: &str, args: &[&str]) -> (String, String) {
    let ws = Ws::new();
    ws.file(rel, text);
    ws.file("src/a.ts", "");
    let mut a = vec!["check", "--fix", "--trust-project"];
    a.extend(args);
    let first = ws.run(&a);
    let after = read(&ws, rel);
    let again = ws.run(&a);
    assert_eq!(read(&ws, rel), after, "a second run changed {rel}");
    again.assert_stderr_has("fixed 0 problem(s) in 0 file(s)");
    (after, first.stderr)
}

#[test]
fn every_safe_fix_is_applied_and_a_second_run_changes_nothing() {
    let ok = "---\nname: demo\ndescription: Demo skill.\n---\n# Demo\n";
    // skill-frontmatter-missing: blank lines before ---, trailing whitespace after it.
    assert_eq!(fixed(SKILL, &format!("\n\n{ok}"), &[]).0, ok);
    assert_eq!(fixed(SKILL, &ok.replacen("---\n", "---  \n", 1), &[]).0, ok);
    // skill-frontmatter-unterminated.
    assert_eq!(
        fixed(
            SKILL,
            "---\nname: demo\ndescription: Demo skill.\n# Demo\n",
            &[]
        )
        .0,
        "---\nname: demo\ndescription: Demo skill.\n---\n# Demo\n"
    );
    // skill-yaml-syntax: a value holding ": ".
    let (after, err) = fixed(
        SKILL,
        "---\nname: demo\ndescription: Demo: a skill\n---\n# Demo\n",
        &[],
    );
    assert_eq!(
        after,
        "---\nname: demo\ndescription: \"Demo: a skill\"\n---\n# Demo\n"
    );
    assert!(err.contains("fixed 1 problem(s) in 1 file(s)"), "{err}");
    // One fix uncovers another: both in one run.
    assert_eq!(
        fixed(
            SKILL,
            "\n---\nname: demo\ndescription: Demo: a skill\n---\n# Demo\n",
            &[]
        )
        .0,
        "---\nname: demo\ndescription: \"Demo: a skill\"\n---\n# Demo\n"
    );
    // A BOM stays.
    assert_eq!(
        fixed(
            SKILL,
            "\u{feff}---\nname: demo\ndescription: Demo: a skill\n---\n",
            &[]
        )
        .0,
        "\u{feff}---\nname: demo\ndescription: \"Demo: a skill\"\n---\n"
    );
    // instructions-apply-to-list, flow and block lists.
    let host = ["--host", "copilot"];
    assert_eq!(
        fixed(
            INSTR,
            "---\napplyTo: [\"**/*.ts\", \"src/**\"]\n---\nUse strict.\n",
            &host
        )
        .0,
        "---\napplyTo: \"**/*.ts, src/**\"\n---\nUse strict.\n"
    );
    assert_eq!(
        fixed(
            INSTR,
            "---\napplyTo:\n  - \"**/*.ts\"\n  - src/**\n---\nUse strict.\n",
            &host
        )
        .0,
        "---\napplyTo: \"**/*.ts, src/**\"\n---\nUse strict.\n"
    );
}

#[test]
fn unsafe_fixes_need_their_flag_and_suppressed_findings_are_not_fixed() {
    let text = "---\nname: demo\n---\n# Demo\n";
    assert_eq!(fixed(SKILL, text, &[]).0, text);
    assert_eq!(
        fixed(SKILL, text, &["--unsafe-fixes"]).0,
        "---\nname: demo\ndescription: \"Describe what this skill does and when to use it.\"\n---\n# Demo\n"
    );
    let quiet =
        "---\nname: demo\ndescription: Demo: a skill  # alisio-ignore: skill-yaml-syntax\n---\n";
    assert_eq!(fixed(SKILL, quiet, &[]).0, quiet);
}

#[test]
fn diff_previews_without_writing_and_exits_1_when_there_are_fixes() {
    let ws = Ws::new();
    let text = "\n---\nname: demo\ndescription: Demo: a skill\n---\n# Demo\n";
    ws.file(SKILL, text);
    let r = ws.run(&["check", "--diff"]);
    assert_eq!(r.code, 1, "{r:?}");
    assert_eq!(
        r.stdout,
        "--- a/.agents/skills/demo/SKILL.md\n+++ b/.agents/skills/demo/SKILL.md\n@@ -1,6 +1,5 @@\n-\n ---\n name: demo\n-description: Demo: a skill\n+description: \"Demo: a skill\"\n ---\n # Demo\n"
    );
    assert_eq!(read(&ws, SKILL), text);
    ws.file(SKILL, "---\nname: demo\ndescription: Demo skill.\n---\n");
    let r = ws.run(&["check", "--diff"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""));
}

#[test]
fn the_write_is_atomic_keeps_the_mode_and_leaves_no_temporary_file() {
    let ws = Ws::new();
    let f = ws.file(SKILL, "\n---\nname: demo\ndescription: Demo skill.\n---\n");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let ino = |p: &Path| {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt as _;
            std::fs::metadata(p).unwrap().ino()
        }
        #[cfg(not(unix))]
        0
    };
    let before = ino(&f);
    let r = ws.run(&["check", "--fix"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(
        read(&ws, SKILL),
        "---\nname: demo\ndescription: Demo skill.\n---\n"
    );
    let dir: Vec<String> = std::fs::read_dir(f.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(dir, ["SKILL.md"]);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        // Replaced by rename (a new inode), with the old permission bits.
        assert_ne!(ino(&f), before);
        assert_eq!(
            std::fs::metadata(&f).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
}

#[cfg(unix)]
#[test]
fn a_symlink_and_a_file_below_a_symlinked_directory_are_never_fixed() {
    let ws = Ws::new();
    let outside = tempfile::tempdir().unwrap();
    let list = "---\napplyTo: [\"**/*.ts\"]\n---\nUse strict.\n";
    let target = crate::common::write(&outside.path().join("instr/ts.instructions.md"), list);
    let other = crate::common::write(&outside.path().join("other.instructions.md"), list);
    ws.file("src/a.ts", "");
    std::fs::create_dir_all(ws.root.join(".github")).unwrap();
    std::os::unix::fs::symlink(
        target.parent().unwrap(),
        ws.root.join(".github/instructions"),
    )
    .unwrap();
    let r = ws.run(&["check", "--host", "copilot", "--fix"]);
    r.assert_stderr_has(
        "note: not fixed: .github/instructions/ts.instructions.md: below a symbolic link",
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), list);
    // A symlinked file inside a real directory.
    std::fs::remove_file(ws.root.join(".github/instructions")).unwrap();
    std::fs::create_dir(ws.root.join(".github/instructions")).unwrap();
    std::os::unix::fs::symlink(
        &other,
        ws.root.join(".github/instructions/o.instructions.md"),
    )
    .unwrap();
    let r = ws.run(&["check", "--host", "copilot", "--fix"]);
    assert!(
        r.stdout.contains("warning[instructions-apply-to-list]"),
        "{r:?}"
    );
    r.assert_stderr_has("note: not fixed: .github/instructions/o.instructions.md: a symbolic link");
    assert_eq!(std::fs::read_to_string(&other).unwrap(), list);
    assert!(
        std::fs::symlink_metadata(ws.root.join(".github/instructions/o.instructions.md"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}
