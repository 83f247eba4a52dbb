//! SKILL.md: the frontmatter finder, YAML key extraction (saphyr-parser) and the whole
//! validation of one file, for every profile. No panic, no hang (alias bombs and deep nesting
//! included); every range lies inside the text and on character boundaries.
#![no_main]

use std::path::Path;

use alisio_ls::config::Profile;
use alisio_ls::skills::frontmatter::{Found, find_block, parse_yaml};
use alisio_ls::skills::validate;
use alisio_ls::text::TextRange;
use alisio_ls::workspace::DiskFs;
use libfuzzer_sys::fuzz_target;

fn inside(text: &str, r: TextRange) {
    assert!(r.start <= r.end && r.end <= text.len(), "{r:?} in {} bytes", text.len());
    assert!(text.is_char_boundary(r.start) && text.is_char_boundary(r.end), "{r:?}");
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        // Bytes that are not UTF-8 still go through validation (binary SKILL.md).
        let _ = validate::check(&DiskFs, Path::new("/nonexistent/fuzz-skill/SKILL.md"), data, data.len() as u64, Profile::Alisio);
        return;
    };
    let (body, bom) = match text.strip_prefix('\u{feff}') {
        Some(rest) => (rest, true),
        None => (text, false),
    };
    for profile in [Profile::Alisio, Profile::Spec, Profile::Codex, Profile::ClaudeCode] {
        match find_block(body, bom, profile) {
            Found::Block(b) => {
                for r in [b.open, b.yaml, b.close] {
                    inside(body, r);
                }
                assert!(b.body_start <= body.len());
                let fm = parse_yaml(body, b.yaml, profile);
                for e in &fm.entries {
                    inside(body, e.key_span);
                    inside(body, e.value.span);
                }
                if let Some(err) = &fm.error {
                    assert!(err.at <= body.len(), "{err:?}");
                }
                let _ = fm.get("name");
            }
            Found::Unterminated(r) => inside(body, r),
            Found::Missing(_) => {}
        }
        let _ = validate::check(&DiskFs, Path::new("/nonexistent/fuzz-skill/SKILL.md"), data, data.len() as u64, profile);
    }
});
