//! Validity per host against the real Codex CLI and Gemini CLI (docs/spec/skills.md §12): one
//! skill of each kind of trouble in the client's user skill root, and the skills the client
//! puts in its first request compared with the `codex` / `gemini` column of
//! `alisio-ls skills validate --matrix --json` over the same root. Each variant carries a
//! marker (`mk-<dir>`) in its description (in the body for those without one), so a listed
//! skill is one whose marker reaches the request.

use std::sync::Arc;

use crate::harness::expect::alisio;
use crate::harness::{Case, Client, Ctx};

/// (directory, SKILL.md text); the two links are added by [`laid_out`].
fn variants() -> Vec<(&'static str, String)> {
    let sk = |n: &str, d: &str| format!("---\nname: {n}\ndescription: {d}\n---\nBody\n");
    vec![
        ("plain", sk("plain", "Reads plain text mk-plain. Use when testing.")),
        ("nofm", "# No frontmatter mk-nofm\n\nReads text.\n".into()),
        ("badyaml", "---\nname: badyaml\ndescription: Use when: editing yaml mk-badyaml\n---\nBody\n".into()),
        ("mismatch", sk("other-name", "Reads names mk-mismatch. Use when testing.")),
        ("listhint", "---\nname: listhint\ndescription: Reads hints mk-listhint. Use when testing.\nargument-hint: [a, b]\n---\nBody\n".into()),
        ("unknown", "---\nname: unknown\ndescription: Reads keys mk-unknown. Use when testing.\nfoo: bar\n---\nBody\n".into()),
        ("nodesc", "---\nname: nodesc\n---\nFirst body line mk-nodesc.\n".into()),
        ("Bad_Name", sk("Bad_Name", "Reads names mk-Bad_Name. Use when testing.")),
        ("bom", format!("\u{feff}{}", sk("bom", "Reads bytes mk-bom. Use when testing."))),
        ("unterminated", "---\nname: unterminated\ndescription: Reads text mk-unterminated.\nBody\n".into()),
        ("xmltag", sk("xmltag", "Reads tags mk-xmltag. Use when <example>testing</example>.")),
        ("dupkey", "---\nname: dupkey\nname: dupkey\ndescription: Reads keys mk-dupkey. Use when testing.\n---\nBody\n".into()),
        // 1,500 characters, the marker first: Codex 0.171.0 lists the first 1,021 and `...`.
        ("longdesc", sk("longdesc", &format!("Reads long text mk-longdesc. Use when testing. {}", "x".repeat(1453)))),
    ]
}

fn laid_out(client: Client, root: &'static str) -> Case {
    let mut c = Case::new(client, &format!("skills_validity_matrix_{}", client.host()));
    for (dir, text) in variants() {
        c = c.file(&format!("{root}/{dir}/SKILL.md"), &text);
    }
    c.file(
        "home/elsewhere/linked-skill/SKILL.md",
        "---\nname: linked-skill\ndescription: Reads links mk-linkdir. Use when testing.\n---\nBody\n",
    )
    .file(
        "home/elsewhere/file-target/SKILL.md",
        "---\nname: linkfile\ndescription: Reads links mk-linkfile. Use when testing.\n---\nBody\n",
    )
    .link(&format!("{root}/linkdir"), "{home}/elsewhere/linked-skill")
    .dir(&format!("{root}/linkfile"))
    .link(&format!("{root}/linkfile/SKILL.md"), "{home}/elsewhere/file-target/SKILL.md")
}

/// The column's verdict against the request bodies, for every row.
fn compare(ctx: &Ctx<'_>, root: &str, column: &str) -> Result<(), String> {
    let bodies: String = ctx
        .outcome
        .requests
        .iter()
        .map(|r| r.body.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    if let Some(p) = std::env::var_os("ALISIO_DUMP_REQUESTS") {
        let _ = std::fs::write(
            p,
            format!(
                "{bodies}\n=== stderr\n{}\n=== stdout\n{}",
                ctx.outcome.stderr, ctx.outcome.stdout
            ),
        );
    }
    if bodies.is_empty() {
        return Err("the client sent no request".into());
    }
    let dir = ctx.abs(root);
    let m = alisio(
        ctx,
        &[
            "skills",
            "validate",
            "--matrix",
            "--json",
            &dir.display().to_string(),
        ],
    )?;
    let mut wrong = Vec::new();
    for row in m.as_array().into_iter().flatten() {
        let file = row["file"].as_str().unwrap_or_default();
        let name = file.rsplit('/').nth(1).unwrap_or_default();
        let cell = row["hosts"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c["host"] == column)
            .ok_or("no column")?;
        let loads = matches!(
            cell["verdict"].as_str(),
            Some("loads" | "loads with warnings")
        );
        let listed = bodies.contains(&format!("mk-{name}"));
        if loads != listed {
            wrong.push(format!(
                "{name}: the client {} it, the matrix says {}",
                if listed { "lists" } else { "does not list" },
                cell["verdict"]
            ));
        }
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join("\n"))
    }
}

pub fn cases() -> Vec<Case> {
    vec![
        laid_out(Client::Codex, "home/.agents/skills")
            .check(Arc::new(|ctx| compare(ctx, "home/.agents/skills", "codex"))),
        laid_out(Client::Gemini, "home/.gemini/skills").check(Arc::new(|ctx| {
            compare(ctx, "home/.gemini/skills", "gemini")
        })),
    ]
}
