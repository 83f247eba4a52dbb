//! Mapping over many files on the available cores: reading files is most of the cost of the
//! skill catalog, skill reports and the suppression post-filter.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Items a worker takes at a time: small enough that a worker the scheduler holds back (a
/// shared, loaded machine) leaves its share to the others, large enough to cost nothing.
const BATCH: usize = 16;

/// Maps `f` over `items` on the available cores (at most 8 threads, the caller's among them),
/// keeping the order. Workers take batches from a shared counter, so a slow or descheduled one
/// does not hold the rest up. Inputs shorter than `min_parallel` stay on one thread; a panic in
/// `f` is resumed on the caller.
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
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<(usize, Vec<R>)>> = Mutex::new(Vec::new());
    let work = || {
        loop {
            let start = next.fetch_add(BATCH, Ordering::Relaxed);
            if start >= items.len() {
                break;
            }
            let end = (start + BATCH).min(items.len());
            let out: Vec<R> = items[start..end].iter().map(&f).collect();
            done.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push((start, out));
        }
    };
    std::thread::scope(|s| {
        let handles: Vec<_> = (1..n).map(|_| s.spawn(work)).collect();
        work();
        for h in handles {
            if let Err(e) = h.join() {
                std::panic::resume_unwind(e);
            }
        }
    });
    let mut batches = done
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    batches.sort_unstable_by_key(|(start, _)| *start);
    let mut out = Vec::with_capacity(items.len());
    for (_, b) in batches {
        out.extend(b);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::par_map;

    #[test]
    fn keeps_the_order_of_every_item() {
        let items: Vec<usize> = (0..1000).collect();
        let out = par_map(&items, 1, |i| i * 2);
        assert_eq!(out, items.iter().map(|i| i * 2).collect::<Vec<_>>());
        assert_eq!(par_map(&items[..3], 32, |i| i + 1), [1, 2, 3]);
    }
}
