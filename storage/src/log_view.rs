//! Reading the record log (see `log` for its layout): one read transaction's view of
//! it (`LogView`), the handle that lets many reads share one (`LogReader`), and the tail
//! rows decompressed once per view and indexed by session.

use std::cell::OnceCell;

use redb::{ReadOnlyTable, ReadTransaction, ReadableTable};

use crate::parts::{is_parts, Parts};
use crate::{codec, redb_err, tables, EventRecord, SessionMeta, StoreError};
use crate::{pack, pack_group};

/// What a scan of one session read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SessionScan {
    /// Records handed over.
    pub records: u64,
    /// The last batch that held one of them (0: none).
    pub last_batch: u64,
    /// Values of its own decoded: packs and chunks of this session, and tail rows that
    /// held a part of it (only that part decoded), never anyone else's chunks.
    pub chunks: u64,
}

/// One session's records of one batch.
pub(crate) type Part = (u64, Vec<EventRecord>);

/// One read transaction's view of the log.
pub(crate) struct LogView {
    pub(crate) chunks: ReadOnlyTable<(u64, u64), &'static [u8]>,
    pub(crate) spans: ReadOnlyTable<(u64, u64), &'static [u8]>,
    pub(crate) sweeps: ReadOnlyTable<u64, u64>,
    pub(crate) tail: ReadOnlyTable<u64, &'static [u8]>,
    pub(crate) through: u64,
    /// The last chunk key's batch, and the last batch of all (a tail row's, if any).
    pub(crate) last_chunk: u64,
    pub(crate) last: u64,
    /// The tail rows, decompressed and indexed once for every session this view reads.
    tail_rows: OnceCell<Vec<(u64, IndexedParts)>>,
    /// A sweep applied in part (`pack::partial`): its key.
    pub(crate) partial: Option<u64>,
}

impl LogView {
    pub(crate) fn open(tx: &ReadTransaction) -> Result<LogView, StoreError> {
        let chunks = tx.open_table(tables::RECORD_CHUNKS).map_err(redb_err)?;
        let spans = tx.open_table(tables::SESSION_SPANS).map_err(redb_err)?;
        let tail = tx.open_table(tables::RECORD_TAIL).map_err(redb_err)?;
        let sweeps = tx.open_table(tables::RECORD_SWEEPS).map_err(redb_err)?;
        let meta = tx.open_table(tables::META).map_err(redb_err)?;
        let through = meta.get(tables::SPANS_THROUGH).map_err(redb_err)?.map(|v| u64_le(v.value())).unwrap_or(0);
        let last_chunk = chunks.last().map_err(redb_err)?.map(|(k, _)| k.value().0).unwrap_or(0);
        let last_tail = tail.last().map_err(redb_err)?.map(|(k, _)| k.value()).unwrap_or(0);
        let partial = pack::partial(&sweeps, &tail)?;
        Ok(LogView {
            chunks,
            spans,
            sweeps,
            tail,
            through,
            last_chunk,
            last: last_chunk.max(last_tail),
            tail_rows: OnceCell::new(),
            partial,
        })
    }

    /// The chunk keys listed for a session by its segments, ascending.
    pub(crate) fn listed(&self, session: u64) -> Result<Vec<u64>, StoreError> {
        let mut ids = Vec::new();
        for row in self.spans.range((session, 0)..=(session, u64::MAX)).map_err(redb_err)? {
            let (_, v) = row.map_err(redb_err)?;
            ids.extend(codec::decode::<Vec<u64>>(v.value())?);
        }
        ids.sort_unstable();
        ids.dedup();
        Ok(ids)
    }

    /// Every chunk key holding the session's records, ascending: its packs, found by
    /// looking it up under each sweep from its first batch to the first sweep after its
    /// last; and what segments list (chunks written before migration 10), with, for a
    /// running session of such a file, each single-batch chunk after `spans_through`.
    /// The keys of the chunks holding the session's records from batch `from` on (a pack
    /// holding `from` is keyed at or after it): a reader from a watermark looks up the
    /// sweeps since it, not every sweep of a long session (a dream an hour into one made
    /// 360 look-ups to use the last few).
    pub(crate) fn chunk_keys(&self, meta: &SessionMeta, from: u64) -> Result<Vec<u64>, StoreError> {
        let mut ids = self.listed(meta.session)?;
        if meta.ended_us.is_none() && meta.first_batch != u64::MAX {
            let from = self.through.saturating_add(1).max(meta.first_batch.max(1)).max(ids.last().map_or(0, |l| l + 1));
            for b in from..=self.last_chunk {
                if pack_group::has(&self.chunks, b, meta.session)? {
                    ids.push(b);
                }
            }
        }
        if meta.first_batch != u64::MAX {
            for row in self.sweeps.range(meta.first_batch.max(1).max(from)..).map_err(redb_err)? {
                let (k, _) = row.map_err(redb_err)?;
                let key = k.value();
                if pack_group::has(&self.chunks, key, meta.session)? {
                    ids.push(key);
                }
                // The first sweep after its last batch packed the last of it.
                if meta.last_batch > 0 && key >= meta.last_batch {
                    break;
                }
            }
        } else {
            // No row: every sweep is a candidate (a session is never recorded rowless,
            // but a reader may ask for one).
            for row in self.sweeps.range(from..).map_err(redb_err)? {
                let key = row.map_err(redb_err)?.0.value();
                if pack_group::has(&self.chunks, key, meta.session)? {
                    ids.push(key);
                }
            }
        }
        ids.sort_unstable();
        ids.dedup();
        Ok(ids)
    }

    /// The session's parts under chunk key `key` (a pack: one per batch it holds; an
    /// older chunk: one, its key's batch), appended to `out`. Returns the values decoded.
    pub(crate) fn chunk_parts(&self, key: u64, session: u64, out: &mut Vec<Part>) -> Result<u64, StoreError> {
        let Some(v) = pack_group::find(&self.chunks, key, session)? else { return Ok(0) };
        v.push_to(key, out)?;
        Ok(1)
    }

    /// The session's parts in the tail rows from batch `from` on, appended to `out`.
    /// Returns the rows that held one.
    pub(crate) fn tail_parts(&self, session: u64, from: u64, out: &mut Vec<Part>) -> Result<u64, StoreError> {
        if self.tail_rows.get().is_none() {
            let mut rows = Vec::new();
            for row in self.tail.iter().map_err(redb_err)? {
                let (k, v) = row.map_err(redb_err)?;
                rows.push((k.value(), IndexedParts::new(Parts::decode(v.value())?)));
            }
            let _ = self.tail_rows.set(rows);
        }
        let rows = self.tail_rows.get().map(Vec::as_slice).unwrap_or_default();
        let mut n = 0;
        for (b, parts) in &rows[rows.partition_point(|(b, _)| *b < from)..] {
            if let Some(bytes) = parts.get(session)? {
                out.push((*b, codec::decode_records(bytes)?));
                n += 1;
            }
        }
        Ok(n)
    }

    /// Streams one session's records with `seq > after_seq` from batch `from_batch` on
    /// (see `Store::scan_session`).
    pub(crate) fn scan(
        &self,
        meta: &SessionMeta,
        after_seq: u64,
        from_batch: u64,
        f: &mut dyn FnMut(u64, EventRecord),
    ) -> Result<SessionScan, StoreError> {
        let mut scan = SessionScan::default();
        let mut parts = Vec::new();
        let mut take = |parts: &mut Vec<Part>, scan: &mut SessionScan| {
            for (b, rs) in parts.drain(..) {
                for r in rs {
                    if r.seq > after_seq {
                        scan.records += 1;
                        scan.last_batch = b;
                        f(b, r);
                    }
                }
            }
        };
        let keys = self.chunk_keys(meta, from_batch)?;
        for key in keys.iter().copied().filter(|k| *k >= from_batch) {
            scan.chunks += self.chunk_parts(key, meta.session, &mut parts)?;
            take(&mut parts, &mut scan);
        }
        scan.chunks += self.tail_parts(meta.session, tail_from(&keys, from_batch), &mut parts)?;
        take(&mut parts, &mut scan);
        Ok(scan)
    }

    /// One session's parts from batch `from` on, in batch order; the values decoded.
    pub(crate) fn session_parts(&self, meta: &SessionMeta, from: u64, out: &mut Vec<Part>) -> Result<u64, StoreError> {
        let mut n = 0;
        let keys = self.chunk_keys(meta, from)?;
        for key in keys.iter().copied().filter(|k| *k >= from) {
            n += self.chunk_parts(key, meta.session, out)?;
        }
        n += self.tail_parts(meta.session, tail_from(&keys, from), out)?;
        Ok(n)
    }
}

/// Where a session's tail begins: after its newest chunk (a pack holds every batch of
/// it up to its key, even while a partial sweep leaves those rows in the tail).
pub(crate) fn tail_from(keys: &[u64], from: u64) -> u64 {
    from.max(keys.last().map_or(0, |k| k + 1))
}

/// One read transaction's view of the log, kept to read many sessions: the tail rows
/// are decompressed once for all of them (a wave of dreams read the whole tail once per
/// agent: a third of each dream's CPU). It sees the log as it was when it was opened, so
/// open one after what it must read was committed, and do not keep it long: while it
/// lives, redb cannot reuse the pages later commits free.
pub struct LogReader {
    view: LogView,
    tx: ReadTransaction,
    opened: std::time::Instant,
}

impl LogReader {
    pub(crate) fn open(tx: ReadTransaction) -> Result<LogReader, StoreError> {
        let view = LogView::open(&tx)?;
        Ok(LogReader { view, tx, opened: std::time::Instant::now() })
    }

    /// Streams one session's records with `seq > after_seq` from batch `from_batch` on,
    /// value by value, in `seq` order; `f` gets each with the batch that committed it.
    pub fn scan_session(
        &self,
        meta: &SessionMeta,
        after_seq: u64,
        from_batch: u64,
        f: &mut dyn FnMut(u64, EventRecord),
    ) -> Result<SessionScan, StoreError> {
        self.view.scan(meta, after_seq, from_batch, f)
    }

    /// An agent's sessions started at or after `since_us`, oldest first, as this reader
    /// sees them (a session's row and its records from the same moment).
    pub fn agent_sessions(&self, agent: &str, since_us: u64) -> Result<Vec<SessionMeta>, StoreError> {
        crate::agent_sessions_in(&self.tx, agent, since_us)
    }

    /// How long ago it was opened.
    pub fn age(&self) -> std::time::Duration {
        self.opened.elapsed()
    }
}

/// A `LogReader` that reads one after another share, opened afresh once it is older
/// than its age limit: a wave of dreams, or an export's sessions, decompress the tail
/// once per reader instead of once each. Each reader sees the log as it was when it was
/// opened, so create a `SharedLog` after the commits its reads must see (the dreamer
/// makes one per pass over its queue, after taking the requests).
pub struct SharedLog {
    reader: Option<LogReader>,
    max_age: std::time::Duration,
}

impl SharedLog {
    /// How long dreams share a reader by default: long enough for a wave of them to
    /// decompress the tail once, short enough that redb soon reuses the pages commits
    /// free meanwhile (it cannot while a reader lives).
    pub const MAX_AGE: std::time::Duration = std::time::Duration::from_secs(2);

    pub fn new(max_age: std::time::Duration) -> SharedLog {
        SharedLog { reader: None, max_age }
    }

    /// The reader, opened if there is none or it is too old.
    pub fn get(&mut self, store: &crate::Store) -> Result<&LogReader, StoreError> {
        if self.reader.as_ref().is_none_or(|r| r.age() > self.max_age) {
            self.reader = None;
            self.reader = Some(store.log_reader()?);
        }
        Ok(self.reader.as_ref().expect("just opened"))
    }

    /// Lets go of the reader if it is too old (after a long read, so that the file's
    /// freed pages are not held until the next one).
    pub fn release_if_old(&mut self) {
        if self.reader.as_ref().is_some_and(|r| r.age() > self.max_age) {
            self.reader = None;
        }
    }
}

impl Default for SharedLog {
    fn default() -> Self {
        SharedLog::new(SharedLog::MAX_AGE)
    }
}

/// A tail row's parts with their keys sorted, so finding one session's part is a binary
/// search, not a walk through every session's (a row holds a part per session recording).
struct IndexedParts {
    parts: Parts,
    /// (key, start, end) in `parts`, by key; the first part of a key kept.
    index: Vec<(u64, usize, usize)>,
    /// The row is damaged after the parts indexed (what is wrong): a key not found may
    /// lie beyond.
    damage: Option<String>,
}

impl IndexedParts {
    fn new(parts: Parts) -> IndexedParts {
        let mut index = Vec::new();
        let mut damage = None;
        for p in parts.spans() {
            match p {
                Ok(span) => index.push(span),
                Err(e) => {
                    damage = Some(match e {
                        StoreError::Codec(m) => m,
                        other => other.to_string(),
                    });
                    break;
                }
            }
        }
        index.sort_by_key(|(k, ..)| *k);
        index.dedup_by_key(|(k, ..)| *k);
        IndexedParts { parts, index, damage }
    }

    /// The part under `key`; an error only if it is not among the parts before a damage
    /// (as a walk through the parts would have met it).
    fn get(&self, key: u64) -> Result<Option<&[u8]>, StoreError> {
        match self.index.binary_search_by_key(&key, |(k, ..)| *k) {
            Ok(i) => {
                let (_, start, end) = self.index[i];
                Ok(Some(self.parts.bytes(start, end)))
            }
            Err(_) => match &self.damage {
                Some(m) => Err(StoreError::Codec(m.clone())),
                None => Ok(None),
            },
        }
    }
}

/// A chunk's parts: a pack's, each keyed by its batch, or an older chunk whole under its
/// key's batch.
pub(crate) fn push_parts(key: u64, v: &[u8], out: &mut Vec<Part>) -> Result<(), StoreError> {
    if is_parts(v) {
        push_parts_of(&Parts::decode(v)?, out)
    } else {
        out.push((key, codec::decode_records(v)?));
        Ok(())
    }
}

/// A pack's records by batch, appended to `out`.
pub(crate) fn push_parts_of(parts: &Parts, out: &mut Vec<Part>) -> Result<(), StoreError> {
    for p in parts.iter() {
        let (b, bytes) = p?;
        out.push((b, codec::decode_records(bytes)?));
    }
    Ok(())
}

pub(crate) fn u64_le(b: &[u8]) -> u64 {
    b.try_into().map(u64::from_le_bytes).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parts::PartsWriter;

    fn row(parts: &[(u64, &[u8])], cut_after: Option<usize>) -> IndexedParts {
        let mut w = PartsWriter::default();
        for (k, b) in parts {
            w.push(*k, b);
        }
        let mut v = Vec::new();
        w.finish(&mut v);
        let mut p = Parts::decode(&v).unwrap();
        if let Some(n) = cut_after {
            p = Parts::decode(&{
                // The same payload, its last part claiming more bytes than there are.
                let mut raw: Vec<u8> = p
                    .iter()
                    .take(n)
                    .flat_map(|r| {
                        let (k, b) = r.unwrap();
                        [k.to_le_bytes().as_slice(), (b.len() as u32).to_le_bytes().as_slice(), b].concat()
                    })
                    .collect();
                raw.extend_from_slice(&99u64.to_le_bytes());
                raw.extend_from_slice(&1000u32.to_le_bytes());
                raw.extend_from_slice(b"short");
                let mut v = vec![crate::parts::PARTS_VERSION];
                v.extend_from_slice(&(raw.len() as u32).to_le_bytes());
                v.extend_from_slice(&lz4_flex::block::compress(&raw));
                v
            })
            .unwrap();
        }
        IndexedParts::new(p)
    }

    /// Found by binary search, the first part of a key as a walk finds it; in a damaged
    /// row, the parts before the damage still read and a key not among them is an error.
    #[test]
    fn an_indexed_row_finds_what_a_walk_finds() {
        let r = row(&[(9, b"nine"), (3, b"three"), (9, b"again"), (5, b"")], None);
        assert_eq!(r.get(9).unwrap(), Some(b"nine".as_slice()));
        assert_eq!(r.get(3).unwrap(), Some(b"three".as_slice()));
        assert_eq!(r.get(5).unwrap(), Some(b"".as_slice()));
        assert_eq!(r.get(4).unwrap(), None);
        let damaged = row(&[(9, b"nine"), (3, b"three")], Some(2));
        assert_eq!(damaged.get(3).unwrap(), Some(b"three".as_slice()));
        assert!(damaged.get(4).is_err());
        assert!(damaged.get(99).is_err());
    }
}
