//! Agent Skills (skills.md): discovery of skill roots, reading and validating one `SKILL.md`
//! under a profile, the catalog a model sees, and the three skill tools.
//!
//! Plain Rust over an [`Fs`](alisio_base::workspace::Fs): no printing, no protocol types. The CLI and
//! the language server adapt the values returned here.

pub mod catalog;
#[cfg(test)]
mod conformance_tests;
pub mod discover;
pub mod editor;
mod fixes;
pub mod frontmatter;
pub mod listing;
pub mod quality;
pub mod report;
pub mod tools;
pub mod triggers;
pub mod validate;
pub mod validity;

/// Below this many items the skill readers stay on one thread.
pub(crate) const PAR_MIN: usize = 32;
