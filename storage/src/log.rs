//! The record log: what every group commit wrote, keyed so that reading one session
//! costs that session's records, not the log.
//!
//! - `record_chunks` ((batch, session) → the session's records of that batch): each
//!   commit appends its chunks at the end of the tree (batch ids only grow), and a
//!   reader that follows the log (the search index, a restore check) reads it in key
//!   order.
//! - `session_spans` ((session, first batch) → batches holding the session): the
//!   recorder writes a segment when a session ends and, for every running session, at
//!   each sweep; META `spans_through` names the batch through which every session's
//!   list is complete.
//!
//! Reading a session: its segments, then one point lookup per listed batch; a running
//! session also looks up each batch after `spans_through` (a sweep's worth at most).
//! Nothing here trusts the spans for durability: the chunks are the record, written in
//! the same transaction as the rest of the batch, and a crash's lost pending spans are
//! found again by `close_open_sessions` from the chunk keys alone.

use std::collections::{BTreeMap, HashMap, HashSet};

use redb::{ReadOnlyTable, ReadTransaction, ReadableDatabase, ReadableTable};

use crate::{codec, day_of, redb_err, tables, EventRecord, RecordBatch, RecordBody, SessionMeta, Store, StoreError};

/// What a scan of one session read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SessionScan {
    /// Records handed over.
    pub records: u64,
    /// The last batch that held one of them (0: none).
    pub last_batch: u64,
    /// Chunks decoded: the session's own, never anyone else's.
    pub chunks: u64,
}

/// One read transaction's view of the log.
struct LogView {
    chunks: ReadOnlyTable<(u64, u64), &'static [u8]>,
    spans: ReadOnlyTable<(u64, u64), &'static [u8]>,
    through: u64,
    last: u64,
}

impl LogView {
    fn open(tx: &ReadTransaction) -> Result<LogView, StoreError> {
        let chunks = tx.open_table(tables::RECORD_CHUNKS).map_err(redb_err)?;
        let spans = tx.open_table(tables::SESSION_SPANS).map_err(redb_err)?;
        let meta = tx.open_table(tables::META).map_err(redb_err)?;
        let through = meta.get(tables::SPANS_THROUGH).map_err(redb_err)?.map(|v| u64_le(v.value())).unwrap_or(0);
        let last = chunks.last().map_err(redb_err)?.map(|(k, _)| k.value().0).unwrap_or(0);
        Ok(LogView { chunks, spans, through, last })
    }

    /// The batches listed for a session by its segments, ascending.
    fn listed(&self, session: u64) -> Result<Vec<u64>, StoreError> {
        let mut ids = Vec::new();
        for row in self.spans.range((session, 0)..=(session, u64::MAX)).map_err(redb_err)? {
            let (_, v) = row.map_err(redb_err)?;
            ids.extend(codec::decode::<Vec<u64>>(v.value())?);
        }
        ids.sort_unstable();
        ids.dedup();
        Ok(ids)
    }

    /// Every batch holding the session's records, ascending. An ended session's list is
    /// complete (its end wrote the last segment); a running one's is complete through
    /// `spans_through`, and each batch after that is looked up.
    fn batches(&self, meta: &SessionMeta) -> Result<Vec<u64>, StoreError> {
        let mut ids = self.listed(meta.session)?;
        if meta.ended_us.is_none() && meta.first_batch != u64::MAX {
            let from = self.through.saturating_add(1).max(meta.first_batch.max(1)).max(ids.last().map_or(0, |l| l + 1));
            for b in from..=self.last {
                if self.chunks.get((b, meta.session)).map_err(redb_err)?.is_some() {
                    ids.push(b);
                }
            }
        }
        Ok(ids)
    }

    fn chunk(&self, batch: u64, session: u64) -> Result<Vec<EventRecord>, StoreError> {
        match self.chunks.get((batch, session)).map_err(redb_err)? {
            Some(v) => codec::decode(v.value()),
            None => Ok(Vec::new()),
        }
    }
}

fn u64_le(b: &[u8]) -> u64 {
    b.try_into().map(u64::from_le_bytes).unwrap_or(0)
}

impl Store {
    /// Commits one batch of the record in a single transaction: sessions replace their
    /// rows (keeping the batch they started in), each session's records become one chunk
    /// of the next batch, the spans asked for are written, and a sweep moves
    /// `spans_through`. Returns the batch id (0 when the batch held no records).
    pub fn write_records(&self, batch: &RecordBatch) -> Result<u64, StoreError> {
        let tx = self.database().begin_write().map_err(redb_err)?;
        let mut id = 0;
        {
            let mut chunks = tx.open_table(tables::RECORD_CHUNKS).map_err(redb_err)?;
            let next = chunks.last().map_err(redb_err)?.map(|(k, _)| k.value().0 + 1).unwrap_or(1);
            // Each session's records, in the order they came (seq order).
            let mut by_session: BTreeMap<u64, Vec<&EventRecord>> = BTreeMap::new();
            for r in &batch.records {
                by_session.entry(r.session).or_default().push(r);
            }
            if !batch.journal.is_empty() {
                // One row per run per commit, holding the commit's chunks in order.
                let mut runs: BTreeMap<u64, Vec<&[u8]>> = BTreeMap::new();
                for (run, bytes) in &batch.journal {
                    runs.entry(*run).or_default().push(bytes);
                }
                let mut j = tx.open_table(tables::JOURNAL).map_err(redb_err)?;
                for (run, chunks) in runs {
                    let last = j.range((run, 0)..=(run, u64::MAX)).map_err(redb_err)?.next_back().transpose().map_err(redb_err)?;
                    let n = last.map(|(k, _)| k.value().1 + 1).unwrap_or(0);
                    // Each chunk framed by its length (u32 LE).
                    let mut row = Vec::with_capacity(chunks.iter().map(|c| c.len() + 4).sum());
                    for c in chunks {
                        row.extend_from_slice(&(c.len() as u32).to_le_bytes());
                        row.extend_from_slice(c);
                    }
                    j.insert((run, n), row.as_slice()).map_err(redb_err)?;
                }
            }
            if !batch.records.is_empty() {
                id = next;
                let mut buf = Vec::with_capacity(64 * 1024);
                for (session, rs) in &by_session {
                    codec::encode_compact_into(&mut buf, rs)?;
                    chunks.insert((id, *session), buf.as_slice()).map_err(redb_err)?;
                }
                let mut days = tx.open_table(tables::RECORD_DAYS).map_err(redb_err)?;
                let last_day = days.last().map_err(redb_err)?.map(|(k, _)| k.value());
                let day = day_of(batch.records[0].at_us);
                if last_day.is_none_or(|d| day > d) {
                    days.insert(day, id).map_err(redb_err)?;
                }
            }
            let mut sessions = tx.open_table(tables::SESSIONS).map_err(redb_err)?;
            let mut by_agent = tx.open_table(tables::AGENT_SESSIONS).map_err(redb_err)?;
            for s in &batch.sessions {
                let mut s = s.clone();
                let first = sessions.get(s.session).map_err(redb_err)?.map(|v| codec::decode::<SessionMeta>(v.value())).transpose()?;
                s.first_batch = first.map(|f| f.first_batch).filter(|b| *b > 0).unwrap_or(next);
                sessions.insert(s.session, codec::encode(&s)?.as_slice()).map_err(redb_err)?;
                by_agent.insert((s.agent.as_str(), s.started_us, s.session), ()).map_err(redb_err)?;
            }
            let mut spans = tx.open_table(tables::SESSION_SPANS).map_err(redb_err)?;
            for (session, earlier) in &batch.spans {
                let mut ids = earlier.clone();
                if id > 0 && by_session.contains_key(session) {
                    ids.push(id);
                }
                if let Some(&first) = ids.first() {
                    spans.insert((*session, first), codec::encode(&ids)?.as_slice()).map_err(redb_err)?;
                }
            }
            if batch.sweep {
                let through = if id > 0 { id } else { next - 1 };
                let mut meta = tx.open_table(tables::META).map_err(redb_err)?;
                meta.insert(tables::SPANS_THROUGH, through.to_le_bytes().as_slice()).map_err(redb_err)?;
            }
        }
        tx.commit().map_err(redb_err)?;
        Ok(id)
    }

    /// The last batch id committed (0: none).
    pub fn last_record_id(&self) -> Result<u64, StoreError> {
        let tx = self.database().begin_read().map_err(redb_err)?;
        Ok(LogView::open(&tx)?.last)
    }

    /// Streams one session's records with `seq > after_seq` from batch `from_batch` on,
    /// chunk by chunk (a long session is never held whole), in `seq` order; `f` gets
    /// each with the batch that holds it. Reads only this session's chunks.
    pub fn scan_session(
        &self,
        meta: &SessionMeta,
        after_seq: u64,
        from_batch: u64,
        f: &mut dyn FnMut(u64, EventRecord),
    ) -> Result<SessionScan, StoreError> {
        let tx = self.database().begin_read().map_err(redb_err)?;
        let view = LogView::open(&tx)?;
        let mut scan = SessionScan::default();
        for b in view.batches(meta)?.into_iter().filter(|b| *b >= from_batch) {
            scan.chunks += 1;
            for r in view.chunk(b, meta.session)? {
                if r.seq > after_seq {
                    scan.records += 1;
                    scan.last_batch = b;
                    f(b, r);
                }
            }
        }
        Ok(scan)
    }

    /// One session's stream, in order.
    pub fn session_records(&self, session: u64) -> Result<Vec<EventRecord>, StoreError> {
        // A session with no row has no batches to look in.
        let meta = self.session(session)?.unwrap_or(SessionMeta { session, first_batch: u64::MAX, ..Default::default() });
        let mut out = Vec::new();
        self.scan_session(&meta, 0, 0, &mut |_, r| out.push(r))?;
        Ok(out)
    }

    /// Many sessions' streams, each in order, from one read transaction.
    pub fn sessions_records(&self, sessions: &[SessionMeta]) -> Result<HashMap<u64, Vec<EventRecord>>, StoreError> {
        let tx = self.database().begin_read().map_err(redb_err)?;
        let view = LogView::open(&tx)?;
        let mut out = HashMap::with_capacity(sessions.len());
        for s in sessions {
            let mut rs = Vec::new();
            for b in view.batches(s)? {
                rs.extend(view.chunk(b, s.session)?);
            }
            rs.sort_by_key(|r| r.seq);
            rs.dedup_by_key(|r| r.seq);
            out.insert(s.session, rs);
        }
        Ok(out)
    }

    /// Sessions a stopped server left open (no end recorded): closed as `how`, their
    /// unlisted batches found from the chunk keys after `spans_through` (no record of
    /// anyone else is decoded), and `spans_through` moved to the end. Returns how many.
    pub fn close_open_sessions(&self, how: &str, now_us: u64) -> Result<usize, StoreError> {
        let open: Vec<SessionMeta> = self.all_sessions()?.into_iter().filter(|s| s.ended_us.is_none()).collect();
        if open.is_empty() {
            return Ok(0);
        }
        let mut batch = RecordBatch { sweep: true, ..Default::default() };
        {
            let tx = self.database().begin_read().map_err(redb_err)?;
            let view = LogView::open(&tx)?;
            let wanted: HashSet<u64> = open.iter().map(|s| s.session).collect();
            let from = open.iter().map(|s| s.first_batch.max(1)).min().unwrap_or(1).max(view.through + 1);
            let mut unlisted: HashMap<u64, Vec<u64>> = HashMap::new();
            for row in view.chunks.range((from, 0)..).map_err(redb_err)? {
                let (k, _) = row.map_err(redb_err)?;
                let (b, s) = k.value();
                if wanted.contains(&s) {
                    unlisted.entry(s).or_default().push(b);
                }
            }
            for mut s in open {
                let tail = unlisted.remove(&s.session).unwrap_or_default();
                let mut all = view.listed(s.session)?;
                all.extend(tail.iter().copied().filter(|b| *b >= s.first_batch));
                let (mut n, mut last_at) = (0u64, None);
                for b in &all {
                    let rs = view.chunk(*b, s.session)?;
                    n += rs.len() as u64;
                    last_at = rs.last().map(|r| r.at_us).or(last_at);
                }
                s.records = n;
                s.ended_us = Some(last_at.unwrap_or(now_us));
                s.ended_how = Some(how.to_string());
                batch.spans.push((s.session, tail));
                batch.sessions.push(s);
            }
        }
        let n = batch.sessions.len();
        self.write_records(&batch)?;
        Ok(n)
    }

    /// The records of up to `limit` batches after batch `after`, in commit order, each
    /// with its batch id (the watermark a reader such as the search index keeps).
    pub fn records_after(&self, after: u64, limit: usize) -> Result<Vec<(u64, EventRecord)>, StoreError> {
        let batches = self.batches_after(after, limit)?;
        Ok(batches.into_iter().flat_map(|(id, records)| records.into_iter().map(move |r| (id, r))).collect())
    }

    /// Up to `limit` batches after batch `after`, in commit order, each whole: its
    /// sessions' chunks in session order (the order the recorder hands the index), a
    /// batch retention emptied still listed so a reader's watermark moves past it.
    pub fn batches_after(&self, after: u64, limit: usize) -> Result<Vec<(u64, Vec<EventRecord>)>, StoreError> {
        let tx = self.database().begin_read().map_err(redb_err)?;
        let chunks = tx.open_table(tables::RECORD_CHUNKS).map_err(redb_err)?;
        let mut out: Vec<(u64, Vec<EventRecord>)> = Vec::new();
        if after == u64::MAX || limit == 0 {
            return Ok(out);
        }
        for row in chunks.range((after + 1, 0)..).map_err(redb_err)? {
            let (k, v) = row.map_err(redb_err)?;
            let (b, _) = k.value();
            if out.last().map(|(id, _)| *id) != Some(b) {
                if out.len() == limit {
                    break;
                }
                out.push((b, Vec::new()));
            }
            if let Some((_, rs)) = out.last_mut() {
                rs.extend(codec::decode::<Vec<EventRecord>>(v.value())?);
            }
        }
        Ok(out)
    }

    /// The runs with a journal (their ids: boot times in µs), oldest first.
    pub fn journal_runs(&self) -> Result<Vec<u64>, StoreError> {
        let tx = self.database().begin_read().map_err(redb_err)?;
        let t = match tx.open_table(tables::JOURNAL) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
            Err(e) => return Err(redb_err(e)),
        };
        let mut out: Vec<u64> = Vec::new();
        for row in t.iter().map_err(redb_err)? {
            let (k, _) = row.map_err(redb_err)?;
            let run = k.value().0;
            if out.last() != Some(&run) {
                out.push(run);
            }
        }
        Ok(out)
    }

    /// Retention: drops the journals of runs that ended (the next run began) before
    /// `before_us` — their observations are going, so they could no longer be compared.
    /// The newest run is always kept. Returns the runs dropped.
    pub fn drop_journals_before(&self, before_us: u64) -> Result<usize, StoreError> {
        let runs = self.journal_runs()?;
        let doomed: Vec<u64> = runs.windows(2).filter(|w| w[1] < before_us).map(|w| w[0]).collect();
        if doomed.is_empty() {
            return Ok(0);
        }
        let tx = self.database().begin_write().map_err(redb_err)?;
        {
            let mut t = tx.open_table(tables::JOURNAL).map_err(redb_err)?;
            for run in &doomed {
                t.retain_in((*run, 0)..=(*run, u64::MAX), |_, _| false).map_err(redb_err)?;
            }
        }
        tx.commit().map_err(redb_err)?;
        Ok(doomed.len())
    }

    /// One run's journal chunks, in order, each to `f`.
    pub fn journal_chunks(&self, run: u64, f: &mut dyn FnMut(&[u8]) -> Result<(), StoreError>) -> Result<u64, StoreError> {
        let tx = self.database().begin_read().map_err(redb_err)?;
        let t = match tx.open_table(tables::JOURNAL) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(0),
            Err(e) => return Err(redb_err(e)),
        };
        let mut n = 0;
        for row in t.range((run, 0)..=(run, u64::MAX)).map_err(redb_err)? {
            let (_, v) = row.map_err(redb_err)?;
            let mut rest = v.value();
            while rest.len() >= 4 {
                let len = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
                let Some(chunk) = rest.get(4..4 + len) else {
                    return Err(StoreError::Codec(format!("run {run}: a journal row ends inside a chunk")));
                };
                f(chunk)?;
                n += 1;
                rest = &rest[4 + len..];
            }
        }
        Ok(n)
    }

    /// Retention: drops the observations of every batch committed before day
    /// `before_day` (days since 1970-01-01, UTC), keeping decisions and transitions.
    /// Whole days at a time, in one transaction per day. Returns the observations dropped.
    pub fn drop_observations_before(&self, before_day: u32) -> Result<u64, StoreError> {
        let days: Vec<(u32, u64)> = {
            let rtx = self.database().begin_read().map_err(redb_err)?;
            let t = rtx.open_table(tables::RECORD_DAYS).map_err(redb_err)?;
            let mut v = Vec::new();
            for row in t.iter().map_err(redb_err)? {
                let (k, id) = row.map_err(redb_err)?;
                v.push((k.value(), id.value()));
            }
            v
        };
        let mut dropped = 0;
        for (i, (day, first)) in days.iter().enumerate() {
            if *day >= before_day {
                break;
            }
            let end = days.get(i + 1).map(|(_, id)| *id).unwrap_or(u64::MAX);
            let wtx = self.database().begin_write().map_err(redb_err)?;
            {
                let mut t = wtx.open_table(tables::RECORD_CHUNKS).map_err(redb_err)?;
                let mut rewrite = Vec::new();
                for row in t.range((*first, 0)..(end, 0)).map_err(redb_err)? {
                    let (k, v) = row.map_err(redb_err)?;
                    let records: Vec<EventRecord> = codec::decode(v.value())?;
                    let before = records.len();
                    let kept: Vec<EventRecord> =
                        records.into_iter().filter(|r| !matches!(r.body, RecordBody::Observation { .. })).collect();
                    if kept.len() != before {
                        dropped += (before - kept.len()) as u64;
                        rewrite.push((k.value(), codec::encode(&kept)?));
                    }
                }
                for (k, bytes) in rewrite {
                    t.insert(k, bytes.as_slice()).map_err(redb_err)?;
                }
            }
            wtx.commit().map_err(redb_err)?;
        }
        Ok(dropped)
    }
}
