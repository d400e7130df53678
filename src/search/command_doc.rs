//! One search document per agent command (index v7): the decision, the transitions it
//! made and the observations it caused — what a session records from one of its
//! commands up to the next.
//!
//! Observations that arrive between commands go with the command before them. A
//! session with no command yet (or one idle longer than `SPAN_US`) gets documents of
//! observations alone. Every index commit closes the documents still open: the commit
//! says which record batches the index holds, and holds all of each, so what a session
//! records after a commit starts a document of its own (the indexer commits every
//! `--index-every`, 2 s: the idle document of a session is at most that long). A
//! document says where its records are (session, first and last seq); the text of a hit
//! is read back from the data file and the document split into records at query time
//! (`split`).
//!
//! A crowd's message — the same observation sent to several sessions in one room at one
//! moment (arrivals, departures, a fight, someone's speech) — is indexed once, in a
//! document of its own that names every recipient (`crowd`); each recipient's command
//! document still spans the record (every record is in exactly one command document)
//! but does not repeat its words. At 10,000 agents such messages were ~40 % of the words
//! indexed, the same words once per recipient.

use pawns_storage::{EventRecord, RecordBody};
use rustc_hash::FxHashMap;

use super::doc::{event_category, index_words, search_doc};

/// A document spans at most this much time from its first record: a session that
/// commands nothing for longer (a player reading, an agent waiting on a model) gets a
/// new document for what it sees after.
pub const SPAN_US: u64 = 10_000_000;
/// A document holds at most this many records (an idle player in a crowded room).
pub const MAX_RECORDS: usize = 256;

/// A document being gathered, or one ready to add.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandDoc {
    pub session: u64,
    pub agent: String,
    pub seq_lo: u64,
    pub seq_hi: u64,
    pub at_lo: u64,
    pub at_hi: u64,
    /// What each record is found by (`doc::index_words`), one value per record: a
    /// phrase never runs from one record into the next.
    pub words: Vec<String>,
    /// The kinds and categories of its records, each once.
    pub kinds: Vec<&'static str>,
    /// Records it spans (`words` leaves out those whose words a crowd's document holds).
    pub records: usize,
    /// A crowd's message: every copy of it (the first is `session`/`seq_lo`); empty for
    /// a command's document.
    pub crowd: Vec<CrowdCopy>,
}

/// One recipient's copy of a crowd's message.
#[derive(Debug, Clone, PartialEq)]
pub struct CrowdCopy {
    pub session: u64,
    pub seq: u64,
    pub agent: String,
}

impl CommandDoc {
    fn new(r: &EventRecord, words: bool) -> CommandDoc {
        let mut d = CommandDoc {
            session: r.session,
            agent: r.agent.to_ascii_lowercase(),
            seq_lo: r.seq,
            seq_hi: r.seq,
            at_lo: r.at_us,
            at_hi: r.at_us,
            words: Vec::new(),
            kinds: Vec::new(),
            crowd: Vec::new(),
            records: 0,
        };
        d.push(r, words);
        d
    }

    /// Adds the session's next record; its words unless a crowd's document holds them
    /// (its kinds either way: retention's rule reads them).
    fn push(&mut self, r: &EventRecord, words: bool) {
        // A crowd's copy is not rendered again for its kinds: its words are elsewhere.
        let (kind, category) = match (&r.body, words) {
            (RecordBody::Observation { event_type, .. }, false) => (r.body.kind(), event_category(event_type)),
            _ => {
                let shown = search_doc(r);
                self.words.push(index_words(r, &shown.text).into_owned());
                (shown.kind, shown.category)
            }
        };
        self.records += 1;
        for k in [kind, category] {
            if !self.kinds.contains(&k) {
                self.kinds.push(k);
            }
        }
        self.seq_hi = self.seq_hi.max(r.seq);
        self.at_lo = self.at_lo.min(r.at_us);
        self.at_hi = self.at_hi.max(r.at_us);
    }

    /// Whether `r` (the session's next record) belongs to this document.
    fn takes(&self, r: &EventRecord) -> bool {
        !matches!(r.body, RecordBody::Decision(_)) && self.records < MAX_RECORDS && r.at_us < self.at_lo.saturating_add(SPAN_US)
    }

    /// The document of a crowd's message: its words once, every copy named.
    fn crowd(copies: &[&EventRecord]) -> CommandDoc {
        let first = copies[0];
        let mut d = CommandDoc::new(first, true);
        d.kinds.push(CROWD_KIND);
        d.crowd = copies.iter().map(|r| CrowdCopy { session: r.session, seq: r.seq, agent: r.agent.to_ascii_lowercase() }).collect();
        d
    }
}

/// The kind a crowd's document is marked with (not a record kind: `--kind crowd` is
/// refused as ever).
pub const CROWD_KIND: &str = "crowd";

/// The crowds' messages among `records` (one batch: the engine hands a pulse's records
/// over together, and a crowd's copies share their moment): for each record, the
/// group of copies it belongs to, if it is one of two or more copies of one message —
/// the same observation (type, text, speaker) in the same room at the same moment, each
/// session once.
fn crowds(records: &[EventRecord]) -> (Vec<Option<u32>>, Vec<Vec<usize>>) {
    type Key<'a> = (u64, u32, &'a str, &'a str, Option<&'a str>);
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut by_key: FxHashMap<Key, u32> = FxHashMap::default();
    let mut of = vec![None; records.len()];
    for (i, r) in records.iter().enumerate() {
        let RecordBody::Observation { event_type, text, from } = &r.body else { continue };
        let key = (r.at_us, r.room_vnum, event_type.as_str(), &**text, from.as_deref());
        let g = *by_key.entry(key).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() as u32 - 1
        });
        groups[g as usize].push(i);
        of[i] = Some(g);
    }
    for members in &groups {
        let mut sessions: Vec<u64> = members.iter().map(|&i| records[i].session).collect();
        sessions.sort_unstable();
        sessions.dedup();
        if members.len() < 2 || sessions.len() != members.len() {
            for &i in members {
                of[i] = None;
            }
        }
    }
    (of, groups)
}

/// The open documents, one per session that recorded since the last commit.
#[derive(Default)]
pub struct CommandDocs {
    open: FxHashMap<u64, CommandDoc>,
}

impl CommandDocs {
    /// Takes a batch's records in order; returns the documents they closed (and the
    /// batch's crowd documents, complete as they are made).
    pub fn push(&mut self, records: &[EventRecord]) -> Vec<CommandDoc> {
        let mut closed = Vec::new();
        let (crowd_of, groups) = crowds(records);
        for (i, r) in records.iter().enumerate() {
            let words = match crowd_of[i] {
                Some(g) => {
                    let copies = &groups[g as usize];
                    if copies[0] == i {
                        let copies: Vec<&EventRecord> = copies.iter().map(|&j| &records[j]).collect();
                        closed.push(CommandDoc::crowd(&copies));
                    }
                    false
                }
                None => true,
            };
            match self.open.get_mut(&r.session) {
                Some(d) if d.takes(r) => d.push(r, words),
                Some(d) => closed.push(std::mem::replace(d, CommandDoc::new(r, words))),
                None => {
                    self.open.insert(r.session, CommandDoc::new(r, words));
                }
            }
        }
        closed
    }

    /// Closes every open document (an index commit holds whole batches).
    pub fn close_all(&mut self) -> Vec<CommandDoc> {
        let mut docs: Vec<CommandDoc> = self.open.drain().map(|(_, d)| d).collect();
        docs.sort_by_key(|d| (d.session, d.seq_lo));
        docs
    }

    /// Forgets the open documents unadded (the index went back to its last commit).
    pub fn clear(&mut self) {
        self.open.clear();
    }

    pub fn open(&self) -> usize {
        self.open.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pawns_storage::{DecisionRecord, Transition};

    fn rec(session: u64, seq: u64, at_us: u64, body: RecordBody) -> EventRecord {
        EventRecord { session, seq, agent: format!("A{session}").into(), at_us, room_vnum: 3001, body }
    }
    fn cmd(session: u64, seq: u64, at_us: u64, command: &str) -> EventRecord {
        let (verb, args) = command.split_once(' ').unwrap_or((command, ""));
        let d = DecisionRecord { command: verb.into(), args: args.into(), status: "ok".into(), ..Default::default() };
        rec(session, seq, at_us, RecordBody::Decision(Box::new(d)))
    }
    fn seen(session: u64, seq: u64, at_us: u64, text: &str) -> EventRecord {
        rec(session, seq, at_us, RecordBody::Observation { event_type: "say".into(), text: text.into(), from: None })
    }

    #[test]
    fn a_command_and_what_followed_it_are_one_document() {
        let mut docs = CommandDocs::default();
        let gold = rec(1, 3, 12, RecordBody::Transition(Transition::Gold { from: 1, to: 5 }));
        // Session 1: seen before any command, a command, its transition and what was said after.
        let closed = docs.push(&[seen(1, 1, 5, "hello"), cmd(1, 2, 10, "get coins"), seen(2, 1, 11, "hi"), gold, seen(1, 4, 20, "bye")]);
        assert_eq!(closed.len(), 1, "the command closed what came before it");
        assert_eq!((closed[0].seq_lo, closed[0].seq_hi, closed[0].kinds.clone()), (1, 1, vec!["observation", "social"]));
        // The next batch: session 1's next command closes the first command's document.
        let closed = docs.push(&[seen(1, 5, 30, "later"), cmd(1, 6, 40, "north")]);
        assert_eq!(closed.len(), 1);
        let d = &closed[0];
        assert_eq!((d.session, d.agent.as_str(), d.seq_lo, d.seq_hi, d.at_lo, d.at_hi), (1, "a1", 2, 5, 10, 30));
        assert_eq!(d.words, ["get coins", "gold 1 to 5", "bye", "later"]);
        assert_eq!(d.kinds, ["action", "item", "transition", "observation", "social"]);
        // A commit closes what is open: session 1's `north`, session 2's `hi`.
        let rest = docs.close_all();
        assert_eq!(rest.iter().map(|d| (d.session, d.seq_lo, d.seq_hi)).collect::<Vec<_>>(), [(1, 6, 6), (2, 1, 1)]);
        assert_eq!(docs.open(), 0);
    }

    fn heard(session: u64, seq: u64, at_us: u64, text: &str) -> EventRecord {
        let mut r = seen(session, seq, at_us, text);
        r.room_vnum = 3002;
        r
    }

    /// A crowd's message is one document naming every copy, made when the batch comes;
    /// the copies' sessions span them without their words.
    #[test]
    fn a_crowds_message_is_indexed_once() {
        let mut docs = CommandDocs::default();
        let closed = docs.push(&[
            cmd(1, 1, 10, "north"),
            heard(2, 1, 10, "Ann arrives."),
            heard(3, 1, 10, "Ann arrives."),
            heard(4, 7, 10, "Ann arrives."),
            // Another room, another moment, another speaker: not the same message.
            seen(5, 1, 10, "Ann arrives."),
            heard(6, 1, 11, "Ann arrives."),
            heard(2, 2, 10, "Bo says hello."),
        ]);
        assert_eq!(closed.len(), 1);
        let crowd = &closed[0];
        assert_eq!(crowd.words, ["Ann arrives."]);
        assert_eq!(crowd.kinds, ["observation", "social", CROWD_KIND]);
        let copies: Vec<(u64, u64, &str)> = crowd.crowd.iter().map(|c| (c.session, c.seq, c.agent.as_str())).collect();
        assert_eq!(copies, [(2, 1, "a2"), (3, 1, "a3"), (4, 7, "a4")]);
        let open = docs.close_all();
        let spans: Vec<(u64, u64, u64, usize, Vec<String>)> =
            open.iter().map(|d| (d.session, d.seq_lo, d.seq_hi, d.records, d.words.clone())).collect();
        assert_eq!(
            spans,
            [
                (1, 1, 1, 1, vec!["north".to_string()]),
                (2, 1, 2, 2, vec!["Bo says hello.".to_string()]),
                (3, 1, 1, 1, vec![]),
                (4, 7, 7, 1, vec![]),
                (5, 1, 1, 1, vec!["Ann arrives.".to_string()]),
                (6, 1, 1, 1, vec!["Ann arrives.".to_string()]),
            ]
        );
        // Kinds stay with the copies (retention deletes by them).
        assert_eq!(open[2].kinds, ["observation", "social"]);
    }

    /// Told twice to one session at once, the message is indexed with the session's
    /// words as before (a search counts it twice, as it was told).
    #[test]
    fn a_message_told_twice_to_one_session_keeps_its_words() {
        let mut docs = CommandDocs::default();
        let mut closed = docs.push(&[heard(1, 1, 5, "x"), heard(1, 2, 5, "x"), heard(2, 1, 5, "x")]);
        closed.extend(docs.close_all());
        assert!(closed.iter().all(|d| d.crowd.is_empty()), "no crowd documents");
        let words: Vec<usize> = closed.iter().map(|d| d.words.len()).collect();
        assert_eq!(words, [2, 1]);
    }

    #[test]
    fn an_idle_session_gets_documents_of_what_it_saw() {
        let mut docs = CommandDocs::default();
        let mut closed = docs.push(&[cmd(1, 1, 0, "rest")]);
        // Talk in the room for 25 s: a document per `SPAN_US` after the command's.
        let talk: Vec<EventRecord> = (0..25).map(|i| seen(1, 2 + i, 1_000_000 * (i + 1), "chatter")).collect();
        closed.extend(docs.push(&talk));
        closed.extend(docs.close_all());
        let spans: Vec<(u64, u64)> = closed.iter().map(|d| (d.seq_lo, d.seq_hi)).collect();
        assert_eq!(spans, [(1, 10), (11, 20), (21, 26)]);
        // And never more than MAX_RECORDS records in one.
        let flood: Vec<EventRecord> = (0..600).map(|i| seen(2, 1 + i, 5, "spam")).collect();
        let mut closed = docs.push(&flood);
        closed.extend(docs.close_all());
        assert_eq!(closed.iter().map(|d| d.records).collect::<Vec<_>>(), [MAX_RECORDS, MAX_RECORDS, 600 - 2 * MAX_RECORDS]);
    }
}
