//! A server's CPU by thread, from /proc (Linux): the load generators report where the
//! server's time went, so recording's cost (its recorder, packer and search threads) is
//! read from one run rather than from the difference of two runs with and without
//! `--no-record`, which this machine's hour-to-hour drift swamps.

use std::collections::BTreeMap;

/// Each thread of a process by id: its name and its CPU seconds so far. Threads are
/// told apart by id, not name: a blocking pool's thread that ends between two samples
/// must not take the time it spent before the first out of its namesakes' difference.
pub type ThreadSample = BTreeMap<u32, (String, f64)>;

/// The roles the report names, in its order.
pub const ROLES: [&str; 8] = ["sockets", "engine", "recorder", "packer", "search", "dreamer", "hud", "other"];

/// The roles that are the record's cost: committing, packing and indexing it. The
/// engine's own share (building the records) runs on its thread and is not in them.
pub const RECORDING: [&str; 3] = ["recorder", "packer", "search"];

/// What a server thread does, by its name (the kernel keeps 15 bytes of it).
pub fn role(comm: &str) -> &'static str {
    match comm {
        // tokio's threads: the sockets, and its blocking pool (logins' memory, API calls).
        "tokio-rt-worker" | "tokio-runtime-w" => "sockets",
        "pawns-engine" => "engine",
        "pawns-recorder" => "recorder",
        "pawns-packer" => "packer",
        "pawns-dreamer" => "dreamer",
        // The indexer follows the record; tantivy's own threads index, merge and compress.
        "pawns-indexer" | "docstore-compre" | "segment_update" | "segment_updater" => "search",
        c if c.starts_with("thrd-tantivy") || c.starts_with("merge_thread") => "search",
        c if c.starts_with("pawns-hud") => "hud",
        _ => "other",
    }
}

/// Each live thread's name and CPU seconds (user + system).
pub fn sample(pid: u32) -> Option<ThreadSample> {
    let mut out = ThreadSample::new();
    for entry in std::fs::read_dir(format!("/proc/{pid}/task")).ok()? {
        let Ok(entry) = entry else { continue };
        let Some(tid) = entry.file_name().to_str().and_then(|t| t.parse::<u32>().ok()) else { continue };
        let path = entry.path();
        let (Ok(comm), Ok(stat)) = (std::fs::read_to_string(path.join("comm")), std::fs::read_to_string(path.join("stat"))) else {
            // The thread ended between the listing and the read.
            continue;
        };
        let Some(secs) = stat_cpu_seconds(&stat) else { continue };
        out.insert(tid, (comm.trim_end().to_string(), secs));
    }
    Some(out)
}

/// User + system CPU seconds from a `stat` line (fields 14 and 15; the name in
/// parentheses may hold spaces, so fields are counted after its closing one).
pub fn stat_cpu_seconds(stat: &str) -> Option<f64> {
    let after = stat.rsplit_once(')')?.1;
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// The CPU seconds each role spent between two samples. A thread that ended between
/// them took its time in the window with it: the process total minus these is reported
/// as `other` by `by_role_within`.
pub fn by_role(before: &ThreadSample, after: &ThreadSample) -> BTreeMap<&'static str, f64> {
    let mut out: BTreeMap<&'static str, f64> = ROLES.iter().map(|r| (*r, 0.0)).collect();
    for (tid, (name, secs)) in after {
        // A thread born in between spent all it has in the window.
        let spent = secs - before.get(tid).map(|(_, b)| *b).unwrap_or(0.0);
        if spent > 0.0 {
            *out.entry(role(name)).or_default() += spent;
        }
    }
    out
}

/// `by_role`, with what the process spent beyond its live threads (threads that ended
/// in between) added to `other`, so the roles sum to `process_secs`.
pub fn by_role_within(before: &ThreadSample, after: &ThreadSample, process_secs: f64) -> BTreeMap<&'static str, f64> {
    let mut out = by_role(before, after);
    let counted: f64 = out.values().sum();
    if process_secs > counted {
        *out.entry("other").or_default() += process_secs - counted;
    }
    out
}

/// The recording threads' share of the server's CPU (0..1).
pub fn recording_share(roles: &BTreeMap<&'static str, f64>) -> f64 {
    share(roles, &RECORDING)
}

/// The same with `other` counted in: threads that ended within the window are only in
/// it, and tantivy's indexing threads end at each index commit (every 2 s), so search's
/// own share lies between the two.
pub fn recording_share_with_other(roles: &BTreeMap<&'static str, f64>) -> f64 {
    share(roles, &["recorder", "packer", "search", "other"])
}

fn share(roles: &BTreeMap<&'static str, f64>, of: &[&str]) -> f64 {
    let total: f64 = roles.values().sum();
    if total <= 0.0 {
        return 0.0;
    }
    of.iter().map(|r| roles.get(r).copied().unwrap_or(0.0)).sum::<f64>() / total
}

/// One line: each role's share of one core over `secs`, then recording's share.
pub fn describe(roles: &BTreeMap<&'static str, f64>, secs: f64) -> String {
    let parts: Vec<String> = ROLES
        .iter()
        .filter_map(|r| {
            let s = roles.get(r).copied().unwrap_or(0.0);
            (s > 0.0 || matches!(*r, "sockets" | "engine")).then(|| format!("{r} {:.0}%", s / secs.max(1e-9) * 100.0))
        })
        .collect();
    format!(
        "{} of a core; recording (recorder, packer, search) {:.1}% of the server's CPU, {:.1}% with other (threads that ended in the window: tantivy's indexing threads end at each index commit); the engine's building of records not counted",
        parts.join(" · "),
        recording_share(roles) * 100.0,
        recording_share_with_other(roles) * 100.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_fall_in_the_roles_the_report_names() {
        assert_eq!(role("tokio-rt-worker"), "sockets");
        assert_eq!(role("pawns-engine"), "engine");
        assert_eq!(role("pawns-recorder"), "recorder");
        assert_eq!(role("pawns-packer"), "packer");
        assert_eq!(role("pawns-indexer"), "search");
        assert_eq!(role("thrd-tantivy-in"), "search");
        assert_eq!(role("merge_thread_3"), "search");
        assert_eq!(role("docstore-compre"), "search");
        assert_eq!(role("pawns-hud-1"), "hud");
        assert_eq!(role("pawns"), "other");
        for r in RECORDING {
            assert!(ROLES.contains(&r));
        }
    }

    #[test]
    fn cpu_is_read_after_the_name_even_with_spaces_and_parentheses_in_it() {
        // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
        let stat = "42 (a (b) c) S 1 42 42 0 -1 4194560 10 0 0 0 250 50 0 0 20 0 1 0";
        assert_eq!(stat_cpu_seconds(stat), Some(3.0));
        assert_eq!(stat_cpu_seconds("garbage"), None);
    }

    #[test]
    fn roles_sum_to_the_process_and_recording_is_its_share() {
        let t = |name: &str, secs: f64| (name.to_string(), secs);
        // Thread 9, a blocking pool's, had spent 5 s before the window and ends in it.
        let before: ThreadSample =
            [(1, t("pawns-engine", 1.0)), (2, t("pawns-recorder", 0.5)), (3, t("tokio-rt-worker", 2.0)), (9, t("tokio-rt-worker", 5.0))]
                .into();
        let after: ThreadSample = [
            (1, t("pawns-engine", 4.0)),
            (2, t("pawns-recorder", 1.5)),
            (3, t("tokio-rt-worker", 5.0)),
            (4, t("thrd-tantivy-in", 1.0)),
            (5, t("tokio-rt-worker", 1.0)),
        ]
        .into();
        // 3 + 1 + (3 + 1) + 1 = 9 in live threads; the process spent 10: 1 in thread 9.
        let roles = by_role_within(&before, &after, 10.0);
        assert_eq!(roles["engine"], 3.0);
        assert_eq!(roles["recorder"], 1.0);
        assert_eq!(roles["search"], 1.0);
        assert_eq!(roles["sockets"], 4.0);
        assert_eq!(roles["other"], 1.0);
        assert!((recording_share(&roles) - 0.2).abs() < 1e-12);
        assert!((recording_share_with_other(&roles) - 0.3).abs() < 1e-12);
        let line = describe(&roles, 10.0);
        assert!(line.starts_with("sockets 40% · engine 30% · recorder 10% · search 10% · other 10% of a core"), "{line}");
        assert!(line.contains("recording (recorder, packer, search) 20.0% of the server's CPU, 30.0% with other"), "{line}");
    }
}
