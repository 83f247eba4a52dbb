//! Hand-made good and bad descriptions and bodies for every hint, with exact ranges and
//! messages, and hand-made pairs for the collision measure.

use super::collision::{THRESHOLD, similar_pairs};
use super::*;
use crate::skills::frontmatter::{self, Found};
use alisio_base::config::Profile;

/// The findings of a SKILL.md text in directory `dir`, as (code, the text in range, message).
fn findings(text: &str, dir: &str) -> Vec<(Code, String, String)> {
    let Found::Block(b) = frontmatter::find_block(text, false, Profile::Alisio) else {
        panic!("no block")
    };
    let fm = frontmatter::parse_yaml(text, b.yaml, Profile::Alisio);
    hints(text, &fm, b.body_start, dir)
        .into_iter()
        .map(|f| {
            (
                f.code,
                text[f.range.start..f.range.end].to_string(),
                f.message,
            )
        })
        .collect()
}

fn codes(text: &str, dir: &str) -> Vec<Code> {
    findings(text, dir).into_iter().map(|f| f.0).collect()
}

fn skill(name: &str, desc: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {desc}\n---\n{body}")
}

const GOOD: &str = "Extracts text and tables from PDF files. Use when the user asks to read a PDF.";

#[test]
fn a_good_description_has_no_hint() {
    assert_eq!(
        codes(&skill("pdf-reader", GOOD, "# PDF\n"), "pdf-reader"),
        []
    );
}

#[test]
fn no_when_clause() {
    let t = skill("pdf-reader", "Extracts text and tables from PDF files.", "");
    assert_eq!(
        findings(&t, "pdf-reader"),
        [(
            Code::SkillDescriptionNoWhen,
            "Extracts text and tables from PDF files.".into(),
            "the description says what the skill is but not when to use it; add a clause such as \"Use when …\" (the model chooses a skill by its description)".into()
        )]
    );
    // Each cue counts: "Use for", "whenever", "if", a when_to_use key.
    for d in [
        "Extracts text from PDF files. Use for scanned reports.",
        "Extracts text from PDF files whenever a report arrives.",
        "Extracts text from PDF files if the user uploads one.",
    ] {
        assert_eq!(codes(&skill("pdf-reader", d, ""), "pdf-reader"), [], "{d}");
    }
    let t = "---\nname: pdf-reader\ndescription: Extracts text from PDF files.\nwhen_to_use: a PDF is attached\n---\n";
    assert_eq!(codes(t, "pdf-reader"), []);
    // The cues are English words: a description in another script is not judged.
    assert_eq!(
        codes(
            &skill("i18n-check", "检查并补充前端和后端的i18n翻译文件。", ""),
            "i18n-check"
        ),
        []
    );
}

#[test]
fn first_or_second_person() {
    let t = skill(
        "excel-report",
        "I can help you build Excel reports. Use when a report is due.",
        "",
    );
    assert_eq!(
        findings(&t, "excel-report"),
        [(
            Code::SkillDescriptionPerson,
            "I can help you build Excel reports. Use when a report is due.".into(),
            "the description is written in the first person (\"I\"); write it in the third person (\"Extracts …\"): it is put into the system prompt, where \"I\" and \"you\" are someone else".into()
        )]
    );
    let t = skill(
        "excel-report",
        "Builds Excel reports. Use when your manager wants one.",
        "",
    );
    assert!(
        findings(&t, "excel-report")[0]
            .2
            .contains("the second person (\"your\")")
    );
    // Quoted example prompts and code spans are what a user types, not the description's voice.
    let t = skill(
        "gif-maker",
        "Makes GIFs for Slack. Use when users ask \"make me a GIF\" or mention `your-gif`.",
        "",
    );
    assert_eq!(codes(&t, "gif-maker"), []);
    // "US" (the country) and "i.e." are not pronouns.
    let t = skill(
        "tax-forms",
        "Fills US tax forms, i.e. the 1040. Use when filing taxes.",
        "",
    );
    assert_eq!(codes(&t, "tax-forms"), []);
}

#[test]
fn only_generic_words() {
    let t = skill("assist", "Helps with various tasks when needed.", "");
    assert_eq!(
        findings(&t, "assist"),
        [(
            Code::SkillDescriptionGeneric,
            "Helps with various tasks when needed.".into(),
            "the description holds only generic words (such as \"helps\", \"tools\", \"tasks\"); name the files, formats, commands or situations it is for".into()
        )]
    );
    // Anthropic's three examples of vague descriptions, each with a when clause added.
    for d in [
        "Helps with documents when asked.",
        "Processes data when asked.",
        "Does stuff with files when asked.",
    ] {
        assert_eq!(
            codes(&skill("x", d, ""), "x"),
            [Code::SkillDescriptionGeneric],
            "{d}"
        );
    }
    // One specific word is enough.
    assert_eq!(
        codes(&skill("x", "Helps with invoices when asked.", ""), "x"),
        []
    );
}

#[test]
fn restates_the_name() {
    let t = skill("pdf-tools", "PDF tools", "");
    assert_eq!(
        findings(&t, "pdf-tools"),
        [
            (
                Code::SkillDescriptionNoWhen,
                "PDF tools".into(),
                "the description says what the skill is but not when to use it; add a clause such as \"Use when …\" (the model chooses a skill by its description)".into()
            ),
            (
                Code::SkillDescriptionRestatesName,
                "PDF tools".into(),
                "the description only restates the name \"pdf-tools\"; say what the skill does and when to use it".into()
            ),
        ]
    );
    // Without a name, the directory name is the name (Claude Code and Codex).
    let t = "---\ndescription: Helper for git commits, use when needed\n---\n";
    assert_eq!(codes(t, "git-commit"), [Code::SkillDescriptionRestatesName]);
}

#[test]
fn arguments_inside_code_and_prices() {
    let body = "# Sum\n\nRun `awk '{ print $1 }' data.txt` to sum.\n\n```sh\necho \"$ARGUMENTS\" $0\n```\n\nIt costs $1.50 per run, $2/month. Pass $1 as the file; \\$1 and `\\$2` stay; $1x and `$ARGUMENTSY` too.\n";
    let t = skill("sum", GOOD, body);
    let f = findings(&t, "sum");
    let got: Vec<(&str, &str)> = f
        .iter()
        .map(|(c, s, _)| {
            assert_eq!(*c, Code::SkillArgumentsInCode);
            (s.as_str(), "")
        })
        .collect();
    assert_eq!(
        got.iter().map(|g| g.0).collect::<Vec<_>>(),
        ["$1", "$ARGUMENTS", "$0", "$1", "$2"]
    );
    assert_eq!(
        f[0].2,
        "Claude Code substitutes \"$1\" inside code with the argument at index 1 (counting from 0) when the skill is invoked with at least 2 arguments; write \\$1 to keep it as written"
    );
    assert_eq!(
        f[1].2,
        "Claude Code substitutes \"$ARGUMENTS\" inside code with the skill's arguments whenever it is invoked with arguments; write \\$ARGUMENTS to keep it as written"
    );
    assert_eq!(
        f[2].2,
        "Claude Code substitutes \"$0\" inside code with the argument at index 0 (counting from 0) when the skill is invoked with at least 1 argument; write \\$0 to keep it as written"
    );
    assert!(f[3].2.contains("\"$1\" in a price"), "{}", f[3].2);
    // Exact byte range of the first one.
    let at = t.find("$1 }").unwrap();
    let Found::Block(b) = frontmatter::find_block(&t, false, Profile::Alisio) else {
        panic!()
    };
    let fm = frontmatter::parse_yaml(&t, b.yaml, Profile::Alisio);
    assert_eq!(
        hints(&t, &fm, b.body_start, "sum")[0].range,
        TextRange::new(at, at + 2)
    );
    // `$ARGUMENTS` in a code span is the placeholder the author means; in a code block, text.
    let t = skill(
        "fix",
        GOOD,
        "Fix issue `$ARGUMENTS` now.\n\n    echo $ARGUMENTS[1]\n",
    );
    assert_eq!(
        findings(&t, "fix")
            .into_iter()
            .map(|f| f.1)
            .collect::<Vec<_>>(),
        ["$ARGUMENTS[1]"]
    );
    // A skill that declares its arguments means them.
    let t = format!("---\nname: sum\ndescription: {GOOD}\nargument-hint: <file>\n---\n{body}");
    assert_eq!(codes(&t, "sum"), []);
}

#[test]
fn upload_rejects_xml_tags_and_reserved_words() {
    let t = skill(
        "claude-helper-pdf",
        "Extracts text from PDF files. Use when <example>a PDF</example> arrives.",
        "",
    );
    assert_eq!(
        findings(&t, "claude-helper-pdf"),
        [
            (
                Code::SkillUploadRejected,
                "claude-helper-pdf".into(),
                "claude.ai and the Claude API reject a skill whose name contains the reserved word \"claude\"".into()
            ),
            (
                Code::SkillUploadRejected,
                "Extracts text from PDF files. Use when <example>a PDF</example> arrives.".into(),
                "claude.ai and the Claude API reject a skill whose description contains an XML tag (\"<example>\")".into()
            ),
        ]
    );
    // Comparisons and placeholders in angle brackets with spaces are not tags.
    assert_eq!(
        codes(
            &skill("cmp", "Compares a < b > c numbers. Use when sorting.", ""),
            "cmp"
        ),
        []
    );
    assert_eq!(words::xml_tag("a <br/> b"), Some("<br/>"));
    assert_eq!(words::xml_tag("x </end> y"), Some("</end>"));
    assert_eq!(words::xml_tag("<a href=\"x\">"), Some("<a href=\"x\">"));
    assert_eq!(words::xml_tag("<3 and <-"), None);
}

#[test]
fn collision_on_hand_made_pairs() {
    // Near-identical wording: collides.
    let same = [
        "Extract text and tables from PDF files and save them as CSV.",
        "Extracts the text and the tables of PDF files, saved as CSV.",
    ];
    let p = similar_pairs(&same);
    assert_eq!(p.len(), 1);
    assert_eq!((p[0].0, p[0].1), (0, 1));
    // Seven terms each, six shared (the crude stemmer keeps "save" and "sav" apart): 6 / 7.
    assert!((p[0].2 - 6.0 / 7.0).abs() < 1e-12, "{}", p[0].2);
    // Same domain, different tasks: apart.
    let apart = [
        "Extract text and tables from PDF files.",
        "Fill in PDF forms and sign them.",
    ];
    assert_eq!(similar_pairs(&apart), []);
    // One extra term of five: cos = 5 / sqrt(5 × 6) = 0.913 ≥ 0.8.
    let p = similar_pairs(&[
        "deploy docker containers kubernetes cluster",
        "deploy docker containers kubernetes cluster quickly",
    ]);
    assert!((p[0].2 - 5.0 / 30f64.sqrt()).abs() < 1e-12, "{p:?}");
    // Three shared of five each: cos = 3 / 5 = 0.6 < 0.8.
    assert_eq!(
        similar_pairs(&[
            "deploy docker containers staging servers",
            "deploy docker containers mobile apps",
        ]),
        []
    );
    // Four shared of five each: 4 / 5 = 0.8, exactly the threshold: collides.
    let p = similar_pairs(&[
        "deploy docker containers kubernetes staging",
        "deploy docker containers kubernetes production",
    ]);
    assert_eq!(p.len(), 1);
    assert!((p[0].2 - THRESHOLD).abs() < 1e-12);
    // Fewer than three distinct terms: never compared.
    assert_eq!(similar_pairs(&["Deploy apps.", "Deploy apps."]), []);
    // Copies (a mirror's) pair with each other and with what their first copy pairs with, with
    // the figures of the first copy: the rarity of a term counts every copy.
    let p = similar_pairs(&[
        "deploy docker containers kubernetes cluster",
        "fill pdf forms sign them",
        "deploy docker containers kubernetes cluster",
        "deploy docker containers kubernetes cluster quickly",
        "deploy docker containers kubernetes cluster",
    ]);
    let pairs: Vec<(usize, usize)> = p.iter().map(|x| (x.0, x.1)).collect();
    assert_eq!(pairs, [(0, 2), (0, 3), (0, 4), (2, 3), (2, 4), (3, 4)]);
    for (i, j, s) in &p {
        let expected = if *i == 3 || *j == 3 {
            5.0 / 30f64.sqrt()
        } else {
            1.0
        };
        assert!((s - expected).abs() < 1e-12, "{i} {j} {s}");
    }
}

#[test]
fn the_prefix_filter_finds_what_all_pairs_find() {
    let mut rng = alisio_base::testing::Rng(7);
    let vocab: Vec<String> = (0..40).map(|i| format!("word{i}")).collect();
    let descs: Vec<String> = (0..120)
        .map(|_| {
            let n = 3 + rng.below(6);
            (0..n)
                .map(|_| vocab[rng.below(12) * (1 + rng.below(3))].clone())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let refs: Vec<&str> = descs.iter().map(String::as_str).collect();
    let fast = similar_pairs(&refs);
    // Every pair, compared directly.
    let mut slow = Vec::new();
    for i in 0..refs.len() {
        for j in i + 1..refs.len() {
            let p = similar_pairs(&[refs[i], refs[j]]);
            if let Some(&(_, _, s)) = p.first() {
                slow.push((i, j, s));
            }
        }
    }
    assert!(!slow.is_empty());
    assert_eq!(fast.len(), slow.len());
    for (a, b) in fast.iter().zip(&slow) {
        assert_eq!((a.0, a.1), (b.0, b.1));
        assert!((a.2 - b.2).abs() < 1e-9);
    }
}

#[test]
fn inline_commands_that_follow_a_character_are_not_run() {
    // Run by Claude Code: at the start of a line or after whitespace; not meant: after a
    // backtick (two code spans), unclosed, or empty.
    let good = "# Status\n\n!`git status`\nBranch: !`git branch --show-current`\n`a`!`b` and !`` and x!`open\n\nShown as written: `` KEY=!`git diff` ``\n\n```\nKEY=!`git diff`\n```\n";
    assert_eq!(findings(&skill("status", GOOD, good), "status"), []);
    let body = "# Status\n\nBRANCH=!`git branch --show-current`\n(!`date`)\n";
    let t = skill("status", GOOD, body);
    let f = findings(&t, "status");
    assert_eq!(
        f,
        [
            (
                Code::SkillCommandNotRun,
                "!`git branch --show-current`".into(),
                "Claude Code runs !`git branch --show-current` only at the start of a line or after a space: after '=' it sends the text as written and never runs the command; put a space before the !".into()
            ),
            (
                Code::SkillCommandNotRun,
                "!`date`".into(),
                "Claude Code runs !`date` only at the start of a line or after a space: after '(' it sends the text as written and never runs the command; put a space before the !".into()
            ),
        ]
    );
}
