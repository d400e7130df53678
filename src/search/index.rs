//! The search index: a tantivy index in a directory next to the data file.
//!
//! It is derived data. Each commit carries, as its payload, the id of the last record
//! batch it holds, in the same atomic step as the documents, so after a crash the index
//! knows exactly where to resume and never holds a record twice. Anything wrong with the
//! directory (missing, from another schema, unreadable) is answered by rebuilding it.

use std::ops::Bound;
use std::path::{Path, PathBuf};

use pawns_storage::{EventRecord, RecordBody};
use tantivy::collector::{Count, TopDocs};
use tantivy::indexer::UserOperation;
use tantivy::query::{AllQuery, BooleanQuery, Occur, Query, QueryParser, RangeQuery, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, Value, FAST, STORED, STRING};
use tantivy::{Index, IndexReader, IndexWriter, Order, ReloadPolicy, TantivyDocument, Term};

use super::doc::{search_doc, CATEGORIES, KINDS};

/// Bumped whenever the schema or the text of documents changes: an index of another
/// version is rebuilt from the data file.
pub const INDEX_VERSION: u32 = 6;
/// The indexing thread's memory budget (tantivy's floor is 15 MB).
const WRITER_BYTES: usize = 64 * 1024 * 1024;
/// Most hits one search returns.
pub const MAX_LIMIT: usize = 1000;

/// Where the index of a data file lives: `pawns.redb` → `pawns.redb.search/`.
pub fn index_dir(db: &Path) -> PathBuf {
    let mut s = db.as_os_str().to_owned();
    s.push(".search");
    PathBuf::from(s)
}

#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("bad query: {0}")]
    BadQuery(String),
    #[error("--kind {0}: not a kind (one of {list})", list = kinds_list())]
    BadKind(String),
    #[error("search index: {0}")]
    Index(#[from] tantivy::TantivyError),
    #[error("search index: {0}")]
    Io(#[from] std::io::Error),
    /// A hit's record could not be read back from the data file.
    #[error("reading the record: {0}")]
    Record(String),
}

impl SearchError {
    /// Stable code for the HTTP API and the CLI.
    pub fn code(&self) -> &'static str {
        match self {
            SearchError::BadQuery(_) => "bad_query",
            SearchError::BadKind(_) => "bad_kind",
            SearchError::Index(_) | SearchError::Io(_) => "index_failed",
            SearchError::Record(_) => "store_failed",
        }
    }
}

fn kinds_list() -> String {
    KINDS.iter().chain(CATEGORIES.iter()).copied().collect::<Vec<_>>().join(", ")
}

#[derive(Clone, Copy)]
struct Fields {
    /// What a document is found by (searched, not stored): `doc::index_words`.
    words: Field,
    kind: Field,
    agent: Field,
    session: Field,
    seq: Field,
    at: Field,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let words_opts = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default().set_tokenizer(super::stem::ANALYZER).set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let fields = Fields {
        words: b.add_text_field("words", words_opts),
        // Two values per document: the record kind and its category (searched by; what a
        // hit shows is read from its record).
        kind: b.add_text_field("kind", STRING),
        // One value per character who saw the event; session and seq in the same order.
        agent: b.add_text_field("agent", STRING | STORED),
        // Shown with a hit, never searched by: stored only. (Indexed, each document's
        // sessions and time were terms of their own; v5 left that out.)
        session: b.add_u64_field("session", STORED),
        seq: b.add_u64_field("seq", STORED),
        // A range on a fast field is read from the column (tantivy's `RangeQuery` picks
        // it), so `since` and retention's deletes need no term per document.
        at: b.add_u64_field("at", STORED | FAST),
    };
    (b.build(), fields)
}

/// What a search asks for.
#[derive(Debug, Clone, Default)]
pub struct SearchQuery {
    /// Words to find (tantivy's query syntax: `goblin AND kill`, `"small goblin"`, `-flee`);
    /// empty: everything that passes the filters.
    pub q: String,
    pub agent: Option<String>,
    /// A record kind or a category.
    pub kind: Option<String>,
    /// Only records at or after this unix µs.
    pub since_us: u64,
    pub limit: usize,
}

/// One record found.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SearchHit {
    pub at_us: u64,
    pub agent: String,
    pub session: u64,
    pub seq: u64,
    pub kind: String,
    pub category: String,
    pub room_vnum: u32,
    pub text: String,
    /// The others who were sent the same message at the same moment (a room's crowd),
    /// each with its session's seq of it; empty for what one character alone saw or did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also_seen_by: Vec<String>,
}

/// The answer to a search.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SearchResults {
    /// Every record that matched (`hits` holds at most the limit, newest first).
    pub total: usize,
    pub hits: Vec<SearchHit>,
    /// The last record batch the index held when it answered.
    pub indexed_batch: u64,
}

pub struct SearchIndex {
    index: Index,
    reader: IndexReader,
    fields: Fields,
    dir: PathBuf,
}

impl SearchIndex {
    /// Opens the index in `dir`, creating it, or starting over when what is there is
    /// not an index of this version. Returns whether it started empty.
    pub fn open(dir: &Path) -> Result<(SearchIndex, bool), SearchError> {
        let (schema, fields) = schema();
        let usable = dir.join("meta.json").exists()
            && Index::open_in_dir(dir).ok().is_some_and(|i| i.schema() == schema)
            && version_of(dir) == Some(INDEX_VERSION);
        let fresh = !usable;
        if fresh {
            if dir.exists() {
                tracing::info!(dir = %dir.display(), "search index is from another version or unreadable; rebuilding it");
                std::fs::remove_dir_all(dir)?;
            }
            std::fs::create_dir_all(dir)?;
            Index::create_in_dir(dir, schema)?;
            std::fs::write(dir.join("pawns-index-version"), INDEX_VERSION.to_string())?;
        }
        let index = Index::open_in_dir(dir)?;
        index.tokenizers().register(super::stem::ANALYZER, super::stem::analyzer());
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
        Ok((SearchIndex { index, reader, fields, dir: dir.to_path_buf() }, fresh))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The writer; only one may exist (tantivy locks the directory).
    pub fn writer(&self) -> Result<IndexWriter, SearchError> {
        Ok(self.index.writer_with_num_threads(1, WRITER_BYTES)?)
    }

    /// The last record batch the committed index holds (0: none).
    pub fn watermark(&self) -> u64 {
        self.index.load_metas().ok().and_then(|m| m.payload).and_then(|p| p.parse().ok()).unwrap_or(0)
    }

    /// Adds one event to what the writer will commit next: one record, or the records
    /// of one message many characters were sent at once (see `shared_groups`).
    pub fn add(&self, w: &IndexWriter, group: &[&EventRecord]) -> Result<(), SearchError> {
        if let Some(doc) = self.document(group) {
            w.add_document(doc)?;
        }
        Ok(())
    }

    /// Adds a record batch to what the writer will commit next, one document per event
    /// (`shared_groups`), handed to tantivy's indexing thread as one operation. Handed
    /// one document at a time (`add`), the thread, idle between them, was woken for
    /// each: a futex wake and two context switches per document, more than indexing
    /// the document cost. Returns the documents added.
    pub fn add_records(&self, w: &IndexWriter, records: &[EventRecord]) -> Result<usize, SearchError> {
        let ops: Vec<UserOperation> = shared_groups(records).iter().filter_map(|g| self.document(g)).map(UserOperation::Add).collect();
        let n = ops.len();
        if n > 0 {
            w.run(ops)?;
        }
        Ok(n)
    }

    /// The document of one event (`None` for an empty group).
    fn document(&self, group: &[&EventRecord]) -> Option<TantivyDocument> {
        let first = group.first()?;
        let d = search_doc(first);
        let f = &self.fields;
        let mut doc = TantivyDocument::default();
        doc.add_text(f.words, super::doc::index_words(first, &d.text).as_ref());
        doc.add_text(f.kind, d.kind);
        doc.add_text(f.kind, d.category);
        for r in group {
            doc.add_text(f.agent, &r.agent);
            doc.add_u64(f.session, r.session);
            doc.add_u64(f.seq, r.seq);
        }
        doc.add_u64(f.at, group.iter().map(|r| r.at_us).min().unwrap_or(first.at_us));
        Some(doc)
    }

    /// Commits what was added, with the batch it reaches, and lets searches see it.
    pub fn commit(&self, w: &mut IndexWriter, batch: u64) -> Result<(), SearchError> {
        let mut prepared = w.prepare_commit()?;
        prepared.set_payload(&batch.to_string());
        prepared.commit()?;
        self.reader.reload()?;
        Ok(())
    }

    /// Queues the removal of observations before `before_us` (retention); the next
    /// commit applies it.
    pub fn forget_observations_before(&self, w: &IndexWriter, before_us: u64) -> Result<(), SearchError> {
        let f = self.fields;
        let q = BooleanQuery::new(vec![
            (
                Occur::Must,
                Box::new(TermQuery::new(Term::from_field_text(f.kind, "observation"), IndexRecordOption::Basic)) as Box<dyn Query>,
            ),
            (Occur::Must, Box::new(RangeQuery::new(Bound::Unbounded, Bound::Excluded(Term::from_field_u64(f.at, before_us))))),
        ]);
        w.delete_query(Box::new(q))?;
        Ok(())
    }

    /// Documents the committed index holds.
    pub fn docs(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// Finds records, newest first, each hit's text, kind and room read back from the record in `store`
    /// (the index keeps none: v6). A hit whose record is gone (retention) keeps no text.
    pub fn search_in(&self, store: &pawns_storage::Store, q: &SearchQuery) -> Result<SearchResults, SearchError> {
        let mut found = self.search(q)?;
        fill_texts(store, &mut found.hits)?;
        Ok(found)
    }

    /// Finds records, newest first: who, where in the record and when — not what they
    /// said, their kind or their room (`search_in` reads those back).
    pub fn search(&self, q: &SearchQuery) -> Result<SearchResults, SearchError> {
        let f = self.fields;
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        if !q.q.trim().is_empty() {
            let mut parser = QueryParser::for_index(&self.index, vec![f.words]);
            parser.set_conjunction_by_default();
            let parsed = parser.parse_query(q.q.trim()).map_err(|e| SearchError::BadQuery(e.to_string()))?;
            clauses.push((Occur::Must, parsed));
        }
        if let Some(agent) = q.agent.as_deref().filter(|a| !a.is_empty()) {
            let t = Term::from_field_text(f.agent, &agent.to_ascii_lowercase());
            clauses.push((Occur::Must, Box::new(TermQuery::new(t, IndexRecordOption::Basic))));
        }
        if let Some(kind) = q.kind.as_deref().filter(|k| !k.is_empty()) {
            let kind = kind.to_ascii_lowercase();
            if !KINDS.contains(&kind.as_str()) && !CATEGORIES.contains(&kind.as_str()) {
                return Err(SearchError::BadKind(kind));
            }
            clauses.push((Occur::Must, Box::new(TermQuery::new(Term::from_field_text(f.kind, &kind), IndexRecordOption::Basic))));
        }
        if q.since_us > 0 {
            let lower = Bound::Included(Term::from_field_u64(f.at, q.since_us));
            clauses.push((Occur::Must, Box::new(RangeQuery::new(lower, Bound::Unbounded))));
        }
        let query: Box<dyn Query> = if clauses.is_empty() { Box::new(AllQuery) } else { Box::new(BooleanQuery::new(clauses)) };
        let wanted_agent = q.agent.as_deref().map(str::to_ascii_lowercase);
        let searcher = self.reader.searcher();
        let indexed_batch = searcher.index().load_metas().ok().and_then(|m| m.payload).and_then(|p| p.parse().ok()).unwrap_or(0);
        let limit = q.limit.clamp(1, MAX_LIMIT);
        let top = TopDocs::with_limit(limit).order_by_fast_field::<u64>("at", Order::Desc);
        let (found, total) = searcher.search(&query, &(top, Count))?;
        let mut hits = Vec::with_capacity(found.len());
        for (_, addr) in found {
            let doc: TantivyDocument = searcher.doc(addr)?;
            let u64_of = |field: Field| doc.get_first(field).and_then(|v| v.as_u64()).unwrap_or(0);
            let mut agents: Vec<String> = doc.get_all(f.agent).filter_map(|v| v.as_str()).map(str::to_string).collect();
            let sessions: Vec<u64> = doc.get_all(f.session).filter_map(|v| v.as_u64()).collect();
            let seqs: Vec<u64> = doc.get_all(f.seq).filter_map(|v| v.as_u64()).collect();
            // The hit is told from the point of view of the agent asked about, if any.
            let i = wanted_agent.as_ref().and_then(|a| agents.iter().position(|x| x == a)).unwrap_or(0);
            let agent = if agents.is_empty() { String::new() } else { agents.remove(i) };
            hits.push(SearchHit {
                at_us: u64_of(f.at),
                agent,
                session: sessions.get(i).copied().unwrap_or(0),
                seq: seqs.get(i).copied().unwrap_or(0),
                kind: String::new(),
                category: String::new(),
                room_vnum: 0,
                // Read back from the record (`search_in`): the index keeps no copy.
                text: String::new(),
                also_seen_by: agents,
            });
        }
        Ok(SearchResults { total, hits, indexed_batch })
    }
}

/// Each hit's text, as its document was made from its record (`doc::search_doc`): the
/// sessions the hits are in are read once each.
pub fn fill_texts(store: &pawns_storage::Store, hits: &mut [SearchHit]) -> Result<(), SearchError> {
    let mut by_session: std::collections::BTreeMap<u64, Vec<usize>> = std::collections::BTreeMap::new();
    for (i, h) in hits.iter().enumerate() {
        by_session.entry(h.session).or_default().push(i);
    }
    for (session, idx) in by_session {
        let records = store.session_records(session).map_err(|e| SearchError::Record(e.to_string()))?;
        for i in idx {
            let seq = hits[i].seq;
            // Records are in seq order from 1: the place is the seq, or found by looking.
            let r = records.get(seq.saturating_sub(1) as usize).filter(|r| r.seq == seq).or_else(|| records.iter().find(|r| r.seq == seq));
            if let Some(r) = r {
                let d = search_doc(r);
                let h = &mut hits[i];
                (h.text, h.kind, h.category, h.room_vnum) = (d.text, d.kind.to_string(), d.category.to_string(), r.room_vnum);
            }
        }
    }
    Ok(())
}

/// Groups a batch's records into index documents: one message sent to a whole room at
/// once (the same observation, same room, within the batch, each character once) is one
/// document listing everyone who saw it; everything else is a document of its own. A
/// crowd's notices are most of what is observed, and this indexes each of them once.
pub fn shared_groups(records: &[EventRecord]) -> Vec<Vec<&EventRecord>> {
    let mut groups: Vec<Vec<&EventRecord>> = Vec::with_capacity(records.len());
    // Fx, not SipHash: every observation's whole text is hashed here.
    let mut open: rustc_hash::FxHashMap<(&str, &str, u32), usize> = Default::default();
    // Who each open group holds: a crowd's message has hundreds of recipients, and a
    // walk through the group for each one was quadratic.
    let mut members: rustc_hash::FxHashSet<(usize, &str)> = Default::default();
    for r in records {
        let (event_type, text) = match &r.body {
            RecordBody::Observation { event_type, text, .. } => (event_type, text),
            // A decision or a transition is one agent's own: a document of its own.
            RecordBody::Decision(_) | RecordBody::Transition(_) => {
                groups.push(vec![r]);
                continue;
            }
        };
        let key = (&**text, event_type.as_str(), r.room_vnum);
        match open.get(&key) {
            Some(&g) if members.insert((g, &*r.agent)) => groups[g].push(r),
            _ => {
                open.insert(key, groups.len());
                members.insert((groups.len(), &*r.agent));
                groups.push(vec![r]);
            }
        }
    }
    groups
}

fn version_of(dir: &Path) -> Option<u32> {
    std::fs::read_to_string(dir.join("pawns-index-version")).ok()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// The records in a data file of their own, as the recorder writes them: a hit's text
    /// is read back from there.
    fn stored(records: &[&EventRecord]) -> (tempfile::TempDir, pawns_storage::Store) {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = pawns_storage::Store::open(dir.path().join("r.redb")).unwrap();
        let mut sessions: Vec<pawns_storage::SessionMeta> = Vec::new();
        for r in records {
            if !sessions.iter().any(|m| m.session == r.session) {
                sessions.push(pawns_storage::SessionMeta {
                    session: r.session,
                    agent: r.agent.to_string(),
                    started_us: 1,
                    ..Default::default()
                });
            }
        }
        let records = records.iter().map(|r| (*r).clone()).collect();
        store.write_records(&pawns_storage::RecordBatch { sessions, records, ..Default::default() }).unwrap();
        (dir, store)
    }

    #[test]
    fn a_message_a_room_was_sent_at_once_is_one_document() {
        let records = vec![
            obs("ann", "Bo arrives from the west.", 8004),
            obs("cy", "Bo arrives from the west.", 8004),
            // The same words elsewhere are another event.
            obs("dee", "Bo arrives from the west.", 8005),
            // The same character told twice: two events (later ones join the newest).
            obs("ann", "Bo arrives from the west.", 8004),
            obs("eve", "Bo arrives from the west.", 8004),
        ];
        let groups: Vec<Vec<&str>> = shared_groups(&records).iter().map(|g| g.iter().map(|r| &*r.agent).collect()).collect();
        assert_eq!(groups, vec![vec!["ann", "cy"], vec!["dee"], vec!["ann", "eve"]]);
        let mut decision = obs("ann", "", 8004);
        decision.body = RecordBody::Transition(pawns_storage::Transition::Gold { from: 1, to: 2 });
        assert_eq!(shared_groups(&[decision.clone(), decision]).len(), 2, "only observations are shared");
    }

    #[test]
    fn a_room_is_found_by_who_stood_there_and_shown_as_it_was_seen() {
        let dir = tempfile::tempdir().unwrap();
        let (ix, fresh) = SearchIndex::open(dir.path()).unwrap();
        assert!(fresh);
        let mut w = ix.writer().unwrap();
        let shown =
            "The Temple of the Ember\nYou stand in a vaulted hall.\n[ Exits: north ]\nA rat is here.\nBrenda [agent] is standing here.";
        let mut look = obs("ann", shown, 8004);
        look.body = RecordBody::Observation { event_type: "text".into(), text: shown.into(), from: None };
        ix.add(&w, &[&look]).unwrap();
        ix.commit(&mut w, 1).unwrap();
        let (_d, store) = stored(&[&look]);
        let find = |q: &str| ix.search_in(&store, &SearchQuery { q: q.into(), limit: 10, ..Default::default() }).unwrap();
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
    /// A record batch goes to tantivy as one operation: one document per event, a
    /// crowd's message once with everyone who was sent it, each document whole.
    #[test]
    fn a_batch_is_added_as_one_document_per_event() {
        let dir = tempfile::tempdir().unwrap();
        let (ix, _) = SearchIndex::open(dir.path()).unwrap();
        let mut w = ix.writer().unwrap();
        let mut gold = obs("ann", "", 8004);
        gold.body = RecordBody::Transition(pawns_storage::Transition::Gold { from: 1, to: 2 });
        gold.seq = 2;
        let records = [obs("ann", "Bo arrives.", 8004), obs("cy", "Bo arrives.", 8004), gold, obs("dee", "Di leaves north.", 8005)];
        let (_d, store) = stored(&records.iter().collect::<Vec<_>>());
        assert_eq!(ix.add_records(&w, &records).unwrap(), 3);
        assert_eq!(ix.add_records(&w, &[]).unwrap(), 0);
        ix.commit(&mut w, 1).unwrap();
        assert_eq!(ix.docs(), 3);
        let found = ix.search_in(&store, &SearchQuery { q: "arrives".into(), limit: 10, ..Default::default() }).unwrap();
        assert_eq!(found.total, 1);
        let hit = &found.hits[0];
        assert_eq!((hit.text.as_str(), hit.room_vnum), ("Bo arrives.", 8004));
        assert_eq!(hit.agent, "ann");
        assert_eq!(hit.also_seen_by.len(), 1, "{:?}", hit.also_seen_by);
        assert!(hit.also_seen_by[0].starts_with("cy"), "{:?}", hit.also_seen_by);
        let left = ix.search_in(&store, &SearchQuery { q: "north".into(), limit: 10, ..Default::default() }).unwrap();
        assert_eq!((left.total, left.hits[0].agent.as_str(), left.hits[0].text.as_str()), (1, "dee", "Di leaves north."));
        // The index alone knows where the hits are, not what they said: no copy of the text.
        let bare = ix.search(&SearchQuery { q: "north".into(), limit: 10, ..Default::default() }).unwrap();
        assert_eq!((bare.hits[0].session, bare.hits[0].seq, bare.hits[0].text.as_str()), (left.hits[0].session, 1, ""));
    }

    /// `since` and retention's forgetting work on the time column alone (v5 indexes no
    /// term per document's time): only observations before the cut go, newest first.
    #[test]
    fn since_and_forgetting_read_the_time_column() {
        let dir = tempfile::tempdir().unwrap();
        let (ix, _) = SearchIndex::open(dir.path()).unwrap();
        let mut w = ix.writer().unwrap();
        let at = |mut r: EventRecord, at_us: u64| {
            r.at_us = at_us;
            r
        };
        let mut gold = obs("ann", "", 8004);
        gold.body = RecordBody::Transition(pawns_storage::Transition::Gold { from: 1, to: 2 });
        gold.seq = 2;
        let records = [at(obs("ann", "Bo arrives.", 8004), 100), at(gold, 150), at(obs("cy", "Di arrives.", 8004), 300)];
        for r in &records {
            ix.add(&w, &[r]).unwrap();
        }
        ix.commit(&mut w, 1).unwrap();
        let (_d, store) = stored(&records.iter().collect::<Vec<_>>());
        let find = |since_us: u64| {
            let found = ix.search_in(&store, &SearchQuery { since_us, limit: 10, ..Default::default() }).unwrap();
            found.hits.iter().map(|h| (h.at_us, h.kind.clone())).collect::<Vec<_>>()
        };
        assert_eq!(find(0), [(300, "observation".to_string()), (150, "transition".into()), (100, "observation".into())]);
        assert_eq!(find(151), [(300, "observation".to_string())]);
        ix.forget_observations_before(&w, 200).unwrap();
        ix.commit(&mut w, 2).unwrap();
        assert_eq!(find(0), [(300, "observation".to_string()), (150, "transition".into())]);
    }
    /// An index another version wrote (v4 made terms of session, room and time) is
    /// started over, to be rebuilt from the record; one of this version is kept.
    #[test]
    fn an_index_of_another_version_starts_over() {
        let dir = tempfile::tempdir().unwrap();
        {
            let (ix, _) = SearchIndex::open(dir.path()).unwrap();
            let mut w = ix.writer().unwrap();
            ix.add(&w, &[&obs("ann", "Bo arrives.", 8004)]).unwrap();
            ix.commit(&mut w, 7).unwrap();
        }
        let (ix, fresh) = SearchIndex::open(dir.path()).unwrap();
        assert!(!fresh);
        assert_eq!((ix.docs(), ix.watermark()), (1, 7));
        drop(ix);
        std::fs::write(dir.path().join("pawns-index-version"), "4").unwrap();
        let (ix, fresh) = SearchIndex::open(dir.path()).unwrap();
        assert!(fresh);
        assert_eq!((ix.docs(), ix.watermark()), (0, 0));
    }
}
