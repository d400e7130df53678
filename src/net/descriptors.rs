//! File descriptors: every connection is one, and a process out of them cannot
//! `accept` — then a flood blocks everyone, telnet and `/health` alike. At start the
//! soft limit is raised to the hard one, and the connection caps are lowered to fit
//! under it with headroom kept for the data file, the search index's segments, the
//! listener and the flood itself: a connection over the caps is still accepted and
//! told `too_many_connections`, never left in the kernel's queue.

use crate::auth::limits::ConnLimits;

/// Descriptors kept for everything but connections (the data file, tantivy's segment
/// files and merges, the listener, logs) and for accepting what is over the caps.
pub const HEADROOM: u64 = 1024;

/// Raises the soft descriptor limit to the hard one; the soft limit after.
pub fn raise_limit() -> Option<u64> {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit/setrlimit write and read only the struct passed.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return None;
        }
        if lim.rlim_cur < lim.rlim_max {
            let raised = libc::rlimit { rlim_cur: lim.rlim_max, rlim_max: lim.rlim_max };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                lim.rlim_cur = lim.rlim_max;
            }
        }
    }
    Some(lim.rlim_cur)
}

/// The caps as configured, lowered to fit the descriptor limit (raised first) less the
/// headroom; says so when it lowers them.
pub fn fit(mut caps: ConnLimits) -> ConnLimits {
    let Some(limit) = raise_limit() else { return caps };
    let room = limit.saturating_sub(HEADROOM).max(16) as usize;
    if caps.total > room {
        tracing::warn!(
            configured = caps.total,
            lowered_to = room,
            descriptor_limit = limit,
            "--max-connections is more than the descriptor limit allows with headroom; lowered (raise `ulimit -n` for more)"
        );
        caps.total = room;
    }
    caps.per_ip = caps.per_ip.min(caps.total);
    caps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_caps_fit_under_the_descriptor_limit() {
        let limit = raise_limit().expect("a descriptor limit");
        let caps = fit(ConnLimits { total: usize::MAX / 2, per_ip: usize::MAX / 2 });
        assert!((caps.total as u64) + HEADROOM <= limit.max(16 + HEADROOM), "{caps:?} under {limit}");
        assert!(caps.per_ip <= caps.total);
        let small = fit(ConnLimits { total: 10, per_ip: 3 });
        assert_eq!((small.total, small.per_ip), (10, 3));
    }
}
