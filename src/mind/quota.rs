//! How much one agent's mind may hold. Nothing in a mind is ever deleted (a forgotten
//! memory is ended, an amended diary day keeps its versions), so without a limit one
//! account could grow the data file without end (`remember` in a loop grew it 642 KB/s).
//! Each layer has a cap on records and on stored bytes, counted by the store as rows
//! change (`MindMeta::usage`); an agent with a key gets the larger quota, a character
//! that logs in with a password (anyone can make one) a tenth of it. A write past the
//! cap is refused with `quota_exceeded`, and says which layer and how full it is.

use pawns_storage::Store;

use super::layers::{DIARY, LINK, MEMORY, RELATIONSHIP, SOUL, SUMMARY};
use super::Refusal;

/// One layer's cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quota {
    pub records: u64,
    pub bytes: u64,
}

/// The caps by kind of account (`serve --mind-quota-records`, `--mind-quota-mib`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quotas {
    /// Agents logged in by key (the operator made the key).
    pub keyed: Quota,
    /// Characters with a password, and guests: a tenth of `keyed` unless set.
    pub open: Quota,
}

impl Quotas {
    /// `keyed` as given, `open` a tenth of it.
    pub fn from_keyed(records: u64, bytes: u64) -> Quotas {
        Quotas { keyed: Quota { records, bytes }, open: Quota { records: (records / 10).max(1), bytes: (bytes / 10).max(1) } }
    }
}

impl Default for Quotas {
    fn default() -> Self {
        Quotas::from_keyed(20_000, 32 << 20)
    }
}

/// The layer a write action adds to, if it adds.
pub fn layer_of(action: &str) -> Option<u8> {
    match action {
        "soul_add" => Some(SOUL),
        "remember" | "link_accept" => Some(MEMORY),
        "diary_write" => Some(DIARY),
        "relationship_set" => Some(RELATIONSHIP),
        "self_care" => Some(SUMMARY),
        "link_request" => Some(LINK),
        _ => None,
    }
}

fn layer_name(layer: u8) -> &'static str {
    match layer {
        SOUL => "soul",
        MEMORY => "memory",
        SUMMARY => "summary",
        DIARY => "diary",
        RELATIONSHIP => "relationship",
        _ => "link",
    }
}

/// `Err(quota_exceeded)` when `agent`'s `layer` is at its cap.
pub fn check(store: &Store, quotas: &Quotas, agent: &str, layer: u8) -> Result<(), Refusal> {
    let internal = |e: pawns_storage::StoreError| ("internal", e.to_string());
    let keyed = store.account(agent).map_err(internal)?.is_none_or(|a| a.password_hash.is_none() && a.is_agent && !a.guest);
    let q = if keyed { quotas.keyed } else { quotas.open };
    let meta = store.mind_meta(agent).map_err(internal)?;
    let used = meta.usage.get(&layer).copied().unwrap_or_default();
    if used.records >= q.records || used.bytes >= q.bytes {
        return Err((
            "quota_exceeded",
            format!(
                "your {} layer is full: {} records, {} KiB of {} records, {} KiB (forget or summarize some first)",
                layer_name(layer),
                used.records,
                used.bytes / 1024,
                q.records,
                q.bytes / 1024
            ),
        ));
    }
    Ok(())
}
