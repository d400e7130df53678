//! Chat rooms (protocol §11.2): every character owns one, whose id is the character's
//! stable id; others join by presenting a key the owner made (`request_access`) and
//! being granted. The book is the engine's, kept in the data file: rooms that changed
//! are queued for the save writer once a second, like house floors.
//!
//! Everything here is plain bookkeeping on names (lower-cased for lookups, kept as
//! written for display); the engine (`chat.rs`) turns it into messages.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use pawns_storage::{AccessRequestRecord, ChatRoomRecord};

/// Keys one room may have at once.
pub const MAX_KEYS: usize = 20;
/// Longest key.
pub const MAX_KEY_LEN: usize = 40;
/// Longest billboard.
pub const MAX_BILLBOARD: usize = 500;
/// Pending requests one room keeps (the oldest go first).
pub const MAX_REQUESTS: usize = 50;

/// Wrong keys one character may try in a window before it must wait: a key was
/// guessable at 32 a message, `bad_key` confirming each.
pub const MAX_KEY_GUESSES: u32 = 5;
/// The window (µs): ten minutes.
pub const KEY_GUESS_WINDOW_US: u64 = 600_000_000;

/// A refusal: a stable code and words for the player.
pub type Refusal = (&'static str, String);

fn refuse<T>(code: &'static str, message: impl Into<String>) -> Result<T, Refusal> {
    Err((code, message.into()))
}

fn lower(name: &str) -> String {
    name.to_ascii_lowercase()
}

#[derive(Debug, Default)]
pub struct ChatBook {
    rooms: BTreeMap<u64, ChatRoomRecord>,
    /// Owner (lower-cased) → room id.
    by_owner: HashMap<String, u64>,
    /// Member (lower-cased) → the rooms it joined (not its own).
    member_of: HashMap<String, BTreeSet<u64>>,
    next_request: u64,
    dirty: BTreeSet<u64>,
    /// Requester (lower-cased) → wrong keys in its window, and when the window began.
    guesses: HashMap<String, (u32, u64)>,
}

impl ChatBook {
    /// The book as the data file has it.
    pub fn restore(records: Vec<ChatRoomRecord>) -> ChatBook {
        let mut book = ChatBook::default();
        for r in records {
            book.by_owner.insert(lower(&r.owner), r.id);
            for m in &r.members {
                book.member_of.entry(lower(m)).or_default().insert(r.id);
            }
            book.next_request = book.next_request.max(r.requests.iter().map(|q| q.id).max().unwrap_or(0));
            book.rooms.insert(r.id, r);
        }
        book
    }

    /// The owner's room, made (and given the next id) if it has none yet.
    pub fn ensure_room(&mut self, owner: &str) -> u64 {
        if let Some(id) = self.by_owner.get(&lower(owner)) {
            return *id;
        }
        let id = self.rooms.keys().next_back().copied().unwrap_or(0) + 1;
        self.rooms.insert(id, ChatRoomRecord { id, owner: owner.to_string(), ..Default::default() });
        self.by_owner.insert(lower(owner), id);
        self.dirty.insert(id);
        id
    }

    pub fn room(&self, id: u64) -> Option<&ChatRoomRecord> {
        self.rooms.get(&id)
    }

    pub fn room_of(&self, owner: &str) -> Option<u64> {
        self.by_owner.get(&lower(owner)).copied()
    }

    /// The rooms a character belongs to: its own first, then those it joined.
    pub fn rooms_of(&self, name: &str) -> Vec<u64> {
        let mut out: Vec<u64> = self.room_of(name).into_iter().collect();
        if let Some(joined) = self.member_of.get(&lower(name)) {
            out.extend(joined.iter().copied());
        }
        out
    }

    pub fn is_member(&self, id: u64, name: &str) -> bool {
        self.rooms.get(&id).is_some_and(|r| r.owner.eq_ignore_ascii_case(name) || r.members.iter().any(|m| m.eq_ignore_ascii_case(name)))
    }

    /// Everyone in a room: its owner, then the members in the order they joined.
    pub fn members(&self, id: u64) -> Vec<String> {
        let Some(r) = self.rooms.get(&id) else { return Vec::new() };
        std::iter::once(r.owner.clone()).chain(r.members.iter().cloned()).collect()
    }

    /// Do two characters share a chat room?
    pub fn share_a_room(&self, a: &str, b: &str) -> bool {
        self.rooms_of(a).into_iter().any(|id| self.is_member(id, b))
    }

    fn own_mut(&mut self, owner: &str) -> Result<&mut ChatRoomRecord, Refusal> {
        let id = self.ensure_room(owner);
        self.dirty.insert(id);
        Ok(self.rooms.get_mut(&id).expect("just ensured"))
    }

    pub fn set_billboard(&mut self, owner: &str, text: Option<&str>) -> Result<(), Refusal> {
        // Control characters are dropped (lines stay).
        let text: Option<String> = text.map(|t| t.chars().filter(|c| !c.is_control() || *c == '\n').collect());
        let text = text.as_deref().map(str::trim).filter(|t| !t.is_empty());
        if text.is_some_and(|t| t.chars().count() > MAX_BILLBOARD) {
            return refuse("too_long", format!("a billboard is at most {MAX_BILLBOARD} characters"));
        }
        self.own_mut(owner)?.billboard = text.map(str::to_string);
        Ok(())
    }

    pub fn create_key(&mut self, owner: &str, key: &str) -> Result<(), Refusal> {
        let key = key.trim();
        if key.is_empty() || key.chars().count() > MAX_KEY_LEN || key.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return refuse("bad_key", format!("a key is 1 to {MAX_KEY_LEN} characters without spaces"));
        }
        let room = self.own_mut(owner)?;
        if room.keys.iter().any(|k| k == key) {
            return refuse("key_exists", format!("your room already has the key '{key}'"));
        }
        if room.keys.len() >= MAX_KEYS {
            return refuse("too_many_keys", format!("a room has at most {MAX_KEYS} keys (revoke one first)"));
        }
        room.keys.push(key.to_string());
        Ok(())
    }

    pub fn revoke_key(&mut self, owner: &str, key: &str) -> Result<(), Refusal> {
        let id = self.room_of(owner).ok_or(("no_such_key", format!("your room has no key '{key}'")))?;
        let room = self.rooms.get_mut(&id).expect("indexed");
        let before = room.keys.len();
        room.keys.retain(|k| k != key.trim());
        if room.keys.len() == before {
            return refuse("no_such_key", format!("your room has no key '{}'", key.trim()));
        }
        self.dirty.insert(id);
        Ok(())
    }

    /// Asks to join room `id` with `key`; the request's id.
    pub fn request_access(&mut self, requester: &str, id: u64, key: &str, at_us: u64) -> Result<u64, Refusal> {
        let Some(room) = self.rooms.get(&id) else { return refuse("no_such_room", format!("no chat room {id}")) };
        if self.is_member(id, requester) {
            return refuse("already_member", format!("you are already in room {id}"));
        }
        let who = lower(requester);
        if let Some((n, since)) = self.guesses.get(&who).copied() {
            if n >= MAX_KEY_GUESSES && at_us.saturating_sub(since) < KEY_GUESS_WINDOW_US {
                let wait = (KEY_GUESS_WINDOW_US - at_us.saturating_sub(since)).div_ceil(60_000_000);
                return refuse("too_many_attempts", format!("too many wrong keys; try again in {wait} minute(s)"));
            }
        }
        if !room.keys.iter().any(|k| k == key.trim()) {
            let g = self.guesses.entry(who).or_insert((0, at_us));
            if at_us.saturating_sub(g.1) >= KEY_GUESS_WINDOW_US {
                *g = (0, at_us);
            }
            g.0 += 1;
            return refuse("bad_key", format!("room {id} has no such key"));
        }
        if room.requests.iter().any(|q| q.requester.eq_ignore_ascii_case(requester)) {
            return refuse("already_requested", format!("you already asked to join room {id}; wait for its owner"));
        }
        self.next_request += 1;
        let rid = self.next_request;
        let room = self.rooms.get_mut(&id).expect("checked");
        if room.requests.len() >= MAX_REQUESTS {
            room.requests.remove(0);
        }
        room.requests.push(AccessRequestRecord { id: rid, requester: requester.to_string(), key: key.trim().to_string(), at_us });
        self.dirty.insert(id);
        Ok(rid)
    }

    fn take_request(&mut self, owner: &str, request: u64) -> Result<(u64, AccessRequestRecord), Refusal> {
        let no = || ("no_such_request", format!("no pending request {request} for your room"));
        let id = self.room_of(owner).ok_or_else(no)?;
        let room = self.rooms.get_mut(&id).expect("indexed");
        let at = room.requests.iter().position(|q| q.id == request).ok_or_else(no)?;
        self.dirty.insert(id);
        Ok((id, room.requests.remove(at)))
    }

    /// Lets a requester in: (room, who joined).
    pub fn grant(&mut self, owner: &str, request: u64) -> Result<(u64, String), Refusal> {
        let (id, q) = self.take_request(owner, request)?;
        if !self.is_member(id, &q.requester) {
            self.rooms.get_mut(&id).expect("indexed").members.push(q.requester.clone());
            self.member_of.entry(lower(&q.requester)).or_default().insert(id);
        }
        Ok((id, q.requester))
    }

    /// Turns a requester away: (room, who asked).
    pub fn deny(&mut self, owner: &str, request: u64) -> Result<(u64, String), Refusal> {
        let (id, q) = self.take_request(owner, request)?;
        Ok((id, q.requester))
    }

    /// Puts a character in a room without a key (a new resident joins its maker's).
    pub fn add_member(&mut self, id: u64, name: &str) {
        if self.rooms.contains_key(&id) && !self.is_member(id, name) {
            self.rooms.get_mut(&id).expect("checked").members.push(name.to_string());
            self.member_of.entry(lower(name)).or_default().insert(id);
            self.dirty.insert(id);
        }
    }

    pub fn leave(&mut self, name: &str, id: u64) -> Result<(), Refusal> {
        let Some(room) = self.rooms.get_mut(&id) else { return refuse("no_such_room", format!("no chat room {id}")) };
        if room.owner.eq_ignore_ascii_case(name) {
            return refuse("own_room", "you cannot leave your own room");
        }
        let before = room.members.len();
        room.members.retain(|m| !m.eq_ignore_ascii_case(name));
        if room.members.len() == before {
            return refuse("not_member", format!("you are not in room {id}"));
        }
        if let Some(set) = self.member_of.get_mut(&lower(name)) {
            set.remove(&id);
        }
        self.dirty.insert(id);
        Ok(())
    }

    /// The rooms changed since the last call, for the save writer (`all`: every room).
    pub fn take_changed(&mut self, all: bool) -> Vec<ChatRoomRecord> {
        let ids: Vec<u64> = if all { self.rooms.keys().copied().collect() } else { std::mem::take(&mut self.dirty).into_iter().collect() };
        self.dirty.clear();
        ids.into_iter().filter_map(|id| self.rooms.get(&id).cloned()).collect()
    }

    pub fn len(&self) -> usize {
        self.rooms.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rooms.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_requests_grants_and_leaving() {
        let mut b = ChatBook::default();
        let ann = b.ensure_room("Ann");
        let bram = b.ensure_room("Bram");
        assert_eq!((ann, bram), (1, 2), "ids are given in order and are stable");
        assert_eq!(b.ensure_room("ANN"), ann);
        assert_eq!(b.request_access("Bram", ann, "sesame", 1).unwrap_err().0, "bad_key", "no such key yet");
        b.create_key("Ann", "sesame").unwrap();
        assert_eq!(b.create_key("Ann", "sesame").unwrap_err().0, "key_exists");
        assert_eq!(b.create_key("Ann", "two words").unwrap_err().0, "bad_key");
        let q = b.request_access("Bram", ann, "sesame", 1).unwrap();
        assert_eq!(b.request_access("bram", ann, "sesame", 2).unwrap_err().0, "already_requested");
        assert_eq!(b.grant("Bram", q).unwrap_err().0, "no_such_request", "only the owner grants");
        assert_eq!(b.grant("Ann", q).unwrap(), (ann, "Bram".to_string()));
        assert!(b.is_member(ann, "bram"));
        assert_eq!(b.rooms_of("Bram"), vec![bram, ann], "own room first");
        assert!(b.share_a_room("Ann", "Bram"));
        assert_eq!(b.request_access("Bram", ann, "sesame", 3).unwrap_err().0, "already_member");
        assert_eq!(b.leave("Ann", ann).unwrap_err().0, "own_room");
        b.leave("Bram", ann).unwrap();
        assert!(!b.share_a_room("Ann", "Bram"));
        assert_eq!(b.leave("Bram", ann).unwrap_err().0, "not_member");
        let q = b.request_access("Bram", ann, "sesame", 4).unwrap();
        assert_eq!(b.deny("Ann", q).unwrap(), (ann, "Bram".to_string()));
        assert!(!b.is_member(ann, "Bram"));
        b.revoke_key("Ann", "sesame").unwrap();
        assert_eq!(b.revoke_key("Ann", "sesame").unwrap_err().0, "no_such_key");
        assert_eq!(b.request_access("Bram", 99, "x", 5).unwrap_err().0, "no_such_room");
    }

    #[test]
    fn the_book_survives_its_records() {
        let mut b = ChatBook::default();
        let ann = b.ensure_room("Ann");
        b.ensure_room("Bram");
        b.create_key("Ann", "k").unwrap();
        b.set_billboard("Ann", Some("Welcome")).unwrap();
        let q = b.request_access("Bram", ann, "k", 1).unwrap();
        b.grant("Ann", q).unwrap();
        b.request_access("Cid", ann, "k", 2).unwrap();
        let changed = b.take_changed(false);
        assert_eq!(changed.len(), 2);
        assert!(b.take_changed(false).is_empty(), "nothing changed since");
        let mut again = ChatBook::restore(b.take_changed(true));
        assert!(again.is_member(ann, "Bram"));
        assert_eq!(again.room(ann).unwrap().billboard.as_deref(), Some("Welcome"));
        assert_eq!(again.ensure_room("Dee"), 3, "new ids continue after the stored ones");
        let next = again.request_access("Dee", ann, "k", 3).unwrap();
        assert!(next > q + 1, "request ids continue too");
    }

    /// Five wrong keys, then a wait (keys could be tried without end).
    #[test]
    fn wrong_keys_are_limited() {
        let mut b = ChatBook::default();
        let ann = b.ensure_room("Ann");
        b.create_key("Ann", "sesame").unwrap();
        for i in 0..MAX_KEY_GUESSES {
            assert_eq!(b.request_access("Bram", ann, &format!("guess{i}"), 1).unwrap_err().0, "bad_key");
        }
        assert_eq!(b.request_access("Bram", ann, "sesame", 2).unwrap_err().0, "too_many_attempts", "even the right key waits");
        assert!(b.request_access("Bram", ann, "sesame", 2 + KEY_GUESS_WINDOW_US).is_ok(), "after the window");
    }
}
