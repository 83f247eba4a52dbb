use super::*;

fn c(s: &str) -> Shell {
    classify(s, &Base::Empty)
}

#[test]
fn reads_through_filters() {
    assert_eq!(
        c("cat a | head -5").kind,
        CommandKind::Read {
            key: Some("a".into()),
            path: "a".into()
        }
    );
    assert_eq!(
        c("nl -ba src/x.py | sed -n '1,20p'").kind,
        CommandKind::Read {
            key: Some("src/x.py".into()),
            path: "src/x.py".into()
        }
    );
    assert_eq!(
        c("sed -n '10,20p' f.py").kind,
        CommandKind::Read {
            key: Some("f.py".into()),
            path: "f.py".into()
        }
    );
    assert_eq!(
        c("head -n 5 f 2>/dev/null").kind,
        CommandKind::Read {
            key: Some("f".into()),
            path: "f".into()
        }
    );
    assert_eq!(
        c("awk -F: '{print $1}' /etc/passwd").kind,
        CommandKind::Read {
            key: Some("/etc/passwd".into()),
            path: "/etc/passwd".into()
        }
    );
    assert_eq!(c("tail -f log").kind, CommandKind::Process);
    assert_eq!(c("sed 's/a/b/' f").kind, CommandKind::Process);
}

#[test]
fn processes_are_not_classified() {
    for s in [
        "cat a b",
        "cat $F",
        "echo X && cat p",
        "cat 'unterminated",
        "cat a > b",
        "(cat a)",
        "cat a &",
        "for f in a; do cat $f; done",
        "find . -name x -delete",
    ] {
        assert_eq!(c(s).kind, CommandKind::Process, "{s}");
    }
    assert_eq!(c("cat a > b").written, vec!["b".to_owned()]);
}

#[test]
fn heredoc_writes_then_runs() {
    let s = c("cat > t.py <<'EOF'\nprint(1)\nEOF\n&& python t.py");
    assert_eq!(s.written, vec!["t.py".to_owned()]);
    let s = c("cat > t.py <<'EOF'\nprint(1)\nEOF");
    assert_eq!(s.written, vec!["t.py".to_owned()]);
    assert_eq!(
        c("cat > t.py <<'EOF'\nprint(1)\n").kind,
        CommandKind::Process
    );
    assert!(c("cat > t.py <<'EOF'\nprint(1)\n").written.is_empty());
}

#[test]
fn cd_sets_the_base() {
    let s = classify("cd /testbed && cat x.py", &Base::Empty);
    assert_eq!(
        s.kind,
        CommandKind::Read {
            key: Some("/testbed/x.py".into()),
            path: "x.py".into()
        }
    );
    let s = classify("cd sub && cat x", &Base::Known("/r".into()));
    assert_eq!(
        s.kind,
        CommandKind::Read {
            key: Some("/r/sub/x".into()),
            path: "x".into()
        }
    );
    let s = classify("cd $D && cat x", &Base::Known("/r".into()));
    assert_eq!(
        s.kind,
        CommandKind::Read {
            key: None,
            path: "x".into()
        }
    );
}

#[test]
fn written_paths_of_editing_commands() {
    assert_eq!(
        classify("sed -i 's/a/b/' /testbed/x.py", &Base::Empty).written,
        vec!["/testbed/x.py".to_owned()]
    );
    assert_eq!(
        c("sed -i.bak -e 's/a/b/' x y").written,
        vec!["x".to_owned(), "y".to_owned()]
    );
    assert_eq!(
        c("echo hi | tee -a out.txt").written,
        vec!["out.txt".to_owned()]
    );
    assert_eq!(c("rm -f a b").written, vec!["a".to_owned(), "b".to_owned()]);
    assert_eq!(c("cp a b").written, vec!["b".to_owned()]);
    assert_eq!(c("mv a b").written, vec!["a".to_owned(), "b".to_owned()]);
    assert_eq!(
        c("patch -p1 f.py < x.diff").written,
        vec!["f.py".to_owned()]
    );
    assert_eq!(
        c("git checkout -- a b").written,
        vec!["a".to_owned(), "b".to_owned()]
    );
    assert_eq!(c("git restore a").written, vec!["a".to_owned()]);
    assert_eq!(
        c("python3 -c \"open('o.txt', 'w').write('x')\"").written,
        vec!["o.txt".to_owned()]
    );
    assert_eq!(
        c("python - <<EOF\nfrom pathlib import Path\nPath('p.txt').write_text('x')\nEOF").written,
        vec!["p.txt".to_owned()]
    );
    assert_eq!(c("echo x > /dev/null").written, Vec::<String>::new());
    assert_eq!(c("echo x 2>&1 > $OUT").written, Vec::<String>::new());
}

#[test]
fn searches_and_their_output_paths() {
    assert_eq!(
        c("grep -rn foo .").kind,
        CommandKind::Search { files: false }
    );
    assert_eq!(c("rg -l foo").kind, CommandKind::Search { files: true });
    assert_eq!(
        c("find . -name '*.py' | head -20").kind,
        CommandKind::Search { files: true }
    );
    assert_eq!(c("find . -exec rm {} ;").kind, CommandKind::Process);
    assert_eq!(
        c("git grep -n x").kind,
        CommandKind::Search { files: false }
    );
    assert_eq!(
        search_output_paths(
            "a/b.py:10:x\nc-3-y\nnothing\n",
            false,
            &Base::Known("/r".into())
        ),
        vec!["/r/a/b.py".to_owned(), "/r/c".to_owned()]
    );
}

#[test]
fn path_keys_follow_the_base() {
    assert_eq!(key(&Base::Known("/r/".into()), "a"), Some("/r/a".into()));
    assert_eq!(key(&Base::Unknown, "a"), None);
    assert_eq!(key(&Base::Unknown, "C:\\a"), Some("C:\\a".into()));
    assert_eq!(key(&Base::Known("/r".into()), "./a"), Some("/r/./a".into()));
}
