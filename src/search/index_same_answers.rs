//! Index v7 (a document per command, split at query time) answers what v6 (a document
//! per event) answered, on the same record: v6 is rebuilt here as it was — one document
//! per record, a crowd's message once — in an index of its own, and asked the same
//! queries.

use super::*;
use pawns_storage::{DecisionRecord, RecordBody, Transition};
use tantivy::schema::STRING;

/// What v6 indexed: a batch's records as events, a crowd's message (same observation,
/// same room, same batch, each character once) one event naming everyone.
fn v6_events(records: &[EventRecord]) -> Vec<Vec<&EventRecord>> {
    let mut groups: Vec<Vec<&EventRecord>> = Vec::new();
    let mut open: std::collections::HashMap<(&str, &str, u32), usize> = Default::default();
    for r in records {
        let RecordBody::Observation { event_type, text, .. } = &r.body else {
            groups.push(vec![r]);
            continue;
        };
        let key = (&**text, event_type.as_str(), r.room_vnum);
        match open.get(&key) {
            Some(&g) if groups[g].iter().all(|m| m.agent != r.agent) => groups[g].push(r),
            _ => {
                open.insert(key, groups.len());
                groups.push(vec![r]);
            }
        }
    }
    groups
}

/// A record found, as compared: who, when, what (kind, text), where.
type Seen = (String, u64, String, String, u32);
/// v6's answer: every event matching, newest first.
fn v6_answer(batches: &[Vec<EventRecord>], q: &SearchQuery) -> Vec<Seen> {
    let mut b = Schema::builder();
    let opts = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(crate::search::stem::ANALYZER)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let (words, kind, agent, at, g) = (
        b.add_text_field("words", opts),
        b.add_text_field("kind", STRING),
        b.add_text_field("agent", STRING),
        b.add_u64_field("at", FAST),
        b.add_u64_field("g", FAST),
    );
    let index = Index::create_in_ram(b.build());
    index.tokenizers().register(crate::search::stem::ANALYZER, crate::search::stem::analyzer());
    let mut w = index.writer_with_num_threads(1, 15_000_000).unwrap();
    let events: Vec<Vec<&EventRecord>> = batches.iter().flat_map(|b| v6_events(b)).collect();
    for (i, e) in events.iter().enumerate() {
        let d = search_doc(e[0]);
        let mut doc = TantivyDocument::default();
        doc.add_text(words, crate::search::doc::index_words(e[0], &d.text).as_ref());
        doc.add_text(kind, d.kind);
        doc.add_text(kind, d.category);
        for r in e {
            doc.add_text(agent, &r.agent);
        }
        doc.add_u64(at, e.iter().map(|r| r.at_us).min().unwrap());
        doc.add_u64(g, i as u64);
        w.add_document(doc).unwrap();
    }
    w.commit().unwrap();
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    if !q.q.is_empty() {
        let mut parser = QueryParser::for_index(&index, vec![words]);
        parser.set_conjunction_by_default();
        clauses.push((Occur::Must, parser.parse_query(&q.q).unwrap()));
    }
    if let Some(a) = &q.agent {
        clauses.push((Occur::Must, Box::new(TermQuery::new(Term::from_field_text(agent, a), IndexRecordOption::Basic))));
    }
    if let Some(k) = &q.kind {
        clauses.push((Occur::Must, Box::new(TermQuery::new(Term::from_field_text(kind, k), IndexRecordOption::Basic))));
    }
    if q.since_us > 0 {
        clauses.push((Occur::Must, Box::new(RangeQuery::new(Bound::Included(Term::from_field_u64(at, q.since_us)), Bound::Unbounded))));
    }
    let query: Box<dyn Query> = if clauses.is_empty() { Box::new(tantivy::query::AllQuery) } else { Box::new(BooleanQuery::new(clauses)) };
    let searcher = index.reader().unwrap().searcher();
    let found = searcher.search(&query, &tantivy::collector::DocSetCollector).unwrap();
    let mut out: Vec<Seen> = found
        .into_iter()
        .flat_map(|addr| {
            let i = searcher.segment_reader(addr.segment_ord).fast_fields().u64("g").unwrap().first(addr.doc_id).unwrap() as usize;
            let e = &events[i];
            let d = search_doc(e[0]);
            e.iter().map(move |r| (r.agent.to_string(), r.at_us, d.kind.to_string(), d.text.clone(), e[0].room_vnum)).collect::<Vec<_>>()
        })
        .collect();
    out.sort();
    out
}

fn v7_answer(found: &SearchResults) -> Vec<Seen> {
    // A crowd's message is sent at once: every member saw it at the hit's time.
    let mut out: Vec<Seen> = found
        .hits
        .iter()
        .flat_map(|h| {
            std::iter::once(&h.agent).chain(&h.also_seen_by).map(|who| (who.clone(), h.at_us, h.kind.clone(), h.text.clone(), h.room_vnum))
        })
        .collect();
    out.sort();
    out
}

/// A few minutes of six agents in four rooms, as the recorder batches them: commands,
/// what they made (gold, hit points, a kill, a move) and what each saw — a room's crowd
/// sent the same words at once, talk, looks with the company standing there — in
/// batches that cut through commands.
fn a_record() -> Vec<Vec<EventRecord>> {
    let agents = ["ann", "bo", "cy", "dee", "eve", "fay"];
    let mut seqs = [0u64; 6];
    let mut rooms = [3001u32, 3001, 3001, 3002, 3002, 3003];
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % n
    };
    let lines =
        ["kill rat", "kill goblin", "flee", "north", "south", "look", "say hello goblin", "get coins", "score", "cast 'magic missile' rat"];
    let mut batches = Vec::new();
    let mut at = 1_000_000u64;
    for _ in 0..120 {
        let mut batch = Vec::new();
        for _ in 0..1 + next(4) {
            at += 1 + next(400_000);
            let a = next(6) as usize;
            let rec = |i: usize, seqs: &mut [u64; 6], room: u32, body: RecordBody| {
                seqs[i] += 1;
                EventRecord { session: 100 + i as u64, seq: seqs[i], agent: agents[i].into(), at_us: at, room_vnum: room, body }
            };
            let line = lines[next(lines.len() as u64) as usize];
            let (command, args) = line.split_once(' ').unwrap_or((line, ""));
            let d = DecisionRecord {
                command: command.into(),
                args: args.into(),
                status: if next(7) == 0 { "failed" } else { "ok" }.into(),
                ..Default::default()
            };
            batch.push(rec(a, &mut seqs, rooms[a], RecordBody::Decision(Box::new(d))));
            let t = match command {
                "kill" if next(3) == 0 => {
                    Some(Transition::Kill { victim: format!("a small {args}"), victim_level: 2, victim_is_player: false, level: 3 })
                }
                "kill" | "cast" => Some(Transition::Hp { from: 20, to: 14, max: 20, by: Some("the goblin".into()) }),
                "get" => Some(Transition::Gold { from: 3, to: 9 }),
                "north" | "south" => {
                    let to = if rooms[a] == 3003 { 3001 } else { rooms[a] + 1 };
                    let from = std::mem::replace(&mut rooms[a], to);
                    Some(Transition::Room { from, to, name: format!("Hall {to}") })
                }
                _ => None,
            };
            if let Some(t) = t {
                batch.push(rec(a, &mut seqs, rooms[a], RecordBody::Transition(t)));
            }
            let mut own = |text: String, event_type: &str, seqs: &mut [u64; 6]| {
                let r = rec(a, seqs, rooms[a], RecordBody::Observation { event_type: event_type.into(), text: text.into(), from: None });
                batch.push(r);
            };
            match command {
                "look" | "north" | "south" => {
                    let company: String = (0..6)
                        .filter(|&j| j != a && rooms[j] == rooms[a])
                        .map(|j| format!("\n{} [agent] is standing here.", agents[j].to_uppercase()))
                        .collect();
                    own(
                        format!("Hall {}\nA long hall of grey stone.\n[ Exits: north south ]\nA rat is here.{company}", rooms[a]),
                        "text",
                        &mut seqs,
                    );
                }
                "kill" => own(format!("You hit the {args} hard."), "combat", &mut seqs),
                "flee" => own("You flee head over heels.".into(), "text", &mut seqs),
                _ => {}
            }
            // What the room saw: everyone else in it, the same words at once.
            let crowd = match command {
                "say" => Some(("say", format!("{} says, '{args}'", agents[a]))),
                "kill" => Some(("combat", format!("{} attacks the {args}!", agents[a]))),
                "north" | "south" => Some(("enter", format!("{} arrives.", agents[a]))),
                _ => None,
            };
            if let Some((event_type, text)) = crowd {
                for j in (0..6).filter(|&j| j != a && rooms[j] == rooms[a]) {
                    let room = rooms[j];
                    batch.push(rec(
                        j,
                        &mut seqs,
                        room,
                        RecordBody::Observation { event_type: event_type.into(), text: text.clone().into(), from: None },
                    ));
                }
            }
        }
        batches.push(batch);
    }
    batches
}

#[test]
fn every_query_finds_what_the_index_of_one_document_per_record_found() {
    let batches = a_record();
    let records: usize = batches.iter().map(Vec::len).sum();
    let (_d, store) = super::stored(&batches);
    // Committed now and then, as the indexer does: documents cut by commits too.
    let dir = tempfile::tempdir().unwrap();
    let (ix, _) = SearchIndex::open(dir.path()).unwrap();
    let mut w = ix.writer().unwrap();
    for (i, b) in batches.iter().enumerate() {
        ix.add_records(&w, b).unwrap();
        if i % 17 == 16 {
            ix.commit(&mut w, i as u64 + 1).unwrap();
        }
    }
    ix.commit(&mut w, batches.len() as u64).unwrap();
    let decisions = batches.iter().flatten().filter(|r| matches!(r.body, RecordBody::Decision(_))).count() as u64;
    assert!(
        ix.docs() < records as u64 / 2 && ix.docs() >= decisions,
        "{} documents for {records} records, {decisions} commands",
        ix.docs()
    );
    assert!(ix.crowd_docs().unwrap() > 20, "the crowds' messages are documents of their own");
    let mid = batches[60][0].at_us;
    let asked = [
        SearchQuery { q: "goblin".into(), ..Default::default() },
        SearchQuery { q: "kill rat".into(), ..Default::default() },
        SearchQuery { q: "kill -goblin".into(), ..Default::default() },
        SearchQuery { q: "goblin -attacks".into(), ..Default::default() },
        SearchQuery { q: "\"small goblin\"".into(), ..Default::default() },
        SearchQuery { q: "\"magic missile\" OR flee".into(), ..Default::default() },
        SearchQuery { q: "arrives".into(), agent: Some("cy".into()), ..Default::default() },
        SearchQuery { q: "hall".into(), agent: Some("ann".into()), since_us: mid, ..Default::default() },
        SearchQuery { q: "bo".into(), ..Default::default() },
        SearchQuery { q: "hello".into(), kind: Some("social".into()), ..Default::default() },
        SearchQuery { kind: Some("combat".into()), ..Default::default() },
        SearchQuery { kind: Some("transition".into()), agent: Some("eve".into()), ..Default::default() },
        SearchQuery { kind: Some("observation".into()), since_us: mid, ..Default::default() },
        SearchQuery::default(),
    ];
    let mut merged = 0;
    for q in asked {
        let before = v6_answer(&batches, &q);
        let now = ix.search_in(&store, &SearchQuery { limit: MAX_LIMIT, ..q.clone() }).unwrap();
        assert!(!before.is_empty() || q.q == "\"small goblin\"", "{q:?} finds something");
        assert!(!now.total_estimated, "{q:?}: a page of all of them counts them");
        // The same records, each once.
        assert_eq!(v7_answer(&now), before, "{q:?}");
        // As events: v6 also made one event of the same words told to two characters
        // in the same room within one record batch at different moments (two `flee`s
        // 10 ms apart); v7 groups what was sent at once, so it counts as many or more.
        let v6_events = v6_event_count(&batches, &q);
        assert!(now.total >= v6_events && now.total <= before.len(), "{q:?}: {} events, v6 {v6_events}", now.total);
        merged += now.total - v6_events;
        // A short page is the newest of them, read with fewer documents split.
        let page = ix.search_in(&store, &SearchQuery { limit: 5, ..q.clone() }).unwrap();
        assert_eq!(page.hits, now.hits[..now.hits.len().min(5)], "{q:?}");
    }
    assert!(merged < 10, "v6's coincidences are rare: {merged}");
}

/// How many events v6 counted for `q` (its `total`).
fn v6_event_count(batches: &[Vec<EventRecord>], q: &SearchQuery) -> usize {
    let records = v6_answer(batches, q);
    let mut events: Vec<(u64, &str, &str, u32)> = Vec::new();
    // Recount the way v6 grouped: per batch, a message told to several characters once.
    for b in batches {
        for g in v6_events(b) {
            let d = search_doc(g[0]);
            let hit = g.iter().any(|r| records.iter().any(|s| s.0 == *r.agent && s.1 == r.at_us && s.3 == d.text && s.4 == r.room_vnum));
            if hit {
                events.push((g[0].at_us, "", "", 0));
            }
        }
    }
    events.len()
}
