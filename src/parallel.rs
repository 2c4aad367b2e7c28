//! Work spread over the machine's cores, for inputs large enough to pay for the threads.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Below this much work (in `cost` units: bytes of input) everything is done on the calling
/// thread: starting threads would cost more than they save.
const PARALLEL_FROM: usize = 64 * 1024;

/// At most this many threads, whatever the machine has.
const MAX_THREADS: usize = 8;

/// `f` of every item, in order. With enough work in all (`cost` of each item) the items are
/// shared among threads as each becomes free, the costliest first, so that one large item
/// started last does not hold up the end.
pub fn map<T: Sync, R: Send>(items: &[T], cost: impl Fn(&T) -> usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let costs: Vec<usize> = items.iter().map(cost).collect();
    if costs.iter().sum::<usize>() < PARALLEL_FROM {
        return items.iter().map(f).collect();
    }
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let threads = cores.min(MAX_THREADS).min(items.len());
    if threads < 2 {
        return items.iter().map(f).collect();
    }
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&index| std::cmp::Reverse(costs[index]));
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let work = || {
        while let Some(&index) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
            let result = f(&items[index]);
            *results[index].lock().expect("no thread panics holding it") = Some(result);
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..threads {
            scope.spawn(work);
        }
        work();
    });
    results
        .into_iter()
        .map(|slot| slot.into_inner().expect("no thread panics holding it").expect("every item was done"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_order_of_the_items_on_any_number_of_threads() {
        let items: Vec<usize> = (0..1000).collect();
        let squares: Vec<usize> = items.iter().map(|n| n * n).collect();
        // Large costs: shared among threads; small: done in place. Both give the same.
        assert_eq!(map(&items, |_| PARALLEL_FROM, |n| n * n), squares);
        assert_eq!(map(&items, |_| 1, |n| n * n), squares);
        assert_eq!(map(&[] as &[usize], |_| PARALLEL_FROM, |n| *n), Vec::<usize>::new());
    }
}
