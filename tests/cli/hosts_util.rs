//! Helpers of the host tests (hosts.md): explain with a configuration, and the `files` /
//! `notLoaded` columns the rules fix.

use serde_json::Value;

use crate::common::{Run, Ws, pairs, triples, write};

/// `(path, kind, delivery)` of every entry of `files`.
pub type File = (String, String, String);

pub fn run(ws: &Ws, cfg: &str, args: &[&str]) -> Run {
    let mut a: Vec<String> = args.iter().map(|s| (*s).to_string()).collect();
    if !cfg.is_empty() {
        let p = write(&ws.tmp.path().join("cfg.json"), cfg);
        a.push("--config".into());
        a.push(p.to_string_lossy().into_owned());
    }
    crate::common::run_cmd(ws.cmd().args(&a))
}

pub fn explain(ws: &Ws, host: &str, path: &str, cfg: &str) -> Value {
    let r = run(
        ws,
        cfg,
        &["context", "explain", "--json", "--host", host, path],
    );
    assert_eq!(r.code, 0, "{r:?}");
    r.json()
}

pub fn files(v: &Value) -> Vec<File> {
    triples(&v["files"], ["path", "kind", "delivery"])
}

pub fn f(p: &str, k: &str, d: &str) -> File {
    (p.to_string(), k.to_string(), d.to_string())
}

pub fn not_loaded(v: &Value) -> Vec<(String, String)> {
    pairs(&v["notLoaded"], ["path", "reason"])
}

pub fn n(p: &str, r: &str) -> (String, String) {
    (p.to_string(), r.to_string())
}

/// `(file, code, message)` of every diagnostic of `check --host <host>`.
pub fn check(ws: &Ws, host: &str, cfg: &str) -> Vec<(String, String, String)> {
    let r = run(ws, cfg, &["check", "--format", "json", "--host", host]);
    assert!(r.code == 0 || r.code == 1, "{r:?}");
    triples(&r.json()["diagnostics"], ["file", "code", "message"])
}

pub fn d(file: &str, code: &str, msg: &str) -> (String, String, String) {
    (file.to_string(), code.to_string(), msg.to_string())
}
