//! Characters to and from their stored records, and the save writer.
//!
//! The engine hands finished records to a channel and moves on; the writer task batches
//! whatever is waiting into one redb transaction off the async threads. Only the newest
//! record per character in a batch is written, so the queue cannot grow past the
//! number of characters between two batches.

use std::collections::HashMap;
use std::sync::Arc;

use pawns_storage::{CharacterRecord, ObjRecord, Store};
use tokio::sync::mpsc;

use super::engine::Engine;
use super::world::{CharId, ObjId};

#[derive(Clone)]
pub struct SaveQueue {
    tx: mpsc::UnboundedSender<SaveMsg>,
}

pub enum SaveMsg {
    Save(Box<CharacterRecord>),
    /// House rooms whose floors changed.
    Houses(Vec<pawns_storage::HouseRecord>),
    /// Resolves once everything queued before it is on disk.
    Flush(tokio::sync::oneshot::Sender<()>),
}

impl SaveQueue {
    pub fn save(&self, r: CharacterRecord) {
        let _ = self.tx.send(SaveMsg::Save(Box::new(r)));
    }
    pub fn save_houses(&self, h: Vec<pawns_storage::HouseRecord>) {
        let _ = self.tx.send(SaveMsg::Houses(h));
    }
    pub async fn flush(&self) {
        let (tx, rx) = tokio::sync::oneshot::channel();
        if self.tx.send(SaveMsg::Flush(tx)).is_ok() {
            let _ = rx.await;
        }
    }
}

/// Starts the writer; it ends when every `SaveQueue` clone is dropped.
pub fn spawn_writer(store: Arc<Store>) -> (SaveQueue, tokio::task::JoinHandle<()>) {
    let (tx, mut rx) = mpsc::unbounded_channel::<SaveMsg>();
    let handle = tokio::spawn(async move {
        while let Some(first) = rx.recv().await {
            let mut batch: HashMap<String, CharacterRecord> = HashMap::new();
            let mut houses: HashMap<u32, pawns_storage::HouseRecord> = HashMap::new();
            let mut flushes = Vec::new();
            let mut next = Some(first);
            while let Some(msg) = next.take() {
                match msg {
                    SaveMsg::Save(r) => {
                        batch.insert(r.name.to_ascii_lowercase(), *r);
                    }
                    SaveMsg::Houses(hs) => {
                        for h in hs {
                            houses.insert(h.room_vnum, h);
                        }
                    }
                    SaveMsg::Flush(done) => flushes.push(done),
                }
                next = rx.try_recv().ok();
            }
            if !batch.is_empty() {
                let store = store.clone();
                let records: Vec<CharacterRecord> = batch.into_values().collect();
                let n = records.len();
                match tokio::task::spawn_blocking(move || store.save_characters(&records)).await {
                    Ok(Ok(())) => tracing::debug!(count = n, "characters saved"),
                    Ok(Err(e)) => tracing::error!(code = e.code(), "saving characters failed: {e}"),
                    Err(e) => tracing::error!("save task failed: {e}"),
                }
            }
            if !houses.is_empty() {
                let store = store.clone();
                let records: Vec<pawns_storage::HouseRecord> = houses.into_values().collect();
                match tokio::task::spawn_blocking(move || store.put_houses(&records)).await {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => tracing::error!(code = e.code(), "saving houses failed: {e}"),
                    Err(e) => tracing::error!("house save task failed: {e}"),
                }
            }
            for f in flushes {
                let _ = f.send(());
            }
        }
    });
    (SaveQueue { tx }, handle)
}

fn now_secs() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

impl Engine {
    pub(crate) fn obj_record(&self, id: ObjId) -> Option<ObjRecord> {
        let o = self.world.obj(id)?;
        // Corpses and hand-made piles have no prototype to come back from.
        if !self.world.obj_protos.contains_key(&o.vnum) {
            return None;
        }
        Some(ObjRecord { vnum: o.vnum, contains: o.contains.iter().filter_map(|c| self.obj_record(*c)).collect() })
    }

    pub fn to_record(&self, id: CharId) -> Option<CharacterRecord> {
        let c = self.world.ch(id)?;
        let pc = c.pc.as_ref()?;
        Some(CharacterRecord {
            name: c.name.clone(),
            is_agent: pc.is_agent,
            class: c.class,
            race: c.race,
            sex: c.sex,
            level: c.level,
            exp: c.exp,
            gold: c.gold,
            hit: c.hit,
            max_hit: c.max_hit,
            mana: c.mana,
            max_mana: c.max_mana,
            moves: c.moves,
            max_moves: c.max_moves,
            abilities: c.abilities,
            alignment: c.alignment,
            room_vnum: self.world.rooms[c.room].proto.vnum,
            inventory: c.inventory.iter().filter_map(|o| self.obj_record(*o)).collect(),
            equipment: c.equipment.iter().enumerate().filter_map(|(s, o)| Some((s as u8, self.obj_record((*o)?)?))).collect(),
            deaths: c.deaths,
            kills: c.kills,
            saved_at: now_secs(),
            skills: pc.skills.iter().map(|(k, v)| (k.clone(), *v)).collect(),
            practices: pc.practices,
            conditions: Some(pc.conditions),
        })
    }

    pub fn save_char(&mut self, id: CharId) {
        if let Some(r) = self.to_record(id) {
            self.saves.save(r);
        }
        let pulse = self.pulse;
        if let Some(pc) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()) {
            pc.dirty = false;
            pc.last_save_pulse = pulse;
        }
    }

    pub(crate) fn make_obj(&mut self, r: &ObjRecord) -> Option<ObjId> {
        let id = self.world.create_obj(r.vnum)?;
        for child in &r.contains {
            if let Some(c) = self.make_obj(child) {
                self.world.obj_to_obj(c, id);
            }
        }
        Some(id)
    }

    /// Recreates a stored character's inventory and equipment.
    pub fn load_gear(&mut self, id: CharId, r: &CharacterRecord) {
        for o in r.inventory.iter().rev() {
            if let Some(obj) = self.make_obj(o) {
                self.world.obj_to_char(obj, id);
            }
        }
        for (slot, o) in &r.equipment {
            if let Some(obj) = self.make_obj(o) {
                self.world.equip(obj, id, *slot as usize);
            }
        }
        self.recompute_armour(id);
    }
}
