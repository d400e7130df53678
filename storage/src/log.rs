//! The record log: what every group commit wrote, keyed so that reading one session
//! costs that session's records, not the log.
//!
//! - `record_tail` (batch → a parts value, a part per session): each group commit
//!   appends one row, whatever the number of sessions recording, compressed together
//!   (see `parts`). This is what makes a record durable.
//! - `record_chunks` ((batch, session) → the session's records): at each sweep (every
//!   10 s, sooner under load) every tail row is packed, one pack per session, holding
//!   the session's records of each batch since the last sweep (a parts value keyed by
//!   batch), written in groups of several sessions' packs keyed (the sweep's batch, the
//!   group's first session) (see `pack_group`), and the tail is emptied in the same
//!   transaction. Chunks written before migration 10 hold one batch each (a codec
//!   value); both read the same. A pack's key is never below a batch it holds, and
//!   every key is below every tail row's batch, so the log reads in batch order.
//! - `session_spans` ((session, first key of the segment) → chunk keys holding it): the
//!   sweep writes one per session it packed; META `spans_through` names the batch
//!   through which every session's list is complete (everything after it is the tail).
//!
//! Reading a session: its segments, one point lookup per listed chunk, then the tail (a
//! sweep's worth at most: each row is decompressed, only this session's part decoded).
//! Nothing here trusts the spans for durability: the tail rows are the record, and a
//! crash's unpacked tail is packed when the next start closes the sessions it left open.

use std::collections::{BTreeMap, HashMap, HashSet};

use redb::{ReadableTable, ReadableTableMetadata, Table};

use crate::log_view::LogView;
pub use crate::log_view::{LogReader, SessionScan};
use crate::pack;
use crate::parts::{is_parts, Parts, PartsWriter};
use crate::{codec, day_of, redb_err, tables, EventRecord, RecordBatch, RecordBody, SessionMeta, Store, StoreError};

thread_local! {
    /// The writing thread's buffers (the recorder's, a long-lived one): a commit's parts
    /// and its value, kept between commits so a busy log does not grow and fault in
    /// fresh ones tens of times a second.
    static SCRATCH: std::cell::RefCell<(PartsWriter, Vec<u8>)> = std::cell::RefCell::new((PartsWriter::default(), Vec::new()));
}

impl Store {
    /// Commits one batch of the record in a single transaction: sessions replace their
    /// rows (keeping the batch they started in), the records become one tail row (a part
    /// per session), the spans asked for are written as given, and a sweep packs the
    /// tail and moves `spans_through`. Returns the batch id (0 when the batch held no
    /// records).
    pub fn write_records(&self, batch: &RecordBatch) -> Result<u64, StoreError> {
        let tx = self.begin_write()?;
        let mut id = 0;
        {
            let mut chunks = tx.open_table(tables::RECORD_CHUNKS).map_err(redb_err)?;
            let mut tail = tx.open_table(tables::RECORD_TAIL).map_err(redb_err)?;
            let last_chunk = chunks.last().map_err(redb_err)?.map(|(k, _)| k.value().0).unwrap_or(0);
            let last_tail = tail.last().map_err(redb_err)?.map(|(k, _)| k.value()).unwrap_or(0);
            let next = last_chunk.max(last_tail) + 1;
            if !batch.journal.is_empty() {
                // One row per run per commit, holding the commit's chunks in order.
                let mut runs: BTreeMap<u64, Vec<&[u8]>> = BTreeMap::new();
                for (run, bytes) in &batch.journal {
                    runs.entry(*run).or_default().push(bytes);
                }
                let mut j = tx.open_table(tables::JOURNAL).map_err(redb_err)?;
                let mut meta = tx.open_table(tables::META).map_err(redb_err)?;
                for (run, chunks) in runs {
                    crate::journal::append(&mut j, &mut meta, run, &chunks)?;
                }
            }
            if !batch.model_calls.is_empty() {
                let mut calls = tx.open_table(tables::MODEL_CALLS).map_err(redb_err)?;
                for (hash, call) in &batch.model_calls {
                    if calls.get(hash.as_str()).map_err(redb_err)?.is_none() {
                        calls.insert(hash.as_str(), codec::encode(call)?.as_slice()).map_err(redb_err)?;
                    }
                }
            }
            if !batch.records.is_empty() {
                id = next;
                // Each session's records, in the order they came (seq order).
                let mut by_session: BTreeMap<u64, Vec<&EventRecord>> = BTreeMap::new();
                for r in &batch.records {
                    by_session.entry(r.session).or_default().push(r);
                }
                SCRATCH.with_borrow_mut(|(w, buf)| -> Result<(), StoreError> {
                    w.clear();
                    for (session, rs) in &by_session {
                        codec::encode_records_into(buf, rs)?;
                        w.push(*session, buf);
                    }
                    w.finish(buf);
                    tail.insert(id, buf.as_slice()).map_err(redb_err)?;
                    Ok(())
                })?;
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
                // Its end comes after its last record: nothing of it is committed later.
                if s.ended_us.is_some() && s.last_batch == 0 {
                    s.last_batch = next;
                }
                sessions.insert(s.session, codec::encode(&s)?.as_slice()).map_err(redb_err)?;
                by_agent.insert((s.agent.as_str(), s.started_us, s.session), ()).map_err(redb_err)?;
            }
            let mut spans = tx.open_table(tables::SESSION_SPANS).map_err(redb_err)?;
            for (session, ids) in &batch.spans {
                if let Some(&first) = ids.first() {
                    spans.insert((*session, first), codec::encode(ids)?.as_slice()).map_err(redb_err)?;
                }
            }
            // Packs built off this thread, then a sweep's own: each moves `spans_through`.
            let mut through = None;
            let mut sweeps = tx.open_table(tables::RECORD_SWEEPS).map_err(redb_err)?;
            let mut dicts = tx.open_table(tables::RECORD_DICTS).map_err(redb_err)?;
            if let Some(p) = &batch.packs {
                through = pack::apply(&mut tail, &mut chunks, &mut sweeps, &mut dicts, p)?;
            }
            if batch.sweep {
                let packed = match pack::build(&chunks, &sweeps, &tail, &self.pack_dict)? {
                    Some(p) => pack::apply(&mut tail, &mut chunks, &mut sweeps, &mut dicts, &p)?,
                    None => None,
                };
                through = Some(packed.unwrap_or(next - 1));
            }
            if let Some(through) = through {
                let mut meta = tx.open_table(tables::META).map_err(redb_err)?;
                meta.insert(tables::SPANS_THROUGH, through.to_le_bytes().as_slice()).map_err(redb_err)?;
            }
        }
        tx.commit().map_err(redb_err)?;
        Ok(id)
    }

    /// The model call journaled under a prompt hash, if any.
    pub fn model_call(&self, hash: &str) -> Result<Option<crate::LlmCall>, StoreError> {
        let tx = self.begin_read()?;
        let t = match tx.open_table(tables::MODEL_CALLS) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
            Err(e) => return Err(redb_err(e)),
        };
        let row = t.get(hash).map_err(redb_err)?;
        row.map(|v| codec::decode(v.value())).transpose()
    }

    /// How many prompts the model-call journal holds.
    pub fn model_calls_count(&self) -> Result<u64, StoreError> {
        let tx = self.begin_read()?;
        match tx.open_table(tables::MODEL_CALLS) {
            Ok(t) => t.len().map_err(redb_err),
            Err(redb::TableError::TableDoesNotExist(_)) => Ok(0),
            Err(e) => Err(redb_err(e)),
        }
    }

    /// The last batch id committed (0: none).
    pub fn last_record_id(&self) -> Result<u64, StoreError> {
        let tx = self.begin_read()?;
        Ok(LogView::open(&tx)?.last)
    }

    /// Rows in the tail (committed, not yet packed by a sweep).
    pub fn tail_rows(&self) -> Result<u64, StoreError> {
        let tx = self.begin_read()?;
        tx.open_table(tables::RECORD_TAIL).map_err(redb_err)?.len().map_err(redb_err)
    }

    /// Streams one session's records with `seq > after_seq` from batch `from_batch` on,
    /// value by value (a long session is never held whole), in `seq` order; `f` gets
    /// each with the batch that committed it. Decodes only this session's records.
    pub fn scan_session(
        &self,
        meta: &SessionMeta,
        after_seq: u64,
        from_batch: u64,
        f: &mut dyn FnMut(u64, EventRecord),
    ) -> Result<SessionScan, StoreError> {
        self.log_reader()?.scan_session(meta, after_seq, from_batch, f)
    }

    /// A view of the log to read many sessions from (see `LogReader`).
    pub fn log_reader(&self) -> Result<LogReader, StoreError> {
        LogReader::open(self.begin_read()?)
    }

    /// One session's stream, in order.
    pub fn session_records(&self, session: u64) -> Result<Vec<EventRecord>, StoreError> {
        // A session with no row has no chunks to look in (its tail parts are found).
        let meta = self.session(session)?.unwrap_or(SessionMeta { session, first_batch: u64::MAX, ..Default::default() });
        let mut out = Vec::new();
        self.scan_session(&meta, 0, 0, &mut |_, r| out.push(r))?;
        Ok(out)
    }

    /// Many sessions' streams, each in order, from one read transaction (the tail
    /// decompressed once for all of them).
    pub fn sessions_records(&self, sessions: &[SessionMeta]) -> Result<HashMap<u64, Vec<EventRecord>>, StoreError> {
        let tx = self.begin_read()?;
        let view = LogView::open(&tx)?;
        let mut out = HashMap::with_capacity(sessions.len());
        let mut parts = Vec::new();
        for s in sessions {
            view.session_parts(s, 0, &mut parts)?;
            let mut rs: Vec<EventRecord> = parts.drain(..).flat_map(|(_, rs)| rs).collect();
            rs.sort_by_key(|r| r.seq);
            rs.dedup_by_key(|r| r.seq);
            out.insert(s.session, rs);
        }
        Ok(out)
    }

    /// Sessions a stopped server left open (no end recorded): the tail is packed first
    /// (so every batch is listed), then each is closed as `how` with its record count
    /// and last record's time. In a file written before migration 10, a session's
    /// unlisted chunks after `spans_through` are found from the chunk keys (no record
    /// of anyone else is decoded) and listed. Returns how many were closed.
    pub fn close_open_sessions(&self, how: &str, now_us: u64) -> Result<usize, StoreError> {
        if self.tail_rows()? > 0 {
            self.write_records(&RecordBatch { sweep: true, ..Default::default() })?;
        }
        let open: Vec<SessionMeta> = self.all_sessions()?.into_iter().filter(|s| s.ended_us.is_none()).collect();
        if open.is_empty() {
            return Ok(0);
        }
        let mut batch = RecordBatch { sweep: true, ..Default::default() };
        {
            let tx = self.begin_read()?;
            let view = LogView::open(&tx)?;
            let wanted: HashSet<u64> = open.iter().map(|s| s.session).collect();
            let from = open.iter().map(|s| s.first_batch.max(1)).min().unwrap_or(1).max(view.through + 1);
            let mut unlisted: HashMap<u64, Vec<u64>> = HashMap::new();
            for row in view.chunks.range((from, 0)..).map_err(redb_err)? {
                let (k, v) = row.map_err(redb_err)?;
                let (b, first) = k.value();
                for s in crate::pack_group::sessions_in(first, v.value())? {
                    if wanted.contains(&s) {
                        unlisted.entry(s).or_default().push(b);
                    }
                }
            }
            let mut parts = Vec::new();
            for mut s in open {
                let tail: Vec<u64> = unlisted.remove(&s.session).unwrap_or_default().into_iter().filter(|b| *b >= s.first_batch).collect();
                let mut all = view.chunk_keys(&s, 0)?;
                all.extend(tail.iter().copied());
                all.sort_unstable();
                all.dedup();
                let (mut n, mut last_at) = (0u64, None);
                for b in &all {
                    view.chunk_parts(*b, s.session, &mut parts)?;
                    for (_, rs) in parts.drain(..) {
                        n += rs.len() as u64;
                        last_at = rs.last().map(|r| r.at_us).or(last_at);
                    }
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
    /// sessions' records in session order (the order the recorder hands the index), a
    /// batch retention emptied still listed so a reader's watermark moves past it.
    pub fn batches_after(&self, after: u64, limit: usize) -> Result<Vec<(u64, Vec<EventRecord>)>, StoreError> {
        let tx = self.begin_read()?;
        let view = LogView::open(&tx)?;
        let mut out: Vec<(u64, Vec<EventRecord>)> = Vec::new();
        if after == u64::MAX || limit == 0 {
            return Ok(out);
        }
        // The chunks under one key (a sweep's packs, or an older chunk's batch) hold
        // whole batches between them: gathered by batch, then handed on in order.
        let mut key = None;
        let mut group: BTreeMap<u64, Vec<EventRecord>> = BTreeMap::new();
        let mut parts = Vec::new();
        let flush = |group: &mut BTreeMap<u64, Vec<EventRecord>>, out: &mut Vec<(u64, Vec<EventRecord>)>| {
            for (b, rs) in std::mem::take(group) {
                if out.len() < limit {
                    out.push((b, rs));
                }
            }
        };
        for row in view.chunks.range((after + 1, 0)..).map_err(redb_err)? {
            let (k, v) = row.map_err(redb_err)?;
            let (b, first) = k.value();
            if key != Some(b) {
                flush(&mut group, &mut out);
                if out.len() >= limit {
                    return Ok(out);
                }
                key = Some(b);
            }
            for (_, pack) in crate::pack_group::members_of(first, v.value())? {
                pack.push_to(b, &mut parts)?;
            }
            for (b, rs) in parts.drain(..).filter(|(b, _)| *b > after) {
                group.entry(b).or_default().extend(rs);
            }
        }
        // A partial sweep: its batches are in its packs for some sessions and in the tail
        // for the rest; they join the group, each batch in session order.
        let split = view.partial.filter(|p| *p > after);
        if let Some(p) = split {
            if key != Some(p) {
                flush(&mut group, &mut out);
            }
            for row in view.tail.range(after + 1..=p).map_err(redb_err)? {
                let (k, v) = row.map_err(redb_err)?;
                for part in Parts::decode(v.value())?.iter() {
                    let (session, bytes) = part?;
                    if !crate::pack_group::has(&view.chunks, p, session)? {
                        group.entry(k.value()).or_default().extend(codec::decode_records(bytes)?);
                    }
                }
            }
            for rs in group.values_mut() {
                rs.sort_by_key(|r| r.session);
            }
        }
        flush(&mut group, &mut out);
        for row in view.tail.range(split.map_or(after, |p| p.max(after)) + 1..).map_err(redb_err)? {
            if out.len() >= limit {
                break;
            }
            let (k, v) = row.map_err(redb_err)?;
            let mut rs = Vec::new();
            for p in Parts::decode(v.value())?.iter() {
                rs.extend(codec::decode_records(p?.1)?);
            }
            out.push((k.value(), rs));
        }
        Ok(out)
    }

    /// Retention: drops the observations of every batch committed before day
    /// `before_day` (days since 1970-01-01, UTC), keeping decisions and transitions.
    /// Whole days at a time, in one transaction per day; then the pack that holds the
    /// last such batches beside later ones, and the tail. Returns the observations
    /// dropped.
    pub fn drop_observations_before(&self, before_day: u32) -> Result<u64, StoreError> {
        let days: Vec<(u32, u64)> = {
            let rtx = self.begin_read()?;
            let t = rtx.open_table(tables::RECORD_DAYS).map_err(redb_err)?;
            let mut v = Vec::new();
            for row in t.iter().map_err(redb_err)? {
                let (k, id) = row.map_err(redb_err)?;
                v.push((k.value(), id.value()));
            }
            v
        };
        // Batches before `cutoff` were committed before the day.
        let Some(cutoff) = days.iter().find(|(d, _)| *d >= before_day).map(|(_, id)| *id).or(days.first().map(|_| u64::MAX)) else {
            return Ok(0);
        };
        let mut dropped = 0;
        for (i, (day, first)) in days.iter().enumerate() {
            if *day >= before_day {
                break;
            }
            let end = days.get(i + 1).map(|(_, id)| *id).unwrap_or(u64::MAX);
            let wtx = self.begin_write()?;
            {
                let mut t = wtx.open_table(tables::RECORD_CHUNKS).map_err(redb_err)?;
                dropped += strip_chunks(&mut t, *first, end, cutoff)?;
            }
            wtx.commit().map_err(redb_err)?;
        }
        // A pack keyed after the cutoff holds the batches since the sweep before it,
        // some of them perhaps from before the day; and so may the tail.
        let wtx = self.begin_write()?;
        {
            if cutoff != u64::MAX {
                let mut t = wtx.open_table(tables::RECORD_CHUNKS).map_err(redb_err)?;
                let key = t.range((cutoff, 0)..).map_err(redb_err)?.next().transpose().map_err(redb_err)?.map(|(k, _)| k.value().0);
                if let Some(key) = key {
                    dropped += strip_chunks(&mut t, key, key + 1, cutoff)?;
                }
            }
            let mut tail = wtx.open_table(tables::RECORD_TAIL).map_err(redb_err)?;
            let mut rewrite = Vec::new();
            for row in tail.range(..cutoff).map_err(redb_err)? {
                let (k, v) = row.map_err(redb_err)?;
                if let Some((n, value)) = strip_value(k.value(), v.value(), |_| true)? {
                    dropped += n;
                    rewrite.push((k.value(), value));
                }
            }
            for (k, bytes) in rewrite {
                tail.insert(k, bytes.as_slice()).map_err(redb_err)?;
            }
        }
        wtx.commit().map_err(redb_err)?;
        Ok(dropped)
    }
}

/// Drops the observations of batches before `cutoff` in the chunks keyed `from..to`.
fn strip_chunks(t: &mut Table<(u64, u64), &[u8]>, from: u64, to: u64, cutoff: u64) -> Result<u64, StoreError> {
    let mut dropped = 0;
    let mut rewrite = Vec::new();
    for row in t.range((from, 0)..(to, 0)).map_err(redb_err)? {
        let (k, v) = row.map_err(redb_err)?;
        let (b, first) = k.value();
        // A frame's members each stripped and framed again (without the dictionary:
        // the packer holds only the newest), as one frame or more.
        if crate::pack_frame::is_frame(v.value()) {
            let (mut members, mut changed) = (Vec::new(), false);
            for (s, parts) in crate::pack_frame::directory(v.value())?.unframe()? {
                match strip_parts(&parts, |b| b < cutoff)? {
                    Some((n, w)) => {
                        dropped += n;
                        changed = true;
                        members.push((s, w.raw().to_vec()));
                    }
                    None => members.push((s, parts.raw().to_vec())),
                }
            }
            if changed {
                rewrite.extend(crate::pack_frame::frames(&members, None)?.into_iter().map(|(s, value)| ((b, s), value)));
            }
            continue;
        }
        // A group's members each stripped, then grouped again (a member may come out
        // larger without its dictionary, so the group may become two).
        let (mut members, mut changed) = (Vec::new(), false);
        for (s, pack) in crate::pack_group::members_of(first, v.value())? {
            let crate::pack_group::Member::Value(pack) = pack else { continue };
            match strip_value(b, pack, |b| b < cutoff)? {
                Some((n, value)) => {
                    dropped += n;
                    changed = true;
                    members.push((s, value));
                }
                None => members.push((s, pack.to_vec())),
            }
        }
        if changed {
            rewrite.extend(crate::pack_group::group(&members).into_iter().map(|(s, value)| ((b, s), value)));
        }
    }
    for (k, bytes) in rewrite {
        t.insert(k, bytes.as_slice()).map_err(redb_err)?;
    }
    Ok(dropped)
}

/// Records without their observations, and how many went.
fn without_observations(records: Vec<EventRecord>) -> (usize, Vec<EventRecord>) {
    let before = records.len();
    let kept: Vec<EventRecord> = records.into_iter().filter(|r| !matches!(r.body, RecordBody::Observation { .. })).collect();
    (before - kept.len(), kept)
}

/// Parts without the observations of the parts `strip` names (by their key): how many
/// went and the parts left, gathered (none: nothing went).
fn strip_parts(parts: &Parts, strip: impl Fn(u64) -> bool) -> Result<Option<(u64, PartsWriter)>, StoreError> {
    let (mut w, mut buf, mut dropped) = (PartsWriter::default(), Vec::new(), 0u64);
    for p in parts.iter() {
        let (key, bytes) = p?;
        if !strip(key) {
            w.push(key, bytes);
            continue;
        }
        let (n, kept) = without_observations(codec::decode_records(bytes)?);
        dropped += n as u64;
        codec::encode_records_into(&mut buf, &kept)?;
        w.push(key, &buf);
    }
    Ok((dropped > 0).then_some((dropped, w)))
}

/// A chunk or tail value without the observations of the parts `strip` names (a pack's
/// or a tail row's by their key; an older chunk by its batch): how many went and the
/// new value, or none when nothing did.
fn strip_value(batch: u64, v: &[u8], strip: impl Fn(u64) -> bool) -> Result<Option<(u64, Vec<u8>)>, StoreError> {
    if !is_parts(v) {
        if !strip(batch) {
            return Ok(None);
        }
        let (n, kept) = without_observations(codec::decode_records(v)?);
        return Ok(if n == 0 { None } else { Some((n as u64, codec::encode(&kept)?)) });
    }
    let Some((dropped, mut w)) = strip_parts(&Parts::decode(v)?, strip)? else { return Ok(None) };
    let mut buf = Vec::new();
    // A pack stays zstd (without its dictionary: the packer holds only the newest), a
    // tail row LZ4.
    if matches!(v.first(), Some(&crate::parts::PARTS_ZSTD | &crate::parts::PARTS_ZSTD_DICT)) {
        w.finish_zstd(&mut buf);
    } else {
        w.finish(&mut buf);
    }
    Ok(Some((dropped, buf)))
}
