use super::*;
use crate::model::{Call, Part, ToolResult, UserKind};

fn toks(s: &str) -> Vec<String> {
    tokens_of(s)
}

#[test]
fn distinctive_tokens_are_identifiers_paths_numbers_and_quoted_strings() {
    assert_eq!(
        toks(
            "see /testbed/django/db/models.py, fooBar and queryset_x 123456 abc12 \"no such table\""
        ),
        [
            "/testbed/django/db/models.py",
            "models.py",
            "fooBar",
            "queryset_x",
            "123456",
            "no such table",
        ]
    );
}

#[test]
fn common_words_and_short_tokens_are_not_distinctive() {
    // Letters only (lowercase after the first), hyphenated words, tokens under 6 characters.
    assert_eq!(
        toks("Because the function returns well-known values: x_1, ab12, Django, queryset"),
        Vec::<String>::new()
    );
}

#[test]
fn runs_are_trimmed_and_split_into_their_shaped_parts() {
    // Trailing `.` and `/` trimmed, leading `./` kept as `/`-less run start.
    assert_eq!(
        toks("edit ./src/lib_main.rs."),
        ["src/lib_main.rs", "lib_main", "lib_main.rs"]
    );
    assert_eq!(
        toks("self.assertEqual(x)"),
        ["self.assertEqual", "assertEqual"]
    );
    assert_eq!(toks("version 1.2.3-rc1"), ["1.2.3-rc1"]);
}

#[test]
fn quoted_strings_need_a_space_and_6_to_80_characters() {
    assert_eq!(toks("error: 'no such file' here"), ["no such file"]);
    assert_eq!(toks("it's a don't case"), Vec::<String>::new());
    assert_eq!(toks("\"a b\" \"abcdef\""), Vec::<String>::new());
    // A JSON-escaped quote keeps its content.
    assert_eq!(
        toks(r#"{"stderr":"E: \"no such table\""}"#),
        ["no such table"]
    );
    let long = format!("\"{}\"", "a ".repeat(41));
    assert!(toks(&long).is_empty());
}

#[test]
fn redacted_values_are_skipped() {
    assert_eq!(
        toks("[REDACTED_OUTPUT len=120 sha=1a2b3c4d] then Foo_bar1"),
        ["Foo_bar1"]
    );
}

fn user(t: &str) -> Message {
    Message::User {
        kind: UserKind::Plain,
        parts: vec![Part::text(t)],
        skill: None,
        origin: None,
    }
}

fn asst(text: &str, call: Option<(&str, &str)>) -> Message {
    Message::Assistant {
        parts: vec![Part::text(text)],
        calls: call
            .map(|(id, args)| vec![Call::new(id, "shell", args)])
            .unwrap_or_default(),
    }
}

fn tool(id: &str, t: &str) -> Message {
    Message::Tool(ToolResult {
        call_id: id.into(),
        parts: vec![Part::text(t)],
        is_error: false,
        denial: None,
    })
}

/// H = [U, A c1, T c1 (holds `secret_value_42` at byte 1200 of 3000), A c2, T c2, A "uses
/// secret_value_42", final]: requests 1..=4 (before each A, then the final one).
fn history() -> (Vec<Message>, Vec<usize>) {
    let mut big = "x ".repeat(600);
    big.push_str("secret_value_42");
    while big.len() < 3000 {
        big.push_str(" y");
    }
    big.truncate(3000);
    let h = vec![
        user("look"),
        asst("run it", Some(("c1", r#"{"command":"make"}"#))),
        tool("c1", &big),
        asst("again", Some(("c2", r#"{"command":"ls"}"#))),
        tool("c2", "small"),
        asst("the value is secret_value_42", None),
    ];
    let ends = vec![1, 3, 5, 6];
    (h, ends)
}

fn ranges(h: &[Message]) -> Ranges {
    Ranges {
        len: h
            .iter()
            .map(|m| match m {
                Message::Tool(r) => result_text(r).len(),
                _ => 0,
            })
            .collect(),
        spill: vec![Vec::new(); h.len()],
    }
}

#[test]
fn a_token_only_in_a_hidden_result_makes_it_needed_and_charges_one_recovery() {
    let (h, ends) = history();
    let idx = Index::new(&h, &RequestParts::default(), &ends);
    let mut tr = HiddenResults::new(h.len());
    // c1 hidden whole at requests 3 and 4.
    tr.hide(3, 2, Shape::Whole);
    tr.hide(4, 2, Shape::Whole);
    let inputs = [100, 900, 950, 960];
    let s = StreamIn {
        name: "governed".into(),
        inputs: &inputs,
        cost: 1000.0,
        read: 0.1,
        write: 1.25,
        tracker: &tr,
        mask: None,
    };
    let rec = evaluate(&h, &ends, &idx, &ranges(&h), &s);
    assert_eq!(rec.hidden, 1);
    assert_eq!(rec.needed, 1);
    assert_eq!(rec.recovered_chars, 1000);
    // Request 3's response (message 5) names the token: an extra request of 950 tokens at the
    // cached price plus 250 span tokens uncached; request 4 carries the 250 tokens cached.
    assert_eq!(rec.per_request, [0, 0, 950 + 250, 250]);
    assert_eq!(rec.recovery_tokens, 1450);
    assert!((rec.recovery_cost - (0.1 * 950.0 + 1.25 * 250.0 + 0.1 * 250.0)).abs() < 1e-9);
    assert_eq!(rec.input_tokens, 100 + 900 + 950 + 960 + 1450);
    assert!((rec.cost - (1000.0 + rec.recovery_cost)).abs() < 1e-9);
    let r = &rec.results[0];
    assert_eq!(r.call_id, "c1");
    assert_eq!(
        r.hidden,
        [HiddenSpan {
            from_request: 3,
            to_request: 4,
            ranges: vec![[0, 3000]]
        }]
    );
    assert_eq!(
        r.needed,
        Some(Needed {
            request: 3,
            offset: 1200,
            chars: 1000
        })
    );
}

#[test]
fn a_token_shown_elsewhere_or_in_a_visible_head_is_not_a_need() {
    let (mut h, ends) = history();
    // The user message also shows the token: the model had it without the hidden result.
    h[0] = user("look for secret_value_42");
    let idx = Index::new(&h, &RequestParts::default(), &ends);
    let mut tr = HiddenResults::new(h.len());
    tr.hide(3, 2, Shape::Whole);
    let inputs = [1, 1, 1, 1];
    let s = StreamIn {
        name: "governed".into(),
        inputs: &inputs,
        cost: 0.0,
        read: 0.1,
        write: 1.25,
        tracker: &tr,
        mask: None,
    };
    let rec = evaluate(&h, &ends, &idx, &ranges(&h), &s);
    assert_eq!((rec.hidden, rec.needed, rec.recovery_tokens), (1, 0, 0));

    // A spill stub whose head shows the token (hidden: bytes 2000..2900 only).
    let (h, ends) = history();
    let idx = Index::new(&h, &RequestParts::default(), &ends);
    let mut rg = ranges(&h);
    rg.spill[2] = std::iter::once(2000..2900).collect();
    let mut tr = HiddenResults::new(h.len());
    tr.hide(3, 2, Shape::Spill);
    let s = StreamIn { tracker: &tr, ..s };
    let rec = evaluate(&h, &ends, &idx, &rg, &s);
    assert_eq!((rec.hidden, rec.needed), (1, 0));
    assert_eq!(rec.results[0].hidden[0].ranges, vec![[2000, 2900]]);
}

#[test]
fn a_small_hidden_part_is_recovered_whole_and_a_mask_drops_the_span_after_n_results() {
    let mut h = vec![
        user("go"),
        asst("a", Some(("c1", "{}"))),
        tool("c1", "value Zeta_77"),
        asst("b", Some(("c2", "{}"))),
        tool("c2", "r2"),
        asst("c Zeta_77", Some(("c3", "{}"))),
        tool("c3", "r3"),
        asst("d", None),
    ];
    h.truncate(8);
    let ends = vec![1, 3, 5, 7, 8];
    let idx = Index::new(&h, &RequestParts::default(), &ends);
    let mut tr = HiddenResults::new(h.len());
    for r in 3..=5 {
        tr.hide(r, 2, Shape::Whole);
    }
    let inputs = [10, 20, 30, 40, 50];
    let s = StreamIn {
        name: "mask:1".into(),
        inputs: &inputs,
        cost: 0.0,
        read: 0.1,
        write: 1.25,
        tracker: &tr,
        mask: Some(1),
    };
    let rec = evaluate(&h, &ends, &idx, &ranges(&h), &s);
    assert_eq!(rec.needed, 1);
    // 13 characters: the whole hidden part, 4 tokens; request 3 needs it (its response is
    // message 5). Request 4 has one later result (c3) after the span: with mask:1 it is
    // masked then, so nothing is carried.
    assert_eq!(rec.recovered_chars, 13);
    assert_eq!(rec.per_request, [0, 0, 30 + 4, 0, 0]);
}

#[test]
fn the_recovered_span_is_centred_on_the_token_and_kept_inside_the_hidden_range() {
    let (h, _) = history();
    let text = result_text(match &h[2] {
        Message::Tool(r) => r,
        _ => unreachable!(),
    });
    // `secret_value_42` (15 characters) at 1200: 492 characters before it, 1,000 in all.
    assert_eq!(span(&text, &(0..3000), 1200, 15, 1000), 708..1708);
    // Near the end of the range the span is moved back to fit.
    assert_eq!(span(&text, &(0..3000), 2985, 15, 1000), 2000..3000);
    // A range shorter than the span is recovered whole.
    assert_eq!(span(&text, &(100..600), 300, 15, 1000), 100..600);
}

#[test]
fn what_a_recovered_span_holds_is_shown_in_later_requests_not_needed_again() {
    // c1 and c2 both hold `Omega_22`; request 3's response needs c1 (`Theta_11`), whose span
    // (all of its 27 characters) then stays in the requests: request 4's response names
    // `Omega_22`, which that span shows, so c2 is not needed (before this fix it was charged
    // a second recovery for a token the recovered span already showed).
    let h = vec![
        user("go"),
        asst("a", Some(("c1", "{}"))),
        tool("c1", "alpha Theta_11 and Omega_22"),
        asst("b", Some(("c2", "{}"))),
        tool("c2", "beta Omega_22"),
        asst("uses Theta_11", Some(("c3", "{}"))),
        tool("c3", "r3"),
        asst("now Omega_22", None),
    ];
    let ends = vec![1, 3, 5, 7, 8];
    let idx = Index::new(&h, &RequestParts::default(), &ends);
    let mut tr = HiddenResults::new(h.len());
    for r in 3..=5 {
        tr.hide(r, 2, Shape::Whole);
        tr.hide(r, 4, Shape::Whole);
    }
    let inputs = [10, 20, 30, 40, 50];
    let s = StreamIn {
        name: "governed".into(),
        inputs: &inputs,
        cost: 0.0,
        read: 0.1,
        write: 1.25,
        tracker: &tr,
        mask: None,
    };
    let rec = evaluate(&h, &ends, &idx, &ranges(&h), &s);
    assert_eq!((rec.hidden, rec.needed, rec.recovered_chars), (2, 1, 27));
    assert_eq!(rec.per_request, [0, 0, 30 + 7, 7, 7]);
    assert_eq!(
        rec.results[0].needed,
        Some(Needed {
            request: 3,
            offset: 6,
            chars: 27
        })
    );
    assert_eq!(rec.results[1].needed, None);
    // Under mask:1 the span is masked once one later result (c3) exists: request 4 no longer
    // shows it, and c2 is needed there.
    let s = StreamIn { mask: Some(1), ..s };
    let rec = evaluate(&h, &ends, &idx, &ranges(&h), &s);
    assert_eq!(rec.needed, 2);
}
