//! The run registry's rows: run id → a run, encoded; its type is the research module's.

use serde::de::DeserializeOwned;
use serde::Serialize;

use redb::ReadableTable;

use crate::{codec, redb_err, tables, Store, StoreError};

impl Store {
    /// Writes a run, or refuses (`Exists`) when `fresh` and the id is taken.
    pub fn put_run<T: Serialize>(&self, id: &str, run: &T, fresh: bool) -> Result<(), StoreError> {
        let bytes = codec::encode(run)?;
        let tx = self.begin_write()?;
        {
            let mut t = tx.open_table(tables::RUNS).map_err(redb_err)?;
            if fresh && t.get(id).map_err(redb_err)?.is_some() {
                return Err(StoreError::Exists(std::path::PathBuf::from(format!("run {id}"))));
            }
            t.insert(id, bytes.as_slice()).map_err(redb_err)?;
        }
        tx.commit().map_err(redb_err)
    }

    /// One run by id.
    pub fn run<T: DeserializeOwned>(&self, id: &str) -> Result<Option<T>, StoreError> {
        let tx = self.begin_read()?;
        let t = match tx.open_table(tables::RUNS) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
            Err(e) => return Err(redb_err(e)),
        };
        let v = t.get(id).map_err(redb_err)?;
        v.map(|v| codec::decode(v.value())).transpose()
    }

    /// Every run, by id.
    pub fn runs<T: DeserializeOwned>(&self) -> Result<Vec<T>, StoreError> {
        let tx = self.begin_read()?;
        let t = match tx.open_table(tables::RUNS) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
            Err(e) => return Err(redb_err(e)),
        };
        let mut out = Vec::new();
        for row in t.iter().map_err(redb_err)? {
            let (_, v) = row.map_err(redb_err)?;
            out.push(codec::decode(v.value())?);
        }
        Ok(out)
    }
}
