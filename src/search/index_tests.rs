use super::*;
use pawns_storage::{DecisionRecord, RecordBody, Transition};

fn obs(agent: &str, text: &str, room: u32) -> EventRecord {
    EventRecord {
        session: agent.bytes().fold(0u64, |h, b| h * 131 + b as u64),
        seq: 1,
        agent: agent.into(),
        at_us: 1,
        room_vnum: room,
        body: RecordBody::Observation { event_type: "enter".into(), text: text.into(), from: None },
    }
}

/// The batches in a data file of their own, as the recorder writes them: hits are read
/// back from there.
fn stored(batches: &[Vec<EventRecord>]) -> (tempfile::TempDir, pawns_storage::Store) {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = pawns_storage::Store::open(dir.path().join("r.redb")).unwrap();
    let mut known: Vec<u64> = Vec::new();
    for records in batches {
        let mut sessions: Vec<pawns_storage::SessionMeta> = Vec::new();
        for r in records {
            if !known.contains(&r.session) {
                known.push(r.session);
                sessions.push(pawns_storage::SessionMeta {
                    session: r.session,
                    agent: r.agent.to_string(),
                    started_us: 1,
                    ..Default::default()
                });
            }
        }
        store.write_records(&pawns_storage::RecordBatch { sessions, records: records.clone(), ..Default::default() }).unwrap();
    }
    (dir, store)
}

/// An index of `batches`, committed once at the end.
fn indexed(batches: &[Vec<EventRecord>]) -> (tempfile::TempDir, SearchIndex) {
    let dir = tempfile::tempdir().unwrap();
    let (ix, _) = SearchIndex::open(dir.path()).unwrap();
    let mut w = ix.writer().unwrap();
    for b in batches {
        ix.add_records(&w, b).unwrap();
    }
    ix.commit(&mut w, batches.len() as u64).unwrap();
    (dir, ix)
}

fn query(q: &str) -> SearchQuery {
    SearchQuery { q: q.into(), limit: 100, ..Default::default() }
}

#[test]
fn a_room_is_found_by_who_stood_there_and_shown_as_it_was_seen() {
    let shown = "The Temple of the Ember\nYou stand in a vaulted hall.\n[ Exits: north ]\nA rat is here.\nBrenda [agent] is standing here.";
    let mut look = obs("ann", shown, 8004);
    look.body = RecordBody::Observation { event_type: "text".into(), text: shown.into(), from: None };
    let batches = vec![vec![look]];
    let (_i, ix) = indexed(&batches);
    let (_d, store) = stored(&batches);
    let find = |q: &str| ix.search_in(&store, &query(q)).unwrap();
    for q in ["brenda", "temple", "rat", "north", "\"temple of the ember\""] {
        assert_eq!(find(q).total, 1, "{q}");
    }
    // What every standing player's line repeats, and the description, find nothing.
    assert_eq!(find("standing").total, 0);
    assert_eq!(find("vaulted").total, 0);
    // The hit shows the room as it was seen, less its description.
    let hit = &find("brenda").hits[0];
    assert_eq!(hit.text, "The Temple of the Ember\n[ Exits: north ]\nA rat is here.\nBrenda [agent] is standing here.");
    assert_eq!(hit.agent, "ann");
}

/// A crowd's message is indexed once, in a document naming each character's copy (their
/// own documents still span it), and is one hit naming all of them — also when the
/// search asks about one of them.
#[test]
fn a_message_a_room_was_sent_at_once_is_one_hit() {
    let mut gold = obs("ann", "", 8004);
    gold.body = RecordBody::Transition(Transition::Gold { from: 1, to: 2 });
    gold.seq = 2;
    let batches = vec![vec![obs("ann", "Bo arrives.", 8004), obs("cy", "Bo arrives.", 8004), gold, obs("dee", "Di leaves north.", 8005)]];
    let (_i, ix) = indexed(&batches);
    let (_d, store) = stored(&batches);
    assert_eq!(ix.docs(), 4, "one document per session's command (here: what each saw), and the crowd's");
    assert_eq!(ix.crowd_docs().unwrap(), 1);
    assert_eq!(ix.every_place().unwrap().len(), 3, "every record in one session's document");
    let found = ix.search_in(&store, &query("arrives")).unwrap();
    assert_eq!(found.total, 1);
    let hit = &found.hits[0];
    assert_eq!((hit.text.as_str(), hit.room_vnum), ("Bo arrives.", 8004));
    let mut who = [vec![hit.agent.clone()], hit.also_seen_by.clone()].concat();
    who.sort();
    assert_eq!(who, ["ann", "cy"]);
    let as_cy = ix.search_in(&store, &SearchQuery { agent: Some("cy".into()), ..query("arrives") }).unwrap();
    assert_eq!((as_cy.total, as_cy.hits[0].agent.as_str(), as_cy.hits[0].also_seen_by.clone()), (1, "cy", vec!["ann".to_string()]));
    let left = ix.search_in(&store, &query("north")).unwrap();
    assert_eq!((left.total, left.hits[0].agent.as_str(), left.hits[0].text.as_str()), (1, "dee", "Di leaves north."));
    // ann's gold came in the same document as what she saw: found alone by its kind.
    let item = ix.search_in(&store, &SearchQuery { kind: Some("item".into()), ..query("") }).unwrap();
    assert_eq!((item.total, item.hits[0].text.as_str(), item.hits[0].seq), (1, "gold 1 to 2", 2));
}

fn decision(session: u64, agent: &str, seq: u64, at_us: u64, line: &str) -> EventRecord {
    let (command, args) = line.split_once(' ').unwrap_or((line, ""));
    let d = DecisionRecord { command: command.into(), args: args.into(), status: "ok".into(), ..Default::default() };
    EventRecord { session, seq, agent: agent.into(), at_us, room_vnum: 3001, body: RecordBody::Decision(Box::new(d)) }
}

fn said(session: u64, agent: &str, seq: u64, at_us: u64, room: u32, text: &str) -> EventRecord {
    EventRecord {
        session,
        seq,
        agent: agent.into(),
        at_us,
        room_vnum: room,
        body: RecordBody::Observation { event_type: "say".into(), text: text.into(), from: None },
    }
}

/// A document holds a command and what followed it; the records in it are found one by
/// one: words from two of its records find neither, an exclusion from one does not hide
/// the other.
#[test]
fn a_commands_records_are_found_one_by_one() {
    let batches = vec![vec![
        decision(1, "ann", 1, 10, "kill rat"),
        said(1, "ann", 2, 11, 3001, "The goblin flees."),
        decision(1, "ann", 3, 20, "north"),
    ]];
    let (_i, ix) = indexed(&batches);
    let (_d, store) = stored(&batches);
    assert_eq!(ix.docs(), 2, "two commands");
    let find = |q: &str| ix.search_in(&store, &query(q)).unwrap();
    assert_eq!(find("kill goblin").total, 0, "no one record holds both");
    let kill = find("kill -flees");
    assert_eq!((kill.total, kill.hits[0].text.as_str()), (1, "kill rat"));
    assert_eq!(find("rat OR goblin").total, 2);
    assert_eq!(find("goblin OR north -kill").total, 2, "everything but the kill");
    let only_not = ix.search_in(&store, &query("-kill")).unwrap_err();
    assert_eq!(only_not.code(), "bad_query", "as before: nothing but exclusions asks nothing");
    // A refused query's words come back without their escape bytes.
    let refused = ix.search_in(&store, &query("gob\u{1b}[31mlin")).unwrap_err().to_string();
    assert!(refused.contains("gob\\u{1b}[31mlin") && !refused.contains('\u{1b}'), "{refused}");
    assert_eq!(find("\"rat the goblin\"").total, 0, "a phrase does not run from one record into the next");
}

/// `since` and retention's forgetting work on the time columns alone: only documents of
/// observations alone before the cut go; newest first.
#[test]
fn since_and_forgetting_read_the_time_column() {
    let at = |mut r: EventRecord, at_us: u64| {
        r.at_us = at_us;
        r
    };
    let mut gold = obs("ann", "", 8004);
    gold.body = RecordBody::Transition(Transition::Gold { from: 1, to: 2 });
    gold.seq = 2;
    // Three batches, each committed: three documents.
    let batches = vec![vec![at(obs("ann", "Bo arrives.", 8004), 100)], vec![at(gold, 150)], vec![at(obs("cy", "Di arrives.", 8004), 300)]];
    let dir = tempfile::tempdir().unwrap();
    let (ix, _) = SearchIndex::open(dir.path()).unwrap();
    let mut w = ix.writer().unwrap();
    for (i, b) in batches.iter().enumerate() {
        ix.add_records(&w, b).unwrap();
        ix.commit(&mut w, i as u64 + 1).unwrap();
    }
    let (_d, store) = stored(&batches);
    let find = |since_us: u64| {
        let found = ix.search_in(&store, &SearchQuery { since_us, limit: 10, ..Default::default() }).unwrap();
        found.hits.iter().map(|h| (h.at_us, h.kind.clone())).collect::<Vec<_>>()
    };
    assert_eq!(find(0), [(300, "observation".to_string()), (150, "transition".into()), (100, "observation".into())]);
    assert_eq!(find(151), [(300, "observation".to_string())]);
    ix.forget_observations_before(&w, 200).unwrap();
    ix.commit(&mut w, 4).unwrap();
    assert_eq!(ix.docs(), 2);
    assert_eq!(find(0), [(300, "observation".to_string()), (150, "transition".into())]);
}

/// An index another version wrote is started over, to be rebuilt from the record; one
/// of this version is kept.
#[test]
fn an_index_of_another_version_starts_over() {
    let dir = tempfile::tempdir().unwrap();
    {
        let (ix, _) = SearchIndex::open(dir.path()).unwrap();
        let mut w = ix.writer().unwrap();
        ix.add_records(&w, &[obs("ann", "Bo arrives.", 8004)]).unwrap();
        ix.commit(&mut w, 7).unwrap();
    }
    let (ix, fresh) = SearchIndex::open(dir.path()).unwrap();
    assert!(!fresh);
    assert_eq!((ix.docs(), ix.watermark()), (1, 7));
    drop(ix);
    std::fs::write(dir.path().join("pawns-index-version"), "6").unwrap();
    let (ix, fresh) = SearchIndex::open(dir.path()).unwrap();
    assert!(fresh);
    assert_eq!((ix.docs(), ix.watermark()), (0, 0));
}

#[path = "index_same_answers.rs"]
mod same_answers;

/// A search that reads deep (its exclusions leave most documents' records out) through
/// crowds' documents, each a place per copy: the documents' columns are read again for
/// more until the page is full, each crowd's copies are one hit, and the count is exact
/// once every document was read.
#[test]
fn a_deep_search_through_crowds_counts_each_message_once() {
    let crowd = ["ann", "bo", "cy", "dee"];
    // Each session's seqs in a range of their own: a copy's session read with another's
    // seq would find nothing.
    let mut seqs = [0u64, 1000, 2000, 3000];
    let batches: Vec<Vec<EventRecord>> = (0..700u64)
        .map(|i| {
            // The older 100 are Fay's arrivals, the newer 600 Gus's.
            let text = if i < 100 { "Fay arrives." } else { "Gus arrives." };
            crowd
                .iter()
                .enumerate()
                .map(|(j, a)| {
                    seqs[j] += 1;
                    // Sessions are numbered as the server numbers them (µs since 1970),
                    // the later ones first in a batch (a column keeps a document's copies
                    // in the order they came, not sorted).
                    let session = 1_795_873_130_681_034 + 9_000 * (4 - j as u64);
                    EventRecord { session, seq: seqs[j], at_us: 1_000 + i * 1_000, ..obs(a, text, 3001) }
                })
                .collect()
        })
        .collect();
    // Committed in many segments, then merged into one: a merge keeps every crowd's copies
    // in their order.
    let dir = tempfile::tempdir().unwrap();
    let (ix, _) = SearchIndex::open(dir.path()).unwrap();
    let mut w = ix.writer().unwrap();
    for (n, b) in batches.iter().enumerate() {
        ix.add_records(&w, b).unwrap();
        if n % 50 == 49 {
            ix.commit(&mut w, n as u64 + 1).unwrap();
        }
    }
    let segments = ix.index.searchable_segment_ids().unwrap();
    assert!(segments.len() > 3, "{} segments", segments.len());
    w.merge(&segments).wait().unwrap();
    ix.commit(&mut w, batches.len() as u64).unwrap();
    assert_eq!(ix.reader.searcher().segment_readers().len(), 1);
    let (_d, store) = stored(&batches);
    assert_eq!(ix.crowd_docs().unwrap(), 700);
    let q = SearchQuery { q: "arrives -gus".into(), limit: 64, ..Default::default() };
    let found = ix.search_in(&store, &q).unwrap();
    assert_eq!((found.total, found.total_estimated, found.hits.len()), (100, false, 64));
    for (n, h) in found.hits.iter().enumerate() {
        assert_eq!((h.text.as_str(), h.at_us), ("Fay arrives.", 1_000 + (99 - n as u64) * 1_000));
        assert_eq!(h.also_seen_by.len(), 3, "{h:?}");
    }
    // Asked about one of them: its own copy, the others named.
    let as_cy = ix.search_in(&store, &SearchQuery { agent: Some("cy".into()), ..q }).unwrap();
    assert_eq!((as_cy.total, as_cy.hits[0].agent.as_str(), as_cy.hits[0].seq), (100, "cy", 2100));
    let mut others = as_cy.hits[0].also_seen_by.clone();
    others.sort();
    assert_eq!(others, ["ann", "bo", "dee"]);
    // A short page of the newest is estimated from what it read, near the truth.
    let page = ix.search_in(&store, &SearchQuery { q: "arrives".into(), limit: 5, ..Default::default() }).unwrap();
    assert!(page.total_estimated && (600..=800).contains(&page.total), "{} estimated", page.total);
}

/// A query names the fields records are asked in (`kind:`) as before v8; a field they
/// do not have, or a phrase prefix of one word, is a `bad_query`.
#[test]
fn a_query_names_a_records_kind_and_bad_ones_are_refused() {
    let batches = vec![vec![obs("ann", "Bo arrives.", 8004), obs("cy", "Bo arrives.", 8004), obs("dee", "Di leaves north.", 8005)]];
    let (_i, ix) = indexed(&batches);
    let (_d, store) = stored(&batches);
    let found = ix.search_in(&store, &query("arrives kind:observation")).unwrap();
    assert_eq!((found.total, found.hits[0].text.as_str()), (1, "Bo arrives."));
    assert_eq!(ix.search_in(&store, &query("arrives kind:combat")).unwrap().total, 0);
    for bad in ["agent:ann", "\"arr\"*", "\"bo arrives"] {
        let e = ix.search_in(&store, &query(bad)).unwrap_err();
        assert_eq!(e.code(), "bad_query", "{bad}: {e}");
    }
}
