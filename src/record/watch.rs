//! Committed records for whoever watches live (the observatory's follow): each batch,
//! once durable, is offered to the subscribers. Nothing is cloned when nobody watches;
//! a watcher that falls behind misses batches (it is told how many), never the recorder.

use std::sync::Arc;

use pawns_storage::EventRecord;
use tokio::sync::broadcast;

/// Batches a slow watcher may lag behind before it starts missing them.
const LAG: usize = 256;

#[derive(Debug)]
pub struct Watch {
    tx: broadcast::Sender<Arc<Vec<EventRecord>>>,
}

impl Default for Watch {
    fn default() -> Self {
        Watch { tx: broadcast::channel(LAG).0 }
    }
}

impl Watch {
    /// A committed batch (only copied when someone is watching).
    pub fn publish(&self, records: &[EventRecord]) {
        if self.tx.receiver_count() > 0 && !records.is_empty() {
            let _ = self.tx.send(Arc::new(records.to_vec()));
        }
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Vec<EventRecord>>> {
        self.tx.subscribe()
    }
}
