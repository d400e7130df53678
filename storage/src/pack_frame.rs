//! Framed groups: a sweep's packs of several sessions compressed together, in one zstd
//! frame, in one `record_chunks` value (version byte `PACK_FRAME`).
//!
//! A pack compressed alone (a session's 1.6 s of a sweep at 10,000 agents, its 10 s at
//! 1,000) gives zstd nothing to draw on but itself and the dictionary, while the
//! sessions beside it in the sweep saw the same rooms, the same crowd's arrivals and
//! the same mobs' lines. Compressed together, neighbours' repeats cost a reference: on a
//! 1,000-agent record cut into 1.6 s sweeps the packs came to 339 bytes per decision
//! alone, 272 in frames of 50 KB, 247 of 100 KB, 218 of 200 KB, 193 of 400 KB. A frame
//! is made to fill one 32 KB page (`FRAME_BYTES`), ~200-250 KB of records; reading one
//! session's pack decompresses its whole frame (about a quarter of a millisecond).
//!
//! Layout: `PACK_FRAME`, the member count (u32 LE), the dictionary's id (u64 LE; 0:
//! none), the payload's length (u32 LE), per member its session (u64 LE) and its
//! payload's length (u32 LE), then one zstd frame of the members' payloads one after
//! another (each what a `Parts` holds: that session's records by batch). Keyed (sweep,
//! first session), as `pack_group`'s groups are, and found the same way.

use crate::dicts::Trained;
use crate::parts::{unzstd, zstd_plain, Parts, MAX_PAYLOAD, ZSTD_MAX_RATIO};
use crate::StoreError;

/// The first byte of a framed group; a build before it refuses one ("unknown record
/// version 7").
pub const PACK_FRAME: u8 = 7;

/// The most bytes a frame is made to take: a 32 KB page less the leaf's own. A single
/// session's pack larger than this is a frame of one.
pub const FRAME_BYTES: usize = 32 * 1024 - 64;

/// Header bytes of a frame of `n` members.
fn header(n: usize) -> usize {
    17 + 12 * n
}

/// Sessions' payloads (session, `Parts` payload; in session order) as framed groups,
/// each (its first session, the value), compressed with `dict` if given, each filling
/// `FRAME_BYTES` as nearly as `fit` makes it.
pub fn frames(sessions: &[(u64, Vec<u8>)], dict: Option<&Trained>) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
    frames_within(sessions, dict, FRAME_BYTES)
}

/// `frames`, each made to take at most `most` bytes (`fit`).
pub fn frames_within(sessions: &[(u64, Vec<u8>)], dict: Option<&Trained>, most: usize) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
    let lens: Vec<usize> = sessions.iter().map(|(_, p)| p.len()).collect();
    let made = crate::fit::fit(&lens, most, |run| frame(&sessions[run], dict))?;
    Ok(made.into_iter().map(|(run, v)| (sessions[run.start].0, v)).collect())
}

/// One framed group of `members`. zstd fails only on allocation: without the
/// dictionary it is tried again plainly, and if that fails too the sweep's build is an
/// error (its tail rows wait for the next sweep), never a frame that holds nothing.
fn frame(members: &[(u64, Vec<u8>)], dict: Option<&Trained>) -> Result<Vec<u8>, StoreError> {
    let raw_len: usize = members.iter().map(|(_, p)| p.len()).sum();
    let mut raw = Vec::with_capacity(raw_len);
    for (_, p) in members {
        raw.extend_from_slice(p);
    }
    let mut v = Vec::with_capacity(header(members.len()) + raw_len / 4);
    v.push(PACK_FRAME);
    v.extend_from_slice(&(members.len() as u32).to_le_bytes());
    let id_at = v.len();
    v.extend_from_slice(&dict.map_or(0, |d| d.id).to_le_bytes());
    v.extend_from_slice(&(raw_len as u32).to_le_bytes());
    for (session, p) in members {
        v.extend_from_slice(&session.to_le_bytes());
        v.extend_from_slice(&(p.len() as u32).to_le_bytes());
    }
    let body = v.len();
    if let Some(d) = dict {
        if d.compress(&raw, &mut v).is_ok() {
            return Ok(v);
        }
        // zstd fails only on allocation: the frame is made without the dictionary.
        v.truncate(body);
        v[id_at..id_at + 8].copy_from_slice(&0u64.to_le_bytes());
    }
    let z = zstd_plain(&raw).ok_or_else(|| StoreError::Codec("a pack frame could not be compressed (out of memory)".into()))?;
    v.extend_from_slice(&z);
    Ok(v)
}

/// Whether a stored value is a framed group.
pub fn is_frame(v: &[u8]) -> bool {
    v.first() == Some(&PACK_FRAME)
}

/// A framed group's directory: its members (session, payload offset, length) in
/// session order, its dictionary and payload length, and its frame.
pub struct Directory<'a> {
    pub members: Vec<(u64, usize, usize)>,
    dict: u64,
    raw_len: usize,
    frame: &'a [u8],
}

/// Reads a framed group's directory. A damaged one (cut short, lengths that do not add
/// up, sessions out of order, a length the frame cannot hold) is an error, never a panic.
pub fn directory(v: &[u8]) -> Result<Directory<'_>, StoreError> {
    let bad = |why: &str| StoreError::Codec(format!("a framed pack group is damaged: {why}"));
    let head = v.get(..17).ok_or_else(|| bad("too short"))?;
    let n = u32::from_le_bytes(head[1..5].try_into().unwrap_or_default()) as usize;
    let dict = u64::from_le_bytes(head[5..13].try_into().unwrap_or_default());
    let raw_len = u32::from_le_bytes(head[13..17].try_into().unwrap_or_default()) as usize;
    let dir_end = n.checked_mul(12).and_then(|d| d.checked_add(17)).ok_or_else(|| bad("member count"))?;
    let dir = v.get(17..dir_end).ok_or_else(|| bad("directory cut short"))?;
    let frame = &v[dir_end..];
    if raw_len > MAX_PAYLOAD || raw_len > frame.len().saturating_mul(ZSTD_MAX_RATIO) {
        return Err(bad("claims more than its frame makes"));
    }
    let mut members: Vec<(u64, usize, usize)> = Vec::with_capacity(n);
    let mut at = 0usize;
    for e in dir.chunks_exact(12) {
        let session = u64::from_le_bytes(e[..8].try_into().unwrap_or_default());
        let len = u32::from_le_bytes(e[8..].try_into().unwrap_or_default()) as usize;
        if members.last().is_some_and(|(s, _, _)| *s >= session) {
            return Err(bad("sessions out of order"));
        }
        members.push((session, at, len));
        at = at.checked_add(len).filter(|a| *a <= raw_len).ok_or_else(|| bad("members run past the payload"))?;
    }
    if at != raw_len {
        return Err(bad("members do not add up to the payload"));
    }
    Ok(Directory { members, dict, raw_len, frame })
}

impl Directory<'_> {
    /// The sessions it holds, in order.
    pub fn sessions(&self) -> impl Iterator<Item = u64> + '_ {
        self.members.iter().map(|(s, _, _)| *s)
    }

    /// The id of the dictionary its frame was made with (0: none).
    pub fn dict(&self) -> u64 {
        self.dict
    }

    /// The whole payload, decompressed.
    fn payload(&self) -> Result<Vec<u8>, StoreError> {
        let bad = |why: String| StoreError::Codec(format!("a framed pack group does not decompress: {why}"));
        let raw = if self.dict != 0 {
            crate::dicts::decompress(self.dict, self.frame, self.raw_len).map_err(bad)?
        } else {
            unzstd(self.frame, self.raw_len).map_err(|e| bad(e.to_string()))?
        };
        if raw.len() != self.raw_len {
            return Err(bad("shorter than its length".into()));
        }
        Ok(raw)
    }

    /// Every member's parts, in session order.
    pub fn unframe(&self) -> Result<Vec<(u64, Parts)>, StoreError> {
        let raw = self.payload()?;
        Ok(self.members.iter().map(|(s, at, len)| (*s, Parts::from_raw(raw[*at..at + len].to_vec()))).collect())
    }

    /// One session's parts, if it is a member: the frame decompressed as far as its end.
    pub fn unframe_one(&self, session: u64) -> Result<Option<Parts>, StoreError> {
        let Some(&(_, at, len)) = self.members.iter().find(|(s, _, _)| *s == session) else { return Ok(None) };
        let mut raw = crate::dicts::decompress_prefix(self.dict, self.frame, at + len)
            .map_err(|e| StoreError::Codec(format!("a framed pack group does not decompress: {e}")))?;
        if raw.len() != at + len {
            return Err(StoreError::Codec("a framed pack group does not decompress: shorter than its directory".into()));
        }
        raw.drain(..at);
        Ok(Some(Parts::from_raw(raw)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parts::PartsWriter;

    /// A session's payload: `n` parts of records-like bytes that repeat across sessions.
    fn payload(session: u64, n: usize) -> Vec<u8> {
        let mut w = PartsWriter::default();
        for b in 0..n as u64 {
            let text = format!("The Temple of the Ember. Benchq{} leaves north. A rat is here. [{session}:{b}]", b % 7);
            w.push(100 + b, text.repeat(3).as_bytes());
        }
        w.raw().to_vec()
    }

    #[test]
    fn frames_fill_a_page_and_read_back_every_member() {
        let sessions: Vec<(u64, Vec<u8>)> = (0..3000u64).map(|s| (s * 2 + 1, payload(s, 4 + (s % 5) as usize))).collect();
        let values = frames(&sessions, None).unwrap();
        assert!(values.len() > 1 && values.len() < 60, "{} frames", values.len());
        let mut back = Vec::new();
        for (first, v) in &values {
            assert!(is_frame(v) && v.len() <= FRAME_BYTES, "{} bytes", v.len());
            let d = directory(v).unwrap();
            assert_eq!(d.sessions().next(), Some(*first));
            for (s, p) in d.unframe().unwrap() {
                assert_eq!(d.unframe_one(s).unwrap().unwrap().raw(), p.raw());
                back.push((s, p.raw().to_vec()));
            }
            assert!(d.unframe_one(first + 1).unwrap().is_none(), "an even session is no member");
        }
        assert_eq!(back, sessions);
        // After the first (made at a guessed ratio), all but the last fill most of a page.
        for (_, v) in &values[1..values.len() - 1] {
            assert!(v.len() > FRAME_BYTES / 2, "{} bytes", v.len());
        }
    }

    #[test]
    fn a_large_pack_is_a_frame_of_its_own() {
        let mut w = PartsWriter::default();
        w.push(5, &crate::tests::noise(9, 60_000));
        let sessions = vec![(1, payload(1, 3)), (2, w.raw().to_vec()), (3, payload(3, 3))];
        let values = frames(&sessions, None).unwrap();
        let firsts: Vec<u64> = values.iter().map(|(s, _)| *s).collect();
        assert_eq!(firsts, [1, 2, 3]);
        assert!(values[1].1.len() > FRAME_BYTES);
        assert_eq!(directory(&values[1].1).unwrap().unframe_one(2).unwrap().unwrap().raw(), sessions[1].1.as_slice());
    }

    #[test]
    fn a_damaged_frame_is_an_error() {
        let sessions: Vec<(u64, Vec<u8>)> = (1..=3u64).map(|s| (s, payload(s, 3))).collect();
        let v = frames(&sessions, None).unwrap().remove(0).1;
        for cut in [1, 10, 16, 20, 40, v.len() - 1] {
            let d = directory(&v[..cut]);
            assert!(d.is_err() || d.unwrap().unframe().is_err(), "cut at {cut}");
        }
        let mut swapped = v.clone();
        swapped[17..25].copy_from_slice(&99u64.to_le_bytes());
        assert!(directory(&swapped).is_err());
        let mut huge = v.clone();
        huge[1..5].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(directory(&huge).is_err());
        let mut claims = v.clone();
        claims[13..17].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(directory(&claims).is_err());
        // The frame's magic number (zstd carries no checksum of the payload here: a pack
        // damaged inside its frame may read as other bytes, as a lone pack's did).
        let mut flipped = v.clone();
        flipped[header(3)] ^= 0xff;
        assert!(directory(&flipped).unwrap().unframe().is_err());
        let mut unknown = v.clone();
        unknown[5..13].copy_from_slice(&7u64.to_le_bytes());
        assert!(directory(&unknown).unwrap().unframe().is_err(), "a dictionary the file lacks");
    }
}
