//! The search index: a tantivy index in a directory next to the data file, one document
//! per agent command (`command_doc`), holding no copy of what was said.
//!
//! It is derived data. Each commit carries, as its payload, the id of the last record
//! batch it holds, in the same atomic step as the documents, so after a crash the index
//! knows exactly where to resume and never holds a record twice. Anything wrong with the
//! directory (missing, from another schema, unreadable) is answered by rebuilding it.

use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use pawns_storage::EventRecord;
use tantivy::collector::{Count, TopDocs};
use tantivy::indexer::UserOperation;
use tantivy::query::{BooleanQuery, Occur, Query, QueryParser, RangeQuery, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, FAST};
use tantivy::{Index, IndexReader, IndexWriter, Order, ReloadPolicy, Searcher, TantivyDocument, Term};

use super::command_doc::{CommandDoc, CommandDocs};
use super::doc::{search_doc, CATEGORIES, KINDS};
use super::split::Place;

/// Bumped whenever the schema or the text of documents changes: an index of another
/// version is rebuilt from the data file.
pub const INDEX_VERSION: u32 = 8;
/// The indexing thread's memory budget (tantivy's floor is 15 MB).
const WRITER_BYTES: usize = 64 * 1024 * 1024;
/// Most hits one search returns.
pub const MAX_LIMIT: usize = 1000;
/// Most documents one search looks at, newest first (their columns only; it splits as
/// many of them as it takes to fill the page).
pub const MAX_SPLIT: usize = 100_000;
/// Documents split into records in the first round of a search (then twice as many each
/// round until the page is full).
const FIRST_SPLIT: usize = 64;

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
    /// A query tantivy refused, its words (echoed in the message) with control
    /// characters written as escapes: a query's escape bytes never reach a terminal.
    pub fn bad_query(e: impl std::fmt::Display) -> SearchError {
        let said = e.to_string();
        SearchError::BadQuery(said.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect())
    }

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
    /// What a document is found by (searched, not stored): each record's
    /// `doc::index_words`, one value per record.
    words: Field,
    /// The kinds and categories of its records.
    kind: Field,
    agent: Field,
    session: Field,
    seq_lo: Field,
    seq_hi: Field,
    at_lo: Field,
    at_hi: Field,
    /// A crowd's document: every copy's session and seq, in the same order (many values
    /// per document; a column keeps a document's values in the order they were added).
    crowd_session: Field,
    crowd_seq: Field,
}

/// One document per command (`command_doc`). Nothing is stored: where a document's
/// records are (agent, session, seqs, time) is in columns (fast fields), what they said
/// is in the data file.
fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    // Matched, never scored, no phrase asked of a document (`query::without_phrases`):
    // no word positions, frequencies or field norms.
    let words_basic =
        TextFieldIndexing::default().set_tokenizer(super::stem::ANALYZER).set_index_option(IndexRecordOption::Basic).set_fieldnorms(false);
    let fields = Fields {
        words: b.add_text_field("words", TextOptions::default().set_indexing_options(words_basic)),
        kind: b.add_text_field("kind", exact()),
        agent: b.add_text_field("agent", exact()),
        session: b.add_u64_field("session", FAST),
        seq_lo: b.add_u64_field("seq_lo", FAST),
        seq_hi: b.add_u64_field("seq_hi", FAST),
        // A range on a fast field is read from the column (tantivy's `RangeQuery` picks
        // it): `since`, retention's deletes and the newest-first order need no terms.
        at_lo: b.add_u64_field("at_lo", FAST),
        at_hi: b.add_u64_field("at_hi", FAST),
        crowd_session: b.add_u64_field("crowd_session", FAST),
        crowd_seq: b.add_u64_field("crowd_seq", FAST),
    };
    (b.build(), fields)
}

/// What a user's query is checked against: the index records are asked it in
/// (`split::record_index`: words with their positions, so a phrase is a phrase).
fn query_checker() -> QueryParser {
    let (index, [words, ..]) = super::split::record_index();
    let mut parser = QueryParser::for_index(&index, vec![words]);
    parser.set_conjunction_by_default();
    parser
}

/// A field matched whole (a kind, a name), never scored.
fn exact() -> TextOptions {
    TextOptions::default().set_indexing_options(
        TextFieldIndexing::default().set_tokenizer("raw").set_fieldnorms(false).set_index_option(IndexRecordOption::Basic),
    )
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
    /// The others who were sent the same message at the same moment (a room's crowd);
    /// empty for what one character alone saw or did.
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
    /// `total` is estimated: the page was filled before every command that could hold a
    /// match was read, and the rest are counted at the rate of those read (the hits are
    /// exact either way). A page as large as the total makes it exact.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub total_estimated: bool,
}

pub struct SearchIndex {
    index: Index,
    reader: IndexReader,
    fields: Fields,
    dir: PathBuf,
    /// The documents still gathering records; the writer's side (see `command_doc`).
    open: Mutex<CommandDocs>,
    /// Documents handed to the writer since this was opened.
    added: std::sync::atomic::AtomicU64,
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
        Ok((SearchIndex { index, reader, fields, dir: dir.to_path_buf(), open: Mutex::default(), added: Default::default() }, fresh))
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

    fn open_docs(&self) -> std::sync::MutexGuard<'_, CommandDocs> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds a record batch (the next after what was added before) to what the writer
    /// will commit next: its records join their sessions' open command documents, and
    /// the documents they close go to tantivy's indexing thread as one operation (handed
    /// one at a time, the thread was woken for each: a futex wake and two context
    /// switches, more than indexing the document cost). Returns the documents added.
    pub fn add_records(&self, w: &IndexWriter, records: &[EventRecord]) -> Result<usize, SearchError> {
        let closed = self.open_docs().push(records);
        self.add_docs(w, &closed)
    }

    fn add_docs(&self, w: &IndexWriter, docs: &[CommandDoc]) -> Result<usize, SearchError> {
        let ops: Vec<UserOperation> = docs.iter().map(|d| UserOperation::Add(self.document(d))).collect();
        let n = ops.len();
        if n > 0 {
            w.run(ops)?;
            self.added.fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(n)
    }

    /// Documents handed to the writer since this was opened.
    pub fn added_docs(&self) -> u64 {
        self.added.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn document(&self, d: &CommandDoc) -> TantivyDocument {
        let f = &self.fields;
        let mut doc = TantivyDocument::default();
        for words in &d.words {
            doc.add_text(f.words, words);
        }
        for k in &d.kinds {
            doc.add_text(f.kind, k);
        }
        if d.crowd.is_empty() {
            doc.add_text(f.agent, &d.agent);
        }
        for c in &d.crowd {
            doc.add_text(f.agent, &c.agent);
            doc.add_u64(f.crowd_session, c.session);
            doc.add_u64(f.crowd_seq, c.seq);
        }
        doc.add_u64(f.session, d.session);
        doc.add_u64(f.seq_lo, d.seq_lo);
        doc.add_u64(f.seq_hi, d.seq_hi);
        doc.add_u64(f.at_lo, d.at_lo);
        doc.add_u64(f.at_hi, d.at_hi);
        doc
    }

    /// Commits what was added, with the batch it reaches, and lets searches see it. The
    /// command documents still open are closed and added first: the commit holds every
    /// record of the batches it names. Returns the documents this added.
    pub fn commit(&self, w: &mut IndexWriter, batch: u64) -> Result<usize, SearchError> {
        let rest = self.open_docs().close_all();
        let n = self.add_docs(w, &rest)?;
        let mut prepared = w.prepare_commit()?;
        prepared.set_payload(&batch.to_string());
        prepared.commit()?;
        self.reader.reload()?;
        Ok(n)
    }

    /// Drops the open documents unadded: the writer went back to its last commit (a
    /// rollback, a rebuild), and what they held is read again from the file.
    pub fn forget_open(&self) {
        self.open_docs().clear();
    }

    /// Queues the removal of documents of observations alone from before `before_us`
    /// (retention); the next commit applies it. A command's document keeps the words of
    /// the observations retention dropped from the record: a search may find it by them,
    /// and finds no record in it (the split reads the record as it is).
    pub fn forget_observations_before(&self, w: &IndexWriter, before_us: u64) -> Result<(), SearchError> {
        let f = self.fields;
        let term = |k: &str| Box::new(TermQuery::new(Term::from_field_text(f.kind, k), IndexRecordOption::Basic)) as Box<dyn Query>;
        let q = BooleanQuery::new(vec![
            (Occur::Must, term("observation")),
            (Occur::MustNot, term("action")),
            (Occur::MustNot, term("transition")),
            (Occur::Must, Box::new(RangeQuery::new(Bound::Unbounded, Bound::Excluded(Term::from_field_u64(f.at_hi, before_us))))),
        ]);
        w.delete_query(Box::new(q))?;
        Ok(())
    }

    /// Crowds' documents the committed index holds (of `docs`).
    pub fn crowd_docs(&self) -> Result<usize, SearchError> {
        let crowd = Term::from_field_text(self.fields.kind, super::command_doc::CROWD_KIND);
        Ok(self.reader.searcher().search(&TermQuery::new(crowd, IndexRecordOption::Basic), &Count)?)
    }

    /// Documents the committed index holds.
    pub fn docs(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// Where every committed command document's records are (for checks: each record
    /// of the batches the index holds is in exactly one; crowds' documents, which name
    /// copies their recipients' documents also hold, are left out).
    pub fn every_place(&self) -> Result<Vec<Place>, SearchError> {
        let searcher = self.reader.searcher();
        let crowd = Term::from_field_text(self.fields.kind, super::command_doc::CROWD_KIND);
        let all = BooleanQuery::new(vec![
            (Occur::Must, Box::new(tantivy::query::AllQuery) as Box<dyn Query>),
            (Occur::MustNot, Box::new(TermQuery::new(crowd, IndexRecordOption::Basic))),
        ]);
        Ok(Self::places(&searcher, &all, searcher.num_docs() as usize)?.0)
    }

    /// Finds records, newest first: the commands whose documents could hold them, each
    /// split into its records read back from `store` and asked the whole query
    /// (`split`). A record retention dropped is not found.
    pub fn search_in(&self, store: &pawns_storage::Store, q: &SearchQuery) -> Result<SearchResults, SearchError> {
        let query = self.doc_query(q, &[])?;
        let searcher = self.reader.searcher();
        let indexed_batch = searcher.index().load_metas().ok().and_then(|m| m.payload).and_then(|p| p.parse().ok()).unwrap_or(0);
        let limit = q.limit.clamp(1, MAX_LIMIT);
        // The documents' columns are read for a few pages' worth first, more if it takes more.
        let mut cap = FIRST_SPLIT.max(limit) * 8;
        let (mut places, matched_docs) = Self::places(&searcher, &query, cap)?;
        // Newest documents first, more each round, until `limit` events are whole: every
        // record of an event at or after the next document's last record has been read.
        let (mut records, mut found, mut split) = (Vec::new(), Vec::new(), 0);
        // A crowd's copy is read through the crowd's document and may be again through
        // its recipient's: each record once.
        let mut held: rustc_hash::FxHashSet<(u64, u64)> = Default::default();
        let mut reader = super::split::Reader::new(store)?;
        let mut round = FIRST_SPLIT.max(limit);
        let events = loop {
            // (`places` holds a place per crowd's copy: the documents read so far are
            // `cap`'s worth, or all.)
            if split + round > places.len() && matched_docs > cap && cap < MAX_SPLIT {
                cap = (cap * 8).min(MAX_SPLIT);
                // Ties in time may come in another order: what was split stays split.
                let done: rustc_hash::FxHashSet<(u64, u64, u64)> =
                    places[..split].iter().map(|p| (p.session, p.seq_lo, p.seq_hi)).collect();
                let more = Self::places(&searcher, &query, cap)?.0;
                places.truncate(split);
                places.extend(more.into_iter().filter(|p| !done.contains(&(p.session, p.seq_lo, p.seq_hi))));
            }
            let next = places.len().min(split + round);
            let mut read = reader.read(&places[split..next])?;
            read.retain(|r| held.insert((r.session, r.seq)));
            let at = records.len();
            found.extend(super::split::matching(&read, q)?.into_iter().map(|i| i + at));
            records.append(&mut read);
            split = next;
            round *= 2;
            let events = super::split::events(&records, &found);
            let after = places.get(split).map(|p| p.at_hi);
            let whole = after.map_or(events.len(), |t| events.iter().take_while(|e| e.at_us > t).count());
            if whole >= limit || split == places.len() {
                break events;
            }
        };
        let exact = split == places.len() && matched_docs <= cap;
        // The share of the matched documents split, counted in places (a crowd's
        // document is several).
        let docs_split = split as f64 * matched_docs.min(cap) as f64 / places.len().max(1) as f64;
        let total = if exact { events.len() } else { (events.len() as f64 * matched_docs as f64 / docs_split.max(1.0)).round() as usize };
        let wanted = q.agent.as_deref().filter(|a| !a.is_empty()).map(str::to_ascii_lowercase);
        let mut hits: Vec<SearchHit> = events.iter().take(limit).map(|e| hit(e, wanted.as_deref())).collect();
        if wanted.is_some() {
            self.name_the_crowd(&mut reader, q, &events[..hits.len()], &mut hits)?;
        }
        Ok(SearchResults { total: total.max(hits.len()), hits, indexed_batch, total_estimated: !exact })
    }

    /// Asked about one agent, a crowd's message it saw names the others who saw it: their
    /// documents at that moment are found (the query without the agent) and read.
    fn name_the_crowd(
        &self,
        reader: &mut super::split::Reader,
        q: &SearchQuery,
        events: &[super::split::Event],
        hits: &mut [SearchHit],
    ) -> Result<(), SearchError> {
        let others = SearchQuery { agent: None, ..q.clone() };
        for (e, h) in events.iter().zip(hits.iter_mut()) {
            // The agent's own copy (the hit's record); a crowd's document brought the
            // others' copies with it.
            let mine = e.members.iter().find(|m| (m.session, m.seq) == (h.session, h.seq)).or(e.members.first());
            let Some(seen) = mine.filter(|m| matches!(m.body, pawns_storage::RecordBody::Observation { .. })) else {
                continue;
            };
            let at = seen.at_us;
            let f = self.fields;
            let around: [(Occur, Box<dyn Query>); 2] = [
                (Occur::Must, Box::new(RangeQuery::new(Bound::Unbounded, Bound::Included(Term::from_field_u64(f.at_lo, at))))),
                (Occur::Must, Box::new(RangeQuery::new(Bound::Included(Term::from_field_u64(f.at_hi, at)), Bound::Unbounded))),
            ];
            let query = self.doc_query(&others, &around)?;
            let (places, _) = Self::places(&self.reader.searcher(), &query, MAX_LIMIT)?;
            let mut records = reader.read(&places)?;
            let mut held: rustc_hash::FxHashSet<(u64, u64)> = Default::default();
            records.retain(|r| held.insert((r.session, r.seq)));
            // The crowd's message as a search without the agent groups it (`split::events`):
            // the one event of everyone's copies that holds this agent's.
            let copies: Vec<usize> = (0..records.len()).filter(|&i| super::split::same_message(seen, &records[i])).collect();
            let mine = (seen.session, seen.seq);
            let crowd = super::split::events(&records, &copies);
            let Some(event) = crowd.iter().find(|e| e.members.iter().any(|m| (m.session, m.seq) == mine)) else { continue };
            h.also_seen_by = event.members.iter().filter(|m| (m.session, m.seq) != mine).map(|m| m.agent.to_ascii_lowercase()).collect();
        }
        Ok(())
    }

    /// The query documents are asked: the records they hold could answer `q` (its words
    /// without exclusions, its agent, kind and time), and `extra`.
    fn doc_query(&self, q: &SearchQuery, extra: &[(Occur, Box<dyn Query>)]) -> Result<BooleanQuery, SearchError> {
        let f = self.fields;
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = extra.iter().map(|(o, q)| (*o, q.box_clone())).collect();
        if !q.q.trim().is_empty() {
            // The whole query must parse as records are asked it (its errors are the
            // user's); documents are asked it without its exclusions and its phrases
            // as their words (`query`).
            query_checker().parse_query(q.q.trim()).map_err(SearchError::bad_query)?;
            let ast = super::query::without_exclusions(super::query::parse(q.q.trim())?);
            if let Some(ast) = ast {
                let mut parser = QueryParser::for_index(&self.index, vec![f.words]);
                parser.set_conjunction_by_default();
                let ast = super::query::without_phrases(ast, &mut super::stem::analyzer());
                clauses.push((Occur::Must, super::query::build(&parser, Some(ast))?));
            }
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
            let lower = Bound::Included(Term::from_field_u64(f.at_hi, q.since_us));
            clauses.push((Occur::Must, Box::new(RangeQuery::new(lower, Bound::Unbounded))));
        }
        if !clauses.iter().any(|(o, _)| *o != Occur::MustNot) {
            clauses.push((Occur::Must, Box::new(tantivy::query::AllQuery)));
        }
        Ok(BooleanQuery::new(clauses))
    }

    /// The documents `query` finds, newest (last record) first, at most `cap`, and how
    /// many it finds.
    fn places(searcher: &Searcher, query: &BooleanQuery, cap: usize) -> Result<(Vec<Place>, usize), SearchError> {
        let top = TopDocs::with_limit(cap.max(1)).order_by_fast_field::<u64>("at_hi", Order::Desc);
        let (found, total) = searcher.search(query, &(top, Count))?;
        let mut columns: rustc_hash::FxHashMap<u32, [tantivy::columnar::Column<u64>; 6]> = Default::default();
        let mut places = Vec::with_capacity(found.len());
        for (_, addr) in found {
            let c = match columns.entry(addr.segment_ord) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    let ff = searcher.segment_reader(addr.segment_ord).fast_fields();
                    e.insert([
                        ff.u64("session")?,
                        ff.u64("seq_lo")?,
                        ff.u64("seq_hi")?,
                        ff.u64("at_hi")?,
                        ff.u64("crowd_session")?,
                        ff.u64("crowd_seq")?,
                    ])
                }
            };
            let get = |i: usize| c[i].first(addr.doc_id).unwrap_or(0);
            let at_hi = get(3);
            // A crowd's document is a place per copy: each recipient's record.
            let before = places.len();
            let copies = c[4].values_for_doc(addr.doc_id).zip(c[5].values_for_doc(addr.doc_id));
            places.extend(copies.map(|(session, seq)| Place { session, seq_lo: seq, seq_hi: seq, at_hi }));
            if places.len() == before {
                places.push(Place { session: get(0), seq_lo: get(1), seq_hi: get(2), at_hi });
            }
        }
        Ok((places, total))
    }
}

/// An event as a hit, told from the point of view of the agent asked about, if any.
fn hit(e: &super::split::Event, wanted: Option<&str>) -> SearchHit {
    let i = wanted.and_then(|a| e.members.iter().position(|m| m.agent.eq_ignore_ascii_case(a))).unwrap_or(0);
    let r: &EventRecord = e.members[i];
    let d = search_doc(r);
    SearchHit {
        at_us: e.at_us,
        agent: r.agent.to_ascii_lowercase(),
        session: r.session,
        seq: r.seq,
        kind: d.kind.to_string(),
        category: d.category.to_string(),
        room_vnum: r.room_vnum,
        text: d.text,
        also_seen_by: e.members.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, m)| m.agent.to_ascii_lowercase()).collect(),
    }
}

fn version_of(dir: &Path) -> Option<u32> {
    std::fs::read_to_string(dir.join("pawns-index-version")).ok()?.trim().parse().ok()
}

#[cfg(test)]
#[path = "index_tests.rs"]
mod tests;
