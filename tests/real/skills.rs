//! Skill listings (docs/spec/skills.md §9): what the real Codex CLI and Gemini CLI put in their
//! first request for a catalog, against `alisio-ls skills list --listing --host H --json` for
//! the same cwd, `HOME` and `CODEX_HOME`.
//!
//! - Codex: the `<skills_instructions>` message; its skill roots table must equal the
//!   listing's `preamble` and its entry lines the listing's entries as sent, in order (omitted
//!   entries absent), exactly.
//! - Gemini: the `<available_skills>` block of the system instruction; every `<skill>` must be
//!   the listing's entry; the two bundled skills first, in order (their location is the
//!   install directory, `<gemini>/…`), the others compared as a sorted list (Gemini lists one
//!   root in its glob's order).

use std::sync::Arc;

use serde_json::Value;

use crate::harness::expect::alisio;
use crate::harness::{Case, Client, Ctx, extract};

#[path = "../../crates/alisio-base/src/testing.rs"]
#[allow(dead_code, reason = "only the generator is used")]
mod rng;
use rng::Rng;

fn sk(name: &str, desc: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: {}\n---\nBody of {name}\n",
        serde_json::json!(desc)
    )
}

fn listing(ctx: &Ctx<'_>) -> Result<Value, String> {
    alisio(
        ctx,
        &[
            "skills",
            "list",
            "--listing",
            "--host",
            ctx.case.client.host(),
            "--json",
            ".",
        ],
    )
}

/// Every text part of the first main request (Codex's `input`, Gemini's system instruction).
fn first_texts(ctx: &Ctx<'_>) -> Vec<String> {
    let Some(first) = extract::main_requests(&ctx.outcome.requests)
        .into_iter()
        .next()
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in first["input"].as_array().into_iter().flatten() {
        for p in item["content"].as_array().into_iter().flatten() {
            out.extend(p["text"].as_str().map(str::to_string));
        }
    }
    for p in first["systemInstruction"]["parts"]
        .as_array()
        .into_iter()
        .flatten()
    {
        out.extend(p["text"].as_str().map(str::to_string));
    }
    out
}

fn diff(what: &str, got: &[String], want: &[String]) -> Result<(), String> {
    if got == want {
        return Ok(());
    }
    let at = got.iter().zip(want).position(|(a, b)| a != b);
    Err(format!(
        "{what}: the client and the simulation disagree (client {} lines, simulation {}; first difference at {at:?})\nclient:\n{}\nsimulation:\n{}",
        got.len(),
        want.len(),
        got.join("\n"),
        want.join("\n")
    ))
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(str::to_string))
        .collect()
}

/// Codex: the roots table and the entry lines of `<skills_instructions>`.
fn codex_check(ctx: &Ctx<'_>) -> Result<(), String> {
    let text = first_texts(ctx)
        .into_iter()
        .find(|t| t.starts_with("<skills_instructions>"))
        .ok_or("the client sent no <skills_instructions>")?;
    let section = |head: &str, next: &str| -> Vec<String> {
        let Some(s) = text.find(head) else {
            return Vec::new();
        };
        let rest = &text[s + head.len()..];
        let end = rest.find(next).unwrap_or(rest.len());
        rest[..end]
            .lines()
            .filter(|l| l.starts_with("- "))
            .map(str::to_string)
            .collect()
    };
    let roots = section("### Skill roots\n", "### Available skills");
    let lines = section("### Available skills\n", "</skills_instructions>");
    let l = listing(ctx)?;
    diff("skill roots", &roots, &strings(&l["preamble"]))?;
    let want: Vec<String> = l["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e["text"].as_str().map(str::to_string))
        .collect();
    diff("skill entries", &lines, &want)
}

/// Gemini: `(name, description, location)` of each `<skill>`.
fn gemini_skills(text: &str) -> Vec<(String, String, String)> {
    let Some(s) = text.find("<available_skills>\n") else {
        return Vec::new();
    };
    let body = &text[s..text[s..]
        .find("</available_skills>")
        .map_or(text.len(), |e| s + e)];
    let field = |chunk: &str, tag: &str| {
        let open = format!("<{tag}>");
        let close = format!("</{tag}>");
        let a = chunk.find(&open).map(|i| i + open.len())?;
        let b = chunk[a..].find(&close)? + a;
        Some(chunk[a..b].to_string())
    };
    body.split("  <skill>\n")
        .skip(1)
        .filter_map(|c| {
            Some((
                field(c, "name")?,
                field(c, "description")?,
                field(c, "location")?,
            ))
        })
        .collect()
}

fn gemini_check(ctx: &Ctx<'_>) -> Result<(), String> {
    let text = first_texts(ctx).join("\n");
    let got = gemini_skills(&text);
    if got.is_empty() {
        return Err("the client sent no <available_skills>".into());
    }
    let l = listing(ctx)?;
    let mut want = Vec::new();
    for e in l["entries"].as_array().into_iter().flatten() {
        want.push(e["text"].as_str().unwrap_or_default().to_string());
    }
    let got_texts: Vec<String> = got
        .iter()
        .map(|(n, d, loc)| {
            // The bundled skills live in the client's install directory.
            let loc = match loc.find("/bundle/builtin/") {
                Some(i) => format!("<gemini>{}", &loc[i + "/bundle".len()..]),
                None => loc.clone(),
            };
            format!(
                "  <skill>\n    <name>{n}</name>\n    <description>{d}</description>\n    <location>{loc}</location>\n  </skill>"
            )
        })
        .collect();
    // The bundled skills come first, in order; the order of the others inside one root is
    // glob's, which the simulation does not reproduce (spec/skills.md §9.4): compared sorted.
    diff(
        "gemini bundled skills",
        &got_texts[..2.min(got_texts.len())],
        &want[..2.min(want.len())],
    )?;
    let (mut got_texts, mut want) = (got_texts, want);
    got_texts.sort();
    want.sort();
    diff("gemini skills", &got_texts, &want)
}

const WORDS: [&str; 16] = [
    "parse", "render", "deploy", "review", "audit", "invoice", "ledger", "chart", "schema",
    "migrate", "lint", "format", "bundle", "fixture", "cache", "report",
];

/// `n` skills below `root` (a case path) with descriptions of 20 to `max` characters, seeded;
/// every seventh description has a multibyte word.
fn generated(mut c: Case, root: &str, n: usize, max: usize, seed: u64) -> Case {
    let mut r = Rng(seed);
    for i in 0..n {
        let name = format!("{}-{}-{i}", *r.pick(&WORDS), *r.pick(&WORDS));
        let want = 20 + r.below(max.saturating_sub(20).max(1));
        let mut d = format!("Use when {}. ", name.replace('-', " "));
        while d.chars().count() < want {
            let word = if i % 7 == 0 {
                "données "
            } else {
                r.pick(&WORDS)
            };
            d.push_str(word);
            d.push(' ');
        }
        let d: String = d.chars().take(want).collect::<String>().trim().to_string();
        c = c.file(&format!("{root}/{name}/SKILL.md"), &sk(&name, &d));
    }
    c
}

/// A description of exactly `n` characters: a marker, then `x`s.
fn long_desc(n: usize) -> String {
    let head = format!("Use when measuring a cap of {n}. ");
    format!("{head}{}", "x".repeat(n - head.len()))
}

fn codex(name: &str) -> Case {
    Case::new(Client::Codex, name).check(Arc::new(codex_check))
}

fn gemini(name: &str) -> Case {
    Case::new(Client::Gemini, name).check(Arc::new(gemini_check))
}

fn codex_cases() -> Vec<Case> {
    let x = |n: usize| "x".repeat(n);
    let mut many = codex("listing_30_long_descriptions_default_window");
    for i in 0..30 {
        many = many.file(
            &format!("ws/.agents/skills/s{i:02}/SKILL.md"),
            &sk(&format!("s{i:02}"), &format!("Use when {i} {}", x(1000))),
        );
    }
    vec![
        codex("listing_user_repo_and_deprecated_roots")
            .file("ws/.agents/skills/zeta/SKILL.md", &sk("zeta", "Zeta. Use when zeta."))
            .file("ws/.agents/skills/alpha/SKILL.md", &sk("alpha", "Alpha skill."))
            .file("ws/.agents/skills/Mid/SKILL.md", &sk("Mid", "Mid skill."))
            .file("home/.agents/skills/user-one/SKILL.md", &sk("user-one", "User one."))
            .file("home/.codex/skills/cuser/SKILL.md", &sk("cuser", "Codex user.")),
        codex("listing_nested_repo_roots_same_name_and_depth")
            .cwd("ws/pkg")
            .file("ws/.agents/skills/top/SKILL.md", &sk("top", "Top."))
            .file("ws/pkg/.agents/skills/inner/SKILL.md", &sk("inner", "Inner."))
            .file("ws/pkg/.agents/skills/same/SKILL.md", &sk("same", "Same inner."))
            .file("ws/.agents/skills/same/SKILL.md", &sk("same", "Same top."))
            .file("home/.agents/skills/u/SKILL.md", &sk("u", "U."))
            .file("ws/.agents/skills/deep/x/SKILL.md", &sk("deepx", "Deep.")),
        many,
        generated(
            codex("listing_window_20000_shortens_round_robin")
                .codex_config("model_context_window = 20000\n"),
            "ws/.agents/skills",
            5,
            400,
            7,
        ),
        generated(
            codex("listing_window_1000_leaves_entries_out")
                .codex_config("model_context_window = 1000\n"),
            "ws/.agents/skills",
            6,
            40,
            8,
        ),
        // Descriptions of 1,024, 1,025 and 1,500 characters (issue 22 §2): what the real
        // Codex sends for each, and the simulation's listing of the same three.
        Case::new(Client::Codex, "listing_description_lengths_1024_1025_1500")
            .check(Arc::new(|ctx| {
                codex_check(ctx)?;
                // Loaded without a word: no load failure and no warning naming the skills.
                match ctx.outcome.stderr.lines().find(|l| l.contains("len1")) {
                    Some(l) => Err(format!("the client said of a long description: {l}")),
                    None => Ok(()),
                }
            }))
            .file("ws/.agents/skills/len1024/SKILL.md", &sk("len1024", &long_desc(1024)))
            .file("ws/.agents/skills/len1025/SKILL.md", &sk("len1025", &long_desc(1025)))
            .file("ws/.agents/skills/len1500/SKILL.md", &sk("len1500", &long_desc(1500))),
        codex("listing_block_scalar_description").file(
            "ws/.agents/skills/block/SKILL.md",
            "---\nname: block\ndescription: |\n  First line.\n  Second   line.\n\n  After a blank.\n---\nBody\n",
        ),
        generated(
            generated(
                codex("listing_120_skills_window_60000")
                    .codex_config("model_context_window = 60000\n"),
                "ws/.agents/skills",
                90,
                900,
                11,
            ),
            "home/.agents/skills",
            30,
            600,
            12,
        ),
        generated(
            codex("listing_400_skills_default_window"),
            "ws/.agents/skills",
            400,
            300,
            13,
        ),
    ]
}

fn gemini_cases() -> Vec<Case> {
    vec![
        gemini("listing_user_and_project_roots")
            .file(
                "home/.gemini/skills/guser/SKILL.md",
                &sk("guser", "Gemini user."),
            )
            .file(
                "home/.agents/skills/auser/SKILL.md",
                &sk("auser", "Agents user."),
            )
            .file("ws/.gemini/skills/gem/SKILL.md", &sk("gem", "Gem skill."))
            .file(
                "ws/.agents/skills/alpha/SKILL.md",
                &sk("alpha", "Alpha skill."),
            )
            .file(
                "ws/.agents/skills/beta/SKILL.md",
                &sk("beta", "Beta <b>bold</b> & more."),
            ),
        gemini("listing_a_project_skill_replaces_a_user_one_in_place")
            .file(
                "home/.gemini/skills/first/SKILL.md",
                &sk("first", "User first."),
            )
            .file(
                "home/.gemini/skills/same/SKILL.md",
                &sk("same", "User copy."),
            )
            .file(
                "ws/.gemini/skills/same/SKILL.md",
                &sk("same", "Project copy."),
            ),
        gemini("listing_skills_disabled_names_are_left_out")
            .gemini_settings(
                serde_json::json!({"skills": {"disabled": ["ALPHA", "skill-creator"]}}),
            )
            .file("ws/.gemini/skills/alpha/SKILL.md", &sk("alpha", "Alpha."))
            .file("ws/.gemini/skills/beta/SKILL.md", &sk("beta", "Beta.")),
        gemini("listing_long_descriptions_are_not_cut").file(
            "ws/.gemini/skills/long/SKILL.md",
            &sk("long", &format!("Use when long. {}", "y".repeat(3000))),
        ),
        gemini("listing_name_is_the_frontmatter_name_sanitized").file(
            "ws/.gemini/skills/dir/SKILL.md",
            &sk("a:b/c", "Sanitized name."),
        ),
    ]
}

pub fn cases() -> Vec<Case> {
    let mut v = codex_cases();
    v.extend(gemini_cases());
    v
}
