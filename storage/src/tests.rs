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
    }
}

#[test]
fn new_file_gets_current_schema_and_reopens() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.redb");
    let (store, report) = Store::open(&path).unwrap();
    assert!(report.created);
    assert_eq!(report.migrations_applied, vec![1]);
    assert_eq!(store.schema_version().unwrap(), migrate::CURRENT_VERSION);
    drop(store);
    let (_store, report) = Store::open(&path).unwrap();
    assert!(!report.created);
    assert!(report.migrations_applied.is_empty());
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
    let acct = Account { name: "Brenda".into(), password_hash: Some("h".into()), is_agent: false, created: 1 };
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
