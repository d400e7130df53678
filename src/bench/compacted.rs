//! `bench agents --spawn --compact`: what the run's record takes once its data file is
//! compacted, per decision in it. The window's file growth says little (redb grows its
//! file in regions); this is the figure issue 56's targets are stated in: a copy of the
//! stopped server's data file compacted (`pawns compact`), plus its search index,
//! divided by the decisions the file holds (warm-up and logouts included).

use std::path::Path;

use anyhow::Context;
use pawns_storage::{RecordBody, Store};

/// Batches read at a time while counting.
const BATCHES: usize = 256;

/// The record of a run, compacted.
#[derive(Debug, Clone, Copy)]
pub struct Compacted {
    pub data_bytes: u64,
    pub index_bytes: u64,
    pub decisions: u64,
    pub records: u64,
}

impl Compacted {
    pub fn bytes_per_decision(&self) -> f64 {
        (self.data_bytes + self.index_bytes) as f64 / self.decisions.max(1) as f64
    }
}

/// Compacts a copy of `dir/bench.redb` (the server stopped; the copy is made new beside
/// it and removed after) and counts the decisions it holds.
pub fn measure(dir: &Path) -> anyhow::Result<Compacted> {
    let src = dir.join("bench.redb");
    let copy = dir.join("bench-compacted.redb");
    {
        let mut from = std::fs::File::open(&src).with_context(|| format!("reading {}", src.display()))?;
        let mut to =
            std::fs::File::options().write(true).create_new(true).open(&copy).with_context(|| format!("creating {}", copy.display()))?;
        std::io::copy(&mut from, &mut to).context("copying the data file")?;
        to.sync_all()?;
    }
    let counted = (|| -> anyhow::Result<Compacted> {
        let (mut store, _) = Store::open_existing(&copy)?;
        let data_bytes = store.compact()?.after;
        let (mut decisions, mut records, mut after) = (0u64, 0u64, 0u64);
        loop {
            let batches = store.batches_after(after, BATCHES)?;
            let Some(&(last, _)) = batches.last() else { break };
            for (_, rs) in &batches {
                records += rs.len() as u64;
                decisions += rs.iter().filter(|r| matches!(r.body, RecordBody::Decision(_))).count() as u64;
            }
            after = last;
        }
        let index_bytes = super::serve::disk_bytes(dir).1;
        Ok(Compacted { data_bytes, index_bytes, decisions, records })
    })();
    let _ = std::fs::remove_file(&copy);
    counted
}
