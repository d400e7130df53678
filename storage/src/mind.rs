//! The memory an agent keeps itself (protocol §12): one table keyed (agent, layer, id),
//! so a layer of one agent is one range; its meta row holds the next id. Writes of one
//! change land in one transaction with the meta row.

/// The layers, by the number each row is keyed with (protocol §12).
pub mod layer {
    pub const SOUL: u8 = 1;
    pub const MEMORY: u8 = 2;
    pub const SUMMARY: u8 = 3;
    pub const DIARY: u8 = 4;
    pub const RELATIONSHIP: u8 = 5;
    pub const LINK: u8 = 6;
}

use redb::ReadableTable;

use crate::{codec, redb_err, tables, MindMeta, MindRecord, Store, StoreError};

impl Store {
    /// An agent's mind meta (default for one with nothing yet).
    pub fn mind_meta(&self, agent: &str) -> Result<MindMeta, StoreError> {
        Ok(self.get_record::<MindMeta>(tables::MIND_META, &agent.to_ascii_lowercase())?.unwrap_or_default())
    }

    /// Writes records (new, or replacing their own id) and the agent's meta, keeping the
    /// meta's `usage` (records and bytes by layer) as the rows change.
    pub fn mind_put(&self, agent: &str, records: &[MindRecord], meta: &MindMeta) -> Result<(), StoreError> {
        let agent = agent.to_ascii_lowercase();
        let mut meta = meta.clone();
        let tx = self.begin_write()?;
        {
            let mut t = tx.open_table(tables::MIND).map_err(redb_err)?;
            if !meta.usage_counted {
                meta.usage.clear();
                for row in t.range((agent.as_str(), 0u8, 0u64)..=(agent.as_str(), u8::MAX, u64::MAX)).map_err(redb_err)? {
                    let (k, v) = row.map_err(redb_err)?;
                    let u = meta.usage.entry(k.value().1).or_default();
                    u.records += 1;
                    u.bytes += v.value().len() as u64;
                }
                meta.usage_counted = true;
            }
            for r in records {
                let bytes = codec::encode(r)?;
                let old = t.insert((agent.as_str(), r.layer, r.id), bytes.as_slice()).map_err(redb_err)?.map(|v| v.value().len() as u64);
                let u = meta.usage.entry(r.layer).or_default();
                match old {
                    Some(n) => u.bytes = (u.bytes + bytes.len() as u64).saturating_sub(n),
                    None => {
                        u.records += 1;
                        u.bytes += bytes.len() as u64;
                    }
                }
            }
            let mut m = tx.open_table(tables::MIND_META).map_err(redb_err)?;
            m.insert(agent.as_str(), codec::encode(&meta)?.as_slice()).map_err(redb_err)?;
        }
        tx.commit().map_err(redb_err)
    }

    /// One record.
    pub fn mind_get(&self, agent: &str, layer: u8, id: u64) -> Result<Option<MindRecord>, StoreError> {
        let agent = agent.to_ascii_lowercase();
        let tx = self.begin_read()?;
        let t = match tx.open_table(tables::MIND) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
            Err(e) => return Err(redb_err(e)),
        };
        let row = t.get((agent.as_str(), layer, id)).map_err(redb_err)?;
        row.map(|v| codec::decode(v.value())).transpose()
    }

    /// A layer of an agent's mind, by id (oldest first); ended records too.
    pub fn mind_layer(&self, agent: &str, layer: u8) -> Result<Vec<MindRecord>, StoreError> {
        self.mind_scan(agent, layer, false, usize::MAX)
    }

    /// The newest `n` records of a layer, newest first.
    pub fn mind_layer_newest(&self, agent: &str, layer: u8, n: usize) -> Result<Vec<MindRecord>, StoreError> {
        self.mind_scan(agent, layer, true, n)
    }

    /// Up to `n` records of one agent's layer, oldest or newest first.
    fn mind_scan(&self, agent: &str, layer: u8, newest_first: bool, n: usize) -> Result<Vec<MindRecord>, StoreError> {
        let agent = agent.to_ascii_lowercase();
        let tx = self.begin_read()?;
        let t = match tx.open_table(tables::MIND) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
            Err(e) => return Err(redb_err(e)),
        };
        let range = t.range((agent.as_str(), layer, 0)..=(agent.as_str(), layer, u64::MAX)).map_err(redb_err)?;
        let rows: Box<dyn Iterator<Item = _>> = if newest_first { Box::new(range.rev()) } else { Box::new(range) };
        let mut out = Vec::new();
        for row in rows.take(n) {
            let (_, v) = row.map_err(redb_err)?;
            out.push(codec::decode(v.value())?);
        }
        Ok(out)
    }

    /// Every agent with a mind, by name.
    pub fn mind_agents(&self) -> Result<Vec<String>, StoreError> {
        let tx = self.begin_read()?;
        let t = match tx.open_table(tables::MIND_META) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
            Err(e) => return Err(redb_err(e)),
        };
        let mut out = Vec::new();
        for row in t.iter().map_err(redb_err)? {
            out.push(row.map_err(redb_err)?.0.value().to_string());
        }
        Ok(out)
    }
}
