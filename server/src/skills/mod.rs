//! Agent Skills (skills.md): discovery of skill roots, reading and validating one `SKILL.md`
//! under a profile, the catalog a model sees, and the three skill tools.
//!
//! Plain Rust over an [`Fs`](crate::workspace::Fs): no printing, no protocol types. The CLI and
//! the language server adapt the values returned here.

pub mod frontmatter;
pub mod validate;
pub mod discover;
pub mod catalog;
pub mod report;
pub mod tools;
pub mod editor;
#[cfg(test)]
mod conformance_tests;
