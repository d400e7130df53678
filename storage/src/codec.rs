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
//! - 8: as 4, and a decision's times written against its record's time (the dispatch):
//!   when the session read it, when its pulse ended, each a zigzag difference, and its
//!   latency as the difference from completed − received (0 unless a clock stepped):
//!   four times of nine bytes each became one to five. Written by `encode_records_into`
//!   since this version; read only by `decode_records`.

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
/// As `RECORD_VERSION_DELTAS`, a decision's times against its record's (see the
/// module's note). 5-7 are the record chunks' own first bytes (`parts`, `pack_group`,
/// `pack_frame`): a part is never read as one of those, but the numbers stay apart.
pub const RECORD_VERSION_DECISION_TIMES: u8 = 8;
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
/// than the one before is a large difference, still exact), and a decision's times
/// against its record's, version 8.
pub fn encode_records_into<R: std::borrow::Borrow<EventRecord>>(out: &mut Vec<u8>, records: &[R]) -> Result<(), StoreError> {
    out.clear();
    out.push(RECORD_VERSION_DECISION_TIMES);
    rmp_serde::encode::write(out, &Deltas(records, true)).map_err(|e| StoreError::Codec(e.to_string()))
}

/// Version 4, as builds before version 8 wrote the log's parts (tests read it back).
#[cfg(test)]
pub(crate) fn encode_records_v4(records: &[EventRecord]) -> Vec<u8> {
    let mut out = vec![RECORD_VERSION_DELTAS];
    rmp_serde::encode::write(&mut out, &Deltas(records, false)).unwrap();
    out
}

/// Records written by `encode_records_into` (versions 8 and 4), or a plain list of them
/// (versions 1 and 2, written before).
pub fn decode_records(bytes: &[u8]) -> Result<Vec<EventRecord>, StoreError> {
    match bytes.split_first() {
        Some((&(v @ RECORD_VERSION_DELTAS | v @ RECORD_VERSION_DECISION_TIMES), rest)) => {
            let mut records: Vec<EventRecord> = rmp_serde::from_slice(rest).map_err(|e| StoreError::Codec(e.to_string()))?;
            let (mut session, mut seq, mut at) = (0u64, 0u64, 0u64);
            for r in &mut records {
                session = session.wrapping_add(r.session);
                seq = seq.wrapping_add(r.seq);
                at = at.wrapping_add(r.at_us);
                (r.session, r.seq, r.at_us) = (session, seq, at);
                if let (RECORD_VERSION_DECISION_TIMES, crate::RecordBody::Decision(d)) = (v, &mut r.body) {
                    d.received_us = at.wrapping_add(unzigzag(d.received_us));
                    d.dispatched_us = at.wrapping_add(unzigzag(d.dispatched_us));
                    d.completed_us = at.wrapping_add(unzigzag(d.completed_us));
                    d.latency_us = d.completed_us.saturating_sub(d.received_us).wrapping_add(unzigzag(d.latency_us));
                }
            }
            Ok(records)
        }
        _ => decode(bytes),
    }
}

/// `v − from` as a zigzag number: a small difference either way is a small number.
fn zigzag(v: u64, from: u64) -> u64 {
    let d = v.wrapping_sub(from) as i64;
    ((d << 1) ^ (d >> 63)) as u64
}

fn unzigzag(z: u64) -> u64 {
    (z >> 1) ^ (z & 1).wrapping_neg()
}

/// A record body as `RecordBody`'s derived writer writes it, except a decision's times
/// against `at` (version 8).
struct BodyOut<'a>(&'a crate::RecordBody, u64);

impl Serialize for BodyOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let crate::RecordBody::Decision(d) = self.0 else { return self.0.serialize(s) };
        let at = self.1;
        // The internally tagged layout: the tag, then DecisionRecord's fields in its
        // order (a test holds the count to the struct's).
        let mut st = s.serialize_struct("DecisionRecord", DECISION_FIELDS + 1)?;
        st.serialize_field("kind", "decision")?;
        st.serialize_field("turn", &d.turn)?;
        st.serialize_field("command", &d.command)?;
        st.serialize_field("args", &d.args)?;
        st.serialize_field("status", &d.status)?;
        st.serialize_field("pre", &d.pre)?;
        st.serialize_field("post", &d.post)?;
        st.serialize_field("received_us", &zigzag(d.received_us, at))?;
        st.serialize_field("dispatched_us", &zigzag(d.dispatched_us, at))?;
        st.serialize_field("completed_us", &zigzag(d.completed_us, at))?;
        st.serialize_field("latency_us", &zigzag(d.latency_us, d.completed_us.saturating_sub(d.received_us)))?;
        st.serialize_field("stimulus", &d.stimulus)?;
        st.serialize_field("memory_ids", &d.memory_ids)?;
        st.serialize_field("client", &d.client)?;
        st.serialize_field("re", &d.re)?;
        st.serialize_field("reason", &d.reason)?;
        st.serialize_field("llm", &d.llm)?;
        st.end()
    }
}

/// The fields `BodyOut` writes of a decision.
const DECISION_FIELDS: usize = 16;

/// Records serialized with differences (`encode_records_into`); with a decision's times
/// against its record's when `.1` (version 8).
struct Deltas<'a, R>(&'a [R], bool);

impl<R: std::borrow::Borrow<EventRecord>> Serialize for Deltas<'_, R> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeSeq, SerializeStruct};
        struct Delta<'a>(&'a EventRecord, [u64; 3], bool);
        impl Serialize for Delta<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                // EventRecord's fields in its order (the derived reader reads it).
                let mut st = s.serialize_struct("EventRecord", 6)?;
                st.serialize_field("session", &self.1[0])?;
                st.serialize_field("seq", &self.1[1])?;
                st.serialize_field("agent", &self.0.agent)?;
                st.serialize_field("at_us", &self.1[2])?;
                st.serialize_field("room_vnum", &self.0.room_vnum)?;
                if self.2 {
                    st.serialize_field("body", &BodyOut(&self.0.body, self.0.at_us))?;
                } else {
                    st.serialize_field("body", &self.0.body)?;
                }
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
                self.1,
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

    /// Ann's records of `session`, one per body, seq 1, 2, 3…, `step` µs apart from `at`.
    fn records_of(session: u64, at: u64, step: u64, bodies: Vec<crate::RecordBody>) -> Vec<EventRecord> {
        bodies
            .into_iter()
            .enumerate()
            .map(|(i, body)| EventRecord {
                session,
                seq: i as u64 + 1,
                agent: "ann".into(),
                at_us: at + i as u64 * step,
                room_vnum: 8004,
                body,
            })
            .collect()
    }

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

    /// Version 8 writes a decision's times against its record's: they read back
    /// exactly (a clock that stepped back, the largest values, a latency that is not
    /// completed − received), in fewer bytes than version 4, which still reads; the
    /// writer names every field of a decision.
    #[test]
    fn decision_times_are_written_against_the_record_and_read_back_exactly() {
        use crate::recording::*;
        let decision = |received_us: u64, dispatched_us: u64, completed_us: u64, latency_us: u64| DecisionRecord {
            turn: 9,
            command: "north".into(),
            received_us,
            dispatched_us,
            completed_us,
            latency_us,
            re: Some("b9".into()),
            reason: Some("the door".into()),
            ..Default::default()
        };
        let at = 1_795_891_887_186_613u64;
        let cases = [
            decision(at - 18, at, at + 15_130, 15_148),
            decision(at + 5, at, at - 2, 0),
            decision(at, at, at, 77),
            decision(0, u64::MAX, 1, u64::MAX),
            decision(u64::MAX, 0, u64::MAX, 3),
        ];
        let records = records_of(4, at, 1_000_000, cases.into_iter().map(|d| RecordBody::Decision(Box::new(d))).collect());
        let mut v8 = Vec::new();
        encode_records_into(&mut v8, &records).unwrap();
        assert_eq!(v8[0], RECORD_VERSION_DECISION_TIMES);
        assert_eq!(decode_records(&v8).unwrap(), records);
        let v4 = encode_records_v4(&records);
        assert_eq!(decode_records(&v4).unwrap(), records);
        // Plain ones (the first): four times of 9 bytes each become a few.
        let mut one = Vec::new();
        encode_records_into(&mut one, &records[..1]).unwrap();
        assert!(one.len() + 20 <= encode_records_v4(&records[..1]).len(), "{} vs {}", one.len(), encode_records_v4(&records[..1]).len());
        // DecisionRecord's fields, as its derived writer counts them (an array).
        let plain = encode_compact(&DecisionRecord::default()).unwrap();
        let n = match plain[1] {
            h @ 0x90..=0x9f => (h & 0x0f) as usize,
            0xdc => u16::from_be_bytes([plain[2], plain[3]]) as usize,
            other => panic!("not an array: {other:#x}"),
        };
        assert_eq!(n, DECISION_FIELDS, "a field added to DecisionRecord must be written by BodyOut too");
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
        let records = records_of(7, 1_000, 1, bodies);
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
