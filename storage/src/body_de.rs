//! Reading a `RecordBody` without serde's buffering.
//!
//! serde reads an internally tagged enum by first copying the whole value into a tree
//! of its own (`Content`) to find the tag, then reading the variant from that copy: two
//! passes, and an allocation for every string and field, for every record read (a
//! dream, an export, the indexer's read-back, a reindex). In the record log's compact
//! layout the tag is the array's first element, so this reads it and then the variant's
//! fields straight from the array. Maps (the named layout) still go serde's way.

use std::sync::Arc;

use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::recording::{DecisionRecord, RecordBody, Transition};

/// serde's own reading of the same enum, for maps.
#[derive(serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Tagged {
    Decision(Box<DecisionRecord>),
    Observation { event_type: String, text: Arc<str>, from: Option<Arc<str>> },
    Transition(Transition),
}

impl From<Tagged> for RecordBody {
    fn from(t: Tagged) -> RecordBody {
        match t {
            Tagged::Decision(d) => RecordBody::Decision(d),
            Tagged::Observation { event_type, text, from } => RecordBody::Observation { event_type, text, from },
            Tagged::Transition(t) => RecordBody::Transition(t),
        }
    }
}

const KINDS: &[&str] = &["decision", "observation", "transition"];

enum Kind {
    Decision,
    Observation,
    Transition,
}

impl<'de> Deserialize<'de> for Kind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Kind, D::Error> {
        struct KindVisitor;
        impl Visitor<'_> for KindVisitor {
            type Value = Kind;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a record kind")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Kind, E> {
                match v {
                    "decision" => Ok(Kind::Decision),
                    "observation" => Ok(Kind::Observation),
                    "transition" => Ok(Kind::Transition),
                    other => Err(E::unknown_variant(other, KINDS)),
                }
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Kind, E> {
                let s = std::str::from_utf8(v).map_err(|_| E::invalid_value(de::Unexpected::Bytes(v), &self))?;
                self.visit_str(s)
            }
        }
        d.deserialize_str(KindVisitor)
    }
}

struct BodyVisitor;

impl<'de> Visitor<'de> for BodyVisitor {
    type Value = RecordBody;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a record body (its kind, then its fields)")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RecordBody, A::Error> {
        let kind: Kind = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let body = match kind {
            // The variant's fields follow the tag in the same array: the derived readers
            // take them from there as from an array of their own.
            Kind::Decision => RecordBody::Decision(Box::new(DecisionRecord::deserialize(SeqAccessDeserializer::new(&mut seq))?)),
            Kind::Transition => RecordBody::Transition(Transition::deserialize(SeqAccessDeserializer::new(&mut seq))?),
            Kind::Observation => {
                let short = |n| de::Error::invalid_length(n, &"an observation's kind, event type, text and sender");
                let event_type = seq.next_element()?.ok_or_else(|| short(1))?;
                let text = seq.next_element()?.ok_or_else(|| short(2))?;
                let from = seq.next_element()?.ok_or_else(|| short(3))?;
                RecordBody::Observation { event_type, text, from }
            }
        };
        // Nothing may follow the variant's fields (serde's own reading refused it too).
        if seq.next_element::<IgnoredAny>()?.is_some() {
            return Err(de::Error::custom("a record body longer than its kind's fields"));
        }
        Ok(body)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RecordBody, A::Error> {
        Tagged::deserialize(MapAccessDeserializer::new(map)).map(Into::into)
    }
}

impl<'de> Deserialize<'de> for RecordBody {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<RecordBody, D::Error> {
        d.deserialize_any(BodyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec;
    use crate::recording::{ClientFields, StateSnapshot, Stimulus};
    use proptest::prelude::*;

    /// serde's derived reading of a body, to compare with.
    fn derived(bytes: &[u8]) -> Result<RecordBody, rmp_serde::decode::Error> {
        rmp_serde::from_slice::<Tagged>(bytes).map(Into::into)
    }

    fn ours(bytes: &[u8]) -> Result<RecordBody, rmp_serde::decode::Error> {
        rmp_serde::from_slice::<RecordBody>(bytes)
    }

    fn compact(b: &RecordBody) -> Vec<u8> {
        rmp_serde::to_vec(b).unwrap()
    }

    fn names() -> impl Strategy<Value = String> {
        prop_oneof![Just(String::new()), "[a-z]{1,8}", "\\PC{0,12}"]
    }

    fn arc_names() -> impl Strategy<Value = Arc<str>> {
        names().prop_map(Into::into)
    }

    fn decision() -> impl Strategy<Value = RecordBody> {
        (
            (any::<u64>(), names(), names(), names(), any::<i32>(), any::<u32>(), arc_names(), proptest::option::of(arc_names())),
            (
                proptest::collection::vec(arc_names(), 0..3),
                proptest::option::of(names()),
                proptest::option::of(any::<f32>().prop_filter("not NaN", |f| !f.is_nan())),
                proptest::collection::vec(names(), 0..2),
                proptest::option::of(names()),
                any::<u64>(),
            ),
        )
            .prop_map(
                |((turn, command, args, status, hp, room, room_name, fighting), (mobs, target, valence, ids, re, latency))| {
                    RecordBody::Decision(Box::new(DecisionRecord {
                        turn,
                        command,
                        args,
                        status,
                        pre: StateSnapshot { hp, room_vnum: room, room_name: room_name.clone(), fighting, ..Default::default() },
                        post: StateSnapshot { hp: hp.wrapping_sub(1), room_name, ..Default::default() },
                        stimulus: Stimulus { mobs_present: mobs, target, memory_valence: valence, ..Default::default() },
                        memory_ids: ids,
                        client: ClientFields::default(),
                        re,
                        latency_us: latency,
                        ..Default::default()
                    }))
                },
            )
    }

    fn transition() -> impl Strategy<Value = RecordBody> {
        prop_oneof![
            (any::<i32>(), any::<i32>(), any::<i32>(), proptest::option::of(names())).prop_map(|(from, to, max, by)| Transition::Hp {
                from,
                to,
                max,
                by
            }),
            (any::<u32>(), any::<u32>(), names()).prop_map(|(from, to, name)| Transition::Room { from, to, name }),
            (proptest::option::of(names()), any::<i64>()).prop_map(|(killer, exp_lost)| Transition::Death { killer, exp_lost }),
            (names(), any::<u8>(), any::<bool>(), any::<u8>()).prop_map(|(victim, victim_level, victim_is_player, level)| {
                Transition::Kill { victim, victim_level, victim_is_player, level }
            }),
            (names(), names(), any::<bool>(), names()).prop_map(|(act, other, by_me, text)| Transition::Social { act, other, by_me, text }),
            (names(), any::<u64>(), names()).prop_map(|(layer, id, text)| Transition::Mind { layer, id, text }),
        ]
        .prop_map(RecordBody::Transition)
    }

    fn body() -> impl Strategy<Value = RecordBody> {
        prop_oneof![
            (names(), arc_names(), proptest::option::of(arc_names())).prop_map(|(event_type, text, from)| RecordBody::Observation {
                event_type,
                text,
                from
            }),
            decision(),
            transition(),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// Every body reads back as written, in both layouts, and as serde's own
        /// reading reads it.
        #[test]
        fn reads_what_serde_reads(b in body()) {
            let bytes = compact(&b);
            prop_assert_eq!(ours(&bytes).unwrap(), b.clone());
            prop_assert_eq!(derived(&bytes).unwrap(), b.clone());
            let named = codec::encode(&b).unwrap();
            prop_assert_eq!(codec::decode::<RecordBody>(&named).unwrap(), b);
        }

        /// A damaged body (a byte changed, or cut short) is read by both or by neither,
        /// and alike when read; never a panic.
        #[test]
        fn damage_is_refused_as_serde_refuses_it(b in body(), at in any::<prop::sample::Index>(), byte in any::<u8>(), cut in any::<bool>()) {
            let mut bytes = compact(&b);
            let i = at.index(bytes.len());
            if cut { bytes.truncate(i) } else { bytes[i] = byte }
            match (ours(&bytes), derived(&bytes)) {
                (Ok(a), Ok(d)) => prop_assert_eq!(a, d),
                (Err(_), Err(_)) => {}
                (a, d) => prop_assert!(false, "ours {:?}, serde's {:?}", a.is_ok(), d.is_ok()),
            }
        }
    }

    /// A body with a field more than its kind has, an unknown kind, and one cut short are
    /// errors, not misread records.
    #[test]
    fn too_long_unknown_and_short_bodies_are_errors() {
        let obs = ("observation", "say", "hi", Option::<&str>::None);
        assert!(ours(&rmp_serde::to_vec(&obs).unwrap()).is_ok());
        let longer = ("observation", "say", "hi", Option::<&str>::None, 7u8);
        assert!(ours(&rmp_serde::to_vec(&longer).unwrap()).is_err());
        assert!(derived(&rmp_serde::to_vec(&longer).unwrap()).is_err());
        let unknown = ("dream", "say", "hi", Option::<&str>::None);
        assert!(ours(&rmp_serde::to_vec(&unknown).unwrap()).unwrap_err().to_string().contains("dream"));
        let short = ("observation", "say");
        assert!(ours(&rmp_serde::to_vec(&short).unwrap()).is_err());
        assert!(ours(&rmp_serde::to_vec(&Vec::<u8>::new()).unwrap()).is_err());
    }
}
