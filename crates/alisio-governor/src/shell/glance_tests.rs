//! The glance table (spec/sessions.md §12.3, spec/governor.md §3.3): one function decides what the
//! coordinator's glance shell runs and which results expire. These cases pin the table; the
//! test in `policy2.rs` checks that expiry asks the same function.

use super::ephemeral::check;

/// `(command, runs in glance and expires)`.
pub(crate) const CASES: &[(&str, bool)] = &[
    // Plain status and listing commands.
    ("git status", true),
    ("git status -s", true),
    ("git status -s && git log --oneline -10", true),
    (
        "git status -s && echo \"--- LOG ---\" && git log --oneline -10",
        true,
    ),
    ("git log --oneline -5 | head -3", true),
    ("git diff --stat", true),
    ("git --no-pager diff HEAD~1", true),
    ("git -C sub status --porcelain", true),
    ("git branch -a", true),
    ("git branch --show-current", true),
    ("git stash list", true),
    ("git remote -v", true),
    ("git rev-parse HEAD", true),
    ("git describe --tags", true),
    ("ls", true),
    ("ls -la src", true),
    ("ls src/*.rs", true),
    ("cd crates && ls", true),
    ("pwd; ls", true),
    ("ls src | head -20", true),
    ("ls 2>/dev/null || echo none", true),
    ("ls -R | wc -l", true),
    ("find . -name '*.rs' | head", true),
    ("ps aux | grep cargo", true),
    ("git log --format=%s | sort | uniq -c", true),
    ("git log --oneline | sed -n 1,5p", true),
    ("ps aux | awk '{print $2}'", true),
    ("du -sh target", true),
    ("df -h", true),
    ("date +%s", true),
    ("uname -a", true),
    ("env", true),
    ("which cargo", true),
    ("stat Cargo.toml", true),
    ("git status 2>&1", true),
    // Not status or listing commands.
    ("cat Cargo.toml", false),
    ("rm -rf x", false),
    ("git status && rm -rf x", false),
    ("git checkout main", false),
    ("git branch -D old", false),
    ("git stash", false),
    ("ls > listing.txt", false),
    ("git log >> log.txt", false),
    ("cargo test", false),
    ("echo done", false),
    ("cd crates", false),
    // Adversarial: what a model (or a prompt injection) could try to slip through.
    ("ls $(rm -rf x)", false),
    ("ls `rm -rf x`", false),
    ("git status && $(echo rm) -rf x", false),
    ("env rm -rf x", false),
    ("ls | xargs rm", false),
    ("sh -c 'git status; rm -rf x'", false),
    ("bash -c ls", false),
    ("git -c core.fsmonitor='rm -rf x' status", false),
    ("git -c alias.st='!rm -rf x' st", false),
    ("find . -exec rm {} \\;", false),
    ("find . -name x -delete", false),
    ("find . -fprint out.txt", false),
    ("/tmp/evil/ls", false),
    ("./ls -la", false),
    ("PATH=/tmp/evil ls", false),
    ("GIT_EXTERNAL_DIFF=./x git diff", false),
    ("git diff --output=patch.txt", false),
    ("git diff --ext-diff", false),
    ("ls >&out.txt", false),
    ("git log | sed 'w out.txt'", false),
    ("ps | awk '{system(\"rm -rf x\")}'", false),
    ("git log | sort -o out.txt", false),
    ("git status &", false),
    ("(ls)", false),
    ("ls\nrm -rf x", false),
    ("ls | tee out.txt", false),
    ("ls $HOME", false),
    ("find . -name $X", false),
    ("date -s 2020-01-01", false),
    ("hostname evil", false),
    ("tree -o out.txt", false),
    ("git diff < input.txt", false),
    ("cat <<EOF\nx\nEOF", false),
    ("for f in a b; do ls $f; done", false),
    ("", false),
];

#[test]
fn the_table_pins_at_least_46_commands_with_10_adversarial_ones() {
    let adversarial = CASES
        .iter()
        .position(|(c, _)| *c == "ls $(rm -rf x)")
        .map_or(0, |i| CASES.len() - i - 1);
    assert!(CASES.len() >= 46, "{}", CASES.len());
    assert!(adversarial >= 10, "{adversarial}");
    for (c, want) in CASES {
        assert_eq!(check(c).is_ok(), *want, "{c:?}: {:?}", check(c));
    }
}

#[test]
fn a_refusal_names_the_element_that_is_not_in_the_table() {
    assert_eq!(
        check("git status && rm -rf x").unwrap_err(),
        "\"rm -rf x\" is not a status or listing command"
    );
    assert_eq!(
        check("ls > out.txt").unwrap_err(),
        "redirection > out.txt reaches a file"
    );
    assert_eq!(
        check("./ls").unwrap_err(),
        "\"./ls\": name the program, not a path"
    );
    assert_eq!(
        check("git status -s && git log --oneline -10").unwrap(),
        "git status -s && git log --oneline -10"
    );
}
