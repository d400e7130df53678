//! Thread priorities: the engine first. On a small machine every thread of the server
//! shares two cores with the others; when a pulse wakes a thousand socket tasks, the
//! woken workers used to take the engine's core in the middle of its pulse (a pulse of
//! 3 ms of CPU took 9–15 ms of wall time). The engine keeps the process's priority;
//! every other thread the server starts (socket workers, the recorder, the indexer and
//! the threads it starts, the dreamer, the HUD pool) lowers its own by `pawns serve
//! --thread-nice` (default 5: about a third of the engine's share when all compete).
//!
//! The record's threads with seconds to spare (the packer, the search indexer and the
//! threads tantivy starts from it, the dreamer) go lower still, by `--record-nice`
//! (default 15): a record is searchable within seconds, a sweep or a dream can wait,
//! and a reply cannot, so when the two cores are full they take what the engine, the
//! sockets and the recorder (which has its 50 ms promise to keep) leave. At 10,000
//! agents on two cores this was the difference between a reply p99 of 130-210 ms and
//! one under 50 ms. Were they to fall far behind, the index catches up from the file
//! and the engine's admission holds input back (`game/run/admission.rs`).
//!
//! Only Linux sets a priority per thread; elsewhere these are no-ops. Lowering one's
//! own priority needs no privilege; raising it back would, so nothing here raises.

use std::sync::atomic::{AtomicI32, Ordering};

/// The default `--thread-nice`.
pub const DEFAULT_THREAD_NICE: i32 = 5;

/// The default `--record-nice`.
pub const DEFAULT_RECORD_NICE: i32 = 15;

/// The increment threads that are not the engine take (0: all equal).
static THREAD_NICE: AtomicI32 = AtomicI32::new(0);
/// The increment the record's threads take.
static RECORD_NICE: AtomicI32 = AtomicI32::new(0);
/// The engine's nice value: the calling thread's when the increment was set.
static BASE_NICE: AtomicI32 = AtomicI32::new(0);

/// Sets the increment for threads started from now on (a value outside 0..=19 is
/// clamped), counted from the calling thread's priority, which the engine keeps.
pub fn set_thread_nice(n: i32) {
    BASE_NICE.store(this_thread_nice(), Ordering::Relaxed);
    THREAD_NICE.store(n.clamp(0, 19), Ordering::Relaxed);
}

/// The increment in force.
pub fn thread_nice() -> i32 {
    THREAD_NICE.load(Ordering::Relaxed)
}

/// Sets the record threads' increment (clamped to 0..=19), counted from the engine's
/// priority as `set_thread_nice` took it.
pub fn set_record_nice(n: i32) {
    RECORD_NICE.store(n.clamp(0, 19), Ordering::Relaxed);
}

/// Called first thing on a thread of the record with seconds to spare (packer, indexer,
/// dreamer): lower than the other background threads, by the larger of the increments.
pub fn record_thread() {
    let n = RECORD_NICE.load(Ordering::Relaxed).max(thread_nice());
    if n > 0 {
        lower_this_thread_to((BASE_NICE.load(Ordering::Relaxed) + n).min(19));
    }
}

/// Called first thing on a server thread that is not the engine: its priority goes down
/// to the engine's plus the increment (never below the lowest, 19). Threads it starts
/// inherit it; one that already inherited it stays where it is.
pub fn background_thread() {
    let n = thread_nice();
    if n > 0 {
        lower_this_thread_to((BASE_NICE.load(Ordering::Relaxed) + n).min(19));
    }
}

/// The calling thread's nice value (Linux; 0 elsewhere).
pub fn this_thread_nice() -> i32 {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: plain integer arguments; -1 is a valid nice value, so errno is cleared first.
        unsafe {
            *libc::__errno_location() = 0;
            let tid = libc::gettid() as libc::id_t;
            let v = libc::getpriority(libc::PRIO_PROCESS, tid);
            if v == -1 && *libc::__errno_location() != 0 {
                return 0;
            }
            v
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        0
    }
}

fn lower_this_thread_to(target: i32) {
    #[cfg(target_os = "linux")]
    {
        if this_thread_nice() >= target {
            return;
        }
        // SAFETY: plain integer arguments; on Linux PRIO_PROCESS with a thread id sets
        // that thread's nice value only.
        let rc = unsafe { libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, target) };
        if rc != 0 {
            tracing::debug!("cannot lower this thread's priority: {}", std::io::Error::last_os_error());
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = target;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_background_thread_is_lowered_and_its_children_inherit_it() {
        set_thread_nice(3);
        let base = this_thread_nice();
        let (own, child) = std::thread::spawn(|| {
            background_thread();
            let own = this_thread_nice();
            // A thread started from a lowered one is not lowered twice.
            let child = std::thread::spawn(|| {
                background_thread();
                this_thread_nice()
            })
            .join()
            .unwrap();
            (own, child)
        })
        .join()
        .unwrap();
        // The spawning thread is untouched.
        assert_eq!(this_thread_nice(), base);
        if cfg!(target_os = "linux") {
            assert_eq!(own, (base + 3).min(19));
            assert_eq!(child, own);
        }
        assert_eq!(thread_nice(), 3);
        // The record's threads go lower still; never above the other background threads.
        let record_at = |n: i32| {
            set_record_nice(n);
            std::thread::spawn(|| {
                record_thread();
                this_thread_nice()
            })
            .join()
            .unwrap()
        };
        let (lower, at_least_background) = (record_at(9), record_at(1));
        if cfg!(target_os = "linux") {
            assert_eq!(lower, (base + 9).min(19));
            assert_eq!(at_least_background, (base + 3).min(19));
        }
        set_thread_nice(40);
        assert_eq!(thread_nice(), 19);
        set_thread_nice(-2);
        assert_eq!(thread_nice(), 0);
    }
}
