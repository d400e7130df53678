use super::*;

fn sample(name: &str) -> CharacterRecord {
    CharacterRecord {
        name: name.into(),
        is_agent: false,
        class: 3,
        race: 0,
        sex: 1,
        level: 2,
        exp: 2500,
        gold: 40,
        hit: 20,
        max_hit: 30,
        mana: 10,
        max_mana: 10,
        moves: 80,
        max_moves: 80,
        abilities: [18, 13, 12, 15, 16, 11],
        alignment: 0,
        room_vnum: 8004,
        inventory: vec![ObjRecord { vnum: 8010, contains: vec![ObjRecord { vnum: 8011, contains: vec![] }] }],
        equipment: vec![(16, ObjRecord { vnum: 8020, contains: vec![] })],
        deaths: 0,
        kills: 1,
        saved_at: 1,
        skills: vec![("armor".into(), 40)],
        practices: 3,
        conditions: Some([0, 20, 18]),
        hud: None,
        bank_gold: 0,
        wimp_level: 0,
        jail_timer: 0,
        title: String::new(),
        prompt: None,
        aliases: Vec::new(),
        hometown: 0,
        tattoo: 0,
        colour: None,
    }
}

#[test]
fn new_file_gets_current_schema_and_reopens() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.redb");
    let (store, report) = Store::open(&path).unwrap();
    assert!(report.created);
    assert_eq!(report.migrations_applied, vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    assert_eq!(store.schema_version().unwrap(), migrate::CURRENT_VERSION);
    drop(store);
    let (_store, report) = Store::open(&path).unwrap();
    assert!(!report.created);
    assert!(report.migrations_applied.is_empty());
}

/// Characters and memories are kept compressed; a row written before (plain) reads as
/// ever, and is compressed when it is next saved.
#[test]
fn characters_and_memories_are_kept_compressed_and_old_rows_read() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("t.redb")).unwrap();
    let mut c = sample("Ann");
    c.skills = (0..40).map(|i| (format!("skill number {i}"), i)).collect();
    let raw = |table: redb::TableDefinition<&str, &[u8]>, key: &str| -> Vec<u8> {
        let tx = store.begin_read().unwrap();
        let t = tx.open_table(table).unwrap();
        let v = t.get(key).unwrap().unwrap().value().to_vec();
        v
    };
    // As a build before this one wrote it.
    store.put_records(tables::CHARACTERS, &[("ann".into(), codec::encode(&c).unwrap())]).unwrap();
    let plain = raw(tables::CHARACTERS, "ann");
    assert_eq!(plain[0], codec::RECORD_VERSION);
    assert_eq!(store.character("ann").unwrap().unwrap(), c);
    store.save_characters(std::slice::from_ref(&c)).unwrap();
    let packed = raw(tables::CHARACTERS, "ann");
    assert_eq!(packed[0], codec::RECORD_VERSION_ZSTD);
    assert!(packed.len() * 2 < plain.len(), "{} bytes packed, {} plain", packed.len(), plain.len());
    assert_eq!(store.character("ann").unwrap().unwrap(), c);
    let memory: Vec<(String, f64)> = (0..50).map(|i| (format!("the goblin at the gate {i}"), i as f64 / 3.0)).collect();
    store.put_memory("Ann", &memory).unwrap();
    assert_eq!(raw(tables::MEMORIES, "ann")[0], codec::RECORD_VERSION_ZSTD);
    assert_eq!(store.memory::<Vec<(String, f64)>>("ann").unwrap().unwrap(), memory);
}

#[test]
fn a_version_1_file_is_upgraded_and_keeps_its_characters() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.redb");
    {
        let (store, _) = Store::open(&path).unwrap();
        store.save_characters(&[sample("Old")]).unwrap();
        // As a build that only knew migration 1 left it.
        store.meta_put(migrate::VERSION_KEY, &1u32.to_le_bytes()).unwrap();
    }
    let (store, report) = Store::open(&path).unwrap();
    assert_eq!(report.migrations_applied, vec![2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    assert_eq!(store.schema_version().unwrap(), 12);
    assert_eq!(store.character("old").unwrap().unwrap().name, "Old");
    let h = HouseRecord { room_vnum: 8004, contents: vec![ObjRecord { vnum: 1, contains: vec![] }] };
    store.put_houses(std::slice::from_ref(&h)).unwrap();
    assert_eq!(store.houses().unwrap(), vec![h]);
    let b = BoardRecord {
        vnum: 3099,
        messages: vec![BoardMessage { author: "Old".into(), subject: "hello".into(), body: "first".into(), posted: 1 }],
    };
    store.put_boards(std::slice::from_ref(&b)).unwrap();
    assert_eq!(store.boards().unwrap(), vec![b]);
}

#[test]
fn a_character_saved_before_skills_existed_still_loads() {
    // The layout of migration-1 days: no `skills`, no `practices`.
    #[derive(serde::Serialize)]
    struct Before {
        name: String,
        is_agent: bool,
        class: u8,
        race: u8,
        sex: u8,
        level: u8,
        exp: i64,
        gold: i64,
        hit: i32,
        max_hit: i32,
        mana: i32,
        max_mana: i32,
        moves: i32,
        max_moves: i32,
        abilities: [u8; 6],
        alignment: i32,
        room_vnum: u32,
        inventory: Vec<ObjRecord>,
        equipment: Vec<(u8, ObjRecord)>,
        deaths: u32,
        kills: u32,
        saved_at: u64,
    }
    let s = sample("Elder");
    let before = Before {
        name: s.name.clone(),
        is_agent: s.is_agent,
        class: s.class,
        race: s.race,
        sex: s.sex,
        level: s.level,
        exp: s.exp,
        gold: s.gold,
        hit: s.hit,
        max_hit: s.max_hit,
        mana: s.mana,
        max_mana: s.max_mana,
        moves: s.moves,
        max_moves: s.max_moves,
        abilities: s.abilities,
        alignment: s.alignment,
        room_vnum: s.room_vnum,
        inventory: s.inventory.clone(),
        equipment: s.equipment.clone(),
        deaths: s.deaths,
        kills: s.kills,
        saved_at: s.saved_at,
    };
    let back: CharacterRecord = crate::codec::decode(&crate::codec::encode(&before).unwrap()).unwrap();
    assert_eq!(back.name, "Elder");
    assert_eq!(back.inventory, s.inventory);
    assert!(back.skills.is_empty());
    assert_eq!(back.practices, 0);
}

#[test]
fn newer_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.redb");
    {
        let (store, _) = Store::open(&path).unwrap();
        store.meta_put(migrate::VERSION_KEY, &99u32.to_le_bytes()).unwrap();
    }
    match Store::open(&path) {
        Err(StoreError::TooNew { found: 99, .. }) => {}
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("a newer file was opened"),
    }
}

/// A schema-11 file (before migration 12 marked the new record formats) reads as it is
/// when opened read-only, and is marked 12 by the first open that writes; a file older
/// than 11 still needs migrating before a read-only open.
#[test]
fn a_schema_11_file_reads_as_it_is_and_migrates_to_12() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.redb");
    {
        let (store, _) = Store::open(&path).unwrap();
        store.write_records(&RecordBatch { records: vec![rec(1, 1, 5, "hello")], sweep: true, ..Default::default() }).unwrap();
        store.meta_put(migrate::VERSION_KEY, &11u32.to_le_bytes()).unwrap();
    }
    {
        let ro = Store::open_read_only(&path).unwrap();
        assert_eq!(ro.schema_version().unwrap(), 11);
        assert_eq!(ro.session_records(1).unwrap().len(), 1);
    }
    let (store, report) = Store::open(&path).unwrap();
    assert_eq!((report.migrations_applied, store.schema_version().unwrap()), (vec![12], 12));
    store.meta_put(migrate::VERSION_KEY, &10u32.to_le_bytes()).unwrap();
    drop(store);
    assert_eq!(Store::open_read_only(&path).err().map(|e| e.code()), Some("store_needs_migration"));
}

#[test]
fn second_open_in_process_is_locked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.redb");
    let (_store, _) = Store::open(&path).unwrap();
    let err = Store::open(&path).err().expect("second open must fail");
    assert_eq!(err.code(), "store_locked");
}

#[test]
fn characters_round_trip_and_names_are_unique() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("t.redb")).unwrap();
    let acct = Account { name: "Brenda".into(), password_hash: Some("h".into()), is_agent: false, created: 1, guest: false };
    assert!(store.create_character(&acct, &sample("Brenda")).unwrap());
    assert!(!store.create_character(&acct, &sample("Brenda")).unwrap(), "duplicate name accepted");
    let mut c = store.character("brenda").unwrap().unwrap();
    assert_eq!(c, sample("Brenda"));
    c.room_vnum = 8010;
    store.save_characters(&[c.clone()]).unwrap();
    assert_eq!(store.character("BRENDA").unwrap().unwrap().room_vnum, 8010);
    assert_eq!(store.count_characters().unwrap(), 1);
}

#[test]
fn world_is_replaced_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("t.redb")).unwrap();
    store.replace_world(&[(1, vec![1]), (2, vec![2])], "a").unwrap();
    store.replace_world(&[(3, vec![3])], "b").unwrap();
    assert_eq!(store.world_zones().unwrap(), vec![(3, vec![3])]);
    assert_eq!(store.meta_get("world_source").unwrap().unwrap(), b"b");
}

/// `n` bytes that do not compress (xorshift from `seed`).
pub(crate) fn noise(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

pub(crate) fn rec(session: u64, seq: u64, at_us: u64, text: &str) -> EventRecord {
    EventRecord {
        session,
        seq,
        agent: "brenda".into(),
        at_us,
        room_vnum: 8004,
        body: RecordBody::Observation { event_type: "text".into(), text: text.into(), from: None },
    }
}

#[test]
fn records_commit_in_batches_and_read_back_by_session_agent_and_id() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("t.redb")).unwrap();
    let day = 86_400_000_000u64;
    let s1 = SessionMeta { session: 1, agent: "brenda".into(), started_us: 10 * day, valence: true, ..Default::default() };
    let s2 = SessionMeta { session: 2, agent: "brenda".into(), started_us: 11 * day, ..Default::default() };
    let first = RecordBatch {
        sessions: vec![s1.clone()],
        records: vec![rec(1, 1, 10 * day + 5, "a"), rec(1, 2, 10 * day + 6, "b")],
        ..Default::default()
    };
    // One batch per group commit: ids count batches.
    assert_eq!(store.write_records(&first).unwrap(), 1);
    let second = RecordBatch {
        sessions: vec![s2.clone()],
        records: vec![rec(2, 1, 11 * day + 1, "c"), rec(1, 3, 11 * day + 2, "d")],
        ..Default::default()
    };
    assert_eq!(store.write_records(&second).unwrap(), 2);
    assert_eq!(store.last_record_id().unwrap(), 2);
    let texts = |rs: Vec<EventRecord>| -> Vec<String> {
        rs.into_iter()
            .map(|r| match r.body {
                RecordBody::Observation { text, .. } => text.to_string(),
                _ => String::new(),
            })
            .collect()
    };
    // Before a sweep, sessions are read from the tail rows...
    assert_eq!(store.tail_rows().unwrap(), 2);
    assert_eq!(texts(store.session_records(1).unwrap()), ["a", "b", "d"]);
    assert_eq!(texts(store.session_records(2).unwrap()), ["c"]);
    // ...after one, from their packs (session 1 ends with a last record in the sweep).
    let mut s1_end = s1.clone();
    s1_end.ended_us = Some(11 * day + 9);
    let third = RecordBatch { sessions: vec![s1_end], records: vec![rec(1, 4, 11 * day + 9, "e")], sweep: true, ..Default::default() };
    assert_eq!(store.write_records(&third).unwrap(), 3);
    assert_eq!(store.tail_rows().unwrap(), 0, "the sweep packed the tail");
    assert_eq!(texts(store.session_records(1).unwrap()), ["a", "b", "d", "e"]);
    assert_eq!(texts(store.session_records(2).unwrap()), ["c"]);
    assert_eq!(store.session(1).unwrap().unwrap().first_batch, 1, "the end keeps where the session began");
    assert_eq!(store.session(2).unwrap().unwrap().first_batch, 2);
    let after: Vec<(u64, String)> = store
        .records_after(1, 10)
        .unwrap()
        .into_iter()
        .map(|(id, r)| match r.body {
            RecordBody::Observation { text, .. } => (id, text.to_string()),
            _ => (id, String::new()),
        })
        .collect();
    // Within a batch, session by session (each session's records in seq order).
    assert_eq!(after, [(2, "d".to_string()), (2, "c".to_string()), (3, "e".to_string())]);
    let names: Vec<u64> = store.agent_sessions("Brenda", 0).unwrap().iter().map(|m| m.session).collect();
    assert_eq!(names, [1, 2]);
    let later: Vec<u64> = store.agent_sessions("brenda", 11 * day).unwrap().iter().map(|m| m.session).collect();
    assert_eq!(later, [2]);
    assert!(store.agent_sessions("nobody", 0).unwrap().is_empty());
}

#[test]
fn sessions_a_crash_left_open_are_closed_with_their_batches() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("t.redb")).unwrap();
    let open = |id: u64| SessionMeta { session: id, agent: format!("a{id}"), started_us: id, ..Default::default() };
    store
        .write_records(&RecordBatch {
            sessions: vec![open(1), open(2)],
            records: vec![rec(1, 1, 10, "a"), rec(2, 1, 11, "b")],
            ..Default::default()
        })
        .unwrap();
    store.write_records(&RecordBatch { records: vec![rec(3, 1, 12, "other")], ..Default::default() }).unwrap();
    store.write_records(&RecordBatch { records: vec![rec(1, 2, 13, "c")], ..Default::default() }).unwrap();
    assert_eq!(store.close_open_sessions("server_stopped", 99).unwrap(), 2);
    let s1 = store.session(1).unwrap().unwrap();
    assert_eq!((s1.ended_how.as_deref(), s1.ended_us, s1.records), (Some("server_stopped"), Some(13), 2));
    assert_eq!(store.session_records(1).unwrap().len(), 2);
    let both = store.sessions_records(&[s1, store.session(2).unwrap().unwrap()]).unwrap();
    assert_eq!(both[&1].iter().map(|r| r.seq).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(both[&2].len(), 1);
    assert_eq!(store.close_open_sessions("server_stopped", 100).unwrap(), 0, "nothing left open");
}

#[test]
fn retention_drops_old_observations_and_keeps_decisions() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("t.redb")).unwrap();
    let day = 86_400_000_000u64;
    let decision = |seq: u64, at: u64| EventRecord {
        session: 1,
        seq,
        agent: "brenda".into(),
        at_us: at,
        room_vnum: 8004,
        body: RecordBody::Decision(Box::new(DecisionRecord { command: "look".into(), ..Default::default() })),
    };
    let s1 = SessionMeta { session: 1, agent: "brenda".into(), started_us: 3 * day, ..Default::default() };
    store
        .write_records(&RecordBatch {
            sessions: vec![s1],
            records: vec![rec(1, 1, 3 * day, "old"), decision(2, 3 * day + 1)],
            ..Default::default()
        })
        .unwrap();
    store.write_records(&RecordBatch { records: vec![rec(1, 3, 5 * day, "new"), decision(4, 5 * day + 1)], ..Default::default() }).unwrap();
    assert_eq!(store.drop_observations_before(4).unwrap(), 1);
    let seqs: Vec<u64> = store.session_records(1).unwrap().iter().map(|r| r.seq).collect();
    assert_eq!(seqs, [2, 3, 4], "day 3's observation is gone; its decision and day 5 stay");
    assert_eq!(store.drop_observations_before(4).unwrap(), 0, "idempotent");
    // Packed: a sweep on day 7 packs days 5 and 7 under one key (day 7's first batch).
    store.write_records(&RecordBatch { records: vec![rec(1, 5, 7 * day, "newer")], sweep: true, ..Default::default() }).unwrap();
    assert_eq!(store.tail_rows().unwrap(), 0);
    assert_eq!(store.drop_observations_before(6).unwrap(), 1, "day 5's observation, inside day 7's pack");
    let seqs: Vec<u64> = store.session_records(1).unwrap().iter().map(|r| r.seq).collect();
    assert_eq!(seqs, [2, 4, 5]);
    assert_eq!(store.drop_observations_before(6).unwrap(), 0, "idempotent");
    assert_eq!(store.drop_observations_before(8).unwrap(), 1, "a cutoff after every batch: all of them");
    assert_eq!(store.session_records(1).unwrap().iter().map(|r| r.seq).collect::<Vec<_>>(), [2, 4]);
}

/// A file as a version-3 build left it (a record, no memory table) opens, gains the
/// `memories` table, and keeps its record; memory rows round-trip.
#[test]
fn a_version_3_file_gains_memories_and_keeps_its_record() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.redb");
    {
        let (store, _) = Store::open(&path).unwrap();
        let meta = SessionMeta { session: 7, agent: "ann".into(), is_agent: true, started_us: 7, ..Default::default() };
        let rec = EventRecord {
            session: 7,
            seq: 1,
            agent: "ann".into(),
            at_us: 8,
            room_vnum: 1,
            body: RecordBody::Transition(Transition::Level { from: 1, to: 2 }),
        };
        store.write_records(&RecordBatch { sessions: vec![meta], records: vec![rec], ..Default::default() }).unwrap();
        let tx = store.begin_write().unwrap();
        tx.delete_table(crate::tables::MEMORIES).unwrap();
        tx.commit().unwrap();
        store.meta_put(migrate::VERSION_KEY, &3u32.to_le_bytes()).unwrap();
    }
    let (store, report) = Store::open(&path).unwrap();
    assert_eq!(report.migrations_applied, vec![4, 5, 6, 7, 8, 9, 10, 11, 12]);
    assert_eq!(store.session_records(7).unwrap().len(), 1);
    assert_eq!(store.memory::<Vec<String>>("ann").unwrap(), None);
    store.put_memory("Ann", &vec!["a memory".to_string()]).unwrap();
    assert_eq!(store.memory::<Vec<String>>("ann").unwrap(), Some(vec!["a memory".to_string()]));
    assert_eq!(store.memory_agents().unwrap(), vec!["ann".to_string()]);
    assert_eq!(store.recorded_agents().unwrap(), vec!["ann".to_string()]);
    let meta = store.session(7).unwrap().unwrap();
    let mut seen = vec![];
    store.scan_session(&meta, 0, 0, &mut |_, r| seen.push(r.seq)).unwrap();
    assert_eq!(seen, vec![1]);
    assert_eq!(store.scan_session(&meta, 1, 0, &mut |_, _| {}).unwrap().records, 0, "after the watermark: nothing");
}

/// A file as a version-4 build left it (everyone's records mixed in one row per commit)
/// is converted: the same sessions, the same records in the same order, the same batch
/// ids, and the old tables are gone.
#[test]
fn a_version_4_record_log_is_converted_to_session_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.redb");
    {
        let (store, _) = Store::open(&path).unwrap();
        let sessions = RecordBatch { sessions: vec![running(1), running(2)], ..Default::default() };
        store.write_records(&sessions).unwrap();
        let tx = store.begin_write().unwrap();
        tx.delete_table(tables::RECORD_CHUNKS).unwrap();
        tx.delete_table(tables::SESSION_SPANS).unwrap();
        {
            let mut old = tx.open_table(tables::RECORD_BATCHES_V3).unwrap();
            old.insert(1, codec::encode(&vec![obs_of(1, 1), obs_of(2, 1), obs_of(1, 2)]).unwrap().as_slice()).unwrap();
            old.insert(2, codec::encode(&vec![obs_of(2, 2)]).unwrap().as_slice()).unwrap();
            old.insert(3, codec::encode(&vec![obs_of(1, 3)]).unwrap().as_slice()).unwrap();
            let mut ends = tx.open_table(tables::SESSION_BATCHES_V3).unwrap();
            ends.insert(1, codec::encode(&vec![3u64, 1]).unwrap().as_slice()).unwrap();
        }
        tx.commit().unwrap();
        let mut s1 = running(1);
        s1.ended_us = Some(5);
        s1.first_batch = 1;
        store.write_records(&RecordBatch { sessions: vec![s1], ..Default::default() }).unwrap();
        store.meta_put(migrate::VERSION_KEY, &4u32.to_le_bytes()).unwrap();
    }
    let (store, report) = Store::open(&path).unwrap();
    assert_eq!(report.migrations_applied, vec![5, 6, 7, 8, 9, 10, 11, 12]);
    assert_eq!(store.last_record_id().unwrap(), 3);
    let seqs = |s: u64| store.session_records(s).unwrap().iter().map(|r| r.seq).collect::<Vec<_>>();
    assert_eq!(seqs(1), [1, 2, 3]);
    assert_eq!(seqs(2), [1, 2], "a session the old build left open is read by looking up each batch");
    let ids: Vec<u64> = store.batches_after(0, 10).unwrap().iter().map(|(b, _)| *b).collect();
    assert_eq!(ids, [1, 2, 3]);
    let tx = store.begin_read().unwrap();
    assert!(tx.open_table(tables::RECORD_BATCHES_V3).is_err(), "the old log is dropped");
}

#[test]
fn a_version_5_file_gains_chat_rooms_and_residents() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.redb");
    {
        let (store, _) = Store::open(&path).unwrap();
        store.save_characters(&[sample("Old")]).unwrap();
        store.meta_put(migrate::VERSION_KEY, &5u32.to_le_bytes()).unwrap();
    }
    let (store, report) = Store::open(&path).unwrap();
    assert_eq!(report.migrations_applied, vec![6, 7, 8, 9, 10, 11, 12]);
    assert_eq!(store.character("old").unwrap().unwrap().name, "Old");
    assert!(store.chat_rooms().unwrap().is_empty() && store.residents().unwrap().is_empty());
    let room = ChatRoomRecord {
        id: 3,
        owner: "Old".into(),
        billboard: Some("hi".into()),
        keys: vec!["k".into()],
        members: vec!["Bram".into()],
        requests: vec![AccessRequestRecord { id: 9, requester: "Cid".into(), key: "k".into(), at_us: 1 }],
    };
    store.put_chat_rooms(std::slice::from_ref(&room)).unwrap();
    let r = ResidentRecord { name: "Warden".into(), kind: "bot".into(), prompt: "guards".into(), ..Default::default() };
    store.put_resident(&r).unwrap();
    drop(store);
    let (store, _) = Store::open(&path).unwrap();
    assert_eq!(store.chat_rooms().unwrap(), vec![room]);
    assert_eq!(store.resident("WARDEN").unwrap(), Some(r));
    let acct = Account { name: "Kay".into(), password_hash: None, is_agent: false, created: 1, guest: false };
    assert!(store.create_character(&acct, &sample("Kay")).unwrap());
    assert!(store.name_claimed("kay").unwrap(), "an account claims its name");
    assert!(!store.name_claimed("nobody").unwrap());
    let inv = store.inventory().unwrap();
    assert_eq!((inv.chat_rooms, inv.residents), (1, 1));
}

#[test]
fn mind_records_are_kept_by_agent_and_layer() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("t.redb")).unwrap();
    let rec = |id, layer, text: &str| MindRecord { id, layer, text: text.into(), at_us: id, ..Default::default() };
    let meta = MindMeta { next_id: 3, ..Default::default() };
    store.mind_put("Ann", &[rec(1, 2, "a memory"), rec(2, 1, "a belief"), rec(3, 2, "another")], &meta).unwrap();
    store.mind_put("Bob", &[rec(1, 2, "bob's")], &MindMeta { next_id: 1, ..Default::default() }).unwrap();
    let texts = |a: &str, l: u8| store.mind_layer(a, l).unwrap().into_iter().map(|r| r.text).collect::<Vec<_>>();
    assert_eq!(texts("ann", 2), ["a memory", "another"], "one agent's layer, in id order");
    assert_eq!(texts("ANN", 1), ["a belief"]);
    assert_eq!(texts("bob", 2), ["bob's"]);
    assert_eq!(store.mind_meta("ann").unwrap().next_id, 3);
    assert_eq!(store.mind_meta("nobody").unwrap(), MindMeta::default());
    assert_eq!(store.mind_get("ann", 2, 3).unwrap().unwrap().text, "another");
    assert_eq!(store.mind_agents().unwrap(), ["ann", "bob"]);
}

#[test]
fn journal_chunks_append_per_run_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("j.redb")).unwrap();
    assert!(store.journal_runs().unwrap().is_empty());
    store.write_records(&RecordBatch { journal: vec![(7, b"a".to_vec()), (9, b"x".to_vec())], ..Default::default() }).unwrap();
    store.write_records(&RecordBatch { journal: vec![(7, b"b".to_vec()), (7, b"c".to_vec())], ..Default::default() }).unwrap();
    assert_eq!(store.journal_runs().unwrap(), vec![7, 9]);
    let mut seen = Vec::new();
    let n = store
        .journal_chunks(7, &mut |b| {
            seen.push(b.to_vec());
            Ok(())
        })
        .unwrap();
    assert_eq!(n, 3);
    assert_eq!(seen, vec![b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]);
    // Retention: a run that ended (the next began) before the cutoff goes; the newest stays.
    store.write_records(&RecordBatch { journal: vec![(20, b"z".to_vec())], ..Default::default() }).unwrap();
    assert_eq!(store.drop_journals_before(10).unwrap(), 1);
    assert_eq!(store.journal_runs().unwrap(), vec![9, 20]);
    assert_eq!(store.drop_journals_before(u64::MAX).unwrap(), 1);
    assert_eq!(store.journal_runs().unwrap(), vec![20]);
}

mod log_tests;
use log_tests::{obs_of, running};

/// Runs: written once under a fresh id (a second is refused, the first kept), read
/// back one and all, and carried by a backup.
#[test]
fn runs_are_kept_once_each_and_backed_up() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("r.redb")).unwrap();
    assert_eq!(store.run::<String>("a").unwrap(), None);
    store.put_run("a", &"first".to_string(), true).unwrap();
    assert!(matches!(store.put_run("a", &"again".to_string(), true), Err(StoreError::Exists(_))));
    store.put_run("b", &"second".to_string(), true).unwrap();
    store.put_run("a", &"ended".to_string(), false).unwrap();
    assert_eq!(store.run::<String>("a").unwrap().as_deref(), Some("ended"));
    assert_eq!(store.runs::<String>().unwrap(), vec!["ended".to_string(), "second".to_string()]);
    let copy = dir.path().join("copy.redb");
    store.backup_to(&copy, &mut |_, _| {}).unwrap();
    let (back, _) = Store::open(&copy).unwrap();
    assert_eq!(back.runs::<String>().unwrap().len(), 2);
}

/// Compaction gives back the pages freed by dropped rows and keeps every row that is left;
/// a file opened read-only is refused, not touched.
#[test]
fn compaction_gives_back_free_pages_and_keeps_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.redb");
    let (mut store, _) = Store::open(&path).unwrap();
    // Bytes that do not compress (the journal's packs would shrink repeats to nothing).
    let noise = |seed: u64| noise(seed, 4000);
    for run in 1..=2u64 {
        for i in 0..1500 {
            store.write_records(&RecordBatch { journal: vec![(run, noise(run * 10_000 + i))], ..Default::default() }).unwrap();
        }
    }
    store.save_characters(&[sample("Ann")]).unwrap();
    // Run 1's journal goes: its pages are free, the file as big as it was.
    assert_eq!(store.drop_journals_before(u64::MAX).unwrap(), 1);
    let c = store.compact().unwrap();
    let (before, after) = (c.before, c.after);
    assert!(after * 10 < before * 7, "{before} → {after}");
    assert_eq!(std::fs::metadata(&path).unwrap().len(), after);
    let mut n = 0;
    store
        .journal_chunks(2, &mut |c| {
            assert_eq!(c, noise(20_000 + n).as_slice());
            n += 1;
            Ok(())
        })
        .unwrap();
    assert_eq!(n, 1500);
    assert_eq!(store.character("ann").unwrap().unwrap().gold, 40);
    drop(store);
    // (Closing may record redb's allocator state in a page of its own.)
    let closed = std::fs::metadata(&path).unwrap().len();
    assert!(closed <= after + 8192, "{after} → {closed}");
    let mut ro = Store::open_read_only(&path).unwrap();
    assert!(ro.compact().is_err());
    assert_eq!(std::fs::metadata(&path).unwrap().len(), closed);
}

/// Small rows between large ones, the small ones dropped: redb's compaction cannot move
/// the large pages down into the small holes and stops, and the fresh copy takes the
/// file's place, smaller, with every row read back after (and the handle still open on
/// it); a table the copy does not know leaves the file as compacted in place, and says so.
#[test]
fn compaction_puts_a_smaller_fresh_copy_in_place_and_never_drops_a_table() {
    use redb::{ReadableTableMetadata, TableHandle};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.redb");
    let (mut store, _) = Store::open(&path).unwrap();
    let big = |i: u64| (0..20_000u64).map(|j| (i.wrapping_mul(31) ^ j.wrapping_mul(7919)) as u8).collect::<Vec<u8>>();
    let write = |rows: &mut dyn Iterator<Item = ((&'static str, u64), Vec<u8>)>| {
        let tx = store.begin_write().unwrap();
        {
            let mut t = tx.open_table(tables::DREAM_LOG).unwrap();
            for (k, v) in rows {
                t.insert(k, v.as_slice()).unwrap();
            }
        }
        tx.commit().unwrap();
    };
    write(&mut (0..2000u64).map(|i| (("small", i), vec![i as u8; 3000])));
    {
        let tx = store.begin_write().unwrap();
        tx.open_table(tables::DREAM_LOG).unwrap().retain(|k, _| k.1 % 2 == 1).unwrap();
        tx.commit().unwrap();
    }
    write(&mut (0..50u64).map(|i| (("big", i), big(i))));
    store.save_characters(&[sample("Ann")]).unwrap();
    let c = store.compact().unwrap();
    assert_eq!(c.copy_skipped, None);
    assert!(c.after < c.in_place && c.in_place <= c.before, "{c:?}");
    assert_eq!(std::fs::metadata(&path).unwrap().len(), c.after);
    let check = |store: &Store| {
        let tx = store.begin_read().unwrap();
        let t = tx.open_table(tables::DREAM_LOG).unwrap();
        assert_eq!(t.len().unwrap(), 1050);
        for i in [0, 25, 49] {
            assert_eq!(t.get(("big", i)).unwrap().unwrap().value(), big(i).as_slice());
        }
        assert_eq!(t.get(("small", 1999)).unwrap().unwrap().value(), [207u8; 3000].as_slice());
        assert!(t.get(("small", 1998)).unwrap().is_none());
        assert_eq!(store.character("ann").unwrap().unwrap().gold, 40);
    };
    check(&store);
    // The handle writes to the new file, which another opener finds locked.
    store.save_characters(&[CharacterRecord { gold: 41, ..sample("Bob") }]).unwrap();
    assert!(matches!(Store::open_existing(&path), Err(StoreError::Locked { .. })));
    drop(store);
    let (mut store, _) = Store::open_existing(&path).unwrap();
    check(&store);
    assert_eq!(store.character("bob").unwrap().unwrap().gold, 41);
    // No temporary file is left beside it.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);

    // A table nobody listed: the copy is refused, the file keeps it.
    {
        let tx = store.begin_write().unwrap();
        let stray: redb::TableDefinition<u64, u64> = redb::TableDefinition::new("stray");
        tx.open_table(stray).unwrap().insert(1, 2).unwrap();
        tx.commit().unwrap();
    }
    let c = store.compact().unwrap();
    let why = c.copy_skipped.expect("no copy without the stray table");
    assert!(why.contains("stray") && why.contains("store_corrupt"), "{why}");
    assert_eq!(store.begin_read().unwrap().list_tables().unwrap().filter(|t| t.name() == "stray").count(), 1);
    let e = store.backup_to(&dir.path().join("b.redb"), &mut |_, _| {}).unwrap_err();
    assert!(e.to_string().contains("stray"), "{e}");
    assert!(!dir.path().join("b.redb").exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}
