//! The migrations runner: applies the numbered steps in `migrations/` in one transaction.
//!
//! The steps live at the workspace root (`migrations/NNNN_name.rs`) so that the layout
//! history is visible at a glance; they are compiled into this crate by path.

use redb::WriteTransaction;

use crate::{tables, StoreError};

#[path = "../../migrations/0001_initial.rs"]
mod m0001;
#[path = "../../migrations/0002_houses.rs"]
mod m0002;
#[path = "../../migrations/0003_recording.rs"]
mod m0003;
#[path = "../../migrations/0004_memory.rs"]
mod m0004;
#[path = "../../migrations/0005_session_chunks.rs"]
mod m0005;
#[path = "../../migrations/0006_chat_rooms_residents.rs"]
mod m0006;
#[path = "../../migrations/0007_mind.rs"]
mod m0007;
#[path = "../../migrations/0008_boards.rs"]
mod m0008;
#[path = "../../migrations/0009_research.rs"]
mod m0009;
#[path = "../../migrations/0010_record_tail.rs"]
mod m0010;
#[path = "../../migrations/0011_runs.rs"]
mod m0011;
#[path = "../../migrations/0012_record_formats.rs"]
mod m0012;

/// `(version, step)` in order. A step brings the file from `version - 1` to `version`.
type Step = fn(&WriteTransaction) -> Result<(), StoreError>;
const STEPS: &[(u32, Step)] = &[
    (m0001::VERSION, |tx| m0001::apply(tx).map_err(StoreError::Redb)),
    (m0002::VERSION, |tx| m0002::apply(tx).map_err(StoreError::Redb)),
    (m0003::VERSION, |tx| m0003::apply(tx).map_err(StoreError::Redb)),
    (m0004::VERSION, |tx| m0004::apply(tx).map_err(StoreError::Redb)),
    (m0005::VERSION, m0005::apply),
    (m0006::VERSION, |tx| m0006::apply(tx).map_err(StoreError::Redb)),
    (m0007::VERSION, |tx| m0007::apply(tx).map_err(StoreError::Redb)),
    (m0008::VERSION, |tx| m0008::apply(tx).map_err(StoreError::Redb)),
    (m0009::VERSION, |tx| m0009::apply(tx).map_err(StoreError::Redb)),
    (m0010::VERSION, |tx| m0010::apply(tx).map_err(StoreError::Redb)),
    (m0011::VERSION, |tx| m0011::apply(tx).map_err(StoreError::Redb)),
    (m0012::VERSION, |tx| m0012::apply(tx).map_err(StoreError::Redb)),
];

/// The schema version this build writes and reads.
pub const CURRENT_VERSION: u32 = m0012::VERSION;

/// The oldest schema version a file opened read-only may have: migration 12 only marks
/// formats older builds cannot read, and this build reads a schema-11 file as it is.
pub const READABLE_FROM: u32 = m0011::VERSION;

pub const VERSION_KEY: &str = "schema_version";

/// Reads the file's schema version; 0 for a new file.
pub fn file_version(tx: &WriteTransaction) -> Result<u32, StoreError> {
    let meta = match tx.open_table(tables::META) {
        Ok(t) => t,
        Err(e) => return Err(StoreError::Redb(e.into())),
    };
    version_in(&meta)
}

/// The schema version a meta table holds (read or write transaction); 0 when none.
pub fn version_in(meta: &impl redb::ReadableTable<&'static str, &'static [u8]>) -> Result<u32, StoreError> {
    let v = meta.get(VERSION_KEY).map_err(|e| StoreError::Redb(e.into()))?;
    Ok(match v {
        Some(bytes) => {
            let b = bytes.value();
            if b.len() != 4 {
                return Err(StoreError::Corrupt("schema_version is not 4 bytes".into()));
            }
            u32::from_le_bytes([b[0], b[1], b[2], b[3]])
        }
        None => 0,
    })
}

/// Applies every pending step; refuses a file written by a newer build.
/// Returns the versions applied.
pub fn run(tx: &WriteTransaction) -> Result<Vec<u32>, StoreError> {
    let found = file_version(tx)?;
    if found > CURRENT_VERSION {
        return Err(StoreError::TooNew { found, supported: CURRENT_VERSION });
    }
    let mut applied = Vec::new();
    for (version, step) in STEPS {
        if *version > found {
            step(tx)?;
            applied.push(*version);
        }
    }
    if !applied.is_empty() {
        let mut meta = tx.open_table(tables::META).map_err(|e| StoreError::Redb(e.into()))?;
        meta.insert(VERSION_KEY, CURRENT_VERSION.to_le_bytes().as_slice()).map_err(|e| StoreError::Redb(e.into()))?;
    }
    Ok(applied)
}
