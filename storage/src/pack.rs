//! Sweeps: the log's tail packed into one pack per session (see `log`), the packs of
//! neighbouring sessions compressed together in framed groups that fill a page each
//! (`pack_frame`), with the record dictionary of the time (`dicts`: on a 10,000-agent
//! record zstd alone made the data file a third smaller than LZ4, and the dictionary a
//! fifth smaller again; the tail's rows, read back while they are the tail, stay LZ4).
//!
//! Building the packs (decompressing a sweep's worth of tail rows, gathering each
//! session's parts, compressing them again) is most of a sweep's work; on a busy server
//! it is done from a read transaction off the recorder's thread (`Store::build_packs`),
//! and a later group commit applies what was built (`apply`: an insert per frame and
//! the tail's rows dropped), so no commit waits for the compression and the record stays
//! durable within its promise. A sweep can also build and apply in one commit (at a
//! start after a crash, at a stop, in tests).

use std::collections::BTreeMap;
use std::sync::Arc;

use redb::{ReadableTable, Table};

use crate::dicts::{PackDict, Trained};
use crate::parts::{Parts, PartsWriter, ZSTD_LEVEL};
use crate::{redb_err, tables, Store, StoreError};

/// Packs built for every tail row up to `through`, waiting to be applied — all at once,
/// or in slices (`split_off`), the tail's rows dropped with the last.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Packs {
    /// The newest tail row they hold (their chunks' key).
    pub through: u64,
    /// The values to write, in session order: (the first session, a framed group of
    /// packs — `pack_frame` —, each pack a session's parts keyed by batch).
    pub packs: Vec<(u64, Vec<u8>)>,
    /// Tail rows they were built from.
    pub rows: u64,
    /// This is the last (or only) slice of the sweep: applying it drops the tail's rows.
    pub complete: bool,
    /// The dictionary they were compressed with, written with them if the file has
    /// not got it yet (none: packed without one).
    pub dict: Option<Arc<Trained>>,
}

impl Packs {
    /// The sessions these values hold packs of.
    pub fn sessions(&self) -> Result<u64, StoreError> {
        let mut n = 0;
        for (first, v) in &self.packs {
            n += crate::pack_group::sessions_in(*first, v)?.len() as u64;
        }
        Ok(n)
    }

    /// The next slice of at most `n` values, taken from the front; `complete` when it
    /// takes the last of them.
    pub fn split_off(&mut self, n: usize) -> Packs {
        let rest = self.packs.split_off(n.min(self.packs.len()));
        let slice = std::mem::replace(&mut self.packs, rest);
        Packs {
            through: self.through,
            packs: slice,
            rows: self.rows,
            complete: self.complete && self.packs.is_empty(),
            dict: self.dict.clone(),
        }
    }
}

/// A sweep applied in part (a slice written, the tail not yet dropped): its key. The
/// sessions it packed already have their rows up to it in that pack and also, still,
/// in the tail; readers and the next build leave those parts out.
pub(crate) fn partial<S, T>(sweeps: &S, tail: &T) -> Result<Option<u64>, StoreError>
where
    S: ReadableTable<u64, u64>,
    T: ReadableTable<u64, &'static [u8]>,
{
    let last = sweeps.last().map_err(redb_err)?.map(|(k, _)| k.value());
    let first = tail.first().map_err(redb_err)?.map(|(k, _)| k.value());
    Ok(match (last, first) {
        (Some(p), Some(f)) if f <= p => Some(p),
        _ => None,
    })
}

/// The tail's rows, decompressed, in batch order.
pub(crate) fn tail_rows<T: ReadableTable<u64, &'static [u8]>>(tail: &T) -> Result<Vec<(u64, Parts)>, StoreError> {
    let mut rows = Vec::new();
    for row in tail.iter().map_err(redb_err)? {
        let (k, v) = row.map_err(redb_err)?;
        rows.push((k.value(), Parts::decode(v.value())?));
    }
    Ok(rows)
}

/// Sessions a dictionary is trained from, at most (an even spread of the sweep's).
const TRAIN_SESSIONS: usize = 512;

/// One pack per session of `rows` (none: no rows), keyed by the newest row's batch;
/// `packed(b, session)`: the part is in a pack already (a partial sweep's), left out.
/// Compressed with `dict`'s dictionary, trained on this sweep's packs if it has none.
pub(crate) fn packs_of(
    rows: &[(u64, Parts)],
    packed: &dyn Fn(u64, u64) -> Result<bool, StoreError>,
    dict: &PackDict,
) -> Result<Option<Packs>, StoreError> {
    let Some(through) = rows.last().map(|(b, _)| *b) else { return Ok(None) };
    // Each session's parts in batch order, pointing into the rows.
    let mut by_session: BTreeMap<u64, Vec<(u64, &[u8])>> = BTreeMap::new();
    for (b, parts) in rows {
        for p in parts.iter() {
            let (session, bytes) = p?;
            if !packed(*b, session)? {
                by_session.entry(session).or_default().push((*b, bytes));
            }
        }
    }
    let mut w = PartsWriter::default();
    let d = dict.for_sweep(ZSTD_LEVEL, || {
        let step = by_session.len().div_ceil(TRAIN_SESSIONS).max(1);
        by_session
            .values()
            .step_by(step)
            .map(|parts| {
                for (b, bytes) in parts {
                    w.push(*b, bytes);
                }
                let raw = w.raw().to_vec();
                w.clear();
                raw
            })
            .collect()
    });
    let mut payloads = Vec::with_capacity(by_session.len());
    for (session, parts) in by_session {
        for (b, bytes) in parts {
            w.push(b, bytes);
        }
        payloads.push((session, w.raw().to_vec()));
        w.clear();
    }
    let packs = crate::pack_frame::frames(&payloads, d.as_deref())?;
    Ok(Some(Packs { through, packs, rows: rows.len() as u64, complete: true, dict: d }))
}

/// Writes built packs in the transaction of `tail`: each session's chunk keyed
/// (`through`, session) — appended at the end of the chunks, in session order — the
/// sweep noted in `record_sweeps`, and the tail's rows up to `through` dropped. Packs a
/// sweep made stale (the rows they were built from already packed) are dropped instead.
/// Returns the new `spans_through` (none: stale).
pub(crate) fn apply(
    tail: &mut Table<u64, &[u8]>,
    chunks: &mut Table<(u64, u64), &[u8]>,
    sweeps: &mut Table<u64, u64>,
    dicts: &mut Table<u64, &[u8]>,
    p: &Packs,
) -> Result<Option<u64>, StoreError> {
    // Rows leave the tail only by being packed, the oldest first: if the oldest is
    // newer than `through`, these rows were packed already.
    let first = tail.first().map_err(redb_err)?.map(|(k, _)| k.value());
    if first.is_none_or(|f| f > p.through) {
        return Ok(None);
    }
    if let Some(d) = &p.dict {
        if dicts.get(d.id).map_err(redb_err)?.is_none() {
            dicts.insert(d.id, d.bytes.as_slice()).map_err(redb_err)?;
        }
    }
    // Framed groups, each filling a page (`pack_frame`), made by the build.
    for (first, value) in &p.packs {
        chunks.insert((p.through, *first), value.as_slice()).map_err(redb_err)?;
    }
    let before = sweeps.get(p.through).map_err(redb_err)?.map(|v| v.value()).unwrap_or(0);
    sweeps.insert(p.through, before + p.sessions()?).map_err(redb_err)?;
    if !p.complete {
        return Ok(None);
    }
    tail.retain_in(..=p.through, |_, _| false).map_err(redb_err)?;
    Ok(Some(p.through))
}

/// Builds the packs of the whole tail in a write or read transaction, leaving out what a
/// partial sweep packed already.
pub(crate) fn build<C, S, T>(chunks: &C, sweeps: &S, tail: &T, dict: &PackDict) -> Result<Option<Packs>, StoreError>
where
    C: ReadableTable<(u64, u64), &'static [u8]>,
    S: ReadableTable<u64, u64>,
    T: ReadableTable<u64, &'static [u8]>,
{
    let rows = tail_rows(tail)?;
    let part = partial(sweeps, tail)?;
    packs_of(
        &rows,
        &|b, session| match part {
            Some(p) if b <= p => crate::pack_group::has(chunks, p, session),
            _ => Ok(false),
        },
        dict,
    )
}

impl Store {
    /// Builds the packs of every row in the tail now, from a read transaction (the
    /// recorder keeps committing meanwhile); a later commit applies them
    /// (`RecordBatch::packs`). None: the tail is empty.
    pub fn build_packs(&self) -> Result<Option<Packs>, StoreError> {
        let tx = self.begin_read()?;
        let tail = tx.open_table(tables::RECORD_TAIL).map_err(redb_err)?;
        let chunks = tx.open_table(tables::RECORD_CHUNKS).map_err(redb_err)?;
        let sweeps = tx.open_table(tables::RECORD_SWEEPS).map_err(redb_err)?;
        build(&chunks, &sweeps, &tail, &self.pack_dict)
    }
}
