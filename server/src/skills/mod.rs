//! Agent Skills (skills.md): discovery of skill roots, reading and validating one `SKILL.md`
//! under a profile, the catalog a model sees, and the three skill tools.
//!
//! Plain Rust over an [`Fs`](crate::workspace::Fs): no printing, no protocol types. The CLI and
//! the language server adapt the values returned here.

pub mod catalog;
#[cfg(test)]
mod conformance_tests;
pub mod discover;
pub mod editor;
mod fixes;
pub mod frontmatter;
pub mod report;
pub mod tools;
pub mod validate;

/// Maps `f` over `items` on the available cores (order kept). Small inputs stay on one thread.
pub(crate) fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let n = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(8);
    if n <= 1 || items.len() < 32 {
        return items.iter().map(&f).collect();
    }
    let chunk = items.len().div_ceil(n);
    std::thread::scope(|s| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|c| s.spawn(|| c.iter().map(&f).collect::<Vec<R>>()))
            .collect();
        let mut out = Vec::with_capacity(items.len());
        for h in handles {
            match h.join() {
                Ok(v) => out.extend(v),
                Err(e) => std::panic::resume_unwind(e),
            }
        }
        out
    })
}
