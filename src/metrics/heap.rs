//! The heap's live bytes, counted by the allocator when the binary is built with the
//! `heap-count` feature (`main.rs` wraps its allocator in `Counting`): what the program
//! holds, beside what the process's RSS says the allocator keeps. A soak's RSS growth is
//! the sum of both; this tells them apart (`pawns_heap_live_bytes`, and `bench agents
//! --sample-every` reads it). Off by default: every allocation and free pays one atomic
//! add.

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering::Relaxed};

static LIVE: AtomicIsize = AtomicIsize::new(0);
static ON: AtomicBool = AtomicBool::new(false);

/// Live heap bytes, when the allocator counts them (`None`: it does not).
pub fn live_bytes() -> Option<u64> {
    ON.load(Relaxed).then(|| LIVE.load(Relaxed).max(0) as u64)
}

/// An allocator that counts the bytes `A` has handed out and not yet taken back.
pub struct Counting<A>(pub A);

impl<A> Counting<A> {
    /// Says the counting is live (called once at start-up by the binary that installed it).
    pub fn announce(&self) {
        ON.store(true, Relaxed);
    }
}

// SAFETY: every call is passed to `A` unchanged; only a counter is added.
unsafe impl<A: GlobalAlloc> GlobalAlloc for Counting<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `A`'s.
        let p = unsafe { self.0.alloc(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size() as isize, Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as above.
        let p = unsafe { self.0.alloc_zeroed(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size() as isize, Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { self.0.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size() as isize, Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as above.
        let p = unsafe { self.0.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_add(new_size as isize - layout.size() as isize, Relaxed);
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::alloc::System;

    #[test]
    fn counts_what_is_held_and_nothing_after_it_is_freed() {
        let a = Counting(System);
        let before = LIVE.load(Relaxed);
        let l = Layout::from_size_align(1000, 8).unwrap();
        // SAFETY: a valid layout; the block is freed with the same layout below.
        unsafe {
            let p = a.alloc(l);
            assert_eq!(LIVE.load(Relaxed) - before, 1000);
            let p = a.realloc(p, l, 3000);
            assert_eq!(LIVE.load(Relaxed) - before, 3000);
            a.dealloc(p, Layout::from_size_align(3000, 8).unwrap());
            let z = a.alloc_zeroed(l);
            assert!(std::slice::from_raw_parts(z, 1000).iter().all(|&b| b == 0));
            a.dealloc(z, l);
        }
        assert_eq!(LIVE.load(Relaxed), before);
        assert_eq!(live_bytes(), None, "not announced: the test binary's allocator does not count");
    }
}
