//! `skill-collision` (spec/skills.md §11.1): two skills of one effective catalog whose
//! descriptions a router cannot tell apart. The measure is the cosine similarity of the two
//! descriptions' term counts, terms as the trigger lab's router makes them
//! ([`router::terms`]: lowercase words, stop words out, stemmed); a pair at or above
//! [`THRESHOLD`] collides. A description of fewer than [`MIN_TERMS`] distinct terms takes part
//! in no pair (it is too short to compare; the other hints speak about it).
//!
//! All pairs are found without comparing every pair: each description is a unit vector, its
//! terms ordered from the rarest in the catalog; only its *prefix* (the terms before the rest
//! of the vector's norm falls below the threshold) is indexed, and two vectors whose prefixes
//! share no term cannot reach the threshold (their first shared term would lie in both
//! suffixes, so their dot product is below the suffix norm, which is below the threshold).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::skills::catalog::Discovery;
use crate::skills::triggers::router;
use crate::skills::validate;
use alisio_base::config::Profile;
use alisio_base::diagnostic::{Code, Diagnostic, Related, Severity};
use alisio_base::text::{LineIndex, Span, TextRange};
use alisio_base::workspace::Fs;

/// Two descriptions at or above this cosine similarity collide.
pub const THRESHOLD: f64 = 0.8;
/// Descriptions with fewer distinct terms are not compared.
pub const MIN_TERMS: usize = 3;
/// How many siblings one message names.
const NAMED: usize = 3;

/// A description as a unit vector over term ids.
struct Vector {
    /// (term id, weight), the rarest term first.
    terms: Vec<(usize, f64)>,
    /// The same terms ordered by term id, for [`dot`]'s look-ups.
    by_id: Vec<(usize, f64)>,
}

/// Every pair `(i, j, similarity)` with `i < j` at or above [`THRESHOLD`], ordered by `i`
/// then `j`. `descriptions` in listing order.
#[must_use]
pub fn similar_pairs(descriptions: &[&str]) -> Vec<(usize, usize, f64)> {
    let mut ids: HashMap<String, usize> = HashMap::new();
    let mut df: Vec<usize> = Vec::new();
    let mut counts: Vec<BTreeMap<usize, f64>> = Vec::with_capacity(descriptions.len());
    // A description met before has the same term counts (a mirror holds one skill in many
    // repositories): they are copied, not made again from its words.
    let mut first_copy: HashMap<&str, usize> = HashMap::new();
    for d in descriptions {
        if let Some(&k) = first_copy.get(d) {
            let m = counts[k].clone();
            for id in m.keys() {
                df[*id] += 1;
            }
            counts.push(m);
            continue;
        }
        first_copy.insert(d, counts.len());
        let mut m: BTreeMap<usize, f64> = BTreeMap::new();
        for t in router::terms(d) {
            let next = ids.len();
            let id = *ids.entry(t).or_insert(next);
            *m.entry(id).or_insert(0.0) += 1.0;
        }
        df.resize(ids.len(), 0);
        for id in m.keys() {
            df[*id] += 1;
        }
        counts.push(m);
    }
    let vectors: Vec<Option<Vector>> = counts
        .iter()
        .map(|m| {
            if m.len() < MIN_TERMS {
                return None;
            }
            let norm = m.values().map(|w| w * w).sum::<f64>().sqrt();
            let by_id: Vec<(usize, f64)> = m.iter().map(|(t, w)| (*t, w / norm)).collect();
            let mut terms = by_id.clone();
            // Rarest first; ties by term id (first seen first), so the order is fixed.
            terms.sort_by(|a, b| df[a.0].cmp(&df[b.0]).then(a.0.cmp(&b.0)));
            Some(Vector { terms, by_id })
        })
        .collect();
    let mut index: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut pairs = Vec::new();
    // `seen[i] == j + 1`: description `i` is already a candidate of `j` (each pair is scored
    // once; the order of scoring does not matter, the pairs are sorted at the end).
    let mut seen: Vec<usize> = vec![0; vectors.len()];
    for (j, v) in vectors.iter().enumerate() {
        let Some(v) = v else { continue };
        let prefix = prefix_len(v);
        for (t, _) in &v.terms[..prefix] {
            let Some(list) = index.get(t) else { continue };
            for &i in list {
                if seen[i] == j + 1 {
                    continue;
                }
                seen[i] = j + 1;
                let Some(u) = &vectors[i] else { continue };
                let s = dot(u, v);
                if s >= THRESHOLD - 1e-12 {
                    pairs.push((i, j, s));
                }
            }
        }
        for (t, _) in &v.terms[..prefix] {
            index.entry(*t).or_default().push(j);
        }
    }
    pairs.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
    pairs
}

/// How many leading terms to index: until the norm of the rest is below the threshold.
fn prefix_len(v: &Vector) -> usize {
    let mut rest: f64 = v.terms.iter().map(|(_, w)| w * w).sum();
    for (k, (_, w)) in v.terms.iter().enumerate() {
        if rest.sqrt() < THRESHOLD - 1e-12 {
            return k;
        }
        rest -= w * w;
    }
    v.terms.len()
}

/// The products are summed in `v`'s order (rarest first), so the figure does not depend on
/// how `u`'s weights are looked up.
fn dot(u: &Vector, v: &Vector) -> f64 {
    let weight = |t: &usize| {
        u.by_id
            .binary_search_by_key(t, |(id, _)| *id)
            .ok()
            .map(|k| u.by_id[k].1)
    };
    v.terms
        .iter()
        .filter_map(|(t, w)| weight(t).map(|x| x * w))
        .sum()
}

/// The siblings found for one file: in the order first seen, and their file ids as a set.
#[derive(Default)]
struct Siblings<'a> {
    /// (similarity, sibling name, sibling file id).
    list: Vec<(f64, &'a str, usize)>,
    files: HashSet<usize>,
}

/// The description value (else the opening line) of a file, as a span.
fn description_span(fs: &dyn Fs, file: &Path) -> Span {
    let c = validate::check_file_with(fs, file, Profile::Alisio, false);
    let idx = LineIndex::new(&c.text);
    let r: TextRange = c
        .frontmatter
        .as_ref()
        .and_then(|f| f.get("description"))
        .map_or_else(|| idx.line_range(0), |e| e.value.span);
    idx.span(r)
}

/// `skill-collision` on every skill that collides with a sibling in one of the catalogs of
/// `discoveries` (effective, enabled and model-invocable entries: what the host lists). One
/// diagnostic a file, naming its closest siblings (the most similar first, ties in listing
/// order), with the sibling's description as related information.
#[must_use]
pub fn diagnostics(fs: &dyn Fs, discoveries: &[Discovery]) -> Vec<Diagnostic> {
    // Files by id (each listed file once, across the catalogs), and per file id its siblings in
    // the order first seen, with the set of their ids. Ids, not paths, in the loop over pairs: a
    // mirror that holds one skill in many repositories has hundreds of identical descriptions,
    // so the pairs are many, and a path comparison or a scan of the list per pair made the check
    // dominate `skills validate` (40 s for 1,000 real skills; docs/skills.md).
    let mut ids: HashMap<&Path, usize> = HashMap::new();
    let mut files: Vec<&Path> = Vec::new();
    let mut found: Vec<Siblings<'_>> = Vec::new();
    for d in discoveries {
        let mut listed: Vec<(usize, &str)> = Vec::new();
        let mut descs: Vec<&str> = Vec::new();
        for e in d
            .entries
            .iter()
            .filter(|e| e.effective && e.enabled && e.model_invocable)
        {
            let id = *ids.entry(&e.file).or_insert_with(|| {
                files.push(&e.file);
                found.push(Siblings::default());
                files.len() - 1
            });
            listed.push((id, &e.name));
            descs.push(&e.description);
        }
        for (i, j, s) in similar_pairs(&descs) {
            let (a, b) = (listed[i], listed[j]);
            if a.1 == b.1 || a.0 == b.0 {
                continue;
            }
            for (me, other) in [(a, b), (b, a)] {
                let v = &mut found[me.0];
                if v.files.insert(other.0) {
                    v.list.push((s, other.1, other.0));
                }
            }
        }
    }
    // One diagnostic a file, in path order.
    let mut order: Vec<usize> = (0..files.len())
        .filter(|&i| !found[i].list.is_empty())
        .collect();
    order.sort_by(|&x, &y| files[x].cmp(files[y]));
    // The discovery's judgement of a file by the `alisio` rules placed its description already
    // (the same read and parse `description_span` would make again); a symlinked file or one
    // judged under another host's profile is read again.
    let mut spans: HashMap<PathBuf, Span> = HashMap::new();
    for s in discoveries.iter().flat_map(|d| &d.skills) {
        if s.checked.profile == Profile::Alisio && !s.candidate.symlink {
            spans
                .entry(s.candidate.file.clone())
                .or_insert(s.checked.places.description);
        }
    }
    let mut span_of = |f: &Path| {
        *spans
            .entry(f.to_path_buf())
            .or_insert_with(|| description_span(fs, f))
    };
    let mut out = Vec::new();
    for id in order {
        let file = files[id];
        let mut siblings = std::mem::take(&mut found[id].list);
        siblings.sort_by(|a, b| b.0.total_cmp(&a.0));
        let named: Vec<String> = siblings
            .iter()
            .take(NAMED)
            .map(|(s, n, _)| format!("{n} ({s:.2})"))
            .collect();
        let more = siblings.len().saturating_sub(NAMED);
        let (best, best_name, _) = &siblings[0];
        let mut msg = format!(
            "a router cannot tell this description from the one of {best_name}: their similarity is {best:.2} (the threshold is {THRESHOLD}); say what sets this skill apart"
        );
        if siblings.len() > 1 {
            msg.push_str(&format!("; similar: {}", named.join(", ")));
            if more > 0 {
                msg.push_str(&format!(", {more} more"));
            }
        }
        let mut d = Diagnostic::new(
            file,
            span_of(file),
            Severity::Information,
            Code::SkillCollision,
            msg,
        );
        for &(s, n, f) in siblings.iter().take(NAMED) {
            let f = files[f];
            d = d.with_related(Related {
                file: f.to_path_buf(),
                span: span_of(f),
                message: format!("the description of {n} (similarity {s:.2})"),
            });
        }
        out.push(d);
    }
    out
}
