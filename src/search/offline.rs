//! Search without a server: the index next to a data file, caught up with the record
//! first (with a progress bar when that is a lot), and the human form of the results.
//! `pawns search` and `pawns reindex` use it when no server holds the file.

use std::path::Path;

use pawns_storage::Store;

use super::index::{index_dir, SearchIndex, SearchQuery, SearchResults};
use super::indexer::catch_up;

/// Behind by more batches than this, a catch-up shows a progress bar.
const BAR_FROM: u64 = 2_000;

/// Searches the index next to `db`, first adding whatever the record holds that the
/// index does not (with a progress bar when that is a lot).
/// The data file is only read (`store`, opened read-only by the caller); the index
/// beside `db` is a derived copy, and is what is written.
pub fn offline_search(db: &Path, store: &Store, q: &SearchQuery) -> anyhow::Result<SearchResults> {
    let (ix, _) = SearchIndex::open(&index_dir(db))?;
    // Another `pawns search` may hold the writer; then search what is committed.
    if let Ok(mut w) = ix.writer() {
        bring_up_to_date(store, &ix, &mut w, ix.watermark(), "indexing the record")?;
    }
    Ok(ix.search_in(store, q)?)
}

pub fn bring_up_to_date(store: &Store, ix: &SearchIndex, w: &mut tantivy::IndexWriter, from: u64, what: &str) -> anyhow::Result<u64> {
    let last = store.last_record_id()?;
    let bar =
        if last.saturating_sub(from) > BAR_FROM { progress_bar(last.saturating_sub(from), what) } else { indicatif::ProgressBar::hidden() };
    let mut at = from;
    let docs = catch_up(store, ix, w, &mut at, None, &mut |done, _| bar.set_position(done.saturating_sub(from)), &mut |_| {})?;
    ix.commit(w, at)?;
    bar.finish_and_clear();
    Ok(docs)
}

pub fn progress_bar(len: u64, what: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} batches ({eta})")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    bar
}

/// The human form: one line per record, newest first.
pub fn render(found: &SearchResults) -> String {
    let mut out = String::new();
    for h in &found.hits {
        let when = crate::record::export::rfc3339(h.at_us);
        let when = when.get(..19).unwrap_or(&when).replace('T', " ");
        out.push_str(&format!(
            "{when}  {:<12} session {} #{:<5} {:<11} {:<8} room {:<6} {}\n",
            h.agent, h.session, h.seq, h.kind, h.category, h.room_vnum, h.text
        ));
    }
    let shown = found.hits.len();
    let about = if found.total_estimated { "about " } else { "" };
    out.push_str(&match found.total {
        0 => "no records match\n".to_string(),
        t if t == shown && !found.total_estimated => format!("{t} record(s)\n"),
        t => format!("{shown} of {about}{t} records (newest first; --limit shows more)\n"),
    });
    out
}
