//! Parts: many encoded chunks in one value, LZ4-compressed together.
//!
//! The record log writes two kinds of them (see `log`):
//! - a tail row (`record_tail`, one per group commit): its parts are keyed by session,
//!   each that session's records of the commit;
//! - a pack (`record_chunks`, one per session per sweep): its parts are keyed by the
//!   batch that committed them, each the session's records of that batch.
//!
//! Layout: the version byte `PARTS_VERSION`, the payload's length (u32 LE), then the
//! payload LZ4-compressed (a block). The payload is, per part, its key (u64 LE), its
//! length (u32 LE) and its bytes (a `codec::encode_compact` value). Compressing a whole
//! commit together is what pays: the same room text is seen by many in one commit, and
//! one session's ten seconds are mostly the same rooms, so a pack is a fifth of its
//! records' size where one session's chunk of one commit would be half.

use crate::StoreError;

/// The first byte of a parts value; a chunk of the log is never a codec value of version
/// 3 or more (those are kept rows: characters, memories), so a chunk tells a pack from a
/// single encoded chunk by it, and a pack group (`pack_group`, 6) from both; and an
/// older build refuses a pack with "unknown record version 3" instead of misreading it. 3: the payload is an LZ4
/// block (tail rows: written at every commit, read back often); 4: a zstd frame (packs,
/// kept: a third smaller, and a session's whole record in one gives zstd's window the
/// room descriptions its earlier packs held).
pub const PARTS_VERSION: u8 = 3;
/// A parts value whose payload is zstd-compressed (see `PARTS_VERSION`).
pub const PARTS_ZSTD: u8 = 4;
/// A parts value whose payload is a zstd frame made with a record dictionary
/// (`dicts`): its id (u64 LE) follows the length. A build that knows only 3 and 4
/// refuses it ("unknown record version 5").
pub const PARTS_ZSTD_DICT: u8 = 5;
/// zstd's level for packs. A 10,000-agent run's packer took 4 % of a core with LZ4, 8 %
/// with level 3 and 7 % with level 1 (a pack there is ~5 KB, where zstd's per-frame
/// work shows); level 3 came out 2 % smaller than 1.
pub const ZSTD_LEVEL: i32 = 1;
/// The most a zstd payload may claim to expand by (a damaged length allocates no more);
/// records compress 6-10 times.
pub(crate) const ZSTD_MAX_RATIO: usize = 1000;
/// Largest payload a parts value may claim (a damaged length never allocates more).
pub(crate) const MAX_PAYLOAD: usize = 1 << 30;

/// Whether a stored value is a parts value.
pub fn is_parts(v: &[u8]) -> bool {
    matches!(v.first(), Some(&PARTS_VERSION | &PARTS_ZSTD | &PARTS_ZSTD_DICT))
}

thread_local! {
    /// Each thread's zstd contexts, made once (see `finish_zstd`).
    static ZSTD: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> = const { std::cell::RefCell::new(None) };
    static UNZSTD: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { std::cell::RefCell::new(None) };
}

/// `src` as a zstd frame at `ZSTD_LEVEL`, with this thread's context (none: zstd could
/// not allocate).
pub(crate) fn zstd_plain(src: &[u8]) -> Option<Vec<u8>> {
    ZSTD.with_borrow_mut(|c| {
        if c.is_none() {
            *c = zstd::bulk::Compressor::new(ZSTD_LEVEL).ok();
        }
        c.as_mut().and_then(|c| c.compress(src).ok())
    })
}

/// A zstd frame of at most `len` bytes, with this thread's context.
pub(crate) fn unzstd(frame: &[u8], len: usize) -> std::io::Result<Vec<u8>> {
    UNZSTD.with_borrow_mut(|d| {
        if d.is_none() {
            *d = zstd::bulk::Decompressor::new().ok();
        }
        match d.as_mut() {
            Some(d) => d.decompress(frame, len),
            None => zstd::bulk::decompress(frame, len),
        }
    })
}

/// Gathers parts and compresses them into one value.
#[derive(Default)]
pub struct PartsWriter {
    raw: Vec<u8>,
    n: usize,
}

impl PartsWriter {
    pub fn push(&mut self, key: u64, bytes: &[u8]) {
        self.raw.extend_from_slice(&key.to_le_bytes());
        self.raw.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        self.raw.extend_from_slice(bytes);
        self.n += 1;
    }

    /// Forgets what was pushed (a writer reused after an error starts clean).
    pub fn clear(&mut self) {
        self.raw.clear();
        self.n = 0;
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Uncompressed bytes gathered.
    pub fn raw_len(&self) -> usize {
        self.raw.len()
    }

    /// The payload gathered so far, uncompressed (what `finish` would compress).
    pub fn raw(&self) -> &[u8] {
        &self.raw
    }

    /// The value to store (and the writer emptied for the next one).
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        out.clear();
        out.push(PARTS_VERSION);
        out.extend_from_slice(&(self.raw.len() as u32).to_le_bytes());
        let at = out.len();
        out.resize(at + lz4_flex::block::get_maximum_output_size(self.raw.len()), 0);
        let len = lz4_flex::block::compress_into(&self.raw, &mut out[at..]).expect("lz4 output sized for the worst case");
        out.truncate(at + len);
        self.raw.clear();
        self.n = 0;
    }

    /// As `finish`, the payload a zstd frame (`PARTS_ZSTD`): for values kept (packs).
    pub fn finish_zstd(&mut self, out: &mut Vec<u8>) {
        out.clear();
        out.push(PARTS_ZSTD);
        out.extend_from_slice(&(self.raw.len() as u32).to_le_bytes());
        // One compression context per thread, kept: making one (a few hundred KB of
        // tables) for each of a sweep's ten thousand packs was the packer's largest cost.
        match zstd_plain(&self.raw) {
            Some(z) => out.extend_from_slice(&z),
            // zstd fails only on allocation: the value is written as LZ4 instead.
            _ => return self.finish(out),
        }
        self.raw.clear();
        self.n = 0;
    }
}

impl PartsWriter {
    /// As `finish_zstd`, with a record dictionary (`PARTS_ZSTD_DICT`): packs, once the
    /// packer has one.
    pub fn finish_zstd_dict(&mut self, dict: &crate::dicts::Trained, out: &mut Vec<u8>) {
        out.clear();
        out.push(PARTS_ZSTD_DICT);
        out.extend_from_slice(&(self.raw.len() as u32).to_le_bytes());
        out.extend_from_slice(&dict.id.to_le_bytes());
        if dict.compress(&self.raw, out).is_err() {
            // zstd fails only on allocation: the value is written without the dictionary.
            return self.finish_zstd(out);
        }
        self.raw.clear();
        self.n = 0;
    }
}

/// A parts value decompressed; `iter` walks its parts in the order they were pushed.
pub struct Parts {
    raw: Vec<u8>,
}

impl Parts {
    /// Parts from their payload as `PartsWriter::raw` holds it (a pack framed with its
    /// group's others, `pack_group`).
    pub(crate) fn from_raw(raw: Vec<u8>) -> Parts {
        Parts { raw }
    }

    /// The payload, as `PartsWriter::raw` held it.
    pub(crate) fn raw(&self) -> &[u8] {
        &self.raw
    }

    pub fn decode(v: &[u8]) -> Result<Parts, StoreError> {
        let bad = |what: &str| StoreError::Codec(format!("record parts: {what}"));
        let Some((&version @ (PARTS_VERSION | PARTS_ZSTD | PARTS_ZSTD_DICT), rest)) = v.split_first() else {
            return Err(bad("not a parts value"));
        };
        let (len, body) = rest.split_at_checked(4).ok_or_else(|| bad("no length"))?;
        let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
        if len > MAX_PAYLOAD {
            return Err(bad("claims more than 1 GiB"));
        }
        if version == PARTS_ZSTD_DICT {
            let (id, frame) = body.split_at_checked(8).ok_or_else(|| bad("no dictionary id"))?;
            if len > frame.len().saturating_mul(ZSTD_MAX_RATIO) {
                return Err(bad("claims more than zstd makes of its bytes"));
            }
            let id = u64::from_le_bytes(id.try_into().unwrap_or_default());
            let raw = crate::dicts::decompress(id, frame, len).map_err(|e| bad(&e))?;
            if raw.len() != len {
                return Err(bad("shorter than its length"));
            }
            return Ok(Parts { raw });
        }
        if version == PARTS_ZSTD {
            if len > body.len().saturating_mul(ZSTD_MAX_RATIO) {
                return Err(bad("claims more than zstd makes of its bytes"));
            }
            let raw = unzstd(body, len).map_err(|e| bad(&e.to_string()))?;
            if raw.len() != len {
                return Err(bad("shorter than its length"));
            }
            return Ok(Parts { raw });
        }
        let mut raw = vec![0u8; len];
        let got = lz4_flex::block::decompress_into(body, &mut raw).map_err(|e| bad(&e.to_string()))?;
        if got != len {
            return Err(bad("shorter than its length"));
        }
        Ok(Parts { raw })
    }

    /// Each part's key and bytes; a part that runs past the end is an error.
    pub fn iter(&self) -> impl Iterator<Item = Result<(u64, &[u8]), StoreError>> {
        self.spans().map(|p| p.map(|(key, start, end)| (key, &self.raw[start..end])))
    }

    /// Each part's key and where its bytes lie (`bytes(start, end)`).
    pub fn spans(&self) -> impl Iterator<Item = Result<(u64, usize, usize), StoreError>> + '_ {
        let raw = self.raw.as_slice();
        let mut at = 0usize;
        std::iter::from_fn(move || {
            let rest = &raw[at..];
            if rest.is_empty() {
                return None;
            }
            let Some(head) = rest.get(..12) else {
                at = raw.len();
                return Some(Err(StoreError::Codec("record parts: a part's header is cut".into())));
            };
            let key = u64::from_le_bytes(head[..8].try_into().unwrap_or_default());
            let len = u32::from_le_bytes(head[8..12].try_into().unwrap_or_default()) as usize;
            if rest.len() - 12 < len {
                at = raw.len();
                return Some(Err(StoreError::Codec("record parts: a part runs past the end".into())));
            }
            let start = at + 12;
            at = start + len;
            Some(Ok((key, start, at)))
        })
    }

    /// The bytes of a part `spans` found.
    pub fn bytes(&self, start: usize, end: usize) -> &[u8] {
        &self.raw[start..end]
    }

    /// The part under `key`, if any (the first one).
    pub fn get(&self, key: u64) -> Result<Option<&[u8]>, StoreError> {
        for p in self.iter() {
            let (k, bytes) = p?;
            if k == key {
                return Ok(Some(bytes));
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_round_trip_in_order_and_compress_repeats() {
        let mut w = PartsWriter::default();
        let text = b"Brenda [agent] is standing here.\n".repeat(40);
        for k in [7u64, 3, 9] {
            w.push(k, &text);
        }
        w.push(1, b"");
        let mut v = Vec::new();
        w.finish(&mut v);
        assert!(w.is_empty());
        assert!(is_parts(&v));
        assert!(v.len() * 10 < text.len() * 3, "{} bytes for three copies of {}", v.len(), text.len());
        let p = Parts::decode(&v).unwrap();
        let got: Vec<(u64, usize)> = p.iter().map(|r| r.map(|(k, b)| (k, b.len())).unwrap()).collect();
        assert_eq!(got, [(7, text.len()), (3, text.len()), (9, text.len()), (1, 0)]);
        assert_eq!(p.get(9).unwrap(), Some(text.as_slice()));
        assert_eq!(p.get(4).unwrap(), None);
    }

    #[test]
    fn damaged_parts_are_errors_never_panics() {
        let mut w = PartsWriter::default();
        w.push(1, b"hello world hello world");
        let mut v = Vec::new();
        w.finish(&mut v);
        for cut in 0..v.len() {
            let _ = Parts::decode(&v[..cut]).map(|p| p.iter().count());
        }
        let mut huge = v.clone();
        huge[1..5].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(Parts::decode(&huge).is_err());
        assert!(Parts::decode(&[2, 1, 2]).is_err(), "a codec value is not parts");
        // A payload whose part claims more than there is.
        let mut w = PartsWriter::default();
        w.raw.extend_from_slice(&5u64.to_le_bytes());
        w.raw.extend_from_slice(&100u32.to_le_bytes());
        w.raw.extend_from_slice(b"short");
        w.n = 1;
        w.finish(&mut v);
        let p = Parts::decode(&v).unwrap();
        assert!(p.iter().next().unwrap().is_err());
    }

    /// A pack's zstd form reads back as the LZ4 one does, smaller; damaged, it is an
    /// error (a length beyond what zstd could make of its bytes allocates nothing).
    #[test]
    fn zstd_parts_read_back_and_refuse_damage() {
        let look = b"The Temple of the Ember\nYou stand in a vaulted hall of red stone.\n[ Exits: north south ]\n".repeat(3);
        let fill = |w: &mut PartsWriter| {
            for k in 1..=40u64 {
                let mut part = look.clone();
                part.extend_from_slice(format!("Brenda says, 'turn {k}'").as_bytes());
                w.push(k, &part);
            }
        };
        let (mut w, mut lz4, mut z) = (PartsWriter::default(), Vec::new(), Vec::new());
        fill(&mut w);
        w.finish(&mut lz4);
        fill(&mut w);
        w.finish_zstd(&mut z);
        assert!(w.is_empty());
        assert_eq!((lz4[0], z[0]), (PARTS_VERSION, PARTS_ZSTD));
        assert!(is_parts(&z));
        assert!(z.len() < lz4.len(), "zstd {} bytes, lz4 {}", z.len(), lz4.len());
        let (a, b) = (Parts::decode(&lz4).unwrap(), Parts::decode(&z).unwrap());
        assert!(a.iter().map(Result::unwrap).eq(b.iter().map(Result::unwrap)));
        for cut in 0..z.len() {
            let _ = Parts::decode(&z[..cut]).map(|p| p.iter().count());
        }
        let mut flipped = z.clone();
        let mid = flipped.len() / 2;
        flipped[mid] ^= 0x5a;
        let _ = Parts::decode(&flipped).map(|p| p.iter().count());
        let mut greedy = z.clone();
        greedy[1..5].copy_from_slice(&(((z.len() - 5) * ZSTD_MAX_RATIO + 1) as u32).to_le_bytes());
        assert!(Parts::decode(&greedy).err().is_some_and(|e| e.to_string().contains("claims more")));
        let mut short = z.clone();
        short[1..5].copy_from_slice(&((b.iter().map(|p| p.unwrap().1.len() + 12).sum::<usize>() + 1) as u32).to_le_bytes());
        assert!(Parts::decode(&short).is_err(), "a length the frame does not fill");
    }

    proptest::proptest! {
        /// Any bytes as a zstd parts value: an error or parts, never a panic.
        #[test]
        fn any_zstd_value_decodes_or_fails(body in proptest::collection::vec(proptest::num::u8::ANY, 0..200), len in 0u32..5000, dict in proptest::bool::ANY) {
            let mut v = vec![if dict { PARTS_ZSTD_DICT } else { PARTS_ZSTD }];
            v.extend_from_slice(&len.to_le_bytes());
            v.extend_from_slice(&body);
            if let Ok(p) = Parts::decode(&v) {
                let _ = p.iter().count();
            }
        }
    }
}
