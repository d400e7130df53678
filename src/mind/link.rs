//! The neural link (seed `004_*`): an agent asks another for its memory
//! (`link_request`); the other has a window (2 minutes) to accept (`link_accept`); on
//! acceptance the requester receives a copy of the other's whole memory bank — its
//! memories, archived ones too, and its summaries; not its soul entries, which the seed
//! keeps as the agent's own identity — and nothing is removed from either. Each copy
//! says whose it was (`from`, `from_id`); both minds note the link (a `link` record).
//! Pending requests live in memory: a restart drops them, as the window would.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use pawns_storage::{MindRecord, Store};
use serde_json::{json, Value};

use super::layers::{LINK, MEMORY, SUMMARY};
use super::{Refusal, Whereabouts};

/// Memories one link copies at most (the newest).
pub const MAX_COPIES: usize = 10_000;

/// How long a request waits for its answer.
pub const WINDOW: Duration = Duration::from_secs(120);

/// Requests waiting: requester (lower-cased) → (the one asked, lower-cased; when).
#[derive(Default)]
pub struct Pending(Mutex<HashMap<String, (String, Instant)>>);

impl Pending {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, (String, Instant)>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records a request; refused while the requester has one pending.
    pub fn request(&self, from: &str, to: &str, window: Duration) -> Result<(), Refusal> {
        let (from, to) = (from.to_ascii_lowercase(), to.to_ascii_lowercase());
        if from == to {
            return Err(("bad_target", "not yourself".into()));
        }
        let mut m = self.map();
        if let Some((other, at)) = m.get(&from) {
            if at.elapsed() < window {
                return Err(("link_pending", format!("you already asked {other}; wait for the answer or the window to close")));
            }
        }
        m.insert(from, (to, Instant::now()));
        Ok(())
    }

    /// Takes the request `from` made of `to`: refused if there is none, or its window
    /// closed (then it is gone).
    pub fn accept(&self, from: &str, to: &str, window: Duration) -> Result<(), Refusal> {
        let (from, to) = (from.to_ascii_lowercase(), to.to_ascii_lowercase());
        let mut m = self.map();
        match m.get(&from) {
            Some((asked, at)) if *asked == to => {
                let late = at.elapsed() >= window;
                m.remove(&from);
                if late {
                    return Err(("link_expired", format!("{from}'s request closed after {} s", window.as_secs())));
                }
                Ok(())
            }
            _ => Err(("no_such_request", format!("{from} has not asked to link with you"))),
        }
    }
}

/// Copies `giver`'s memory bank into `taker`'s mind and notes the link in both.
/// Returns the result for the giver's `link_accept` and the copies made (for the
/// taker's record).
pub fn share(store: &Store, giver: &str, taker: &str, at: &Whereabouts) -> Result<(Value, Vec<MindRecord>), Refusal> {
    let internal = |e: pawns_storage::StoreError| ("internal", e.to_string());
    let now = crate::time::unix_us();
    let mut copies = Vec::new();
    let mut meta = store.mind_meta(taker).map_err(internal)?;
    // The giver's own memories and summaries (not what it received by earlier links:
    // those are others' to give), the newest first up to the cap.
    let mut own: Vec<MindRecord> = Vec::new();
    for layer in [MEMORY, SUMMARY] {
        own.extend(
            store
                .mind_layer(giver, layer)
                .map_err(internal)?
                .into_iter()
                .filter(|r| r.ended.as_deref() != Some("forgotten") && !r.fields.contains_key("from")),
        );
    }
    own.sort_by_key(|r| std::cmp::Reverse(r.at_us));
    own.truncate(MAX_COPIES);
    own.reverse();
    {
        for r in own {
            meta.next_id += 1;
            let mut fields = r.fields.clone();
            fields.insert("from".into(), crate::auth::names::display(giver));
            fields.insert("from_id".into(), r.id.to_string());
            fields.insert("shared_at".into(), crate::record::export::rfc3339(now));
            copies.push(MindRecord { id: meta.next_id, ended: None, ended_us: None, history: Vec::new(), fields, ..r });
        }
    }
    let note = |meta: &mut pawns_storage::MindMeta, other: &str, dir: &str, n: usize| {
        meta.next_id += 1;
        let mut fields = BTreeMap::new();
        fields.insert("direction".to_string(), dir.to_string());
        fields.insert("memories".to_string(), n.to_string());
        MindRecord {
            id: meta.next_id,
            layer: LINK,
            text: format!("neural link with {}", crate::auth::names::display(other)),
            at_us: now,
            room_vnum: at.room_vnum,
            room: at.room.clone(),
            key: Some(other.to_ascii_lowercase()),
            fields,
            ..Default::default()
        }
    };
    let n = copies.len();
    meta.live_memories += copies.iter().filter(|r| r.layer == MEMORY && r.ended.is_none()).count() as u64;
    let mut taker_rows = copies.clone();
    taker_rows.push(note(&mut meta, giver, "received", n));
    store.mind_put(taker, &taker_rows, &meta).map_err(internal)?;
    let mut gmeta = store.mind_meta(giver).map_err(internal)?;
    let gnote = note(&mut gmeta, taker, "gave", n);
    store.mind_put(giver, &[gnote], &gmeta).map_err(internal)?;
    Ok((json!({"shared": n, "with": crate::auth::names::display(taker)}), copies))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_wait_within_their_window() {
        let p = Pending::default();
        assert_eq!(p.request("ann", "Ann", WINDOW).unwrap_err().0, "bad_target");
        p.request("Ann", "Bram", WINDOW).unwrap();
        assert_eq!(p.request("ann", "cid", WINDOW).unwrap_err().0, "link_pending");
        assert_eq!(p.accept("ann", "cid", WINDOW).unwrap_err().0, "no_such_request", "asked Bram, not Cid");
        p.accept("ann", "bram", WINDOW).unwrap();
        assert_eq!(p.accept("ann", "bram", WINDOW).unwrap_err().0, "no_such_request", "taken");
        p.request("ann", "bram", Duration::ZERO).unwrap();
        assert_eq!(p.accept("ann", "bram", Duration::ZERO).unwrap_err().0, "link_expired");
        p.request("ann", "cid", Duration::ZERO).unwrap();
    }
}
