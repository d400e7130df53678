//! Record dictionaries: what a session's packs share with everyone else's, stored once.
//!
//! A pack is one session's few seconds (~10 records at 10,000 agents): zstd finds the
//! room descriptions, mob lines and field layouts that repeat *inside* it, but every
//! pack starts from nothing. A dictionary trained on a sweep's packs (`train`: ~1 MB of
//! samples, 32 KB out, ~40 ms) holds what repeats *across* them, and each later pack
//! refers to it instead of spelling it out: 16 % smaller packs on a 1,000-agent record,
//! at the same compression speed.
//!
//! A dictionary is kept in `record_dicts` under its id (xxh3 of its bytes), written in
//! the same commit as the first packs that use it, and never changed or dropped: a pack
//! names its dictionary's id (`parts::PARTS_ZSTD_DICT`). Readers find it in a registry
//! shared by the process (`decompress`): `Store` loads the file's dictionaries into it when
//! it opens, and the packer adds each it trains. Ids are content hashes, so two files'
//! dictionaries never stand for each other.
//!
//! The packer trains one at its first sweep after a start and again every
//! `RETRAIN_AFTER` (what agents see drifts as they travel), so a file holds a few a day.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use redb::ReadableTable;
use zstd::zstd_safe;

use crate::{redb_err, tables, Store, StoreError};

/// How long the packer keeps using one dictionary.
pub const RETRAIN_AFTER: Duration = Duration::from_secs(6 * 3600);
/// A dictionary's size: 32 KB came out as small as 64 and 112 KB on a 1,000-agent
/// record (16.3 % of raw against 19.5 % without), and is quicker to load.
const DICT_BYTES: usize = 32 << 10;
/// Samples a dictionary is trained on, at most: 1 MB trains in ~40 ms and does as
/// well as 4 or 16 MB.
const SAMPLE_BYTES: usize = 1 << 20;
/// Fewer samples than this, or fewer bytes, and no dictionary is trained (zstd's
/// trainer needs many; a small sweep gains little).
const MIN_SAMPLES: usize = 32;
const MIN_SAMPLE_BYTES: usize = 128 << 10;

/// A dictionary the packer compresses with.
pub struct Trained {
    pub id: u64,
    pub bytes: Vec<u8>,
    cdict: zstd_safe::CDict<'static>,
}

impl std::fmt::Debug for Trained {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Trained({:016x}, {} bytes)", self.id, self.bytes.len())
    }
}

impl PartialEq for Trained {
    fn eq(&self, other: &Trained) -> bool {
        self.id == other.id
    }
}

/// A dictionary's id: the xxh3 of its bytes.
pub fn id_of(bytes: &[u8]) -> u64 {
    twox_hash::XxHash3_64::oneshot(bytes)
}

impl Trained {
    /// A dictionary from its bytes, ready to compress with at `level` (and registered
    /// for reading).
    pub fn new(bytes: Vec<u8>, level: i32) -> Option<Trained> {
        let cdict = zstd_safe::CDict::try_create(&bytes, level)?;
        let id = id_of(&bytes);
        register(id, &bytes)?;
        Some(Trained { id, bytes, cdict })
    }

    /// `src` as a zstd frame that needs this dictionary to read, appended to `out`.
    pub fn compress(&self, src: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
        out.reserve(zstd_safe::compress_bound(src.len()));
        // Written after what `out` holds (a Vec alone would be written from its start).
        let at = out.len() as u64;
        let mut end = std::io::Cursor::new(out);
        end.set_position(at);
        CCTX.with_borrow_mut(|c| {
            let c = c.get_or_insert_with(zstd_safe::CCtx::create);
            c.compress_using_cdict(&mut end, src, &self.cdict).map(|_| ()).map_err(|e| zstd_safe::get_error_name(e).to_string())
        })
    }
}

thread_local! {
    static CCTX: std::cell::RefCell<Option<zstd_safe::CCtx<'static>>> = const { std::cell::RefCell::new(None) };
    static DCTX: std::cell::RefCell<Option<zstd_safe::DCtx<'static>>> = const { std::cell::RefCell::new(None) };
    /// Streaming reads (`decompress_prefix`), kept apart from the one-shot context.
    static DSTREAM: std::cell::RefCell<Option<zstd_safe::DCtx<'static>>> = const { std::cell::RefCell::new(None) };
}

/// Every dictionary this process has seen, by id, ready to read with.
fn registry() -> &'static RwLock<HashMap<u64, Arc<zstd_safe::DDict<'static>>>> {
    static R: std::sync::OnceLock<RwLock<HashMap<u64, Arc<zstd_safe::DDict<'static>>>>> = std::sync::OnceLock::new();
    R.get_or_init(Default::default)
}

/// Adds a dictionary to the registry (none: zstd would not load it).
fn register(id: u64, bytes: &[u8]) -> Option<()> {
    if registry().read().ok()?.contains_key(&id) {
        return Some(());
    }
    let d = Arc::new(zstd_safe::DDict::try_create(bytes)?);
    registry().write().ok()?.insert(id, d);
    Some(())
}

/// Dictionary `id`, ready to read with, or why not.
fn ddict(id: u64) -> Result<Arc<zstd_safe::DDict<'static>>, String> {
    registry()
        .read()
        .ok()
        .and_then(|r| r.get(&id).cloned())
        .ok_or_else(|| format!("its dictionary {id:016x} is missing from the file or damaged"))
}

/// `src`, a frame compressed with dictionary `id`, decompressed to exactly `len` bytes.
pub fn decompress(id: u64, src: &[u8], len: usize) -> Result<Vec<u8>, String> {
    let d = ddict(id)?;
    let mut out = Vec::with_capacity(len);
    DCTX.with_borrow_mut(|c| {
        let c = c.get_or_insert_with(zstd_safe::DCtx::create);
        c.decompress_using_ddict(&mut out, src, &d).map_err(|e| zstd_safe::get_error_name(e).to_string())
    })?;
    Ok(out)
}

/// The first `want` bytes of a frame's content (`id`: its dictionary, 0 for none),
/// decompressed only that far: a member early in a framed group costs a fraction of the
/// whole frame (`pack_frame`). Fewer bytes: the frame ends before `want`.
pub fn decompress_prefix(id: u64, src: &[u8], want: usize) -> Result<Vec<u8>, String> {
    let d = match id {
        0 => None,
        id => Some(ddict(id)?),
    };
    let name = |e| zstd_safe::get_error_name(e).to_string();
    let mut out: Vec<u8> = Vec::with_capacity(want);
    DSTREAM.with_borrow_mut(|c| {
        let c = c.get_or_insert_with(zstd_safe::DCtx::create);
        // A context left mid-frame (or with another dictionary) starts over.
        c.reset(zstd_safe::ResetDirective::SessionAndParameters).map_err(name)?;
        if let Some(d) = &d {
            c.ref_ddict(d).map_err(name)?;
        }
        let mut input = zstd_safe::InBuffer::around(src);
        while out.len() < want {
            let (was_in, was_out) = (input.pos(), out.len());
            let left = {
                let mut output = zstd_safe::OutBuffer::around_pos(&mut out, was_out);
                c.decompress_stream(&mut output, &mut input).map_err(name)?
            };
            if left == 0 || (input.pos() == was_in && out.len() == was_out) {
                break;
            }
        }
        Ok::<(), String>(())
    })?;
    out.truncate(want);
    Ok(out)
}

/// Trains a dictionary on `samples` (each a pack's uncompressed payload), taking an
/// even spread of them up to `SAMPLE_BYTES`; none when there are too few to train on
/// or zstd's trainer declines.
pub fn train(samples: &[&[u8]], level: i32) -> Option<Trained> {
    let total: usize = samples.iter().map(|s| s.len()).sum();
    if samples.len() < MIN_SAMPLES || total < MIN_SAMPLE_BYTES {
        return None;
    }
    let step = total.div_ceil(SAMPLE_BYTES).max(1);
    let picked: Vec<&[u8]> = samples.iter().step_by(step).copied().collect();
    if picked.len() < MIN_SAMPLES {
        return None;
    }
    let bytes = zstd::dict::from_samples(&picked, DICT_BYTES).ok()?;
    Trained::new(bytes, level)
}

/// The packer's choice of dictionary between sweeps (held by the `Store`).
#[derive(Default)]
pub struct PackDict {
    current: Mutex<Option<(Arc<Trained>, Instant)>>,
}

impl PackDict {
    /// The dictionary to pack this sweep with: the current one, or — none yet, or it
    /// has served `RETRAIN_AFTER` — one trained on `samples()` (which may come out as
    /// none: the sweep is packed without).
    pub fn for_sweep(&self, level: i32, samples: impl FnOnce() -> Vec<Vec<u8>>) -> Option<Arc<Trained>> {
        let mut cur = self.current.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((d, since)) = cur.as_ref() {
            if since.elapsed() < RETRAIN_AFTER {
                return Some(d.clone());
            }
        }
        let samples = samples();
        let refs: Vec<&[u8]> = samples.iter().map(|s| s.as_slice()).collect();
        let d = Arc::new(train(&refs, level)?);
        *cur = Some((d.clone(), Instant::now()));
        Some(d)
    }
}

impl Store {
    /// Registers the file's dictionaries for reading (at open). One whose bytes are not
    /// what its id says (damaged) is left out: the packs made with it are errors when
    /// read, the rest of the file reads as ever. Returns how many were left out.
    pub(crate) fn load_dicts(&self) -> Result<usize, StoreError> {
        let tx = self.begin_read()?;
        let t = match tx.open_table(tables::RECORD_DICTS) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(0),
            Err(e) => return Err(redb_err(e)),
        };
        let mut left_out = 0;
        for row in t.iter().map_err(redb_err)? {
            let (k, v) = row.map_err(redb_err)?;
            if id_of(v.value()) != k.value() || register(k.value(), v.value()).is_none() {
                left_out += 1;
            }
        }
        Ok(left_out)
    }
}

/// Takes a dictionary out of the registry, as a process that never opened its file
/// would be without it (tests of loading it from the file).
#[cfg(test)]
pub(crate) fn forget(id: u64) {
    registry().write().unwrap().remove(&id);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack_frame::directory;
    use crate::{EventRecord, RecordBatch, RecordBody, SessionMeta};
    use redb::{ReadableDatabase, ReadableTableMetadata};

    const ROOMS: [&str; 4] = [
        "The Temple of the Ember\nYou stand in a vaulted hall of red stone. In its centre an eternal fire\nburns in a wide brass bowl.\n[ Exits: north east south west up ]",
        "Market Square\nStalls crowd the square, their awnings snapping in the wind off the\nriver. A fountain stands dry at the centre.\n[ Exits: north south ]",
        "The Old Road\nThe road runs east and west between hedges gone wild; cart ruts\nhold rainwater.\n[ Exits: east west ]",
        "A Quiet Chapel\nCandles gutter before a small altar. The walls are bare but for a\nfaded tapestry of a knight kneeling.\n[ Exits: west ]",
    ];

    fn look(session: u64, seq: u64) -> EventRecord {
        let room = ROOMS[((session + seq) % 4) as usize];
        EventRecord {
            session,
            seq,
            agent: format!("agent{session}").into(),
            at_us: 1_000_000 * seq + session,
            room_vnum: 3000 + ((session + seq) % 4) as u32,
            body: RecordBody::Observation {
                event_type: "text".into(),
                text: format!("{room}\nAgent{} [agent] is standing here.", (session * 7 + seq) % 64).into(),
                from: None,
            },
        }
    }

    fn texts(rs: &[EventRecord]) -> Vec<String> {
        rs.iter()
            .map(|r| match &r.body {
                RecordBody::Observation { text, .. } => text.to_string(),
                _ => String::new(),
            })
            .collect()
    }

    /// A sweep of many sessions trains a dictionary, keeps it in the file with the packs
    /// that use it, and packs with it (smaller than without); the next sweep uses the
    /// same one; a backup carries it; a process that never saw it reads the packs once
    /// it opens the file (or the backup), and a pack whose dictionary is nowhere is a
    /// clear error.
    #[test]
    fn a_sweep_trains_a_dictionary_kept_in_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.redb");
        let (store, _) = Store::open(&path).unwrap();
        let sessions: Vec<SessionMeta> =
            (1..=64).map(|s| SessionMeta { session: s, agent: format!("agent{s}"), started_us: s, ..Default::default() }).collect();
        let mut want: HashMap<u64, Vec<EventRecord>> = HashMap::new();
        for (i, seqs) in [(1..=15u64), (16..=30), (31..=45)].into_iter().enumerate() {
            let records: Vec<EventRecord> = seqs.flat_map(|seq| (1..=64u64).map(move |s| look(s, seq))).collect();
            for r in &records {
                want.entry(r.session).or_default().push(r.clone());
            }
            let batch =
                RecordBatch { sessions: if i == 0 { sessions.clone() } else { vec![] }, records, sweep: i > 0, ..Default::default() };
            store.write_records(&batch).unwrap();
        }
        type Packs = Vec<Vec<u8>>;
        type Dicts = Vec<(u64, Vec<u8>)>;
        let chunks = |path: &std::path::Path| -> (Packs, Dicts) {
            let db = redb::Database::open(path).unwrap();
            let tx = db.begin_read().unwrap();
            let c: Vec<Vec<u8>> =
                tx.open_table(tables::RECORD_CHUNKS).unwrap().iter().unwrap().map(|r| r.unwrap().1.value().to_vec()).collect();
            let d = tx
                .open_table(tables::RECORD_DICTS)
                .unwrap()
                .iter()
                .unwrap()
                .map(|r| r.map(|(k, v)| (k.value(), v.value().to_vec())).unwrap())
                .collect();
            (c, d)
        };
        for s in 1..=64 {
            assert_eq!(texts(&store.session_records(s).unwrap()), texts(&want[&s]), "session {s}");
        }
        drop(store);
        let (frames, dicts) = chunks(&path);
        let sessions: usize = frames.iter().map(|f| directory(f).unwrap().members.len()).sum();
        assert_eq!(sessions, 128, "two sweeps of 64 sessions");
        assert_eq!(dicts.len(), 1, "one dictionary, used by both sweeps");
        let (id, bytes) = &dicts[0];
        assert_eq!(*id, id_of(bytes));
        assert!(frames.iter().all(|f| directory(f).unwrap().dict() == *id));
        // Without the dictionary the same packs are larger.
        let (with, without): (usize, usize) = frames
            .iter()
            .map(|f| {
                let members: Vec<(u64, Vec<u8>)> =
                    directory(f).unwrap().unframe().unwrap().into_iter().map(|(s, p)| (s, p.raw().to_vec())).collect();
                let plain: usize = crate::pack_frame::frames(&members, None).unwrap().iter().map(|(_, v)| v.len()).sum();
                (f.len(), plain)
            })
            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        assert!(with < without, "with the dictionary {with} bytes, without {without}");

        // A backup carries it; a process without it in memory reads the packs from the
        // file's own copy once it opens the file.
        let (store, _) = Store::open(&path).unwrap();
        let copy = dir.path().join("copy.redb");
        store.backup_to(&copy, &mut |_, _| {}).unwrap();
        drop(store);
        forget(*id);
        let err = directory(&frames[0]).unwrap().unframe().err().expect("no dictionary, no pack").to_string();
        assert!(err.contains("dictionary") && err.contains(&format!("{id:016x}")), "{err}");
        let back = Store::open_read_only(&copy).unwrap();
        for s in [1, 33, 64] {
            assert_eq!(texts(&back.session_records(s).unwrap()), texts(&want[&s]), "session {s} from the backup");
        }
        forget(*id);
        let (store, _) = Store::open(&path).unwrap();
        assert_eq!(texts(&store.session_records(7).unwrap()), texts(&want[&7]));
        drop(store);

        // A damaged dictionary: the file opens, its packs are a clear error, the rest
        // of the file reads as ever.
        {
            let db = redb::Database::open(&path).unwrap();
            let tx = db.begin_write().unwrap();
            let mut bad = bytes.clone();
            let mid = bad.len() / 2;
            bad[mid] ^= 0x40;
            tx.open_table(tables::RECORD_DICTS).unwrap().insert(*id, bad.as_slice()).unwrap();
            tx.commit().unwrap();
        }
        forget(*id);
        let (store, _) = Store::open(&path).unwrap();
        let err = store.session_records(7).expect_err("a pack of a damaged dictionary").to_string();
        assert!(err.contains("missing from the file or damaged"), "{err}");
        assert_eq!(store.session(7).unwrap().unwrap().agent, "agent7");
        assert_eq!(store.load_dicts().unwrap(), 1, "the damaged one is left out");
    }

    /// Too little to train on: packs are zstd without a dictionary, and none is kept.
    #[test]
    fn a_small_sweep_packs_without_a_dictionary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.redb");
        let (store, _) = Store::open(&path).unwrap();
        let records: Vec<EventRecord> = (1..=5u64).flat_map(|seq| (1..=3u64).map(move |s| look(s, seq))).collect();
        store.write_records(&RecordBatch { records, sweep: true, ..Default::default() }).unwrap();
        assert_eq!(texts(&store.session_records(2).unwrap()).len(), 5);
        drop(store);
        let db = redb::Database::open(&path).unwrap();
        let tx = db.begin_read().unwrap();
        let c = tx.open_table(tables::RECORD_CHUNKS).unwrap();
        assert!(c.iter().unwrap().all(|r| directory(r.unwrap().1.value()).unwrap().dict() == 0));
        assert_eq!(tx.open_table(tables::RECORD_DICTS).unwrap().len().unwrap(), 0);
    }
}
