//! The protocol is declared once per language, and the three declarations agree; every
//! setting the VS Code extension contributes is a key the server reads.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::METHODS;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(repo().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Every `alisio/<name>` string literal of a source text, in order of quote kind, then
/// position.
fn quoted_methods(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for quote in ['\'', '"'] {
        let open = format!("{quote}alisio/");
        let mut rest = text;
        while let Some(i) = rest.find(&open) {
            let tail = &rest[i + 1..];
            let name_len = tail["alisio/".len()..]
                .find(|c: char| !c.is_ascii_alphanumeric())
                .unwrap_or(tail.len() - "alisio/".len());
            let end = "alisio/".len() + name_len;
            // A method name alone between quotes (not a message that starts with one).
            if tail[end..].starts_with(quote) {
                out.push(tail[..end].to_string());
            }
            rest = &tail[end..];
        }
    }
    out
}

fn sorted(v: &[String]) -> Vec<String> {
    let mut s = v.to_vec();
    s.sort();
    s
}

#[test]
fn the_three_declarations_of_the_custom_methods_list_the_same_methods() {
    let rust: Vec<String> = METHODS.iter().map(|m| (*m).to_string()).collect();
    assert_eq!(
        rust.iter().collect::<BTreeSet<_>>().len(),
        rust.len(),
        "a method declared twice in ext.rs"
    );
    let ts = quoted_methods(&read("editors/vscode/src/lsp_ext.ts"));
    let lua = quoted_methods(&read("editors/neovim/lua/alisio/ext.lua"));
    assert_eq!(sorted(&ts), sorted(&rust), "lsp_ext.ts differs from ext.rs");
    assert_eq!(sorted(&lua), sorted(&rust), "ext.lua differs from ext.rs");
    // The same order too: a reader compares them side by side.
    assert_eq!(ts, rust);
    assert_eq!(lua, rust);
}

fn sources(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.file_name().is_some_and(|n| n == "node_modules") {
            continue;
        }
        if p.is_dir() {
            sources(&p, ext, out);
        } else if p.extension().is_some_and(|x| x == ext) {
            out.push(p);
        }
    }
}

#[test]
fn no_client_source_names_a_custom_method_outside_its_declaration() {
    let mut files = Vec::new();
    sources(&repo().join("editors/vscode/src"), "ts", &mut files);
    sources(&repo().join("editors/neovim"), "lua", &mut files);
    assert!(files.len() > 5, "{files:?}");
    for f in files {
        if f.ends_with("lsp_ext.ts") || f.ends_with("ext.lua") {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        assert_eq!(
            quoted_methods(&text),
            Vec::<String>::new(),
            "{} names a method literally; use the declaration",
            f.display()
        );
    }
    // Rust: only ext.rs spells them.
    let mut rs = Vec::new();
    sources(&repo().join("server/src/lsp"), "rs", &mut rs);
    for f in rs {
        if f.ends_with("ext.rs") || f.ends_with("ext_tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        assert_eq!(
            quoted_methods(&text),
            Vec::<String>::new(),
            "{}",
            f.display()
        );
    }
}

/// Does the server read `key` (dotted, as in `alisio.<key>`)? Each source of keys is asked the
/// way the server asks it: a wrong-typed value must be reported, or a probe value must arrive.
fn server_reads(key: &str) -> bool {
    let mut obj = json!({});
    let mut cur = &mut obj;
    let parts: Vec<&str> = key.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        let v = if i + 1 == parts.len() {
            json!([["wrong"]])
        } else {
            json!({})
        };
        cur[*part] = v;
        cur = &mut cur[*part];
    }
    // Configuration keys (spec/instructions.md §2.10): the layer reports a wrong type.
    let layer = alisio_base::config::Layer::from_client(obj.clone());
    if layer.problems.iter().any(|p| p.key == key) {
        return true;
    }
    // Client-only options (host, profile, watcher, codeLens.*).
    let mut opts = super::super::state::ClientOptions::default();
    if opts.update(&obj).iter().any(|p| p.starts_with(key)) {
        return true;
    }
    // provider.*: the resolved provider carries a probe value.
    if let Some(k) = key.strip_prefix("provider.") {
        let probe = if k == "kind" {
            "script"
        } else {
            "alisio-probe"
        };
        let mut p = serde_json::Map::new();
        p.insert(k.to_string(), Value::String(probe.into()));
        if let Ok(c) = alisio_session::settings::ProviderConfig::from_json(&p) {
            let shown = format!("{c:?}");
            return if k == "kind" {
                shown.contains("kind: Script")
            } else {
                shown.contains("alisio-probe")
            };
        }
    }
    false
}

#[test]
fn every_setting_the_extension_contributes_is_a_key_the_server_knows() {
    let pkg: Value = serde_json::from_str(&read("editors/vscode/package.json")).unwrap();
    let props = pkg["contributes"]["configuration"]["properties"]
        .as_object()
        .expect("configuration properties");
    // Read by the extension itself, never sent (docs/editors.md "Settings → options").
    let client_side = ["server.path", "trace.server"];
    let mut checked = 0;
    for name in props.keys() {
        let key = name.strip_prefix("alisio.").expect("an alisio.* setting");
        if client_side.contains(&key) {
            continue;
        }
        assert!(
            server_reads(key),
            "alisio.{key} is not a key the server reads"
        );
        checked += 1;
    }
    assert!(checked >= 14, "{checked}");
    // And the check can fail: a made-up key is not known.
    assert!(!server_reads("context.noSuchKey"));
    assert!(!server_reads("provider.noSuchKey"));
}
