//! Instruction resolution over generated trees: the input builds a small workspace in a
//! temporary directory (directories, instruction files with generated text, ignore files,
//! Claude rules and imports, symlinks inside the tree, to the tree's parent and in loops),
//! then `explain` runs for several targets and hosts and `analyze` over the whole workspace.
//! Checked: no panic, no hang (imports and rule walks stay bounded), every project entry lies
//! inside the workspace, the shared budget is respected, every diagnostic's range is ordered
//! and names a file inside the workspace or the config home.
#![no_main]

use std::path::{Path, PathBuf};

use alisio_ls::config::{ClaudeInstructionFiles, Host, Settings};
use alisio_ls::instructions::{FileScope, Setup, diagnostics, explain, read::Reader};
use alisio_ls::workspace::{DiskFs, Env, is_inside};
use libfuzzer_sys::arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;

const DIRS: &[&str] = &["", "a", "a/b", "a/b/c", "sub", ".claude", ".claude/rules", ".claude/rules/x", "node_modules", ".git", "a/.claude"];
const FILES: &[&str] = &[
    "AGENTS.md", "AGENTS.override.md", "AGENT.md", "CLAUDE.md", "CLAUDE.local.md", "agents.md", "Agents.MD",
    ".gitignore", ".ignore", "r.md", "imp.md",
];
const LINKS: &[&str] = &[".", "..", "../..", "a", "a/b", "AGENTS.md", "../outside", "../outside/AGENTS.md", "loop", "/nonexistent"];

fn text(u: &mut Unstructured<'_>) -> Vec<u8> {
    const PARTS: &[&str] = &[
        "# Title\n", "text ", "@imp.md ", "@AGENTS.md\n", "@../outside/AGENTS.md\n", "@~/x.md ", "@/etc/hostname\n", "```\n", "`@r.md`",
        "---\npaths: [\"a/**\"]\n---\n", "---\npaths:\n  - \"*.md\"\n---\n", "<!-- c -->\n", "<!--", "\u{feff}", "\r\n", "😀", "\u{0}", "b/\n", "!b\n", "*\n",
    ];
    let mut out = Vec::new();
    for _ in 0..u.int_in_range(0..=10).unwrap_or(0) {
        if u.ratio(1, 10).unwrap_or(false) {
            let n = u.int_in_range(0..=8).unwrap_or(0);
            out.extend(u.bytes(n).unwrap_or_default());
        } else {
            out.extend(u.choose(PARTS).unwrap_or(&"x").as_bytes());
        }
    }
    if u.ratio(1, 40).unwrap_or(false) {
        // Past the per-file limit now and then.
        out.extend(std::iter::repeat_n(b'y', 262_150));
    }
    out
}

fn build(u: &mut Unstructured<'_>, base: &Path) {
    for _ in 0..u.int_in_range(0..=24).unwrap_or(0) {
        let dir = *u.choose(DIRS).unwrap_or(&"");
        let side = if u.ratio(1, 6).unwrap_or(false) { "outside" } else if u.ratio(1, 8).unwrap_or(false) { "cfg" } else { "ws" };
        let d = base.join(side).join(dir);
        let _ = std::fs::create_dir_all(&d);
        match u.int_in_range(0..=9).unwrap_or(0) {
            0..=6 => {
                let name = *u.choose(FILES).unwrap_or(&"AGENTS.md");
                let _ = std::fs::write(d.join(name), text(u));
            }
            7 => {
                let name = *u.choose(&["AGENTS.md", "CLAUDE.md", "link", "rules", "imp.md", "x"]).unwrap_or(&"x");
                let target = *u.choose(LINKS).unwrap_or(&".");
                let target = if target == "loop" { d.join(name).to_string_lossy().into_owned() } else { target.to_string() };
                let _ = std::os::unix::fs::symlink(target, d.join(name));
            }
            8 => {
                use std::os::unix::fs::PermissionsExt;
                let _ = std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o311));
            }
            _ => {
                let _ = std::fs::create_dir_all(d.join("new").join("deeper"));
            }
        }
    }
}

fn restore_permissions(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let _ = std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755));
        if let Ok(rd) = std::fs::read_dir(&d) {
            for e in rd.flatten() {
                if e.file_type().is_ok_and(|t| t.is_dir()) {
                    stack.push(e.path());
                }
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let tmp = tempfile::Builder::new().prefix("alisio-fuzz").tempdir_in(if Path::new("/dev/shm").is_dir() { "/dev/shm" } else { "/tmp" }).expect("tempdir");
    let base = tmp.path().canonicalize().expect("canonical");
    for d in ["ws/.git", "outside", "cfg", "home/.claude"] {
        std::fs::create_dir_all(base.join(d)).expect("mkdir");
    }
    build(&mut u, &base);
    let root = base.join("ws");
    let env = Env {
        home: Some(base.join("home")),
        alisio_config_home: Some(base.join("cfg")),
        codex_home: Some(base.join("home/.codex")),
        ..Env::default()
    };
    let mut settings = Settings::default();
    settings.claude_md_fallback = u.arbitrary().unwrap_or(false);
    settings.max_bytes = *u.choose(&[1024u32, 4096, 32_768, 1_048_576]).unwrap_or(&32_768);
    settings.claude_instruction_files = *u
        .choose(&[ClaudeInstructionFiles::ClaudeMdOrAgentsMd, ClaudeInstructionFiles::ClaudeMdAndAgentsMd, ClaudeInstructionFiles::ClaudeMd])
        .unwrap_or(&ClaudeInstructionFiles::ClaudeMdOrAgentsMd);
    let managed = base.join("managed/CLAUDE.md");
    let fs = DiskFs;
    let targets: Vec<PathBuf> = ["", "a/b/c/file.rs", "a/", "sub/new/deeper", "../outside/x", "/", ".claude/rules/x/y.md", "link/AGENTS.md"]
        .iter()
        .map(PathBuf::from)
        .collect();
    for host in [Host::Alisio, Host::Codex, Host::ClaudeCode] {
        let setup = Setup { fs: &fs, env: &env, root: &root, settings: &settings, host, claude_managed: Some(&managed), claude_session: None };
        let reader = Reader::new(&fs);
        for t in &targets {
            let Ok(ex) = explain::explain_path(&setup, &reader, &root, t) else { continue };
            let _ = ex.to_json();
            let _ = ex.to_human();
            for f in &ex.files {
                if f.scope == FileScope::Project {
                    assert!(is_inside(&f.path, &root), "{} outside {}", f.path.display(), root.display());
                }
                assert!(f.kept_bytes <= f.bytes || f.bytes == 0, "{f:?}");
            }
            if host == Host::Alisio {
                let kept: usize = ex.files.iter().filter(|f| f.charged).map(|f| f.kept_bytes).sum();
                assert!(kept <= settings.max_bytes as usize, "kept {kept} > {}", settings.max_bytes);
            }
        }
        let a = diagnostics::analyze(&setup, true);
        for d in &a.diagnostics {
            assert!(d.span.bytes.start <= d.span.bytes.end, "{d:?}");
            assert!(d.span.start <= d.span.end, "{d:?}");
            assert!(is_inside(&d.file, &root) || is_inside(&d.file, &base.join("cfg")), "{d:?}");
        }
    }
    restore_permissions(&base);
});
