//! Search over the record: a tantivy index next to the data file, fed by a thread that
//! follows the record log (see `indexer`), queried by `pawns search` and `/api/search`.

pub mod command_doc;
pub mod doc;
pub mod index;
pub mod indexer;
pub mod offline;
pub mod query;
pub mod split;
pub mod stem;

pub use index::{index_dir, SearchError, SearchHit, SearchIndex, SearchQuery, SearchResults};
pub use indexer::{spawn_indexer, IndexFeed, IndexerHandle, IndexerStats, IndexerThread};
