//! Finding a session's pack under a sweep, in whichever value holds it, and pack groups:
//! several sessions' packs of one sweep in one `record_chunks` value, as files written
//! before framed groups (`pack_frame`) hold them.
//!
//! A pack is one session's few seconds, 1-3 KB compressed. redb gives a value that does
//! not share a leaf with its neighbours a page to itself: a 2.9 KB pack took a 4 KB
//! page and a 5 KB one 8 KB, and on a 1,000-agent record the slack was half as much
//! again as the packs (150 bytes per decision). So a sweep's packs were written in
//! groups of up to `GROUP_BYTES`, in session order, each keyed (sweep, its first
//! session): a group takes one page of its size with little left over. Frames do the
//! same and compress the members together; groups are still read, and retention writes
//! a group it strips as a group again.
//!
//! Layout: the version byte `PACK_GROUP`, the number of members (u32 LE), per member its
//! session (u64 LE) and length (u32 LE), then the members' packs one after another, each
//! a parts value as it would be stored alone. A pack that would be a group of one is
//! stored as itself under (sweep, session), as before groups, so a reader finds a
//! session's pack under a sweep in the last value keyed at or before (sweep, session):
//! a frame or a group that holds it or does not, or the pack itself.

use redb::{AccessGuard, ReadableTable};

use crate::pack_frame::{directory, is_frame};
use crate::parts::Parts;
use crate::{redb_err, StoreError};

/// The first byte of a group value (a pack's is 3-5, an older chunk's 1-2); a build
/// that knows no groups refuses one ("unknown record version 6").
pub const PACK_GROUP: u8 = 6;

/// The most bytes a group holds: a 16 KB page less the leaf's own (its header, the key
/// and the value's length), so a full group fills one page. Reading one session's pack
/// reads its group's page (16 KB where it was 4-8).
pub const GROUP_BYTES: usize = 16 * 1024 - 64;

/// Header bytes of a group of `n` members.
fn header(n: usize) -> usize {
    5 + 12 * n
}

/// A sweep's packs (in session order) as the values to write: (the key's session, the
/// value). Consecutive packs go in one group while it stays within `GROUP_BYTES`; a
/// pack alone (no neighbour fits beside it) is written as itself.
pub fn group(packs: &[(u64, Vec<u8>)]) -> Vec<(u64, Vec<u8>)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < packs.len() {
        let (mut end, mut bytes) = (at + 1, header(1) + packs[at].1.len());
        while end < packs.len() && bytes + 12 + packs[end].1.len() <= GROUP_BYTES {
            bytes += 12 + packs[end].1.len();
            end += 1;
        }
        let members = &packs[at..end];
        if members.len() == 1 {
            out.push((members[0].0, members[0].1.clone()));
        } else {
            let mut v = Vec::with_capacity(bytes);
            v.push(PACK_GROUP);
            v.extend_from_slice(&(members.len() as u32).to_le_bytes());
            for (session, pack) in members {
                v.extend_from_slice(&session.to_le_bytes());
                v.extend_from_slice(&(pack.len() as u32).to_le_bytes());
            }
            for (_, pack) in members {
                v.extend_from_slice(pack);
            }
            out.push((members[0].0, v));
        }
        at = end;
    }
    out
}

/// Whether a stored value is a group.
pub fn is_group(v: &[u8]) -> bool {
    v.first() == Some(&PACK_GROUP)
}

/// A group's members: (session, pack), in session order. A damaged directory (lengths
/// past the value's end, sessions out of order) is an error, never a panic.
pub fn members(v: &[u8]) -> Result<Vec<(u64, &[u8])>, StoreError> {
    let bad = |why: &str| StoreError::Codec(format!("a pack group is damaged: {why}"));
    let n = v.get(1..5).ok_or_else(|| bad("too short"))?;
    let n = u32::from_le_bytes(n.try_into().unwrap_or_default()) as usize;
    let dir = v.get(5..5 + n.checked_mul(12).ok_or_else(|| bad("member count"))?).ok_or_else(|| bad("directory cut short"))?;
    let mut at = 5 + 12 * n;
    let mut out = Vec::with_capacity(n);
    for e in dir.chunks_exact(12) {
        let session = u64::from_le_bytes(e[..8].try_into().unwrap_or_default());
        let len = u32::from_le_bytes(e[8..].try_into().unwrap_or_default()) as usize;
        if out.last().is_some_and(|(s, _)| *s >= session) {
            return Err(bad("sessions out of order"));
        }
        let pack = v.get(at..at + len).ok_or_else(|| bad("a member runs past its end"))?;
        out.push((session, pack));
        at += len;
    }
    Ok(out)
}

/// A session's pack as a stored value holds it: the parts value itself (a lone pack, a
/// member of a group), or its parts taken out of a framed group (`pack_frame`).
pub enum Member<'a> {
    Value(&'a [u8]),
    Parts(Parts),
}

impl Member<'_> {
    /// Its records by batch (an older single chunk: keyed `key`), appended to `out`.
    pub(crate) fn push_to(&self, key: u64, out: &mut Vec<crate::log_view::Part>) -> Result<(), StoreError> {
        match self {
            Member::Value(v) => crate::log_view::push_parts(key, v, out),
            Member::Parts(p) => crate::log_view::push_parts_of(p, out),
        }
    }
}

/// Each session's pack in a stored value keyed (_, `first`): a group's or a frame's
/// members, or the value itself as `first`'s.
pub fn members_of(first: u64, v: &[u8]) -> Result<Vec<(u64, Member<'_>)>, StoreError> {
    if is_frame(v) {
        Ok(directory(v)?.unframe()?.into_iter().map(|(s, p)| (s, Member::Parts(p))).collect())
    } else if is_group(v) {
        Ok(members(v)?.into_iter().map(|(s, p)| (s, Member::Value(p))).collect())
    } else {
        Ok(vec![(first, Member::Value(v))])
    }
}

/// The sessions a stored value keyed (_, `first`) holds packs of (nothing decompressed).
pub fn sessions_in(first: u64, v: &[u8]) -> Result<Vec<u64>, StoreError> {
    if is_frame(v) {
        Ok(directory(v)?.sessions().collect())
    } else if is_group(v) {
        Ok(members(v)?.into_iter().map(|(s, _)| s).collect())
    } else {
        Ok(vec![first])
    }
}

/// One session's pack as read from the table: the value holding it and where, or its
/// parts taken out of a frame.
pub struct PackRef<'a> {
    guard: AccessGuard<'a, &'static [u8]>,
    found: Found,
}

enum Found {
    Range(std::ops::Range<usize>),
    Parts(Parts),
}

impl PackRef<'_> {
    /// Its records by batch (an older single chunk: keyed `key`), appended to `out`.
    pub(crate) fn push_to(&self, key: u64, out: &mut Vec<crate::log_view::Part>) -> Result<(), StoreError> {
        match &self.found {
            Found::Range(r) => crate::log_view::push_parts(key, &self.guard.value()[r.clone()], out),
            Found::Parts(p) => crate::log_view::push_parts_of(p, out),
        }
    }

    /// The stored bytes of a lone or grouped pack; a framed one's payload.
    #[cfg(test)]
    pub fn bytes(&self) -> &[u8] {
        match &self.found {
            Found::Range(r) => &self.guard.value()[r.clone()],
            Found::Parts(p) => p.raw(),
        }
    }
}

/// A stored value and the first session of its key.
type Held<'a> = (u64, AccessGuard<'a, &'static [u8]>);

/// The last value keyed at or before (`key`, `session`), with its first session.
fn holder<'a, T>(chunks: &'a T, key: u64, session: u64) -> Result<Option<Held<'a>>, StoreError>
where
    T: ReadableTable<(u64, u64), &'static [u8]>,
{
    let Some(row) = chunks.range((key, 0)..=(key, session)).map_err(redb_err)?.next_back() else { return Ok(None) };
    let (k, guard) = row.map_err(redb_err)?;
    Ok(Some((k.value().1, guard)))
}

/// The pack of `session` under sweep (or older chunk) key `key`, if there is one.
pub fn find<'a, T>(chunks: &'a T, key: u64, session: u64) -> Result<Option<PackRef<'a>>, StoreError>
where
    T: ReadableTable<(u64, u64), &'static [u8]>,
{
    let Some((first, guard)) = holder(chunks, key, session)? else { return Ok(None) };
    let v = guard.value();
    if is_frame(v) {
        let parts = directory(v)?.unframe_one(session)?;
        return Ok(parts.map(|p| PackRef { guard, found: Found::Parts(p) }));
    }
    if !is_group(v) {
        let len = v.len();
        return Ok((first == session).then(|| PackRef { guard, found: Found::Range(0..len) }));
    }
    let base = v.as_ptr() as usize;
    let range = members(v)?.into_iter().find(|(s, _)| *s == session).map(|(_, p)| {
        let at = p.as_ptr() as usize - base;
        at..at + p.len()
    });
    Ok(range.map(|range| PackRef { guard, found: Found::Range(range) }))
}

/// Whether `session` has a pack under `key` (nothing decompressed).
pub fn has<T>(chunks: &T, key: u64, session: u64) -> Result<bool, StoreError>
where
    T: ReadableTable<(u64, u64), &'static [u8]>,
{
    let Some((first, guard)) = holder(chunks, key, session)? else { return Ok(false) };
    Ok(sessions_in(first, guard.value())?.contains(&session))
}

#[cfg(test)]
mod tests {
    use super::*;
    use redb::ReadableDatabase;

    fn packs(sizes: &[usize]) -> Vec<(u64, Vec<u8>)> {
        sizes.iter().enumerate().map(|(i, n)| (10 + i as u64 * 3, vec![20 + i as u8; *n])).collect()
    }

    #[test]
    fn packs_fill_groups_in_order_and_a_lone_pack_is_itself() {
        let p = packs(&[2900, 3100, 2800, 3000, 2950, 2000, 1500, 20_000, 100]);
        let g = group(&p);
        // Five fit in 16,320 bytes with their directory; the sixth would not; the large
        // one is alone, and so is the last after it.
        assert_eq!(g.iter().map(|(k, _)| *k).collect::<Vec<_>>(), vec![10, 25, 31, 34]);
        assert!(is_group(&g[0].1) && g[0].1.len() <= GROUP_BYTES);
        assert_eq!(members(&g[0].1).unwrap().len(), 5);
        assert_eq!(members(&g[1].1).unwrap().len(), 2);
        assert_eq!(g[2].1, p[7].1);
        assert_eq!(g[3].1, p[8].1);
        let back: Vec<(u64, Vec<u8>)> = g
            .iter()
            .flat_map(|(k, v)| {
                members_of(*k, v).unwrap().into_iter().map(|(s, m)| match m {
                    Member::Value(b) => (s, b.to_vec()),
                    Member::Parts(_) => panic!("a group holds no framed parts"),
                })
            })
            .collect();
        assert_eq!(back, p);
    }

    #[test]
    fn a_damaged_group_is_an_error() {
        let g = group(&packs(&[100, 200, 300]));
        let v = &g[0].1;
        for cut in [1, 4, 10, 30, v.len() - 1] {
            assert!(members(&v[..cut]).is_err(), "cut at {cut}");
        }
        let mut swapped = v.clone();
        swapped[5..13].copy_from_slice(&99u64.to_le_bytes());
        assert!(members(&swapped).is_err());
        let mut huge = v.clone();
        huge[1..5].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(members(&huge).is_err());
    }

    #[test]
    fn a_pack_is_found_in_its_group_or_alone_and_not_in_a_neighbours() {
        let dir = tempfile::tempdir().unwrap();
        let db = redb::Database::create(dir.path().join("g.redb")).unwrap();
        let def: redb::TableDefinition<(u64, u64), &[u8]> = redb::TableDefinition::new("t");
        let p = packs(&[3000, 3000, 3000, 15_000, 500, 500]);
        let tx = db.begin_write().unwrap();
        {
            let mut t = tx.open_table(def).unwrap();
            for (s, v) in group(&p) {
                t.insert((7, s), v.as_slice()).unwrap();
            }
            // A neighbouring sweep's pack of a later session.
            t.insert((6, 99), [1u8, 2, 3].as_slice()).unwrap();
        }
        tx.commit().unwrap();
        let tx = db.begin_read().unwrap();
        let t = tx.open_table(def).unwrap();
        for (s, v) in &p {
            assert_eq!(find(&t, 7, *s).unwrap().unwrap().bytes(), v.as_slice(), "session {s}");
            assert!(!has(&t, 6, *s).unwrap() && !has(&t, 8, *s).unwrap());
            assert!(!has(&t, 7, s + 1).unwrap());
        }
        assert!(!has(&t, 7, 0).unwrap() && !has(&t, 7, 99).unwrap());
        assert_eq!(find(&t, 6, 99).unwrap().unwrap().bytes(), &[1, 2, 3]);
    }
}
