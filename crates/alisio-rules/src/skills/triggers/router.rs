//! The offline router of the trigger lab (spec/skills.md §10.2): BM25F over two fields of each
//! listed skill, its name and its description as the host lists it. Deterministic: ties go to
//! the skill listed first.

use std::collections::HashMap;

/// BM25 saturation.
pub const K1: f64 = 1.2;
/// BM25 length normalisation.
pub const B: f64 = 0.75;
/// Weight of a term in the name (a name is short and chosen; a hit there says more).
pub const NAME_WEIGHT: f64 = 2.0;
/// Weight of a term in the description.
pub const DESCRIPTION_WEIGHT: f64 = 1.0;
/// The best score must reach this for the prompt to go to a skill at all.
pub const THRESHOLD: f64 = 1.0;

/// Words that say nothing about a task.
const STOPWORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been",
    "before", "but", "by", "can", "do", "does", "for", "from", "has", "have", "how", "i", "if",
    "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our", "please", "should", "so",
    "some", "that", "the", "their", "them", "then", "there", "these", "this", "to", "up", "us",
    "use", "used", "using", "was", "we", "what", "when", "where", "which", "while", "who", "will",
    "with", "would", "you", "your",
];

/// A crude English stem: plural and verb endings off, so "charts" and "charting" meet "chart".
fn stem(w: &str) -> String {
    let n = w.chars().count();
    if n > 4 && w.ends_with("ies") {
        return format!("{}y", &w[..w.len() - 3]);
    }
    for suf in ["ing", "ed", "es", "s"] {
        let min = if suf == "s" { 3 } else { 5 };
        if n > min && w.ends_with(suf) && !w.ends_with("ss") {
            return w[..w.len() - suf.len()].to_string();
        }
    }
    w.to_string()
}

/// Lowercased alphanumeric words, stopwords out, stemmed.
#[must_use]
pub fn terms(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .map(|w| stem(&w))
        .collect()
}

struct Doc {
    name: HashMap<String, u32>,
    description: HashMap<String, u32>,
    name_len: f64,
    description_len: f64,
}

/// The index of one catalog as a host lists it.
pub struct Router {
    docs: Vec<Doc>,
    /// term → documents containing it (in either field).
    postings: HashMap<String, Vec<usize>>,
    average_name_len: f64,
    average_description_len: f64,
}

fn counts(ts: Vec<String>) -> (HashMap<String, u32>, f64) {
    let n = ts.len() as f64;
    let mut m = HashMap::new();
    for t in ts {
        *m.entry(t).or_insert(0) += 1;
    }
    (m, n)
}

impl Router {
    /// `skills`: (name, description as listed) in listing order.
    #[must_use]
    pub fn new(skills: &[(String, String)]) -> Self {
        let mut docs = Vec::with_capacity(skills.len());
        let mut postings: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, (name, desc)) in skills.iter().enumerate() {
            let (name, name_len) = counts(terms(name));
            let (desc, desc_len) = counts(terms(desc));
            let mut seen: Vec<&String> = name.keys().chain(desc.keys()).collect();
            seen.sort();
            seen.dedup();
            for t in seen {
                postings.entry(t.clone()).or_default().push(i);
            }
            docs.push(Doc {
                name,
                description: desc,
                name_len,
                description_len: desc_len,
            });
        }
        let n = docs.len().max(1) as f64;
        let avg_name = docs.iter().map(|d| d.name_len).sum::<f64>() / n;
        let avg_desc = docs.iter().map(|d| d.description_len).sum::<f64>() / n;
        Self {
            docs,
            postings,
            average_name_len: avg_name.max(1.0),
            average_description_len: avg_desc.max(1.0),
        }
    }

    /// `ln(1 + (N - df + 0.5) / (df + 0.5))`.
    fn idf(&self, df: usize) -> f64 {
        let n = self.docs.len() as f64;
        let df = df as f64;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// Every skill's score for `prompt`, highest first (ties: listing order); zeros left out.
    #[must_use]
    pub fn scores(&self, prompt: &str) -> Vec<(usize, f64)> {
        let mut q = terms(prompt);
        q.sort();
        q.dedup();
        let mut acc: HashMap<usize, f64> = HashMap::new();
        for t in &q {
            let Some(post) = self.postings.get(t) else {
                continue;
            };
            let idf = self.idf(post.len());
            for &i in post {
                let d = &self.docs[i];
                let tf = |m: &HashMap<String, u32>, len: f64, avg: f64| {
                    f64::from(m.get(t).copied().unwrap_or(0)) / (1.0 - B + B * len / avg)
                };
                let w = NAME_WEIGHT * tf(&d.name, d.name_len, self.average_name_len)
                    + DESCRIPTION_WEIGHT
                        * tf(
                            &d.description,
                            d.description_len,
                            self.average_description_len,
                        );
                *acc.entry(i).or_insert(0.0) += idf * w * (K1 + 1.0) / (w + K1);
            }
        }
        let mut v: Vec<(usize, f64)> = acc.into_iter().collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        v
    }

    /// The skill the prompt goes to: the best score when it reaches [`THRESHOLD`].
    #[must_use]
    pub fn route(&self, prompt: &str) -> Option<(usize, f64)> {
        self.scores(prompt)
            .first()
            .copied()
            .filter(|(_, s)| *s >= THRESHOLD)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog() -> Router {
        Router::new(&[
            ("pdf-tools".into(), "Extract text from PDF files.".into()),
            (
                "chart-maker".into(),
                "Draw charts from spreadsheets.".into(),
            ),
            ("email-writer".into(), "Write emails.".into()),
        ])
    }

    #[test]
    fn terms_lowercase_drop_stopwords_and_stem() {
        assert_eq!(
            terms("Use the PDF-tools for Charting spreadsheets, please"),
            ["pdf", "tool", "chart", "spreadsheet"]
        );
        assert_eq!(terms("libraries"), ["library"]);
    }

    #[test]
    fn exact_bm25f_scores() {
        // N = 3; every query term is in one skill: idf = ln(1 + 2.5 / 1.5) = 0.98082925…
        // Field lengths: names 2, 2, 2 (avg 2); descriptions 4, 3, 2 (avg 3).
        // "pdf" in pdf-tools: name 1 / 1 and description 1 / 1.25 → w = 2 × 1 + 0.8 = 2.8;
        // "extract", "text": w = 0.8; each term adds idf × w × 2.2 / (w + 1.2).
        let s = catalog().scores("extract the PDF text");
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].0, 0);
        assert!(
            (s[0].1 - 3.236_736_534_938_696_5).abs() < 1e-12,
            "{}",
            s[0].1
        );
        // "chart": name and description of chart-maker (w = 3); "draw": description (w = 1).
        let s = catalog().scores("draw a chart");
        assert!(
            (s[0].1 - 2.522_132_364_887_296_4).abs() < 1e-12,
            "{}",
            s[0].1
        );
        assert_eq!(catalog().route("draw a chart").map(|r| r.0), Some(1));
        assert_eq!(catalog().route("what time is it"), None);
    }

    #[test]
    fn ties_go_to_the_skill_listed_first() {
        let r = Router::new(&[("a".into(), "deploy".into()), ("b".into(), "deploy".into())]);
        let s = r.scores("deploy");
        assert_eq!(s[0].0, 0);
        assert_eq!(s[0].1, s[1].1);
    }
}
