//! A search's documents split into records: each command document's records are read
//! back from the data file and asked the whole query, one record at a time, in an index
//! of their own made in memory for the search — the same schema, words and analyzer the
//! per-record index had (v6), so a record is found exactly when it was found before.
//! Then a message a room was sent at once (the same observation, same room, same
//! moment) is one hit naming everyone who saw it, as before.

use std::ops::Bound;

use pawns_storage::{EventRecord, RecordBody, SessionMeta, Store};
use tantivy::collector::DocSetCollector;
use tantivy::query::{BooleanQuery, Occur, Query, QueryParser, RangeQuery, TermQuery};
use tantivy::schema::{IndexRecordOption, Schema, TextFieldIndexing, TextOptions, FAST, STRING};
use tantivy::{Index, TantivyDocument, Term};

use super::doc::{index_words, search_doc};
use super::index::{SearchError, SearchQuery};

/// Where a document's records are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub session: u64,
    pub seq_lo: u64,
    pub seq_hi: u64,
    /// When its last record was.
    pub at_hi: u64,
}

fn store_err(e: impl std::fmt::Display) -> SearchError {
    SearchError::Record(e.to_string())
}

/// Reads documents' records back from the data file, each session once per search
/// (rounds of a search and the crowds it names come back to the same sessions).
pub struct Reader<'s> {
    store: &'s Store,
    log: pawns_storage::LogReader,
    sessions: rustc_hash::FxHashMap<u64, Vec<EventRecord>>,
}

impl<'s> Reader<'s> {
    pub fn new(store: &'s Store) -> Result<Reader<'s>, SearchError> {
        Ok(Reader { store, log: store.log_reader().map_err(store_err)?, sessions: Default::default() })
    }

    /// The records the documents at `places` hold, in the order of `places`. Records
    /// retention dropped are simply not there.
    pub fn read(&mut self, places: &[Place]) -> Result<Vec<EventRecord>, SearchError> {
        let mut out = Vec::new();
        for p in places {
            if !self.sessions.contains_key(&p.session) {
                let meta = self.store.session(p.session).map_err(store_err)?;
                let meta = meta.unwrap_or(SessionMeta { session: p.session, first_batch: u64::MAX, ..Default::default() });
                let mut records = Vec::new();
                self.log.scan_session(&meta, 0, 0, &mut |_, r| records.push(r)).map_err(store_err)?;
                self.sessions.insert(p.session, records);
            }
            let records = &self.sessions[&p.session];
            let from = records.partition_point(|r| r.seq < p.seq_lo);
            let to = records.partition_point(|r| r.seq <= p.seq_hi);
            out.extend_from_slice(&records[from..to]);
        }
        Ok(out)
    }
}

/// An empty in-memory index of records as v6 indexed them (words with their positions,
/// kinds), where a search's records are asked its query, and its fields `words`,
/// `kind`, `at`, `i` (the record's place in what was read). A user's query is checked
/// against it too: what it refuses is a `bad_query`.
pub fn record_index() -> (Index, [tantivy::schema::Field; 4]) {
    let mut b = Schema::builder();
    let words_opts = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default().set_tokenizer(super::stem::ANALYZER).set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let fields =
        [b.add_text_field("words", words_opts), b.add_text_field("kind", STRING), b.add_u64_field("at", FAST), b.add_u64_field("i", FAST)];
    let index = Index::create_in_ram(b.build());
    index.tokenizers().register(super::stem::ANALYZER, super::stem::analyzer());
    (index, fields)
}

/// Which of `records` the query finds, one record at a time (indices into `records`).
/// The agent asked about is not asked here: a document is one agent's.
pub fn matching(records: &[EventRecord], q: &SearchQuery) -> Result<Vec<usize>, SearchError> {
    if records.is_empty() {
        return Ok(Vec::new());
    }
    let (index, [words, kind, at, i_field]) = record_index();
    let mut w = index.writer_with_num_threads(1, 15_000_000)?;
    for (i, r) in records.iter().enumerate() {
        let shown = search_doc(r);
        let mut doc = TantivyDocument::default();
        doc.add_text(words, index_words(r, &shown.text).as_ref());
        doc.add_text(kind, shown.kind);
        doc.add_text(kind, shown.category);
        doc.add_u64(at, r.at_us);
        doc.add_u64(i_field, i as u64);
        w.add_document(doc)?;
    }
    w.commit()?;
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    if !q.q.trim().is_empty() {
        let mut parser = QueryParser::for_index(&index, vec![words]);
        parser.set_conjunction_by_default();
        clauses.push((Occur::Must, parser.parse_query(q.q.trim()).map_err(SearchError::bad_query)?));
    }
    if let Some(k) = q.kind.as_deref().filter(|k| !k.is_empty()) {
        let t = Term::from_field_text(kind, &k.to_ascii_lowercase());
        clauses.push((Occur::Must, Box::new(TermQuery::new(t, IndexRecordOption::Basic))));
    }
    if q.since_us > 0 {
        let lower = Bound::Included(Term::from_field_u64(at, q.since_us));
        clauses.push((Occur::Must, Box::new(RangeQuery::new(lower, Bound::Unbounded))));
    }
    let query: Box<dyn Query> = if clauses.is_empty() { Box::new(tantivy::query::AllQuery) } else { Box::new(BooleanQuery::new(clauses)) };
    let searcher = index.reader()?.searcher();
    let found = searcher.search(&query, &DocSetCollector)?;
    let mut out = Vec::with_capacity(found.len());
    for addr in found {
        let column = searcher.segment_reader(addr.segment_ord).fast_fields().u64("i")?;
        if let Some(i) = column.first(addr.doc_id) {
            out.push(i as usize);
        }
    }
    out.sort_unstable();
    Ok(out)
}

/// One hit before it is shown: the records of one event (a crowd's message: every
/// character who was sent it; anything else: one record).
pub struct Event<'a> {
    pub at_us: u64,
    pub members: Vec<&'a EventRecord>,
}

/// Groups found records into events, newest first (ties: the later session and seq
/// first). A crowd's message is one event: the same observation (type, text) in the
/// same room at the same moment, each character once (v6 grouped a record batch, and
/// the engine sends a crowd's message in one step: its records share their time and
/// their batch; a packed file no longer says which batch a record came in). Told it
/// again, a character starts a new event, which later characters join.
pub fn events<'a>(records: &'a [EventRecord], found: &[usize]) -> Vec<Event<'a>> {
    let mut order: Vec<&EventRecord> = found.iter().map(|&i| &records[i]).collect();
    order.sort_by_key(|r| (r.at_us, r.session, r.seq));
    let mut out: Vec<Event<'a>> = Vec::with_capacity(order.len());
    let mut newest: rustc_hash::FxHashMap<(u64, &str, &str, u32), usize> = Default::default();
    for r in order {
        let RecordBody::Observation { event_type, text, .. } = &r.body else {
            out.push(Event { at_us: r.at_us, members: vec![r] });
            continue;
        };
        let key = (r.at_us, event_type.as_str(), &**text, r.room_vnum);
        match newest.get(&key) {
            Some(&g) if out[g].members.iter().all(|m| m.agent != r.agent) => {
                out[g].at_us = out[g].at_us.min(r.at_us);
                out[g].members.push(r);
            }
            _ => {
                newest.insert(key, out.len());
                out.push(Event { at_us: r.at_us, members: vec![r] });
            }
        }
    }
    let first = |e: &Event| e.members.first().map(|m| (m.session, m.seq)).unwrap_or_default();
    out.sort_by(|a, b| b.at_us.cmp(&a.at_us).then_with(|| first(b).cmp(&first(a))));
    out
}

/// Whether `r` is the same message a crowd was sent as `of` (for naming who else saw a
/// hit found for one agent).
pub fn same_message(of: &EventRecord, r: &EventRecord) -> bool {
    match (&of.body, &r.body) {
        (RecordBody::Observation { event_type: t1, text: x1, .. }, RecordBody::Observation { event_type: t2, text: x2, .. }) => {
            of.at_us == r.at_us && of.room_vnum == r.room_vnum && t1 == t2 && x1 == x2
        }
        _ => false,
    }
}
