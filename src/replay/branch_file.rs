//! The branch's file as it stood at the branch point, beside the replay that writes its
//! record (`branch.rs`): characters, houses, chat rooms and boards, the memory agents keep
//! themselves, and the dreams re-dreamt in the parent's order, each checked against the
//! parent's dream log.

use std::collections::{BTreeMap, HashSet};

use pawns_storage::{mind::layer, CharacterRecord, RecordBatch, SessionMeta, Store, StoreError};

use super::{Boot, Entry, Input};
use crate::game::records::persist::SaveMsg;
use crate::memory::{AgentMemory, DreamOptions, DreamSnapshot};

/// What the saves caught from the replay hold, to write with the next batch.
#[derive(Default)]
pub(super) struct Saves {
    pub chars: BTreeMap<String, CharacterRecord>,
    pub houses: Vec<pawns_storage::HouseRecord>,
    pub rooms: Vec<pawns_storage::ChatRoomRecord>,
    pub boards: Vec<pawns_storage::BoardRecord>,
    pub written: usize,
}

impl Saves {
    pub fn take(&mut self, rx: &mut tokio::sync::mpsc::UnboundedReceiver<SaveMsg>) {
        while let Ok(m) = rx.try_recv() {
            match m {
                SaveMsg::Save(r, _) => {
                    self.chars.insert(r.name.to_ascii_lowercase(), *r);
                }
                SaveMsg::Houses(h) => self.houses.extend(h),
                SaveMsg::ChatRooms(r) => self.rooms.extend(r),
                SaveMsg::Boards(b) => self.boards.extend(b),
                SaveMsg::Flush(done) => {
                    let _ = done.send(());
                }
            }
        }
    }

    pub fn write(&mut self, store: &Store) -> Result<(), StoreError> {
        let chars: Vec<CharacterRecord> = std::mem::take(&mut self.chars).into_values().collect();
        self.written += chars.len();
        store.save_characters(&chars)?;
        store.put_houses(&std::mem::take(&mut self.houses))?;
        store.put_chat_rooms(&std::mem::take(&mut self.rooms))?;
        store.put_boards(&std::mem::take(&mut self.boards))
    }
}

/// The file's characters, houses, chat rooms and boards as they stood when the run began
/// (the boot holds them), then each character that next came in after `cut` as it came in
/// (the state it had kept since). The replay's saves come after.
pub(super) fn as_at_start(store: &Store, boot: &Boot, after_cut: &[Entry]) -> Result<(), StoreError> {
    store.put_houses(&boot.houses)?;
    store.put_chat_rooms(&boot.chat_rooms)?;
    store.put_boards(&boot.boards)?;
    let mut seen = HashSet::new();
    let mut chars = Vec::new();
    for e in after_cut {
        if let Entry::Input { input: Input::Enter { record, .. }, .. } = e {
            if seen.insert(record.name.to_ascii_lowercase()) {
                chars.push((**record).clone());
            }
        }
    }
    store.save_characters(&chars)
}

/// What the file held before the run began: every session begun before its boot
/// (`run`), its records in the order they were committed, and the journals of those
/// earlier runs. The dreams of that time are dreamt again over it (memory carried into
/// the run). Returns the records copied.
pub(super) fn before_the_run(parent: &Store, branch: &Store, run: u64) -> Result<u64, StoreError> {
    let metas: Vec<SessionMeta> = parent.all_sessions()?.into_iter().filter(|m| m.session < run).collect();
    let mut n = 0;
    let mut after = 0;
    loop {
        let batches = parent.batches_after(after, 256)?;
        let Some(last) = batches.last().map(|b| b.0) else { break };
        after = last;
        let records: Vec<_> = batches.into_iter().flat_map(|(_, rs)| rs).filter(|r| r.session < run).collect();
        if records.is_empty() {
            continue;
        }
        n += records.len() as u64;
        // Running until all their records are in: an ended session's row bounds its reads.
        let open =
            metas.iter().map(|m| SessionMeta { ended_us: None, ended_how: None, first_batch: 0, last_batch: 0, ..m.clone() }).collect();
        branch.write_records(&RecordBatch {
            sessions: if n == records.len() as u64 { open } else { Vec::new() },
            records,
            sweep: true,
            ..Default::default()
        })?;
    }
    let ended = metas.into_iter().map(|m| SessionMeta { first_batch: 0, last_batch: 0, ..m }).collect();
    let mut journal = Vec::new();
    for r in parent.journal_runs()?.into_iter().filter(|r| *r < run) {
        parent.journal_chunks(r, &mut |c| {
            journal.push((r, c.to_vec()));
            Ok(())
        })?;
    }
    branch.write_records(&RecordBatch { sessions: ended, journal, ..Default::default() })?;
    Ok(n)
}

/// The memory agents keep themselves, as it stood at `at_us`: records made after are
/// left out, and what was ended or rewritten after is as it was then.
pub(super) fn mind_at(parent: &Store, branch: &Store, at_us: u64) -> Result<usize, StoreError> {
    let mut n = 0;
    for agent in parent.mind_agents()? {
        let mut rows = Vec::new();
        for l in [layer::SOUL, layer::MEMORY, layer::SUMMARY, layer::DIARY, layer::RELATIONSHIP, layer::LINK] {
            for mut r in parent.mind_layer(&agent, l)?.into_iter().filter(|r| r.at_us <= at_us) {
                if r.ended_us.is_some_and(|e| e > at_us) {
                    r.ended_us = None;
                    r.ended = None;
                }
                // The version in force then: the first replaced after the branch point.
                if let Some(i) = r.history.iter().position(|v| v.replaced_us > at_us) {
                    let v = r.history[i].clone();
                    r.text = v.text;
                    r.fields = v.fields;
                    r.history.truncate(i);
                }
                rows.push(r);
            }
        }
        let mut meta = parent.mind_meta(&agent)?;
        meta.usage.clear();
        meta.usage_counted = false;
        meta.live_memories = rows.iter().filter(|r| r.layer == layer::MEMORY && r.ended_us.is_none()).count() as u64;
        n += rows.len();
        branch.mind_put(&agent, &rows, &meta)?;
    }
    Ok(n)
}

/// The parent's dreams before `at_us`, oldest first: (when, agent, what it made).
pub(super) fn dreams_before(parent: &Store, at_us: u64) -> Result<Vec<(u64, String, DreamSnapshot)>, StoreError> {
    let mut out = Vec::new();
    for agent in parent.memory_agents()? {
        for (at, snap) in parent.dream_log::<DreamSnapshot>(&agent)? {
            if at <= at_us {
                out.push((at, agent.clone(), snap));
            }
        }
    }
    out.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    Ok(out)
}

/// Dreams `agent` in the branch's file with the parameters its memory in the parent had
/// (over as many records as the parent's dream read, when it is one of the parent's
/// dreams). Then what differs from the parent's dream, if anything (none: the same
/// memories at the same cycle from the same records).
pub(super) fn dream_again(
    parent: &Store,
    branch: &Store,
    agent: &str,
    trigger: &str,
    parent_made: Option<&DreamSnapshot>,
) -> Result<Option<String>, String> {
    let params = parent.memory::<AgentMemory>(agent).map_err(|e| e.to_string())?.map(|m| m.params).unwrap_or_default();
    let opts = DreamOptions {
        params,
        trigger: trigger.into(),
        tz: chrono_tz::America::New_York,
        max_records: parent_made.map(|s| s.records_read),
        ..Default::default()
    };
    crate::memory::dream::dream_agent(branch, agent, &opts).map_err(|e| format!("dreaming {agent} again: {e}"))?;
    let Some(theirs) = parent_made else { return Ok(None) };
    let Some(ours) = branch.dream_log::<DreamSnapshot>(agent).map_err(|e| e.to_string())?.pop().map(|(_, s)| s) else {
        return Ok(Some(format!("{agent}: the {} dream found nothing to read", theirs.trigger)));
    };
    let ids = |s: &DreamSnapshot| s.memories.iter().map(|m| m.id.clone()).collect::<Vec<_>>();
    if ours.cycle == theirs.cycle && ids(&ours) == ids(theirs) && ours.records_read == theirs.records_read {
        return Ok(None);
    }
    Ok(Some(format!(
        "{agent}: the {} dream: cycle {} (parent {}), {} records read ({}), {} memories ({})",
        theirs.trigger,
        ours.cycle,
        theirs.cycle,
        ours.records_read,
        theirs.records_read,
        ours.memories.len(),
        theirs.memories.len()
    )))
}
