//! Mapping over many files on the available cores: reading files is most of the cost of the
//! skill catalog, skill reports and the suppression post-filter.

/// Maps `f` over `items` on the available cores (at most 8 threads), keeping the order. Inputs
/// shorter than `min_parallel` stay on one thread; a panic in `f` is resumed on the caller.
pub fn par_map<T: Sync, R: Send>(
    items: &[T],
    min_parallel: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let n = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(8);
    if n <= 1 || items.len() < min_parallel {
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
