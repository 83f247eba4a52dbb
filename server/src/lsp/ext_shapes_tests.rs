//! The TypeScript declaration of the protocol (`editors/vscode/src/lsp_ext.ts`) agrees with the
//! Rust one in shapes, not only names: every method's `RequestType<P, R>` is read from the
//! TypeScript source, and
//! - what the server sends (a result, `alisio/approve`'s params, an event) is a Rust value,
//!   serialized, that must fit the interface declared for it: no key the interface does not
//!   declare, every key of the right type, every required key present; and every key an
//!   interface declares is sent by some sample (the interface invents nothing);
//! - what the client sends (params, `alisio/approve`'s result) is generated from the
//!   TypeScript type (every optional key present, then none) and must decode into the Rust
//!   `Params`, which, encoded again, keeps every key the client sent (serde ignores unknown
//!   keys; this catches a key the server would drop).
//!
//! The samples are typed by the request: `sent::<R>(…)` takes `R::Result` values, so a sample
//! of the wrong type does not compile.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::super::init::{InitParams, InitProposal};
use super::*;

fn read(rel: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

// ---- a reader of the TypeScript declarations ----------------------------------------------

#[derive(Clone, Debug, PartialEq)]
enum Ty {
    Str,
    Num,
    Bool,
    Null,
    Unknown,
    Never,
    Void,
    Lit(String),
    Arr(Box<Ty>),
    Record(Box<Ty>),
    Obj(Obj),
    Ref(String),
    Union(Vec<Ty>),
}

#[derive(Clone, Debug, Default, PartialEq)]
struct Obj {
    fields: Vec<(String, bool, Ty)>,
    index: Option<Box<Ty>>,
}

#[derive(Default)]
struct Ts {
    interfaces: BTreeMap<String, (Vec<String>, Obj)>,
    aliases: BTreeMap<String, Ty>,
    /// method → (params, result; `None` for a notification).
    methods: BTreeMap<String, (Ty, Option<Ty>)>,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Str(String),
    Num,
    P(char),
}

fn lex(src: &str) -> Vec<Tok> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && c.get(i + 1) == Some(&'*') {
            i += 2;
            while i + 1 < c.len() && !(c[i] == '*' && c[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if ch == '\'' || ch == '"' || ch == '`' {
            let mut s = String::new();
            i += 1;
            while i < c.len() && c[i] != ch {
                s.push(c[i]);
                i += 1;
            }
            i += 1;
            out.push(Tok::Str(s));
        } else if ch.is_ascii_alphabetic() || ch == '_' || ch == '$' {
            let mut s = String::new();
            while i < c.len() && (c[i].is_ascii_alphanumeric() || c[i] == '_' || c[i] == '$') {
                s.push(c[i]);
                i += 1;
            }
            out.push(Tok::Ident(s));
        } else if ch.is_ascii_digit() {
            while i < c.len() && c[i].is_ascii_digit() {
                i += 1;
            }
            out.push(Tok::Num);
        } else {
            out.push(Tok::P(ch));
            i += 1;
        }
    }
    out
}

struct Parser {
    t: Vec<Tok>,
    i: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.t.get(self.i)
    }
    fn next(&mut self) -> Tok {
        let t = self.t.get(self.i).cloned().unwrap_or(Tok::P('\0'));
        self.i += 1;
        t
    }
    fn is(&self, ch: char) -> bool {
        self.peek() == Some(&Tok::P(ch))
    }
    fn eat(&mut self, ch: char) -> bool {
        let y = self.is(ch);
        if y {
            self.i += 1;
        }
        y
    }
    fn expect(&mut self, ch: char) {
        let t = self.next();
        assert_eq!(
            t,
            Tok::P(ch),
            "lsp_ext.ts: expected {ch:?} at token {}",
            self.i
        );
    }
    fn ident(&mut self) -> String {
        match self.next() {
            Tok::Ident(s) => s,
            t => panic!("lsp_ext.ts: expected a name, got {t:?}"),
        }
    }

    fn ty(&mut self) -> Ty {
        self.eat('|');
        let mut alts = vec![self.postfix()];
        while self.eat('|') {
            alts.push(self.postfix());
        }
        assert!(!self.is('&'), "lsp_ext.ts: use `extends`, not `&`");
        if alts.len() == 1 {
            alts.pop().unwrap_or(Ty::Never)
        } else {
            Ty::Union(alts)
        }
    }

    fn postfix(&mut self) -> Ty {
        let mut t = self.primary();
        while self.is('[') && self.t.get(self.i + 1) == Some(&Tok::P(']')) {
            self.i += 2;
            t = Ty::Arr(Box::new(t));
        }
        t
    }

    fn primary(&mut self) -> Ty {
        match self.next() {
            Tok::P('(') => {
                let t = self.ty();
                self.expect(')');
                t
            }
            Tok::P('{') => Ty::Obj(self.members()),
            Tok::Str(s) => Ty::Lit(s),
            Tok::Ident(name) => {
                let mut args = Vec::new();
                if self.eat('<') {
                    loop {
                        args.push(self.ty());
                        if !self.eat(',') {
                            break;
                        }
                    }
                    self.expect('>');
                }
                match (name.as_str(), args.len()) {
                    ("string", 0) => Ty::Str,
                    ("number", 0) => Ty::Num,
                    ("boolean", 0) => Ty::Bool,
                    ("null", 0) => Ty::Null,
                    ("unknown", 0) => Ty::Unknown,
                    ("never", 0) => Ty::Never,
                    ("void" | "undefined", 0) => Ty::Void,
                    ("any", _) => panic!("lsp_ext.ts declares `any`"),
                    ("Record", 2) => Ty::Record(Box::new(args.remove(1))),
                    ("Array", 1) => Ty::Arr(Box::new(args.remove(0))),
                    (_, 0) => Ty::Ref(name),
                    _ => panic!("lsp_ext.ts: unsupported type {name}<…>"),
                }
            }
            t => panic!("lsp_ext.ts: unexpected {t:?} in a type"),
        }
    }

    /// Members up to the closing `}` (the `{` is consumed).
    fn members(&mut self) -> Obj {
        let mut o = Obj::default();
        while !self.eat('}') {
            if self.eat('[') {
                self.ident();
                self.expect(':');
                self.ty();
                self.expect(']');
                self.expect(':');
                o.index = Some(Box::new(self.ty()));
            } else {
                let name = match self.next() {
                    Tok::Ident(s) | Tok::Str(s) => s,
                    t => panic!("lsp_ext.ts: expected a member, got {t:?}"),
                };
                let optional = self.eat('?');
                self.expect(':');
                let t = self.ty();
                o.fields.push((name, optional, t));
            }
            let _ = self.eat(';') || self.eat(',');
        }
        o
    }
}

fn parse_ts(src: &str) -> Ts {
    let mut p = Parser { t: lex(src), i: 0 };
    let mut ts = Ts::default();
    while let Some(t) = p.peek().cloned() {
        match t {
            Tok::Ident(k) if k == "interface" => {
                p.next();
                let name = p.ident();
                let mut ext = Vec::new();
                if p.peek() == Some(&Tok::Ident("extends".into())) {
                    p.next();
                    loop {
                        ext.push(p.ident());
                        if !p.eat(',') {
                            break;
                        }
                    }
                }
                p.expect('{');
                let o = p.members();
                ts.interfaces.insert(name, (ext, o));
            }
            Tok::Ident(k) if k == "type" && matches!(p.t.get(p.i + 2), Some(Tok::P('='))) => {
                p.next();
                let name = p.ident();
                p.expect('=');
                let t = p.ty();
                ts.aliases.insert(name, t);
            }
            Tok::Ident(k)
                if (k == "RequestType" || k == "NotificationType")
                    && p.t.get(p.i + 1) == Some(&Tok::P('<')) =>
            {
                p.next();
                p.expect('<');
                let params = p.ty();
                let result = if k == "RequestType" {
                    p.expect(',');
                    let r = p.ty();
                    p.expect(',');
                    p.ty();
                    Some(r)
                } else {
                    None
                };
                p.expect('>');
                p.expect('(');
                let Tok::Str(method) = p.next() else {
                    panic!("lsp_ext.ts: {k} without a method name")
                };
                p.expect(')');
                ts.methods.insert(method, (params, result));
            }
            _ => {
                p.next();
            }
        }
    }
    ts
}

// ---- fitting values to types --------------------------------------------------------------

struct Checker {
    ts: Ts,
    /// `Interface.field` keys some sent sample carried.
    seen: BTreeSet<String>,
}

impl Checker {
    fn new() -> Self {
        Self {
            ts: parse_ts(&read("editors/vscode/src/lsp_ext.ts")),
            seen: BTreeSet::new(),
        }
    }

    /// The fields of an interface, its `extends` first.
    fn interface(&self, name: &str) -> Option<Obj> {
        let (ext, o) = self.ts.interfaces.get(name)?;
        let mut all = Obj::default();
        for e in ext {
            let base = self
                .interface(e)
                .unwrap_or_else(|| panic!("lsp_ext.ts: {name} extends unknown {e}"));
            all.fields.extend(base.fields);
        }
        all.fields.extend(o.fields.iter().cloned());
        all.index.clone_from(&o.index);
        Some(all)
    }

    fn fits(&mut self, v: &Value, t: &Ty, at: &str) -> Result<(), String> {
        let ok = match t {
            Ty::Unknown => true,
            Ty::Never | Ty::Void => false,
            Ty::Str => v.is_string(),
            Ty::Num => v.is_number(),
            Ty::Bool => v.is_boolean(),
            Ty::Null => v.is_null(),
            Ty::Lit(s) => v.as_str() == Some(s),
            Ty::Arr(e) => {
                let Some(a) = v.as_array() else {
                    return Err(format!("{at}: {v} is not an array"));
                };
                for (i, x) in a.iter().enumerate() {
                    self.fits(x, e, &format!("{at}[{i}]"))?;
                }
                true
            }
            Ty::Record(e) => {
                let Some(m) = v.as_object() else {
                    return Err(format!("{at}: {v} is not an object"));
                };
                for (k, x) in m {
                    self.fits(x, e, &format!("{at}.{k}"))?;
                }
                true
            }
            Ty::Obj(o) => return self.fits_obj(v, &o.clone(), None, at),
            Ty::Union(alts) => {
                let mut errs = Vec::new();
                for a in alts {
                    // A failed alternative must not count its keys as seen.
                    let before = self.seen.clone();
                    match self.fits(v, a, at) {
                        Ok(()) => return Ok(()),
                        Err(e) => {
                            self.seen = before;
                            errs.push(e);
                        }
                    }
                }
                return Err(errs.join(" / "));
            }
            Ty::Ref(name) => {
                if let Some(o) = self.interface(name) {
                    return self.fits_obj(v, &o, Some(name), at);
                }
                let a = self
                    .ts
                    .aliases
                    .get(name)
                    .cloned()
                    .unwrap_or_else(|| panic!("lsp_ext.ts: unknown type {name}"));
                return self.fits(v, &a, at);
            }
        };
        if ok {
            Ok(())
        } else {
            Err(format!("{at}: {v} is not {t:?}"))
        }
    }

    fn fits_obj(&mut self, v: &Value, o: &Obj, name: Option<&str>, at: &str) -> Result<(), String> {
        let Some(m) = v.as_object() else {
            return Err(format!("{at}: {v} is not an object"));
        };
        for (k, x) in m {
            let here = format!("{at}.{k}");
            if let Some((_, _, t)) = o.fields.iter().find(|(f, _, _)| f == k) {
                self.fits(x, t, &here)?;
                if let Some(n) = name {
                    self.seen.insert(format!("{n}.{k}"));
                }
            } else if let Some(t) = &o.index {
                self.fits(x, t, &here)?;
            } else {
                return Err(format!("{here}: the interface does not declare `{k}`"));
            }
        }
        for (f, optional, _) in &o.fields {
            if !optional && !m.contains_key(f) {
                return Err(format!("{at}: `{f}` is required and missing"));
            }
        }
        Ok(())
    }

    /// A value of `t` as a client would send it: every optional key (`full`) or none.
    fn generate(&self, t: &Ty, full: bool) -> Value {
        match t {
            Ty::Str => json!("file:///tmp/alisio-probe"),
            Ty::Num => json!(1),
            Ty::Bool => json!(true),
            Ty::Null | Ty::Void | Ty::Never => Value::Null,
            Ty::Unknown | Ty::Record(_) => json!({}),
            Ty::Lit(s) => json!(s),
            Ty::Arr(e) => json!([self.generate(e, full)]),
            Ty::Union(alts) => alts
                .iter()
                .find(|a| **a != Ty::Null)
                .map_or(Value::Null, |a| self.generate(a, full)),
            Ty::Obj(o) => self.generate_obj(o, full),
            Ty::Ref(name) => match self.interface(name) {
                Some(o) => self.generate_obj(&o, full),
                None => self.generate(&self.ts.aliases[name], full),
            },
        }
    }

    fn generate_obj(&self, o: &Obj, full: bool) -> Value {
        let mut m = serde_json::Map::new();
        for (f, optional, t) in &o.fields {
            if full || !optional {
                m.insert(f.clone(), self.generate(t, full));
            }
        }
        Value::Object(m)
    }

    fn method(&self, method: &str) -> (Ty, Option<Ty>) {
        self.ts
            .methods
            .get(method)
            .cloned()
            .unwrap_or_else(|| panic!("lsp_ext.ts does not declare {method}"))
    }

    /// Values the server sends for `method`'s result (`result`) or params.
    fn check_sent(&mut self, method: &str, result: bool, samples: &[Value]) {
        let (p, r) = self.method(method);
        let t = if result { r.expect("a request") } else { p };
        assert!(!samples.is_empty(), "{method}: no sample");
        for v in samples {
            if let Err(e) = self.fits(v, &t, method) {
                panic!("{method}: the Rust value does not fit lsp_ext.ts: {e}\n{v:#}");
            }
        }
    }

    /// Values the client sends for `method`'s params (`params`) or result decode into `T`.
    fn check_received<T: DeserializeOwned + Serialize>(&self, method: &str, params: bool) {
        let (p, r) = self.method(method);
        let t = if params { p } else { r.expect("a request") };
        for full in [true, false] {
            let v = self.generate(&t, full);
            let decoded: T = serde_json::from_value(v.clone()).unwrap_or_else(|e| {
                panic!("{method}: lsp_ext.ts's {v} does not decode in Rust: {e}")
            });
            let again = serde_json::to_value(&decoded).unwrap_or(Value::Null);
            let mut lost = Vec::new();
            dropped_keys(&v, &again, method, &mut lost);
            assert_eq!(
                lost,
                Vec::<String>::new(),
                "{method}: keys the server drops"
            );
        }
    }
}

/// Keys of `sent` (recursively) that `kept` lacks.
fn dropped_keys(sent: &Value, kept: &Value, at: &str, out: &mut Vec<String>) {
    match (sent, kept) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                match b.get(k) {
                    Some(w) => dropped_keys(v, w, &format!("{at}.{k}"), out),
                    None => out.push(format!("{at}.{k}")),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, (v, w)) in a.iter().zip(b).enumerate() {
                dropped_keys(v, w, &format!("{at}[{i}]"), out);
            }
        }
        _ => {}
    }
}

fn sent<R: ClientRequest>(c: &mut Checker, samples: &[R::Result]) {
    let v: Vec<Value> = samples
        .iter()
        .map(|s| serde_json::to_value(s).unwrap_or(Value::Null))
        .collect();
    c.check_sent(R::METHOD, true, &v);
}

fn received<R: ClientRequest>(c: &Checker)
where
    R::Params: Serialize,
{
    c.check_received::<R::Params>(R::METHOD, true);
}

// ---- samples: Rust values of every result, with every optional part and without -----------

fn explain_samples() -> Vec<ContextExplainResult> {
    use alisio_base::config::Host;
    use alisio_rules::instructions::explain::{ExplainedFile, ExplainedImport, PathReason};
    let file = |full: bool| ExplainedFile {
        path: "AGENTS.md".into(),
        scope: "project",
        kind: "agents",
        bytes: 10,
        kept_bytes: 8,
        truncation: "cut",
        file_bytes: 10,
        file_cut: full.then_some(true),
        empty: full.then_some(true),
        error: full.then(|| "permission denied".into()),
        load: "startup",
        delivery: "attached",
        reason: full.then(|| "outside the budget".into()),
        imports: full.then(|| {
            vec![ExplainedImport {
                path: "a.md".into(),
                depth: 1,
                bytes: 3,
                approval: Some(true),
                sha256: Some("ab".into()),
            }]
        }),
        stripped_bytes: full.then_some(2),
        sha256: full.then(|| "cd".into()),
    };
    let reason = || PathReason {
        path: "x/AGENTS.md".into(),
        reason: "too large".into(),
    };
    let objects = vec![
        ExplainObject {
            path: "src/lib.rs".into(),
            workspace: "/w".into(),
            host: Host::ClaudeCode,
            host_version: Some("2.1.332"),
            max_bytes: None,
            files: vec![file(true), file(false)],
            omitted_bytes: 2,
            notice: Some("notice".into()),
            outside_workspace: false,
            skipped: vec![reason()],
            not_loaded: vec![reason()],
            evidence: Some("documented-not-verified"),
        },
        ExplainObject {
            path: "src/lib.rs".into(),
            workspace: "/w".into(),
            host: Host::Alisio,
            host_version: None,
            max_bytes: Some(32_768),
            files: Vec::new(),
            omitted_bytes: 0,
            notice: None,
            outside_workspace: true,
            skipped: Vec::new(),
            not_loaded: Vec::new(),
            evidence: None,
        },
    ];
    let startup = StartupObject {
        host: Host::ClaudeCode,
        families: vec![
            FamilyCost {
                family: "agents",
                channel: "agent listing",
                entries: vec![EntryCost {
                    name: "x".into(),
                    file: ".claude/agents/x.md".into(),
                    scope: "project",
                    description: "Reviews code.".into(),
                    detail: "All tools".into(),
                    text: Some("- x: Reviews code. (Tools: All tools)".into()),
                    loaded: true,
                    shadowed_by: None,
                    hidden: None,
                    bytes: 37,
                }],
                not_loaded: vec![NotLoadedFile {
                    file: ".claude/agents/bad.md".into(),
                    reason: "no description".into(),
                }],
                bytes: 37,
                tokens: 10,
            },
            FamilyCost {
                family: "mcp",
                channel: "MCP servers",
                entries: vec![EntryCost {
                    name: "docs".into(),
                    file: "/home/u/.claude.json".into(),
                    scope: "user",
                    description: String::new(),
                    detail: "stdio".into(),
                    text: None,
                    loaded: false,
                    shadowed_by: Some(".mcp.json".into()),
                    hidden: None,
                    bytes: 0,
                }],
                not_loaded: Vec::new(),
                bytes: 0,
                tokens: 0,
            },
        ],
        bytes: 37,
        tokens: 10,
    };
    objects
        .into_iter()
        .zip([Some(startup), None])
        .map(|(explain, startup)| ContextExplainResult { explain, startup })
        .collect()
}

fn trigger_samples() -> Vec<TriggerHostResult> {
    vec![TriggerHostResult {
        host: "claude-code".into(),
        skills: vec![
            TriggerScore {
                name: "pdf-tools".into(),
                uri: "file:///w/.claude/skills/pdf-tools/SKILL.md".into(),
                listed: true,
                true_positives: 1,
                false_positives: 0,
                false_negatives: 1,
                true_negatives: 1,
                precision: Some(1.0),
                recall: Some(0.5),
            },
            TriggerScore {
                name: "unlisted".into(),
                uri: "file:///w/.claude/skills/unlisted/SKILL.md".into(),
                listed: false,
                true_positives: 0,
                false_positives: 0,
                false_negatives: 2,
                true_negatives: 0,
                precision: None,
                recall: Some(0.0),
            },
        ],
        misrouted: vec![
            TriggerMiss {
                skill: "pdf-tools".into(),
                uri: "file:///w/.claude/skills/pdf-tools/SKILL.md".into(),
                prompt: "draw plots".into(),
                expected: "pdf-tools".into(),
                routed: Some("chart-maker".into()),
                score: 2.5,
            },
            TriggerMiss {
                skill: "pdf-tools".into(),
                uri: "file:///w/.claude/skills/pdf-tools/SKILL.md".into(),
                prompt: "hello".into(),
                expected: "pdf-tools".into(),
                routed: None,
                score: 0.0,
            },
        ],
    }]
}

fn catalog_samples() -> Vec<CatalogEntry> {
    use alisio_rules::skills::catalog::CatalogOwner;
    let entry = |full: bool| CatalogEntry {
        id: "project:demo".into(),
        name: "demo".into(),
        display_id: "demo".into(),
        description: "A demo.".into(),
        scope: "project",
        source: "project",
        file: ".agents/skills/demo/SKILL.md".into(),
        root: ".agents/skills".into(),
        enabled: true,
        effective: !full,
        shadowed_by: full.then(|| "user:demo".into()),
        effective_id: "user:demo".into(),
        locked: false,
        model_invocable: true,
        approximate_tokens: 12,
        catalog_tokens: 10,
        body_tokens: 40,
        owner: full.then(|| CatalogOwner {
            id: "plugin".into(),
            name: "Plugin".into(),
        }),
    };
    vec![entry(true), entry(false)]
}

fn report_samples() -> Vec<ContextReportResult> {
    use alisio_governor::figures::{Baseline, Figures, Replay};
    use alisio_governor::report::{
        ByReason, Criticality, Elided, Measured, ReportSettings, Segment, SpillSettings,
        TrimSettings,
    };
    use alisio_governor::usage::{ToolUsage, Usage};
    let segment = |full: bool| Segment {
        index: 0,
        kind: "tool_result",
        origin: "tool".into(),
        message: full.then_some(3),
        tool: full.then(|| "read_file".into()),
        call_id: full.then(|| "c1".into()),
        as_tool: full.then(|| "read_file".into()),
        tokens: 5,
        criticality: Criticality::Normal,
        reason: "default",
        elided: full.then(|| Elided {
            reason: "superseded_read",
            by: "c2".into(),
            tokens_saved: 4,
        }),
        used: full.then_some("used"),
    };
    let measured = |full: bool| {
        let mut usage = Usage::default();
        usage.per_tool.insert(
            "read_file".into(),
            ToolUsage {
                seen: 3,
                used: 1,
                reread: 1,
            },
        );
        let mut replay = Replay::default();
        replay.baselines.push(Baseline {
            name: "mask:3".into(),
            figures: Figures::default(),
        });
        replay.per_request.baselines.push(Default::default());
        // A live session's recorded bill (spec/governor.md §11.11).
        replay.recorded = full.then(|| alisio_governor::figures::Recorded {
            requests: 2,
            saved_share: Some(0.1),
            ..Default::default()
        });
        Measured {
            mode: if full { "on" } else { "shadow" },
            measured: true,
            session_id: "s1".into(),
            policy_version: 2,
            request: full.then_some(4),
            settings: ReportSettings {
                min_age_turns: 2,
                epoch_messages: 8,
                max_chars: 2000,
                spill: full.then_some(SpillSettings {
                    threshold_chars: 1,
                    head_chars: 1,
                    tail_chars: 1,
                }),
                trim: full.then_some(TrimSettings {
                    min_chars: 1,
                    keep_recent: 1,
                }),
            },
            messages: 4,
            eligible_messages: 2,
            compacted: false,
            segments: vec![segment(true), segment(false)],
            segments_omitted: 0,
            totals: alisio_governor::report::Totals {
                by_reason: ByReason::for_policy(if full { 2 } else { 1 }),
                ..Default::default()
            },
            invariants: Default::default(),
            usage: full.then_some(usage),
            source: full.then(|| json!({"format": "codex"})),
            replay: full.then_some(replay),
            delegation: full.then(|| json!({"briefs": []})),
            relay: full.then(|| json!({"of": "s0", "to": null})),
        }
    };
    let mut off = ContextReportResult::off("s1");
    off.set_source(json!({"format": "codex"}));
    vec![
        ContextReportResult::Measured(Box::new(measured(true))),
        ContextReportResult::Measured(Box::new(measured(false))),
        ContextReportResult::off("s1"),
        off,
    ]
}

fn transcript_samples() -> Vec<Transcript> {
    use alisio_governor::stored::{Role, RowKind};
    use alisio_session::read::{TranscriptMessage, TranscriptSession};
    let message = |full: bool| TranscriptMessage {
        seq: 1,
        pos: 0,
        role: Role::Assistant,
        kind: RowKind::Message,
        compacted: false,
        replaced_by: full.then_some(2),
        run_id: full.then(|| "r1".into()),
        created_at: "2026-01-01T00:00:00Z".into(),
        // As the store holds messages (providers::texts and calls_of read these keys).
        message: if full {
            json!({"role":"assistant","content":[{"type":"text","text":"hi"},
                {"type":"tool_call","id":"c1","name":"read_file","arguments":"{}"}]})
        } else {
            json!({"role":"tool","callId":"c1","isError":false,"outcome":"ok","content":[]})
        },
    };
    let t = |full: bool| Transcript {
        schema_version: 1,
        session: TranscriptSession {
            id: "s1".into(),
            title: String::new(),
            workspace: "/w".into(),
            cwd: "/w".into(),
            created_at: "2026-01-01T00:00:00Z".into(),
            updated_at: "2026-01-01T00:00:00Z".into(),
            parent_id: full.then(|| "s0".into()),
            provider: json!({"kind": "script"}),
            options: json!({}),
        },
        messages: vec![message(true), message(false)],
        events: full.then(|| vec![json!({"type": "run_started"})]),
    };
    vec![t(true), t(false)]
}

fn init_samples() -> Vec<InitProposal> {
    vec![
        InitProposal {
            uri: "file:///w/AGENTS.md".into(),
            exists: true,
            current: Some("# old\n".into()),
            proposed: "# new\n".into(),
            sha256: "00".into(),
            changed: true,
            written: false,
        },
        InitProposal {
            uri: "file:///w/AGENTS.md".into(),
            exists: false,
            current: None,
            proposed: "# new\n".into(),
            sha256: "00".into(),
            changed: true,
            written: true,
        },
    ]
}

fn audit_samples() -> Vec<AuditSessionsResult> {
    let finding = |kind, path: Option<&str>| AuditFinding {
        kind,
        path: path.map(str::to_owned),
        message: "m".into(),
        token: None,
        skill: None,
    };
    let session = |cwd: Option<&str>, version: Option<&str>| AuditedSession {
        file: "/h/.claude/projects/-w/s.jsonl".into(),
        client: "Claude Code".into(),
        format: "claude-code".into(),
        session: "s".into(),
        cwd: cwd.map(str::to_owned),
        client_version: version.map(str::to_owned),
        prompts: 2,
        deliveries: 3,
        requests: 4,
        findings: [
            "older-copy",
            "not-predicted",
            "not-received",
            "import-not-expanded",
            "reference-unread",
            "description-shortened",
            "description-dropped",
        ]
        .into_iter()
        .map(|k| finding(k, Some("/w/AGENTS.md")))
        .chain([finding("skipped-lines", None)])
        .collect(),
    };
    vec![
        AuditSessionsResult {
            enabled: true,
            running: false,
            sessions: vec![session(Some("/w"), Some("2.1.332")), session(None, None)],
        },
        AuditSessionsResult {
            enabled: false,
            running: true,
            sessions: Vec::new(),
        },
    ]
}

fn summaries() -> Vec<SessionSummary> {
    let s = |full: bool| SessionSummary {
        session_id: "s1".into(),
        title: full.then(|| "Title".into()),
        created_at: "2026-01-01T00:00:00Z".into(),
        updated_at: "2026-01-01T00:00:00Z".into(),
        messages: 3,
        relay_of: full.then(|| "s0".into()),
        relayed_to: full.then(|| "s2".into()),
    };
    vec![s(true), s(false)]
}

/// One value of every event type, with every optional part and without
/// (`every_event_type_is_sampled` fails when a type of `Event::TYPES` has no sample here).
fn events() -> Vec<alisio_session::events::Event> {
    use alisio_governor::events::{ContextGoverned, ContextReduced};
    use alisio_governor::figures::Figures;
    use alisio_governor::invariants::Counts;
    use alisio_governor::report::ByReason;
    use alisio_governor::usage::{ToolUsage, Usage};
    use alisio_session::events::*;
    let sandbox = SandboxState {
        mode: "landlock",
        network: false,
    };
    let started = |sandbox, relay_of| {
        Event::RunStarted(RunStarted {
            model: "m".into(),
            provider: "script",
            governor: "on",
            resumed: false,
            messages: 0,
            cwd: ".".into(),
            sandbox,
            prompt_cache_ttl_seconds: 0,
            relay_of,
        })
    };
    let completed = |child_session_id| {
        Event::ToolCompleted(ToolCompleted {
            id: "c1".into(),
            name: "task".into(),
            is_error: false,
            outcome: "ok".into(),
            duration_ms: 3,
            preview: "done".into(),
            child_session_id,
        })
    };
    let governed = |usage, policy| {
        Event::ContextGoverned(Box::new(ContextGovernedEvent {
            figures: ContextGoverned {
                mode: "on",
                policy_version: policy,
                request: 1,
                recovery: false,
                cache_cold: false,
                failed: false,
                messages: 2,
                eligible_messages: 1,
                segments: 5,
                elided: 0,
                by_reason: ByReason::for_policy(policy),
                tokens_before: 10,
                tokens_after: 10,
                tokens_saved: 0,
                newly_elided: vec!["c1".into()],
                newly_elided_more: 0,
                invariants: Counts::default(),
                usage,
            },
            replay: ReplayFigures {
                off: Figures::default(),
                governed: Figures {
                    input_tokens: 10,
                    cached_tokens: 4,
                    cost: 0.5,
                    cache_breaks: 1,
                },
            },
        }))
    };
    let usage = Usage {
        per_tool: [(
            "read_file".to_string(),
            ToolUsage {
                seen: 1,
                used: 1,
                reread: 0,
            },
        )]
        .into(),
        not_attributable: 0,
    };
    vec![
        started(Some(sandbox.clone()), Some("s0".into())),
        started(None, None),
        Event::SandboxUnavailable(SandboxUnavailable {
            requested: "landlock",
            mode: "off",
            reason: "no Landlock".into(),
        }),
        Event::SessionReconciled(SessionReconciled {
            interrupted_runs: 1,
            calls: vec![ReconciledCall {
                id: "c1".into(),
                name: "shell".into(),
                outcome: "interrupted".into(),
            }],
        }),
        Event::TextDelta(TextDelta {
            turn: 1,
            text: "hi".into(),
        }),
        Event::ToolStarted(ToolStarted {
            id: "c1".into(),
            name: "read_file".into(),
            arguments: "{}".into(),
            effect: Some("read"),
        }),
        Event::ToolStarted(ToolStarted {
            id: "c2".into(),
            name: "nope".into(),
            arguments: "{".into(),
            effect: None,
        }),
        Event::ApprovalRequested(ApprovalRequested {
            call_id: "c1".into(),
            tool: "shell".into(),
            effect: "process".into(),
            summary: "run ls".into(),
            paths: vec!["a".into()],
            sandbox: Some(sandbox),
        }),
        Event::ApprovalRequested(ApprovalRequested {
            call_id: "c2".into(),
            tool: "write_file".into(),
            effect: "write".into(),
            summary: "write a".into(),
            paths: Vec::new(),
            sandbox: None,
        }),
        Event::ApprovalResolved(ApprovalResolved {
            call_id: "c1".into(),
            decision: "allow",
            source: "user",
        }),
        completed(Some("s2".into())),
        completed(None),
        Event::TurnCompleted(TurnCompleted {
            turn: 1,
            calls: 0,
            stop_reason: "end_turn",
            model: "m".into(),
            usage: TurnUsage::default(),
            tokens: 5,
            duration_ms: 7,
            ttft_ms: 2,
        }),
        Event::RequestRetry(RequestRetry {
            attempt: 1,
            of: 3,
            reason: "status",
            status: Some(529),
            delay_ms: 100,
            discarded_text: false,
            usage: None,
        }),
        Event::RequestRetry(RequestRetry {
            attempt: 1,
            of: 1,
            reason: "invalid_turn",
            status: None,
            delay_ms: 0,
            discarded_text: true,
            usage: Some(TurnUsage::default()),
        }),
        Event::ResponseTruncated(ResponseTruncated {
            turn: 1,
            max_output_tokens: 8,
        }),
        Event::TruncationRecovery(TruncationRecovery {
            attempt: 1,
            of: 2,
            max_output_tokens: 8,
            usage: TurnUsage::default(),
        }),
        Event::CompactionStarted(CompactionStarted {
            reason: "auto",
            before: 100,
            messages: 4,
        }),
        Event::CompactionCompleted(CompactionCompleted {
            reason: "auto",
            before: 100,
            after: 40,
            replaced: 4,
            structured: true,
            summarized_tokens: 60,
            checkpoint_tokens: 20,
            partial: false,
            usage: TurnUsage::default(),
        }),
        Event::CompactionSkipped(CompactionSkipped {
            reason: "budget",
            before: 100,
            detail: "Not enough history to compact",
        }),
        Event::CompactionFailed(CompactionFailed {
            reason: "auto",
            error: "no".into(),
            usage: Some(TurnUsage::default()),
        }),
        Event::ContextReduced(ContextReduced {
            messages: 1,
            reason: "budget",
            tokens_saved: 9,
        }),
        governed(Some(usage), 2),
        governed(None, 1),
        Event::SessionRelayed(SessionRelayed {
            to: "s3".into(),
            structured: true,
            at_fraction: 0.7,
            usage: TurnUsage::default(),
        }),
        Event::RunCompleted(RunCompleted {
            text: "hi".into(),
            turns: 1,
            tokens: 5,
            usage: RunUsage::default(),
            truncated: false,
        }),
        Event::RunFailed(RunFailed {
            error: Some("boom".into()),
            code: Some("output_truncated"),
            turns: 1,
            tokens: 5,
            usage: Some(TurnUsage::default()),
        }),
        Event::RunFailed(RunFailed {
            error: None,
            code: None,
            turns: 0,
            tokens: 0,
            usage: None,
        }),
        Event::RunCancelled(RunCancelled {
            reason: "user".into(),
            error: "Cancelled",
        }),
    ]
}

/// Events as the session's emitter writes them (a root's, then a child's, so `parentSessionId`
/// is set), as `alisio/sessionEvent` sends them.
fn event_samples() -> Vec<Value> {
    use alisio_session::events::{Emitter, Pending};
    let mut out = Vec::new();
    let mut sink = |v: &alisio_session::events::Emitted<'_>| out.push(v.json.clone());
    let mut em = Emitter::new("r1", &mut sink);
    for (i, e) in events().into_iter().enumerate() {
        if i == 1 {
            em.parent = Some("s0".into());
        }
        em.transient(&Pending::new(if i == 0 { "s1" } else { "s2" }, None, e));
    }
    drop(em);
    out.into_iter()
        .map(|event| {
            let session_id = event["sessionId"].as_str().unwrap_or_default().to_owned();
            serde_json::to_value(SessionEventParams { session_id, event }).unwrap_or(Value::Null)
        })
        .collect()
}

/// Each event's `data` fits the interface `SessionEventData` names for its `type`; returns the
/// names of those interfaces.
fn check_event_data(c: &mut Checker, samples: &[Value]) -> Vec<String> {
    let map = c
        .interface("SessionEventData")
        .unwrap_or_else(|| panic!("lsp_ext.ts has no interface SessionEventData"));
    let declared: Vec<&str> = map.fields.iter().map(|(f, _, _)| f.as_str()).collect();
    assert_eq!(
        declared,
        alisio_session::events::Event::TYPES,
        "SessionEventData's keys are the event types, in the spec's order"
    );
    for p in samples {
        let ty = p["event"]["type"].as_str().unwrap_or_default();
        let Some((_, _, t)) = map.fields.iter().find(|(f, _, _)| f == ty) else {
            panic!("SessionEventData has no `{ty}`");
        };
        if let Err(e) = c.fits(&p["event"]["data"], &t.clone(), ty) {
            panic!("{ty}: the Rust event does not fit lsp_ext.ts: {e}\n{p:#}");
        }
    }
    map.fields
        .iter()
        .filter_map(|(_, _, t)| match t {
            Ty::Ref(n) => Some(n.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn every_event_type_is_sampled() {
    use alisio_session::events::Event;
    let sampled: BTreeSet<&str> = events().iter().map(Event::type_name).collect();
    let all: BTreeSet<&str> = Event::TYPES.into_iter().collect();
    assert_eq!(sampled, all);
    for e in events() {
        // The serde tag is `type_name`, and `data` is the payload.
        let v = serde_json::to_value(&e).unwrap_or(Value::Null);
        assert_eq!(v["type"], e.type_name());
        assert_eq!(v["data"], e.data());
        assert_eq!(v.as_object().map(serde_json::Map::len), Some(2));
    }
}

/// What `alisio/approve` asks, with the previews `tools::preview` writes.
fn approve_samples() -> Vec<Value> {
    let req = |preview: Option<Value>, sandbox: Value| ApproveParams {
        session_id: "s1".into(),
        call_id: "c1".into(),
        tool: "write_file".into(),
        effect: "write".into(),
        summary: "write a.txt".into(),
        paths: vec!["a.txt".into()],
        preview,
        sandbox,
    };
    [
        req(
            Some(json!({"path": "a.txt", "before": "one\n", "after": "1\n",
                "hunks": [{"oldStart": 0, "oldLines": 1, "newStart": 0, "newLines": 1}]})),
            Value::Null,
        ),
        req(
            Some(json!({"path": "n.txt", "before": null, "after": null, "truncated": true, "newFile": true})),
            Value::Null,
        ),
        req(
            Some(json!({"command": "ls", "args": ["-l"], "cwd": "/w"})),
            json!({"mode": "landlock", "network": false}),
        ),
        req(None, Value::Null),
    ]
    .iter()
    .map(|r| serde_json::to_value(r).unwrap_or(Value::Null))
    .collect()
}

/// Interfaces whose Rust side is a JSON value of a shape another module owns (stored
/// messages, event envelopes without a store): their keys are checked when sent but not
/// required to be covered. `eventId` is set only on stored events.
const NOT_COVERED: &[&str] = &["SessionEvent.eventId"];

#[test]
fn every_value_the_server_sends_fits_the_typescript_declaration() {
    let mut c = Checker::new();
    let declared: BTreeSet<String> = c.ts.methods.keys().cloned().collect();
    let rust: BTreeSet<String> = METHODS.iter().map(|m| (*m).to_string()).collect();
    assert_eq!(
        declared, rust,
        "lsp_ext.ts's RequestType / NotificationType"
    );
    sent::<ContextExplain>(&mut c, &explain_samples());
    sent::<SkillCatalog>(&mut c, &[catalog_samples(), Vec::new()]);
    sent::<SetSkillEnabled>(&mut c, &catalog_samples());
    sent::<TestSkillTriggers>(&mut c, &[trigger_samples(), Vec::new()]);
    let runs: Vec<RunSessionResult> = report_samples()
        .into_iter()
        .zip([
            RunStatusName::Completed,
            RunStatusName::Failed,
            RunStatusName::Cancelled,
            RunStatusName::Completed,
        ])
        .map(|(report, status)| RunSessionResult {
            session_id: "s1".into(),
            status,
            text: String::new(),
            report,
        })
        .collect();
    sent::<RunSession>(&mut c, &runs);
    sent::<ContextReport>(&mut c, &report_samples());
    sent::<ListSessions>(&mut c, &[summaries(), Vec::new()]);
    sent::<SessionTranscript>(&mut c, &transcript_samples());
    sent::<InitAgentsMd>(&mut c, &init_samples());
    sent::<AuditSessions>(&mut c, &audit_samples());
    c.check_sent(Approve::METHOD, false, &approve_samples());
    let events = event_samples();
    c.check_sent(SessionEvent::METHOD, false, &events);
    let event_data = check_event_data(&mut c, &events);

    // Every key of every interface the server sends is sent by some sample.
    let sent_types = [
        "ExplainResult",
        "StartupCost",
        "StartupFamily",
        "StartupEntry",
        "StartupNotLoaded",
        "ExplainFile",
        "ExplainImport",
        "PathReason",
        "SkillEntry",
        "TriggerHostResult",
        "TriggerScore",
        "TriggerMiss",
        "RunSessionResult",
        "ContextReport",
        "Segment",
        "ReportTotals",
        "ReportSettings",
        "InvariantCounts",
        "UsageLedger",
        "ToolUsage",
        "Replay",
        "Recorded",
        "Figures",
        "Baseline",
        "SessionSummary",
        "Transcript",
        "TranscriptSession",
        "TranscriptMessage",
        "InitProposal",
        "AuditSessionsResult",
        "AuditedSession",
        "AuditFinding",
        "ApproveParams",
        "FilePreview",
        "ProcessPreview",
        "SessionEventParams",
        "SessionEvent",
    ];
    let mut never = Vec::new();
    let named = sent_types.iter().map(|n| (*n).to_string());
    for name in named
        .chain(event_data)
        .chain(["SandboxState", "ReconciledCall", "TurnUsage", "RunUsage"].map(String::from))
    {
        let o = c
            .interface(&name)
            .unwrap_or_else(|| panic!("lsp_ext.ts has no interface {name}"));
        for (f, _, _) in &o.fields {
            let key = format!("{name}.{f}");
            if !c.seen.contains(&key) && !NOT_COVERED.contains(&key.as_str()) {
                never.push(key);
            }
        }
    }
    assert_eq!(
        never,
        Vec::<String>::new(),
        "declared in lsp_ext.ts, never sent"
    );
}

#[test]
fn every_value_the_client_sends_decodes_into_the_rust_params() {
    let c = Checker::new();
    received::<ContextExplain>(&c);
    received::<SkillCatalog>(&c);
    received::<SetSkillEnabled>(&c);
    received::<TestSkillTriggers>(&c);
    received::<RunSession>(&c);
    received::<ContextReport>(&c);
    received::<ListSessions>(&c);
    received::<SessionTranscript>(&c);
    received::<InitAgentsMd>(&c);
    received::<AuditSessions>(&c);
    c.check_received::<ApproveResult>(Approve::METHOD, false);
    // Typed: `InitParams` is `InitAgentsMd`'s params.
    let _: fn(InitParams) -> <InitAgentsMd as ClientRequest>::Params = |p| p;
}

#[test]
fn the_checker_rejects_what_does_not_fit() {
    let mut c = Checker::new();
    let t = Ty::Ref("SkillEntry".into());
    let mut e = serde_json::to_value(&catalog_samples()[0]).unwrap_or(Value::Null);
    assert_eq!(c.fits(&e, &t, "x"), Ok(()));
    e["extra"] = json!(1);
    assert_eq!(
        c.fits(&e, &t, "x"),
        Err("x.extra: the interface does not declare `extra`".into())
    );
    e.as_object_mut().map(|m| m.remove("extra"));
    e["enabled"] = json!("yes");
    assert_eq!(
        c.fits(&e, &t, "x"),
        Err("x.enabled: \"yes\" is not Bool".into())
    );
    e.as_object_mut().map(|m| m.remove("enabled"));
    assert_eq!(
        c.fits(&e, &t, "x"),
        Err("x: `enabled` is required and missing".into())
    );
    // `shadowedBy: string | null`, but not a number.
    let mut s = serde_json::to_value(&catalog_samples()[1]).unwrap_or(Value::Null);
    s["shadowedBy"] = json!(3);
    assert!(c.fits(&s, &t, "x").is_err());
    // A key the server drops is found.
    let mut lost = Vec::new();
    dropped_keys(
        &json!({"a": 1, "b": {"c": 2}}),
        &json!({"b": {}}),
        "m",
        &mut lost,
    );
    assert_eq!(lost, ["m.a", "m.b.c"]);
}

/// The key paths (`a`, `a.b`, …) of every sampled event's `data`, by type.
fn event_paths() -> BTreeMap<String, BTreeSet<String>> {
    fn walk(v: &Value, at: &str, out: &mut BTreeSet<String>) {
        if let Value::Object(m) = v {
            for (k, x) in m {
                let here = if at.is_empty() {
                    k.clone()
                } else {
                    format!("{at}.{k}")
                };
                walk(x, &here, out);
                out.insert(here);
            }
        }
    }
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for e in events() {
        walk(
            &e.data(),
            "",
            out.entry(e.type_name().to_string()).or_default(),
        );
    }
    out
}

/// `(types, field paths)` of each branch of Lua code `src` that tests the event type with
/// `test` (`t == '…'` or `ev.type == '…'`) and reads the payload through `data` (`d.` or
/// `ev.data.`): a branch runs from one type test to the next.
fn lua_reads(src: &str, test: &str, data: &str) -> Vec<(Vec<String>, Vec<String>)> {
    let mut out: Vec<(Vec<String>, Vec<String>)> = Vec::new();
    for line in src.lines() {
        let line = line.split("--").next().unwrap_or_default();
        let mut types = Vec::new();
        let mut rest = line;
        while let Some(i) = rest.find(test) {
            rest = &rest[i + test.len()..];
            let name: String = rest.chars().take_while(|c| *c != '\'').collect();
            types.push(name);
        }
        if !types.is_empty() {
            out.push((types, Vec::new()));
        }
        let mut rest = line;
        while let Some(i) = rest.find(data) {
            let before = rest[..i].chars().next_back();
            rest = &rest[i + data.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.') {
                continue;
            }
            let path: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
                .collect();
            if let Some(last) = out.last_mut() {
                last.1.push(path.trim_end_matches('.').to_string());
            }
        }
    }
    out
}

/// The Neovim plugin reads only keys the Rust events send, for the types it names: a shape
/// check of what render.lua and chat.lua read from `alisio/sessionEvent`.
#[test]
fn the_neovim_plugin_reads_only_keys_the_events_carry() {
    let paths = event_paths();
    let mut wrong = Vec::new();
    let mut branches = 0;
    for (file, test, data) in [
        ("editors/neovim/lua/alisio/render.lua", "t == '", "d."),
        (
            "editors/neovim/lua/alisio/chat.lua",
            "ev.type == '",
            "ev.data.",
        ),
    ] {
        let src = read(file);
        let src = if file.ends_with("render.lua") {
            let from = src.find("function M.render_event").unwrap_or_default();
            let to = src[from..].find("\nend\n").map_or(src.len(), |i| from + i);
            src[from..to].to_string()
        } else {
            src
        };
        for (types, reads) in lua_reads(&src, test, data) {
            branches += 1;
            for ty in &types {
                let Some(known) = paths.get(ty) else {
                    wrong.push(format!("{file}: `{ty}` is not an event type"));
                    continue;
                };
                for r in &reads {
                    if !known.contains(r) {
                        wrong.push(format!("{file}: {ty} has no `{r}`"));
                    }
                }
            }
        }
    }
    assert!(
        branches >= 12,
        "the Lua readers were not found ({branches})"
    );
    assert_eq!(wrong, Vec::<String>::new());
}

#[test]
fn the_lua_reader_finds_branches_and_reads() {
    let src = "if t == 'a' or t == 'b' then\n  x(d.sandbox.mode, d.text) -- d.nope\nelseif t == 'c' then\n  y(odd.x)\nend";
    assert_eq!(
        lua_reads(src, "t == '", "d."),
        [
            (
                vec!["a".to_string(), "b".to_string()],
                vec!["sandbox.mode".to_string(), "text".to_string()]
            ),
            (vec!["c".to_string()], Vec::new()),
        ]
    );
}
