//! Record encoding: one version byte, then rmp-serde.
//!
//! The version byte lets a reader tell an old record layout from a new one without a
//! table-wide rewrite:
//! - 1: structs as MessagePack maps (field names in every value): `encode`, for rows
//!   written now and then (accounts, the world, what 3 holds), whose types may skip
//!   empty fields.
//! - 2: structs as MessagePack arrays, in field order: `encode_compact`, for the record
//!   log and the journal, written all the time — a decision is about half the bytes, so
//!   the recorder copies, writes and syncs half as much. A type written this way must
//!   never skip a field when serializing, and fields added later go at the end with
//!   `#[serde(default)]` (an older value is a shorter array).
//! - 3: a version-1 value (maps) compressed with zstd: `encode_packed`, for the rows
//!   that are large and kept per character (characters, memories): a character's row is
//!   a few KB of field names and skills, a quarter of that compressed.
//! - 4: a run of records as version 2 writes it, with each record's session, seq and
//!   time written as its difference from the record before it: `encode_records_into`,
//!   the record log's parts (one session's records of one commit). A time is 9 bytes
//!   whose low ones no compressor can guess, a difference one to three; read only by
//!   `decode_records`.

use serde::{de::DeserializeOwned, Serialize};

use crate::{EventRecord, StoreError};

/// Structs as maps (see the module's note).
pub const RECORD_VERSION: u8 = 1;
/// Structs as arrays (see the module's note).
pub const RECORD_VERSION_COMPACT: u8 = 2;
/// A version-1 value, zstd-compressed (see the module's note).
pub const RECORD_VERSION_ZSTD: u8 = 3;
/// Records with their session, seq and time as differences (see the module's note).
pub const RECORD_VERSION_DELTAS: u8 = 4;
/// zstd's level for `encode_packed` (rows written now and then: level 3, its default).
const PACKED_LEVEL: i32 = 3;
/// Most bytes a packed row may grow to when read (a damaged or hostile row is an
/// error, not an allocation of whatever its frame claims).
const PACKED_MAX: u64 = 256 << 20;

pub fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, StoreError> {
    let mut out = vec![RECORD_VERSION];
    rmp_serde::encode::write_named(&mut out, value).map_err(|e| StoreError::Codec(e.to_string()))?;
    Ok(out)
}

/// The record log's and the journal's layout (see the module's note).
pub fn encode_compact<T: Serialize>(value: &T) -> Result<Vec<u8>, StoreError> {
    let mut out = Vec::with_capacity(256);
    encode_compact_into(&mut out, value)?;
    Ok(out)
}

/// `encode_compact` into `out` (cleared first), so one buffer serves a whole group
/// commit instead of growing a new one for every chunk.
pub fn encode_compact_into<T: Serialize>(out: &mut Vec<u8>, value: &T) -> Result<(), StoreError> {
    out.clear();
    out.push(RECORD_VERSION_COMPACT);
    rmp_serde::encode::write(out, value).map_err(|e| StoreError::Codec(e.to_string()))
}

/// The record log's parts: records as `encode_compact` writes them, with each one's
/// session, seq and time the difference from the one before (wrapping: a time earlier
/// than the one before is a large difference, still exact), version 4.
pub fn encode_records_into<R: std::borrow::Borrow<EventRecord>>(out: &mut Vec<u8>, records: &[R]) -> Result<(), StoreError> {
    out.clear();
    out.push(RECORD_VERSION_DELTAS);
    rmp_serde::encode::write(out, &Deltas(records)).map_err(|e| StoreError::Codec(e.to_string()))
}

/// Records written by `encode_records_into` (version 4), or a plain list of them
/// (versions 1 and 2, written before).
pub fn decode_records(bytes: &[u8]) -> Result<Vec<EventRecord>, StoreError> {
    match bytes.split_first() {
        Some((&RECORD_VERSION_DELTAS, rest)) => {
            let mut records: Vec<EventRecord> = rmp_serde::from_slice(rest).map_err(|e| StoreError::Codec(e.to_string()))?;
            let (mut session, mut seq, mut at) = (0u64, 0u64, 0u64);
            for r in &mut records {
                session = session.wrapping_add(r.session);
                seq = seq.wrapping_add(r.seq);
                at = at.wrapping_add(r.at_us);
                (r.session, r.seq, r.at_us) = (session, seq, at);
            }
            Ok(records)
        }
        _ => decode(bytes),
    }
}

/// Records serialized with differences (`encode_records_into`).
struct Deltas<'a, R>(&'a [R]);

impl<R: std::borrow::Borrow<EventRecord>> Serialize for Deltas<'_, R> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeSeq, SerializeStruct};
        struct Delta<'a>(&'a EventRecord, [u64; 3]);
        impl Serialize for Delta<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                // EventRecord's fields in its order (the derived reader reads it).
                let mut st = s.serialize_struct("EventRecord", 6)?;
                st.serialize_field("session", &self.1[0])?;
                st.serialize_field("seq", &self.1[1])?;
                st.serialize_field("agent", &self.0.agent)?;
                st.serialize_field("at_us", &self.1[2])?;
                st.serialize_field("room_vnum", &self.0.room_vnum)?;
                st.serialize_field("body", &self.0.body)?;
                st.end()
            }
        }
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        let mut before = [0u64; 3];
        for r in self.0 {
            let r = r.borrow();
            let now = [r.session, r.seq, r.at_us];
            seq.serialize_element(&Delta(
                r,
                [now[0].wrapping_sub(before[0]), now[1].wrapping_sub(before[1]), now[2].wrapping_sub(before[2])],
            ))?;
            before = now;
        }
        seq.end()
    }
}

/// A version-1 value compressed (see the module's note).
pub fn encode_packed<T: Serialize>(value: &T) -> Result<Vec<u8>, StoreError> {
    let plain = encode(value)?;
    let mut out = vec![RECORD_VERSION_ZSTD];
    let mut z = zstd::stream::Encoder::new(&mut out, PACKED_LEVEL).map_err(|e| StoreError::Codec(e.to_string()))?;
    std::io::Write::write_all(&mut z, &plain).map_err(|e| StoreError::Codec(e.to_string()))?;
    z.finish().map_err(|e| StoreError::Codec(e.to_string()))?;
    Ok(out)
}

pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, StoreError> {
    match bytes.split_first() {
        // rmp-serde reads a struct from a map or an array alike.
        Some((&RECORD_VERSION | &RECORD_VERSION_COMPACT, rest)) => {
            rmp_serde::from_slice(rest).map_err(|e| StoreError::Codec(e.to_string()))
        }
        Some((&RECORD_VERSION_ZSTD, rest)) => {
            let plain = unpack(rest)?;
            match plain.first() {
                Some(&RECORD_VERSION | &RECORD_VERSION_COMPACT) => decode(&plain),
                _ => Err(StoreError::Codec("a packed record holds no plain record".into())),
            }
        }
        Some((v, _)) => Err(StoreError::Codec(format!("unknown record version {v}"))),
        None => Err(StoreError::Codec("empty record".into())),
    }
}

/// A packed row's bytes, at most `PACKED_MAX`.
fn unpack(frame: &[u8]) -> Result<Vec<u8>, StoreError> {
    use std::io::Read;
    let err = |e: std::io::Error| StoreError::Codec(format!("a packed record does not decompress: {e}"));
    let mut out = Vec::new();
    zstd::stream::Decoder::new(frame).map_err(err)?.take(PACKED_MAX + 1).read_to_end(&mut out).map_err(err)?;
    if out.len() as u64 > PACKED_MAX {
        return Err(StoreError::Codec(format!("a packed record is larger than {PACKED_MAX} bytes")));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A packed row reads back as the value; it is smaller when its value repeats
    /// itself; a damaged frame, a frame of nothing readable, a packed row inside a packed
    /// row are errors, never a panic.
    #[test]
    fn packed_rows_read_back_and_bad_ones_are_errors() {
        let value: Vec<(String, u32)> = (0..60).map(|i| (format!("skill_{}", i % 7), i)).collect();
        let packed = encode_packed(&value).unwrap();
        assert_eq!(packed[0], RECORD_VERSION_ZSTD);
        assert!(packed.len() * 2 < encode(&value).unwrap().len(), "{} packed", packed.len());
        assert_eq!(decode::<Vec<(String, u32)>>(&packed).unwrap(), value);
        let mut cut = packed.clone();
        cut.truncate(cut.len() / 2);
        assert!(matches!(decode::<Vec<(String, u32)>>(&cut), Err(StoreError::Codec(_))));
        let mut flipped = packed.clone();
        flipped[1] ^= 0xff;
        assert!(matches!(decode::<Vec<(String, u32)>>(&flipped), Err(StoreError::Codec(_))));
        let nested = [vec![RECORD_VERSION_ZSTD], zstd::bulk::compress(&packed, 3).unwrap()].concat();
        assert!(matches!(decode::<Vec<(String, u32)>>(&nested), Err(StoreError::Codec(_))));
        assert!(matches!(decode::<u32>(&[RECORD_VERSION_ZSTD]), Err(StoreError::Codec(_))));
    }

    #[test]
    fn round_trip_and_version_check() {
        let bytes = encode(&("brenda", 42u32)).unwrap();
        assert_eq!(bytes[0], RECORD_VERSION);
        let back: (String, u32) = decode(&bytes).unwrap();
        assert_eq!(back, ("brenda".to_string(), 42));
        let mut bad = bytes.clone();
        bad[0] = 9;
        assert!(matches!(decode::<(String, u32)>(&bad), Err(StoreError::Codec(_))));
        assert!(decode::<u32>(&[]).is_err());
    }

    /// Every record kind written in either layout reads back the same; the compact one
    /// is smaller; a value written before a field was added (a shorter array) reads with
    /// that field's default.
    #[test]
    fn both_layouts_read_back_and_compact_is_smaller() {
        use crate::recording::*;
        let decision = DecisionRecord {
            turn: 3,
            command: "kill".into(),
            args: "rat".into(),
            status: "ok".into(),
            pre: StateSnapshot {
                hp: 20,
                max_hp: 22,
                position: "standing".into(),
                room_vnum: 8004,
                room_name: "The Temple".into(),
                ..Default::default()
            },
            stimulus: Stimulus {
                mobs_present: vec!["a rat".into()],
                kind: "stranger".into(),
                target: Some("a rat".into()),
                memory_valence: Some(-2.0),
                ..Default::default()
            },
            memory_ids: vec!["m1".into()],
            re: Some("c-1".into()),
            ..Default::default()
        };
        let bodies = vec![
            RecordBody::Decision(Box::new(decision)),
            RecordBody::Observation { event_type: "say".into(), text: "Ann says, 'hi'".into(), from: Some("Ann".into()) },
            RecordBody::Transition(Transition::Hp { from: 20, to: 15, max: 22, by: Some("a rat".into()) }),
            RecordBody::Transition(Transition::Room { from: 1, to: 2, name: "Road".into() }),
            RecordBody::Transition(Transition::Kill { victim: "a rat".into(), victim_level: 1, victim_is_player: false, level: 2 }),
            RecordBody::Transition(Transition::Death { killer: None, exp_lost: 37 }),
        ];
        let records: Vec<EventRecord> = bodies
            .into_iter()
            .enumerate()
            .map(|(i, body)| EventRecord {
                session: 7,
                seq: i as u64 + 1,
                agent: "ann".into(),
                at_us: 1_000 + i as u64,
                room_vnum: 8004,
                body,
            })
            .collect();
        let compact = encode_compact(&records).unwrap();
        let named = encode(&records).unwrap();
        // With differences: the same records back, smaller; and the older layouts read
        // by the same reader.
        let mut deltas = Vec::new();
        encode_records_into(&mut deltas, &records).unwrap();
        assert_eq!(decode_records(&deltas).unwrap(), records);
        assert_eq!(decode_records(&compact).unwrap(), records);
        assert_eq!(decode_records(&named).unwrap(), records);
        assert!(deltas.len() < compact.len(), "{} vs {}", deltas.len(), compact.len());
        assert!(matches!(decode::<Vec<EventRecord>>(&deltas), Err(StoreError::Codec(_))), "only decode_records reads version 4");
        // A time earlier than the one before, the largest values: exact.
        let mut odd = records.clone();
        odd[1].at_us = 3;
        odd[2].at_us = u64::MAX;
        odd[3].session = u64::MAX;
        odd[4].seq = 0;
        encode_records_into(&mut deltas, &odd).unwrap();
        assert_eq!(decode_records(&deltas).unwrap(), odd);
        encode_records_into(&mut deltas, &Vec::<EventRecord>::new()).unwrap();
        assert_eq!(decode_records(&deltas).unwrap(), vec![]);
        assert_eq!(decode::<Vec<EventRecord>>(&compact).unwrap(), records);
        assert_eq!(decode::<Vec<EventRecord>>(&named).unwrap(), records);
        assert!(compact.len() * 10 < named.len() * 7, "compact {} vs named {}", compact.len(), named.len());

        // A session row from before `first_batch` and `memory_ids` (two fields shorter).
        #[derive(serde::Serialize)]
        struct OldSessionMeta(
            u64,
            String,
            bool,
            u64,
            Option<u64>,
            Option<String>,
            Option<String>,
            Option<String>,
            Option<String>,
            Option<String>,
            bool,
            u64,
        );
        let old = OldSessionMeta(5, "ann".into(), true, 10, Some(20), Some("quit".into()), None, None, None, None, true, 9);
        let back: SessionMeta = decode(&encode_compact(&old).unwrap()).unwrap();
        assert_eq!((back.session, back.records, back.first_batch, back.memory_ids.len()), (5, 9, 0, 0));
    }
}
