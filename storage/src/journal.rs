//! The engine's journal (`pawns replay`, `pawns branch`): per run, one row per commit
//! holding the commit's chunks, each framed by its length (u32 LE). Rows are small and
//! alike (pulse times, commands), so every `PACK_ROWS` rows the commit that writes the
//! last of them packs them into zstd frames, as many packed rows as fill a 32 KB page
//! each (`fit`; as one row, a busy server's pack took the next power of two's page, a
//! third of it empty): a packed row is `PACKED_ZSTD` (a length no chunk can have), its
//! framed chunks' length (u32 LE) and the frame. Packs written
//! before were an LZ4 block after `PACKED` (zstd stored a 1,000-agent minute's journal
//! in three quarters of LZ4's bytes).
//! A run's META row `journal_packed:{run}` names the first row not yet packed. Every
//! kind reads the same.

use redb::{ReadableTable, Table};

use crate::{redb_err, tables, Store, StoreError};

/// Rows packed together (at a commit every 50 ms, a pack every ~13 s).
pub const PACK_ROWS: u64 = 256;
/// The most bytes a packed row is made to take: a 32 KB page less the leaf's own (a
/// pack larger than that is written as several packed rows, each whole chunks).
const PIECE_BYTES: usize = 32 * 1024 - 64;

/// What a row packed with LZ4 begins with (written before zstd; still read).
const PACKED: [u8; 4] = [0xFF; 4];
/// What a row packed with zstd begins with.
const PACKED_ZSTD: [u8; 4] = [0xFE; 4];
/// zstd's level for the journal's packs.
const ZSTD_LEVEL: i32 = 3;
/// The most a packed row may claim to hold (a damaged length allocates no more).
const MAX_RAW: usize = 1 << 30;

/// Whether a row is packed (either way).
pub fn is_packed(row: &[u8]) -> bool {
    row.starts_with(&PACKED) || row.starts_with(&PACKED_ZSTD)
}

fn packed_key(run: u64) -> String {
    format!("journal_packed:{run}")
}

/// A row of framed chunks.
pub fn framed(chunks: &[&[u8]]) -> Vec<u8> {
    let mut row = Vec::with_capacity(chunks.iter().map(|c| c.len() + 4).sum());
    for c in chunks {
        row.extend_from_slice(&(c.len() as u32).to_le_bytes());
        row.extend_from_slice(c);
    }
    row
}

/// The length a packed row's payload claims (after the marker).
fn claimed(p: &[u8]) -> Result<usize, String> {
    let raw = p.get(..4).ok_or("a packed journal row ends early")?;
    Ok(u32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]) as usize)
}

/// The chunks a row holds, packed or not.
pub fn row_chunks(row: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    let unpacked;
    let mut rest = match (row.strip_prefix(&PACKED[..]), row.strip_prefix(&PACKED_ZSTD[..])) {
        (Some(p), _) => {
            let raw = claimed(p)?;
            // LZ4 expands at most ~255 times: a larger claim is a damaged row, not an allocation.
            if raw > (p.len() - 4).saturating_mul(255) {
                return Err(format!("a packed journal row claims {raw} bytes from {}", p.len() - 4));
            }
            unpacked = lz4_flex::block::decompress(&p[4..], raw).map_err(|e| format!("a packed journal row does not decompress: {e}"))?;
            unpacked.as_slice()
        }
        (None, Some(p)) => {
            let raw = claimed(p)?;
            if raw > MAX_RAW || raw > (p.len() - 4).saturating_mul(1000) {
                return Err(format!("a packed journal row claims {raw} bytes from {}", p.len() - 4));
            }
            unpacked = zstd::bulk::decompress(&p[4..], raw).map_err(|e| format!("a packed journal row does not decompress: {e}"))?;
            if unpacked.len() != raw {
                return Err(format!("a packed journal row holds {} bytes, not the {raw} it claims", unpacked.len()));
            }
            unpacked.as_slice()
        }
        (None, None) => row,
    };
    let mut out = Vec::new();
    while rest.len() >= 4 {
        let len = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        let chunk = rest.get(4..4 + len).ok_or("a journal row ends inside a chunk")?;
        out.push(chunk.to_vec());
        rest = &rest[4 + len..];
    }
    Ok(out)
}

/// Appends a commit's chunks to `run` as a row; the `PACK_ROWS`th unpacked row packs them.
pub(crate) fn append(
    j: &mut Table<(u64, u64), &[u8]>,
    meta: &mut Table<&str, &[u8]>,
    run: u64,
    chunks: &[&[u8]],
) -> Result<(), StoreError> {
    let last = j.range((run, 0)..=(run, u64::MAX)).map_err(redb_err)?.next_back().transpose().map_err(redb_err)?;
    let n = last.map(|(k, _)| k.value().1 + 1).unwrap_or(0);
    j.insert((run, n), framed(chunks).as_slice()).map_err(redb_err)?;
    let key = packed_key(run);
    let first = meta.get(key.as_str()).map_err(redb_err)?.map(|v| v.value().try_into().map(u64::from_le_bytes).unwrap_or(0)).unwrap_or(0);
    if n + 1 - first.min(n + 1) < PACK_ROWS {
        return Ok(());
    }
    let mut raw = Vec::new();
    for row in j.range((run, first)..=(run, n)).map_err(redb_err)? {
        let (_, v) = row.map_err(redb_err)?;
        // Rows before packing existed hold chunks too: each is unpacked, then framed again.
        match is_packed(v.value()) {
            true => {
                for c in row_chunks(v.value()).map_err(StoreError::Codec)? {
                    raw.extend_from_slice(&framed(&[&c]));
                }
            }
            false => raw.extend_from_slice(v.value()),
        }
    }
    // In pieces that fill a page each (`fit`): one pack of a busy server's 256 commits
    // is MBs, and redb gave it a page of the next power of two.
    let mut offsets = vec![0usize];
    let mut at = 0usize;
    while at + 4 <= raw.len() {
        let len = u32::from_le_bytes([raw[at], raw[at + 1], raw[at + 2], raw[at + 3]]) as usize;
        at = (at + 4).saturating_add(len).min(raw.len());
        offsets.push(at);
    }
    if at < raw.len() {
        offsets.push(raw.len());
    }
    let lens: Vec<usize> = offsets.windows(2).map(|w| w[1] - w[0]).collect();
    let pieces = crate::fit::fit(&lens, PIECE_BYTES, |run| Ok::<_, StoreError>(packed_row(&raw[offsets[run.start]..offsets[run.end]])))?;
    j.retain_in((run, first)..=(run, n), |_, _| false).map_err(redb_err)?;
    for (i, (_, piece)) in pieces.iter().enumerate() {
        j.insert((run, first + i as u64), piece.as_slice()).map_err(redb_err)?;
    }
    meta.insert(key.as_str(), (first + pieces.len() as u64).to_le_bytes().as_slice()).map_err(redb_err)?;
    Ok(())
}

/// Framed chunks as one packed row: zstd, or LZ4 where zstd cannot allocate.
fn packed_row(raw: &[u8]) -> Vec<u8> {
    let mut packed = PACKED_ZSTD.to_vec();
    packed.extend_from_slice(&(raw.len() as u32).to_le_bytes());
    match zstd::bulk::compress(raw, ZSTD_LEVEL) {
        Ok(z) => packed.extend_from_slice(&z),
        Err(_) => {
            packed = PACKED.to_vec();
            packed.extend_from_slice(&(raw.len() as u32).to_le_bytes());
            packed.extend_from_slice(&lz4_flex::block::compress(raw));
        }
    }
    packed
}

impl Store {
    /// The runs with a journal (their ids: boot times in µs), oldest first.
    pub fn journal_runs(&self) -> Result<Vec<u64>, StoreError> {
        let tx = self.begin_read()?;
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
        let tx = self.begin_write()?;
        {
            let mut t = tx.open_table(tables::JOURNAL).map_err(redb_err)?;
            let mut meta = tx.open_table(tables::META).map_err(redb_err)?;
            for run in &doomed {
                t.retain_in((*run, 0)..=(*run, u64::MAX), |_, _| false).map_err(redb_err)?;
                meta.remove(packed_key(*run).as_str()).map_err(redb_err)?;
            }
        }
        tx.commit().map_err(redb_err)?;
        Ok(doomed.len())
    }

    /// One run's journal chunks, in order, each to `f`.
    pub fn journal_chunks(&self, run: u64, f: &mut dyn FnMut(&[u8]) -> Result<(), StoreError>) -> Result<u64, StoreError> {
        let tx = self.begin_read()?;
        let t = match tx.open_table(tables::JOURNAL) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(0),
            Err(e) => return Err(redb_err(e)),
        };
        let mut n = 0;
        for row in t.range((run, 0)..=(run, u64::MAX)).map_err(redb_err)? {
            let (_, v) = row.map_err(redb_err)?;
            for chunk in row_chunks(v.value()).map_err(|m| StoreError::Codec(format!("run {run}: {m}")))? {
                f(&chunk)?;
                n += 1;
            }
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RecordBatch;

    fn rows(store: &Store, run: u64) -> Vec<Vec<u8>> {
        let tx = store.begin_read().unwrap();
        let t = tx.open_table(tables::JOURNAL).unwrap();
        t.range((run, 0)..=(run, u64::MAX)).unwrap().map(|r| r.unwrap().1.value().to_vec()).collect()
    }

    /// Commits' rows are packed every `PACK_ROWS`, read back in order either way, and
    /// rows written before packing existed (framed, no META row) read and pack the same.
    #[test]
    fn journal_rows_pack_and_read_back_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = Store::open(dir.path().join("j.redb")).unwrap();
        let chunk = |i: u64| format!("{{\"Tick\":[{i},1795840811171338,1795840811171999]}}").into_bytes();
        // An old file's rows: framed, unpacked, with no META row.
        {
            let tx = store.begin_write().unwrap();
            {
                let mut t = tx.open_table(tables::JOURNAL).unwrap();
                for i in 0..10u64 {
                    t.insert((7, i), framed(&[&chunk(i)]).as_slice()).unwrap();
                }
            }
            tx.commit().unwrap();
        }
        let n = 10 + 2 * PACK_ROWS + 5;
        for i in 10..n {
            store.write_records(&RecordBatch { journal: vec![(7, chunk(i)), (9, chunk(i))], ..Default::default() }).unwrap();
        }
        for run in [7, 9] {
            let mut got = Vec::new();
            store
                .journal_chunks(run, &mut |c| {
                    got.push(c.to_vec());
                    Ok(())
                })
                .unwrap();
            let from = if run == 7 { 0 } else { 10 };
            assert_eq!(got, (from..n).map(chunk).collect::<Vec<_>>(), "run {run}");
            let r = rows(&store, run);
            assert_eq!(r.iter().filter(|r| r.starts_with(&PACKED_ZSTD)).count(), 2, "run {run}");
            let stored: usize = r.iter().map(Vec::len).sum();
            let raw: usize = (from..n).map(|i| chunk(i).len() + 4).sum();
            assert!(stored * 2 < raw, "run {run}: {stored} bytes stored for {raw}");
        }
        assert_eq!(store.journal_runs().unwrap(), vec![7, 9]);
        // Retention drops a run's rows and its META row.
        assert_eq!(store.drop_journals_before(u64::MAX).unwrap(), 1);
        assert!(rows(&store, 7).is_empty() && store.meta_get(&packed_key(7)).unwrap().is_none());
        // A row that is not what it says is an error, never a panic.
        assert!(row_chunks(&[0xFF, 0xFF, 0xFF, 0xFF, 9, 0, 0, 0, 1, 2]).is_err());
        assert!(row_chunks(&[0xFE, 0xFE, 0xFE, 0xFE, 9, 0, 0, 0, 1, 2]).is_err());
        assert!(row_chunks(&[0xFE, 0xFE, 0xFE, 0xFE, 0xFF, 0xFF, 0xFF, 0x7F, 1, 2]).is_err(), "a claim past the cap");
        assert!(row_chunks(&[5, 0, 0, 0, 1]).is_err());
    }

    /// A pack larger than a page is written as several packed rows, each whole chunks
    /// within `PIECE_BYTES`; every chunk reads back once, in order, and the next pack
    /// starts after the last piece.
    #[test]
    fn a_large_pack_is_cut_into_rows_that_fill_a_page() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = Store::open(dir.path().join("p.redb")).unwrap();
        let chunks: Vec<Vec<u8>> = (0..2 * PACK_ROWS + 3).map(|i| crate::tests::noise(i, 1_000)).collect();
        for c in &chunks {
            store.write_records(&RecordBatch { journal: vec![(4, c.clone())], ..Default::default() }).unwrap();
        }
        let r = rows(&store, 4);
        let packed: Vec<&Vec<u8>> = r.iter().filter(|r| is_packed(r)).collect();
        assert!(packed.len() >= 2 * 7, "{} packed rows for two packs of ~256 KB", packed.len());
        assert!(packed.iter().all(|p| p.len() <= PIECE_BYTES), "{:?}", packed.iter().map(|p| p.len()).collect::<Vec<_>>());
        assert_eq!(r.len() - packed.len(), 3, "the rows after the second pack");
        let mut got = Vec::new();
        store
            .journal_chunks(4, &mut |c| {
                got.push(c.to_vec());
                Ok(())
            })
            .unwrap();
        assert_eq!(got, chunks);
    }

    proptest::proptest! {
        /// Any bytes read as a row give chunks or an error, never a panic; chunks framed
        /// (and packed, as a pack makes them) read back as they were.
        #[test]
        fn rows_parse_or_refuse(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..300),
                                chunks in proptest::collection::vec(proptest::collection::vec(proptest::num::u8::ANY, 0..40), 0..8)) {
            let _ = row_chunks(&bytes);
            for marker in [PACKED, PACKED_ZSTD] {
                let mut with_marker = marker.to_vec();
                with_marker.extend_from_slice(&bytes);
                let _ = row_chunks(&with_marker);
            }
            let refs: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
            let row = framed(&refs);
            proptest::prop_assert_eq!(row_chunks(&row).unwrap(), chunks.clone());
            let mut packed = PACKED.to_vec();
            packed.extend_from_slice(&(row.len() as u32).to_le_bytes());
            packed.extend_from_slice(&lz4_flex::block::compress(&row));
            proptest::prop_assert_eq!(row_chunks(&packed).unwrap(), chunks.clone());
            let mut z = PACKED_ZSTD.to_vec();
            z.extend_from_slice(&(row.len() as u32).to_le_bytes());
            z.extend_from_slice(&zstd::bulk::compress(&row, ZSTD_LEVEL).unwrap());
            proptest::prop_assert_eq!(row_chunks(&z).unwrap(), chunks);
        }
    }
}
