//! Attachments from the editor (spec/sessions.md §4.6): the one place their delimited block is
//! written and recognised. An attachment is its own text part of the user message:
//!
//! ```text
//! <attachment path="src/main.rs" lines="3-7">
//! …the text, verbatim…
//! </attachment>
//! ```
//!
//! followed by a blank line (parts are joined without a separator when sent). The ContextReport
//! gives each such part its own segment, of kind `attachment` with the path as origin.

use super::model::{Part, PartKind};

const OPEN: &str = "<attachment path=\"";

/// The block of one attachment; `lines` are 1-based and inclusive.
#[must_use]
pub fn block(path: &str, lines: Option<(u32, u32)>, text: &str) -> String {
    let path = path.replace('&', "&amp;").replace('"', "&quot;");
    let range = lines.map_or(String::new(), |(a, b)| format!(" lines=\"{a}-{b}\""));
    let nl = if text.ends_with('\n') || text.is_empty() {
        ""
    } else {
        "\n"
    };
    format!("{OPEN}{path}\"{range}>\n{text}{nl}</attachment>\n\n")
}

/// The path of a part that is an attachment block, else `None`.
#[must_use]
pub fn origin(text: &str) -> Option<String> {
    let rest = text.strip_prefix(OPEN)?;
    if !text.trim_end().ends_with("</attachment>") {
        return None;
    }
    let end = rest.find('"')?;
    Some(rest[..end].replace("&quot;", "\"").replace("&amp;", "&"))
}

/// A user message split: its attachments (`(path, block)`) and the text of its other parts.
pub type Split<'a> = (Vec<(String, &'a str)>, Vec<&'a str>);

/// The attachment parts of a user message (`(path, text)`, in order) and the text of the other
/// text parts; `None` (and no allocation) when it has no attachment, the common case.
#[must_use]
pub fn split(parts: &[Part]) -> Option<Split<'_>> {
    let is_text = |p: &&Part| p.kind == PartKind::Text;
    if !parts
        .iter()
        .filter(is_text)
        .any(|p| p.text.starts_with(OPEN))
    {
        return None;
    }
    let mut attached = Vec::new();
    let mut rest = Vec::new();
    for p in parts.iter().filter(is_text) {
        match origin(&p.text) {
            Some(path) => attached.push((path, p.text.as_str())),
            None => rest.push(p.text.as_str()),
        }
    }
    Some((attached, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_names_its_path_and_lines_and_is_recognised_again() {
        let b = block("src/a \"q\".rs", Some((3, 7)), "fn a() {}");
        assert_eq!(
            b,
            "<attachment path=\"src/a &quot;q&quot;.rs\" lines=\"3-7\">\nfn a() {}\n</attachment>\n\n"
        );
        assert_eq!(origin(&b).as_deref(), Some("src/a \"q\".rs"));
        let whole = block("README.md", None, "# R\n");
        assert_eq!(
            whole,
            "<attachment path=\"README.md\">\n# R\n</attachment>\n\n"
        );
        assert_eq!(origin("<attachment path=\"x\">no end"), None);
        assert_eq!(origin("plain text"), None);
        let parts = vec![Part::text(whole.clone()), Part::text("Explain it.")];
        let (a, rest) = split(&parts).unwrap();
        assert_eq!(a, vec![("README.md".to_string(), whole.as_str())]);
        assert_eq!(rest, vec!["Explain it."]);
        assert_eq!(split(&[Part::text("plain")]), None);
    }
}
