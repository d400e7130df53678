//! Characters to and from their stored records, and the save writer.
//!
//! The engine hands finished records to a channel and moves on; the writer task batches
//! whatever is waiting into one redb transaction off the async threads. Only the newest
//! record per character in a batch is written, so the queue cannot grow past the
//! number of characters between two batches.

use crate::game::model::character::PROMPT_ALL;
use std::collections::HashMap;
use std::sync::Arc;

use pawns_storage::{CharacterRecord, ObjRecord, Store};
use tokio::sync::mpsc;

use crate::game::model::world::{CharId, ObjId};
use crate::game::run::engine::Engine;

#[derive(Clone)]
pub struct SaveQueue {
    tx: mpsc::UnboundedSender<SaveMsg>,
    unsaved: Unsaved,
}

/// Character records queued but not yet committed, by lower-cased name. Logins read
/// through it, so a character who quits and logs straight back in gets what it just
/// saved, not the older row the writer has yet to replace.
#[derive(Clone, Default)]
pub struct Unsaved(Arc<std::sync::Mutex<HashMap<String, (u64, CharacterRecord)>>>);

impl Unsaved {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, (u64, CharacterRecord)>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The newest record for `name`: the queued one if there is one, else `stored`.
    pub fn latest(&self, name: &str, stored: Option<CharacterRecord>) -> Option<CharacterRecord> {
        self.queued(name).or(stored)
    }

    /// The record queued for `name`, if any. A reader takes this *before* it reads the
    /// store: a save committed (and forgotten here) in between is then in what it reads,
    /// where checking after could miss both.
    pub fn queued(&self, name: &str) -> Option<CharacterRecord> {
        self.map().get(&name.to_ascii_lowercase()).map(|(_, r)| r.clone())
    }

    /// Characters queued for the save writer and not yet on disk.
    pub fn pending(&self) -> usize {
        self.map().len()
    }

    fn put(&self, r: &CharacterRecord) -> u64 {
        static GEN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let generation = GEN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.map().insert(r.name.to_ascii_lowercase(), (generation, r.clone()));
        generation
    }

    /// Forgets records now on disk (unless a newer one was queued meanwhile).
    fn committed(&self, done: &[(String, u64)]) {
        let mut m = self.map();
        for (name, generation) in done {
            if m.get(name).is_some_and(|(g, _)| g == generation) {
                m.remove(name);
            }
        }
    }
}

pub enum SaveMsg {
    Save(Box<CharacterRecord>, u64),
    /// House rooms whose floors changed.
    Houses(Vec<pawns_storage::HouseRecord>),
    /// Chat rooms that changed.
    ChatRooms(Vec<pawns_storage::ChatRoomRecord>),
    /// Boards whose messages changed.
    Boards(Vec<pawns_storage::BoardRecord>),
    /// Resolves once everything queued before it is on disk.
    Flush(tokio::sync::oneshot::Sender<()>),
}

impl SaveQueue {
    /// A queue whose saves go nowhere: for running a world with nothing to keep (the
    /// fuzz target, smoke runs).
    pub fn discard() -> SaveQueue {
        let (tx, _) = mpsc::unbounded_channel();
        SaveQueue { tx, unsaved: Unsaved::default() }
    }

    /// A queue whose messages the caller reads itself (`pawns branch` writes the saves of
    /// a replay into the branch's file).
    pub fn caught() -> (SaveQueue, mpsc::UnboundedReceiver<SaveMsg>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (SaveQueue { tx, unsaved: Unsaved::default() }, rx)
    }

    pub fn save(&self, r: CharacterRecord) {
        let generation = self.unsaved.put(&r);
        let _ = self.tx.send(SaveMsg::Save(Box::new(r), generation));
    }
    pub fn save_houses(&self, h: Vec<pawns_storage::HouseRecord>) {
        let _ = self.tx.send(SaveMsg::Houses(h));
    }
    pub fn save_chat_rooms(&self, rooms: Vec<pawns_storage::ChatRoomRecord>) {
        let _ = self.tx.send(SaveMsg::ChatRooms(rooms));
    }
    pub fn save_boards(&self, boards: Vec<pawns_storage::BoardRecord>) {
        let _ = self.tx.send(SaveMsg::Boards(boards));
    }
    pub async fn flush(&self) {
        let (tx, rx) = tokio::sync::oneshot::channel();
        if self.tx.send(SaveMsg::Flush(tx)).is_ok() {
            let _ = rx.await;
        }
    }
}

/// Starts the writer; it ends when every `SaveQueue` clone is dropped.
pub fn spawn_writer(store: Arc<Store>, unsaved: Unsaved) -> (SaveQueue, tokio::task::JoinHandle<()>) {
    let (tx, mut rx) = mpsc::unbounded_channel::<SaveMsg>();
    let pending = unsaved.clone();
    let handle = tokio::spawn(async move {
        while let Some(first) = rx.recv().await {
            let mut batch: HashMap<String, (u64, CharacterRecord)> = HashMap::new();
            let mut houses: HashMap<u32, pawns_storage::HouseRecord> = HashMap::new();
            let mut rooms: HashMap<u64, pawns_storage::ChatRoomRecord> = HashMap::new();
            let mut boards: HashMap<u32, pawns_storage::BoardRecord> = HashMap::new();
            let mut flushes = Vec::new();
            let mut next = Some(first);
            while let Some(msg) = next.take() {
                match msg {
                    SaveMsg::Save(r, generation) => {
                        batch.insert(r.name.to_ascii_lowercase(), (generation, *r));
                    }
                    SaveMsg::Houses(hs) => {
                        for h in hs {
                            houses.insert(h.room_vnum, h);
                        }
                    }
                    SaveMsg::ChatRooms(rs) => {
                        for r in rs {
                            rooms.insert(r.id, r);
                        }
                    }
                    SaveMsg::Boards(bs) => {
                        for b in bs {
                            boards.insert(b.vnum, b);
                        }
                    }
                    SaveMsg::Flush(done) => flushes.push(done),
                }
                next = rx.try_recv().ok();
            }
            if !batch.is_empty() {
                let store = store.clone();
                let done: Vec<(String, u64)> = batch.iter().map(|(k, (g, _))| (k.clone(), *g)).collect();
                let records: Vec<CharacterRecord> = batch.into_values().map(|(_, r)| r).collect();
                let n = records.len();
                match tokio::task::spawn_blocking(move || store.save_characters(&records)).await {
                    Ok(Ok(())) => {
                        pending.committed(&done);
                        tracing::debug!(count = n, "characters saved")
                    }
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
            if !rooms.is_empty() {
                let store = store.clone();
                let records: Vec<pawns_storage::ChatRoomRecord> = rooms.into_values().collect();
                match tokio::task::spawn_blocking(move || store.put_chat_rooms(&records)).await {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => tracing::error!(code = e.code(), "saving chat rooms failed: {e}"),
                    Err(e) => tracing::error!("chat room save task failed: {e}"),
                }
            }
            if !boards.is_empty() {
                let store = store.clone();
                let records: Vec<pawns_storage::BoardRecord> = boards.into_values().collect();
                match tokio::task::spawn_blocking(move || store.put_boards(&records)).await {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => tracing::error!(code = e.code(), "saving boards failed: {e}"),
                    Err(e) => tracing::error!("board save task failed: {e}"),
                }
            }
            for f in flushes {
                let _ = f.send(());
            }
        }
    });
    (SaveQueue { tx, unsaved }, handle)
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
            name: c.name.to_string(),
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
            saved_at: crate::time::unix_secs(),
            skills: pc.skills.iter().map(|(k, v)| (k.clone(), *v)).collect(),
            practices: pc.practices,
            conditions: Some(pc.conditions),
            hud: pc.hud.to_record(),
            bank_gold: pc.bank_gold,
            wimp_level: pc.wimp_level,
            jail_timer: pc.jail_timer,
            title: pc.prefs.title.clone(),
            prompt: (pc.prefs.prompt != PROMPT_ALL).then_some(pc.prefs.prompt),
            aliases: pc.prefs.aliases.clone(),
            hometown: pc.prefs.hometown,
            tattoo: pc.prefs.tattoo,
            colour: pc.prefs.colour,
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

#[cfg(test)]
mod tests {
    use super::Unsaved;

    fn rec(name: &str, gold: i64) -> pawns_storage::CharacterRecord {
        let mut r = crate::game::model::character::new_record(name, 3, 0, 1, false, [13; 6], 8004);
        r.gold = gold;
        r
    }

    /// A login that read the store just before the writer committed (and forgot) a save
    /// must not end up with the older row: it looks at the queue first. (A renter who
    /// logged straight back in under load once came back without the sword it rented with.)
    #[test]
    fn a_login_racing_the_writer_keeps_the_queued_save() {
        let u = Unsaved::default();
        let g = u.put(&rec("Ann", 9));
        let queued = u.queued("ann");
        let stored_before_the_commit = Some(rec("Ann", 1));
        u.committed(&[("ann".into(), g)]);
        assert_eq!(queued.or(stored_before_the_commit.clone()).unwrap().gold, 9);
        assert_eq!(u.latest("ann", stored_before_the_commit).unwrap().gold, 1, "asked after the commit, the queue has forgotten it");
    }

    #[test]
    fn logins_read_queued_saves_until_a_newer_commit() {
        let u = Unsaved::default();
        assert_eq!(u.latest("ann", Some(rec("Ann", 1))).unwrap().gold, 1, "nothing queued: the stored row");
        let g1 = u.put(&rec("Ann", 5));
        assert_eq!(u.latest("ANN", Some(rec("Ann", 1))).unwrap().gold, 5, "the queued save wins over the stored row");
        let g2 = u.put(&rec("Ann", 9));
        // The older save lands: the newer one is still queued and still wins.
        u.committed(&[("ann".into(), g1)]);
        assert_eq!(u.latest("ann", Some(rec("Ann", 5))).unwrap().gold, 9);
        u.committed(&[("ann".into(), g2)]);
        assert_eq!(u.latest("ann", Some(rec("Ann", 9))).unwrap().gold, 9);
        assert!(u.latest("ann", None).is_none(), "once on disk, the store is the truth");
    }
}
