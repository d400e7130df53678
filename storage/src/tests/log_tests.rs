//! The record log's tail, sweeps and packs (see `log`, `pack`, `parts`): reading back
//! what was written whatever the sweeps, slices and crashes.

use super::*;

pub(super) fn obs_of(session: u64, seq: u64) -> EventRecord {
    rec(session, seq, 1_000 + seq, &format!("s{session}r{seq}"))
}

pub(super) fn running(session: u64) -> SessionMeta {
    SessionMeta { session, agent: format!("a{session}"), started_us: session, ..Default::default() }
}

/// Reading one session decodes that session's records and no one else's: its packs
/// (one per sweep it was in), then the tail rows since the last sweep that hold a part
/// of it (only that part decoded).
#[test]
fn one_session_costs_its_own_chunks_not_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("t.redb")).unwrap();
    // 100 sessions; session 1 has a record in every 10th batch, the others in every one.
    let all: Vec<SessionMeta> = (1..=100).map(running).collect();
    store.write_records(&RecordBatch { sessions: all.clone(), ..Default::default() }).unwrap();
    let mut seqs = vec![0u64; 101];
    for b in 1..=200u64 {
        let mut batch = RecordBatch::default();
        for s in 1..=100u64 {
            if s != 1 || b % 10 == 0 {
                seqs[s as usize] += 1;
                batch.records.push(obs_of(s, seqs[s as usize]));
            }
        }
        // Sweeps at batches 100 and 150 pack everything so far.
        batch.sweep = b == 100 || b == 150;
        assert_eq!(store.write_records(&batch).unwrap(), b);
    }
    assert_eq!(store.tail_rows().unwrap(), 50);
    let meta = store.session(1).unwrap().unwrap();
    let mut got = Vec::new();
    let scan = store.scan_session(&meta, 0, 0, &mut |b, r| got.push((b, r.seq))).unwrap();
    assert_eq!(scan.records, 20);
    assert_eq!(scan.chunks, 7, "two packs and five tail rows of its own, none of the others' 199 packs");
    assert_eq!(got.first(), Some(&(10, 1)), "each record with the batch that committed it");
    assert_eq!(got[10], (110, 11));
    assert_eq!(got.last(), Some(&(200, 20)));
    // From a watermark's batch on: only the values from there.
    let tail = store.scan_session(&meta, 15, 160, &mut |_, _| {}).unwrap();
    assert_eq!((tail.records, tail.chunks, tail.last_batch), (5, 5, 200));
    let mid = store.scan_session(&meta, 9, 105, &mut |_, _| {}).unwrap();
    assert_eq!((mid.records, mid.chunks), (10, 6), "the pack at 150 holds 110..150, the tail 160..200");
    // The session ends: read the same.
    let mut end = meta.clone();
    end.ended_us = Some(9);
    store.write_records(&RecordBatch { sessions: vec![end], ..Default::default() }).unwrap();
    let ended = store.session(1).unwrap().unwrap();
    let scan = store.scan_session(&ended, 0, 0, &mut |_, _| {}).unwrap();
    assert_eq!((scan.records, scan.chunks), (20, 7));
    assert_eq!(store.session_records(2).unwrap().len(), 200);
    // Following the log: batches whole and in order, across packs and the tail.
    assert_eq!(store.batches_after(0, 5).unwrap().iter().map(|(b, _)| *b).collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
    let across = store.batches_after(97, 6).unwrap();
    assert_eq!(across.iter().map(|(b, _)| *b).collect::<Vec<_>>(), [98, 99, 100, 101, 102, 103]);
    assert_eq!(across[2].1.len(), 100, "batch 100 holds session 1 too");
    assert_eq!(across[2].1.iter().map(|r| r.session).collect::<Vec<_>>(), (1..=100).collect::<Vec<_>>(), "in session order");
    assert_eq!(store.batches_after(195, 100).unwrap().iter().map(|(b, _)| *b).collect::<Vec<_>>(), [196, 197, 198, 199, 200]);
    assert_eq!(store.records_after(0, usize::MAX).unwrap().len(), 99 * 200 + 20);
}

/// Whatever the sweeps, the log reads back what was written: each session in seq order
/// with the batch that committed each record, and the whole log in batch order.
#[test]
fn the_log_reads_the_same_whatever_the_sweeps() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("t.redb")).unwrap();
    store.write_records(&RecordBatch { sessions: (1..=7).map(running).collect(), ..Default::default() }).unwrap();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut rand = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let mut seqs = [0u64; 8];
    let mut want: Vec<Vec<(u64, u64)>> = vec![Vec::new(); 8];
    let mut log: Vec<(u64, Vec<(u64, u64)>)> = Vec::new();
    for _ in 0..300 {
        let mut batch = RecordBatch { sweep: rand(17) == 0, ..Default::default() };
        for s in 1..=7u64 {
            for _ in 0..rand(3) {
                seqs[s as usize] += 1;
                batch.records.push(obs_of(s, seqs[s as usize]));
            }
        }
        let id = store.write_records(&batch).unwrap();
        if id > 0 {
            let mut in_batch: Vec<(u64, u64)> = batch.records.iter().map(|r| (r.session, r.seq)).collect();
            in_batch.sort_by_key(|(s, _)| *s);
            for (s, seq) in &in_batch {
                want[*s as usize].push((id, *seq));
            }
            log.push((id, in_batch));
        }
    }
    for s in 1..=7u64 {
        let meta = store.session(s).unwrap().unwrap();
        let mut got = Vec::new();
        store.scan_session(&meta, 0, 0, &mut |b, r| got.push((b, r.seq))).unwrap();
        assert_eq!(got, want[s as usize], "session {s}");
        // From every watermark a dream could leave (its last record's seq and batch):
        // exactly what came after it.
        for (i, (b, seq)) in want[s as usize].iter().enumerate() {
            let mut after = Vec::new();
            store.scan_session(&meta, *seq, *b, &mut |b, r| after.push((b, r.seq))).unwrap();
            assert_eq!(after, want[s as usize][i + 1..], "session {s} from batch {b}, seq {seq}");
        }
    }
    // One reader for every session and watermark (a wave of dreams): the same, with
    // the tail decompressed once.
    let reader = store.log_reader().unwrap();
    for s in (1..=7u64).rev() {
        let meta = store.session(s).unwrap().unwrap();
        for (i, (b, seq)) in want[s as usize].iter().enumerate().rev() {
            let mut after = Vec::new();
            reader.scan_session(&meta, *seq, *b, &mut |b, r| after.push((b, r.seq))).unwrap();
            assert_eq!(after, want[s as usize][i + 1..], "one reader: session {s} from batch {b}, seq {seq}");
        }
        let mut whole = Vec::new();
        reader.scan_session(&meta, 0, 0, &mut |b, r| whole.push((b, r.seq))).unwrap();
        assert_eq!(whole, want[s as usize], "one reader: session {s}");
    }
    drop(reader);
    let all: Vec<(u64, Vec<(u64, u64)>)> = store
        .batches_after(0, usize::MAX)
        .unwrap()
        .into_iter()
        .map(|(b, rs)| (b, rs.iter().map(|r| (r.session, r.seq)).collect()))
        .collect();
    assert_eq!(all, log);
    for after in [0, 1, 37, 150, log.last().unwrap().0] {
        let some: Vec<u64> = store.batches_after(after, 9).unwrap().iter().map(|(b, _)| *b).collect();
        let model: Vec<u64> = log.iter().map(|(b, _)| *b).filter(|b| *b > after).take(9).collect();
        assert_eq!(some, model, "after {after}");
    }
    let metas: Vec<SessionMeta> = (1..=7).map(|s| store.session(s).unwrap().unwrap()).collect();
    let many = store.sessions_records(&metas).unwrap();
    for s in 1..=7u64 {
        assert_eq!(many[&s].iter().map(|r| r.seq).collect::<Vec<_>>(), want[s as usize].iter().map(|(_, q)| *q).collect::<Vec<_>>());
    }
}

/// Packs built off the writer while commits go on are applied by a later commit: what
/// came after them stays in the tail, nothing is read twice, and packs a sweep made stale
/// are dropped.
#[test]
fn packs_built_off_the_writer_apply_later_and_stale_ones_are_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("t.redb")).unwrap();
    store.write_records(&RecordBatch { sessions: vec![running(1), running(2)], ..Default::default() }).unwrap();
    assert_eq!(store.build_packs().unwrap(), None, "an empty tail builds nothing");
    for q in 1..=3 {
        store.write_records(&RecordBatch { records: vec![obs_of(1, q), obs_of(2, q)], ..Default::default() }).unwrap();
    }
    let built = store.build_packs().unwrap().unwrap();
    assert_eq!((built.through, built.sessions().unwrap(), built.rows), (3, 2, 3));
    // Meanwhile the recorder commits on.
    store.write_records(&RecordBatch { records: vec![obs_of(1, 4)], ..Default::default() }).unwrap();
    store.write_records(&RecordBatch { records: vec![obs_of(2, 4)], packs: Some(built.clone()), ..Default::default() }).unwrap();
    assert_eq!(store.tail_rows().unwrap(), 2, "batches 4 and 5 wait for the next sweep");
    let seqs = |s: u64| store.session_records(s).unwrap().iter().map(|r| r.seq).collect::<Vec<_>>();
    assert_eq!((seqs(1), seqs(2)), (vec![1, 2, 3, 4], vec![1, 2, 3, 4]));
    let meta = store.session(1).unwrap().unwrap();
    assert_eq!(store.scan_session(&meta, 0, 0, &mut |_, _| {}).unwrap().chunks, 2, "its pack and one tail row");
    assert_eq!(store.batches_after(0, 100).unwrap().iter().map(|(b, _)| *b).collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
    // Built, then overtaken by a sweep: applying them would read batches 4-5 twice.
    let stale = store.build_packs().unwrap().unwrap();
    store.write_records(&RecordBatch { records: vec![obs_of(1, 5)], sweep: true, ..Default::default() }).unwrap();
    store.write_records(&RecordBatch { records: vec![obs_of(2, 5)], packs: Some(stale), ..Default::default() }).unwrap();
    assert_eq!((seqs(1), seqs(2)), (vec![1, 2, 3, 4, 5], vec![1, 2, 3, 4, 5]));
    assert_eq!(store.records_after(0, usize::MAX).unwrap().len(), 10);
}

/// A sweep applied in slices: between them, the sessions already packed have their rows
/// both in their pack and in the tail, and every reader still reads each record once; a
/// build or a sweep that comes before the last slice leaves out what was packed.
#[test]
fn a_sweep_applied_in_slices_reads_each_record_once() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("t.redb")).unwrap();
    store.write_records(&RecordBatch { sessions: (1..=4).map(running).collect(), ..Default::default() }).unwrap();
    let mut seqs = [0u64; 5];
    // Text that does not compress, so each session's pack fills a frame of its own.
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut batch_of = |sessions: &[u64]| {
        let records = sessions
            .iter()
            .map(|s| {
                seqs[*s as usize] += 1;
                let q = seqs[*s as usize];
                let noise: String = (0..700)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        format!("{:x}", x)
                    })
                    .collect();
                rec(*s, q, 1_000 + q, &noise)
            })
            .collect();
        RecordBatch { records, ..Default::default() }
    };
    for _ in 0..3 {
        store.write_records(&batch_of(&[1, 2, 3, 4])).unwrap();
    }
    let mut built = store.build_packs().unwrap().unwrap();
    assert_eq!((built.through, built.sessions().unwrap(), built.packs.len()), (3, 4, 4));
    let first = built.split_off(2);
    assert!(!first.complete && built.complete);
    let mut b4 = batch_of(&[1, 3]);
    b4.packs = Some(first);
    store.write_records(&b4).unwrap();
    // Sessions 1 and 2 are packed through batch 3; 3 and 4 are still in the tail.
    assert_eq!(store.tail_rows().unwrap(), 4);
    let read = |s: u64| store.session_records(s).unwrap().iter().map(|r| r.seq).collect::<Vec<_>>();
    assert_eq!((read(1), read(2), read(3), read(4)), (vec![1, 2, 3, 4], vec![1, 2, 3], vec![1, 2, 3, 4], vec![1, 2, 3]));
    let log = |after: u64| -> Vec<(u64, Vec<(u64, u64)>)> {
        store.batches_after(after, 100).unwrap().into_iter().map(|(b, rs)| (b, rs.iter().map(|r| (r.session, r.seq)).collect())).collect()
    };
    let whole = |b: u64, q: u64| (b, vec![(1, q), (2, q), (3, q), (4, q)]);
    assert_eq!(log(0), vec![whole(1, 1), whole(2, 2), whole(3, 3), (4, vec![(1, 4), (3, 4)])]);
    assert_eq!(log(2), vec![whole(3, 3), (4, vec![(1, 4), (3, 4)])]);
    let metas: Vec<SessionMeta> = (1..=4).map(|s| store.session(s).unwrap().unwrap()).collect();
    assert_eq!(store.sessions_records(&metas).unwrap()[&2].len(), 3);
    // A rebuild now (as after a failed slice) leaves out what the first slice packed.
    let rebuilt = store.build_packs().unwrap().unwrap();
    let packed: Vec<u64> = rebuilt.packs.iter().flat_map(|(first, v)| crate::pack_group::sessions_in(*first, v).unwrap()).collect();
    assert_eq!(packed, [1, 3, 4], "session 1 for batch 4 only; 2 is done");
    // A sweep (a stop) before the last slice: the rest is packed, nothing twice.
    store.write_records(&RecordBatch { sweep: true, ..Default::default() }).unwrap();
    assert_eq!(store.tail_rows().unwrap(), 0);
    assert_eq!((read(1), read(2), read(3), read(4)), (vec![1, 2, 3, 4], vec![1, 2, 3], vec![1, 2, 3, 4], vec![1, 2, 3]));
    assert_eq!(store.records_after(0, usize::MAX).unwrap().len(), 14);
    // The last slice, come late, is stale and dropped.
    let mut b5 = batch_of(&[2]);
    b5.packs = Some(built);
    store.write_records(&b5).unwrap();
    assert_eq!(read(2), [1, 2, 3, 4]);
    assert_eq!(read(4), [1, 2, 3]);
    assert_eq!(store.records_after(0, usize::MAX).unwrap().len(), 15);
}

/// A backup holds every table: the tail not yet packed, the engine's journal and the
/// dream log too (before, those two were left behind).
#[test]
fn a_backup_holds_the_tail_the_journal_and_the_dream_log() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("t.redb")).unwrap();
    store
        .write_records(&RecordBatch { sessions: vec![running(1)], records: vec![obs_of(1, 1)], sweep: true, ..Default::default() })
        .unwrap();
    store.write_records(&RecordBatch { records: vec![obs_of(1, 2)], journal: vec![(5, b"boot".to_vec())], ..Default::default() }).unwrap();
    {
        let tx = store.begin_write().unwrap();
        tx.open_table(tables::DREAM_LOG).unwrap().insert(("ann", 9), b"a dream".as_slice()).unwrap();
        tx.commit().unwrap();
    }
    assert_eq!(store.tail_rows().unwrap(), 1);
    let out = dir.path().join("b.redb");
    store.backup_to(&out, &mut |_, _| {}).unwrap();
    let (copy, _) = Store::open(&out).unwrap();
    assert_eq!(copy.session_records(1).unwrap().iter().map(|r| r.seq).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(copy.tail_rows().unwrap(), 1);
    assert_eq!(copy.journal_runs().unwrap(), [5]);
    use redb::ReadableTableMetadata;
    assert_eq!(copy.begin_read().unwrap().open_table(tables::DREAM_LOG).unwrap().len().unwrap(), 1);
}

/// A crash leaves the tail unpacked; the next start packs it and closes the sessions it
/// left open with every record.
#[test]
fn a_crash_left_tail_is_packed_when_sessions_close() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("t.redb")).unwrap();
    store.write_records(&RecordBatch { sessions: vec![running(1), running(2)], ..Default::default() }).unwrap();
    store.write_records(&RecordBatch { records: vec![obs_of(1, 1), obs_of(2, 1)], ..Default::default() }).unwrap();
    store.write_records(&RecordBatch { records: vec![obs_of(1, 2)], sweep: true, ..Default::default() }).unwrap();
    // After the sweep (through batch 2), batches the recorder never packed.
    store.write_records(&RecordBatch { records: vec![obs_of(2, 2)], ..Default::default() }).unwrap();
    store.write_records(&RecordBatch { records: vec![obs_of(1, 3), obs_of(3, 1)], ..Default::default() }).unwrap();
    // A running session is read whole before the close too.
    assert_eq!(store.session_records(1).unwrap().iter().map(|r| r.seq).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(store.close_open_sessions("server_stopped", 99).unwrap(), 2);
    assert_eq!(store.tail_rows().unwrap(), 0);
    let s1 = store.session(1).unwrap().unwrap();
    assert_eq!((s1.records, s1.ended_us), (3, Some(1_003)));
    let s2 = store.session(2).unwrap().unwrap();
    assert_eq!(s2.records, 2);
    assert_eq!(store.scan_session(&s2, 0, 0, &mut |_, _| {}).unwrap().chunks, 2, "its two packs");
    assert_eq!(store.session_records(1).unwrap().len(), 3);
    assert_eq!(store.session_records(3).unwrap().len(), 1, "a session without a row is found in its pack");
}

/// A reader sees the log as it was when it was opened: a commit after it is for the next
/// reader (the dreamer opens one after the requests it serves were sent).
#[test]
fn a_reader_sees_the_log_as_it_was_opened() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("t.redb")).unwrap();
    store.write_records(&RecordBatch { sessions: vec![running(1), running(2)], ..Default::default() }).unwrap();
    store.write_records(&RecordBatch { records: vec![obs_of(1, 1), obs_of(2, 1)], ..Default::default() }).unwrap();
    let early = store.log_reader().unwrap();
    store.write_records(&RecordBatch { records: vec![obs_of(1, 2), obs_of(2, 2)], ..Default::default() }).unwrap();
    let meta = store.session(1).unwrap().unwrap();
    let count = |r: &LogReader| r.scan_session(&meta, 0, 0, &mut |_, _| {}).unwrap().records;
    assert_eq!(count(&early), 1);
    assert_eq!(count(&store.log_reader().unwrap()), 2);
    assert!(early.age() < std::time::Duration::from_secs(60));
}

/// A sweep's packs share values in frames that fill a page (`pack_frame`): sixty
/// sessions' ~2 KB packs take a few values; each session reads back whole, the log
/// follows in batch order, and retention strips observations inside frames.
#[test]
fn a_sweeps_packs_are_framed_and_read_back_alike() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("g.redb")).unwrap();
    let all: Vec<SessionMeta> = (1..=60).map(running).collect();
    store.write_records(&RecordBatch { sessions: all, ..Default::default() }).unwrap();
    // Words that do not compress, so each session's pack is a couple of KB.
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut noise = move || -> String {
        (0..40)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                format!("{:x}", x)
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut want: std::collections::BTreeMap<u64, Vec<EventRecord>> = Default::default();
    for b in 1..=3u64 {
        let mut batch = RecordBatch::default();
        for s in 1..=60u64 {
            let seq = b;
            let mut r = rec(s, seq, 1_000 * b + s, &noise());
            if s % 2 == 0 {
                r.body = RecordBody::Decision(Box::default());
            }
            want.entry(s).or_default().push(r.clone());
            batch.records.push(r);
        }
        batch.sweep = b == 3;
        store.write_records(&batch).unwrap();
    }
    assert_eq!(store.tail_rows().unwrap(), 0);
    let rows = store.inventory().unwrap().record_chunks;
    assert!((2..=8).contains(&rows), "60 packs of ~2 KB in {rows} values");
    for (s, rs) in &want {
        assert_eq!(&store.session_records(*s).unwrap(), rs, "session {s}");
    }
    let followed: Vec<(u64, usize)> = store.batches_after(0, 10).unwrap().iter().map(|(b, rs)| (*b, rs.len())).collect();
    assert_eq!(followed, [(1, 60), (2, 60), (3, 60)]);
    // Retention of everything: the observations go from every group, decisions stay.
    let dropped = store.drop_observations_before(u32::MAX).unwrap();
    assert_eq!(dropped, 90);
    for (s, rs) in &want {
        let kept: Vec<EventRecord> = rs.iter().filter(|r| matches!(r.body, RecordBody::Decision(_))).cloned().collect();
        assert_eq!(store.session_records(*s).unwrap(), kept, "session {s}");
    }
}

/// A file written before frames holds packs alone and in groups of separately
/// compressed packs (`pack_group`, version 6): it reads the same, follows the same, and
/// retention strips inside those groups, leaving them groups.
#[test]
fn packs_written_before_frames_read_and_strip_as_before() {
    use redb::ReadableTable;
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("old.redb")).unwrap();
    store.write_records(&RecordBatch { sessions: (1..=6).map(running).collect(), ..Default::default() }).unwrap();
    let mut want: std::collections::BTreeMap<u64, Vec<EventRecord>> = Default::default();
    for b in 1..=2u64 {
        let mut batch = RecordBatch { sweep: b == 2, ..Default::default() };
        for s in 1..=6u64 {
            let mut r = rec(s, b, 1_000 * b + s, &format!("session {s} sees batch {b}"));
            if s % 3 == 0 {
                r.body = RecordBody::Decision(Box::default());
            }
            want.entry(s).or_default().push(r.clone());
            batch.records.push(r);
        }
        store.write_records(&batch).unwrap();
    }
    // The frames rewritten as an older build wrote them: sessions 1-5 in a group, 6 alone.
    {
        let tx = store.begin_write().unwrap();
        {
            let mut t = tx.open_table(tables::RECORD_CHUNKS).unwrap();
            let mut old = Vec::new();
            let mut keys = Vec::new();
            for row in t.iter().unwrap() {
                let (k, v) = row.unwrap();
                keys.push(k.value());
                for (s, p) in crate::pack_frame::directory(v.value()).unwrap().unframe().unwrap() {
                    let mut w = crate::parts::PartsWriter::default();
                    for part in p.iter() {
                        let (b, bytes) = part.unwrap();
                        w.push(b, bytes);
                    }
                    let mut value = Vec::new();
                    w.finish_zstd(&mut value);
                    old.push((k.value().0, s, value));
                }
            }
            for k in keys {
                t.remove(k).unwrap();
            }
            let sweep = old[0].0;
            let members: Vec<(u64, Vec<u8>)> = old.iter().filter(|(_, s, _)| *s <= 5).map(|(_, s, v)| (*s, v.clone())).collect();
            let grouped = crate::pack_group::group(&members);
            assert_eq!(grouped.len(), 1);
            t.insert((sweep, 1), grouped[0].1.as_slice()).unwrap();
            t.insert((sweep, 6), old[5].2.as_slice()).unwrap();
        }
        tx.commit().unwrap();
    }
    for (s, rs) in &want {
        assert_eq!(&store.session_records(*s).unwrap(), rs, "session {s}");
    }
    let followed: Vec<(u64, usize)> = store.batches_after(0, 10).unwrap().iter().map(|(b, rs)| (*b, rs.len())).collect();
    assert_eq!(followed, [(1, 6), (2, 6)]);
    assert_eq!(store.drop_observations_before(u32::MAX).unwrap(), 8);
    for (s, rs) in &want {
        let kept: Vec<EventRecord> = rs.iter().filter(|r| matches!(r.body, RecordBody::Decision(_))).cloned().collect();
        assert_eq!(store.session_records(*s).unwrap(), kept, "session {s}");
    }
    let tx = store.begin_read().unwrap();
    let t = tx.open_table(tables::RECORD_CHUNKS).unwrap();
    let firsts: Vec<(u64, bool)> =
        t.iter().unwrap().map(|r| r.unwrap()).map(|(k, v)| (k.value().1, crate::pack_group::is_group(v.value()))).collect();
    assert_eq!(firsts, [(1, true), (6, false)]);
}
