//! The agents' memory rows. The row's type belongs to the server's memory module; the store keeps it
//! encoded like every other record (version byte + rmp-serde), compressed (`codec::encode_packed`).

use redb::ReadableTable;
use serde::{de::DeserializeOwned, Serialize};

use crate::{codec, redb_err, tables, Store, StoreError};

impl Store {
    /// An agent's memory row, if it has dreamed.
    pub fn memory<T: DeserializeOwned>(&self, agent: &str) -> Result<Option<T>, StoreError> {
        let tx = self.begin_read()?;
        let t = match tx.open_table(tables::MEMORIES) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
            Err(e) => return Err(redb_err(e)),
        };
        let row = t.get(agent.to_ascii_lowercase().as_str()).map_err(redb_err)?;
        row.map(|v| codec::decode(v.value())).transpose()
    }

    /// Replaces an agent's memory row.
    pub fn put_memory<T: Serialize>(&self, agent: &str, row: &T) -> Result<(), StoreError> {
        self.put_memory_logged::<T, ()>(agent, row, None)
    }

    /// Replaces an agent's memory row and, in the same transaction, logs the dream that
    /// made it (`(dream end in µs, snapshot)`).
    pub fn put_memory_logged<T: Serialize, D: Serialize>(&self, agent: &str, row: &T, dream: Option<(u64, &D)>) -> Result<(), StoreError> {
        let bytes = codec::encode_packed(row)?;
        let logged = dream.map(|(at, d)| codec::encode_packed(d).map(|b| (at, b))).transpose()?;
        let agent = agent.to_ascii_lowercase();
        let tx = self.begin_write()?;
        {
            let mut t = tx.open_table(tables::MEMORIES).map_err(redb_err)?;
            t.insert(agent.as_str(), bytes.as_slice()).map_err(redb_err)?;
            if let Some((at, b)) = logged {
                let mut log = tx.open_table(tables::DREAM_LOG).map_err(redb_err)?;
                log.insert((agent.as_str(), at), b.as_slice()).map_err(redb_err)?;
            }
        }
        tx.commit().map_err(redb_err)
    }

    /// An agent's logged dreams, oldest first.
    pub fn dream_log<D: DeserializeOwned>(&self, agent: &str) -> Result<Vec<(u64, D)>, StoreError> {
        let tx = self.begin_read()?;
        let t = match tx.open_table(tables::DREAM_LOG) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
            Err(e) => return Err(redb_err(e)),
        };
        let agent = agent.to_ascii_lowercase();
        let mut out = Vec::new();
        for row in t.range((agent.as_str(), 0)..=(agent.as_str(), u64::MAX)).map_err(redb_err)? {
            let (k, v) = row.map_err(redb_err)?;
            out.push((k.value().1, codec::decode(v.value())?));
        }
        Ok(out)
    }

    /// Every agent with a memory row.
    pub fn memory_agents(&self) -> Result<Vec<String>, StoreError> {
        let tx = self.begin_read()?;
        let t = match tx.open_table(tables::MEMORIES) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
            Err(e) => return Err(redb_err(e)),
        };
        let mut out = Vec::new();
        for row in t.iter().map_err(redb_err)? {
            let (k, _) = row.map_err(redb_err)?;
            out.push(k.value().to_string());
        }
        Ok(out)
    }

    /// Every agent (or human, when humans are recorded) that has a recorded session.
    pub fn recorded_agents(&self) -> Result<Vec<String>, StoreError> {
        let tx = self.begin_read()?;
        let idx = tx.open_table(tables::AGENT_SESSIONS).map_err(redb_err)?;
        let mut out: Vec<String> = Vec::new();
        for row in idx.iter().map_err(redb_err)? {
            let (k, _) = row.map_err(redb_err)?;
            let (agent, _, _) = k.value();
            if out.last().map(String::as_str) != Some(agent) {
                out.push(agent.to_string());
            }
        }
        Ok(out)
    }
}
