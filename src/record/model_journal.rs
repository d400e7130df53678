//! The model-call journal: every answered model call a decision carries (its `llm`
//! traces) is kept by the hash of its prompt — model, system prompt and user message —
//! with its answer, the first time that prompt is seen (`Store::model_call`). A replay
//! needs none of it (the journal of inputs already holds what the agents did); it is
//! for what runs again: a branch's agents ask it before the model, so a prompt played
//! before costs no tokens and gets the answer it got.

use pawns_storage::{EventRecord, LlmCall, RecordBody, Store, StoreError};
use sha2::{Digest, Sha256};

/// Hex SHA-256 over the model, the system prompt and the user message, each framed by
/// its length (so no two different prompts share a hash by moving text across).
pub fn prompt_hash(model: &str, system: &str, user: &str) -> String {
    let mut h = Sha256::new();
    for part in [model, system, user] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    hex::encode(h.finalize())
}

/// The calls of `records` worth journaling: answered, not failed, with the whole prompt
/// (a call cut to fit the frame no longer holds the prompt that was asked).
pub fn calls_of(records: &[EventRecord]) -> Vec<(String, LlmCall)> {
    let mut out = Vec::new();
    for r in records {
        let RecordBody::Decision(d) = &r.body else { continue };
        for c in d.llm.iter().filter(|c| c.answer.is_some() && c.error.is_none() && !c.cut) {
            out.push((prompt_hash(&c.model, &c.system, &c.user), c.clone()));
        }
    }
    out
}

/// The answer journaled for this prompt, if any.
pub fn lookup(store: &Store, model: &str, system: &str, user: &str) -> Result<Option<LlmCall>, StoreError> {
    store.model_call(&prompt_hash(model, system, user))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_frames_each_part() {
        assert_ne!(prompt_hash("m", "ab", "c"), prompt_hash("m", "a", "bc"));
        assert_eq!(prompt_hash("m", "s", "u"), prompt_hash("m", "s", "u"));
        assert_eq!(prompt_hash("m", "s", "u").len(), 64);
    }
}
