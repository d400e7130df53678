//! `pawns search` and `pawns reindex`: on the data file's index when no server holds
//! the file (catching the index up first), otherwise through the server's API.

use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context};
use pawns_storage::{Store, StoreError};

use super::index::{index_dir, SearchIndex, SearchQuery, SearchResults};
use super::indexer::catch_up;
use crate::cli::{ReindexArgs, SearchArgs};

/// Behind by more batches than this, a catch-up shows a progress bar.
const BAR_FROM: u64 = 2_000;

pub async fn search(args: SearchArgs) -> anyhow::Result<()> {
    if args.limit == 0 || args.limit > super::index::MAX_LIMIT {
        bail!("--limit must be 1 to {}", super::index::MAX_LIMIT);
    }
    let since_us = args.since.map(|d| crate::record::unix_us().saturating_sub(d.as_micros() as u64)).unwrap_or(0);
    let q = SearchQuery { q: args.query.clone(), agent: args.agent.clone(), kind: args.kind.clone(), since_us, limit: args.limit };
    let db = args.db.clone();
    let q2 = q.clone();
    let offline = tokio::task::spawn_blocking(move || offline_search(&db, &q2)).await?;
    let found = match offline {
        Ok(found) => found,
        Err(e) if is_locked(&e) => {
            let mut url = format!("{}/api/search?q={}&limit={}", args.server.trim_end_matches('/'), encode(&q.q), q.limit);
            for (k, v) in [("agent", &q.agent), ("kind", &q.kind)] {
                if let Some(v) = v {
                    url.push_str(&format!("&{k}={}", encode(v)));
                }
            }
            if since_us > 0 {
                url.push_str(&format!("&since_us={since_us}"));
            }
            let body = crate::net::client::get(&url)
                .await
                .with_context(|| format!("{} is held by a running server, and asking it at {} failed", args.db.display(), args.server))?;
            serde_json::from_str(&body).context("the server's answer is not a search result")?
        }
        Err(e) => return Err(e),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&found)?);
    } else {
        print!("{}", render(&found));
    }
    Ok(())
}

/// Searches the index next to `db`, first adding whatever the record holds that the
/// index does not (with a progress bar when that is a lot).
pub fn offline_search(db: &Path, q: &SearchQuery) -> anyhow::Result<SearchResults> {
    if !db.exists() {
        bail!("{} does not exist (no server has written a record there yet)", db.display());
    }
    let (store, _) = Store::open(db)?;
    let (ix, _) = SearchIndex::open(&index_dir(db))?;
    // Another `pawns search` may hold the writer; then search what is committed.
    if let Ok(mut w) = ix.writer() {
        bring_up_to_date(&store, &ix, &mut w, ix.watermark(), "indexing the record")?;
    }
    Ok(ix.search(q)?)
}

fn bring_up_to_date(store: &Store, ix: &SearchIndex, w: &mut tantivy::IndexWriter, from: u64, what: &str) -> anyhow::Result<u64> {
    let last = store.last_record_id()?;
    let bar =
        if last.saturating_sub(from) > BAR_FROM { progress_bar(last.saturating_sub(from), what) } else { indicatif::ProgressBar::hidden() };
    let mut at = from;
    let docs = catch_up(store, ix, w, &mut at, None, &mut |done, _| bar.set_position(done.saturating_sub(from)), &mut |_| {})?;
    ix.commit(w, at)?;
    bar.finish_and_clear();
    Ok(docs)
}

fn progress_bar(len: u64, what: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} batches ({eta})")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    bar
}

pub async fn reindex(args: ReindexArgs) -> anyhow::Result<()> {
    let db = args.db.clone();
    let offline = tokio::task::spawn_blocking(move || -> anyhow::Result<(u64, u64)> {
        if !db.exists() {
            bail!("{} does not exist", db.display());
        }
        let (store, _) = Store::open(&db)?;
        let dir = index_dir(&db);
        if dir.exists() {
            std::fs::remove_dir_all(&dir).with_context(|| format!("removing the old index {}", dir.display()))?;
        }
        let (ix, _) = SearchIndex::open(&dir)?;
        let mut w = ix.writer()?;
        let docs = bring_up_to_date(&store, &ix, &mut w, 0, "reindexing")?;
        let _ = w.wait_merging_threads();
        Ok((docs, store.last_record_id()?))
    })
    .await?;
    match offline {
        Ok((docs, batches)) => {
            println!("reindexed {docs} record(s) from {batches} batch(es) into {}", index_dir(&args.db).display());
            Ok(())
        }
        Err(e) if is_locked(&e) => via_server(&args).await,
        Err(e) => Err(e),
    }
}

/// Asks the server to rebuild its index and follows its progress.
async fn via_server(args: &ReindexArgs) -> anyhow::Result<()> {
    let base = args.server.trim_end_matches('/');
    let held = || format!("{} is held by a running server, and asking it at {} failed", args.db.display(), args.server);
    eprintln!("{} is held by a running server; it rebuilds its index while it plays...", args.db.display());
    crate::net::client::post(&format!("{base}/api/admin/reindex")).await.with_context(held)?;
    let mut bar: Option<indicatif::ProgressBar> = None;
    loop {
        let body = crate::net::client::get(&format!("{base}/api/search/status")).await.with_context(held)?;
        let st: serde_json::Value = serde_json::from_str(&body).context("the server's status is not JSON")?;
        let target = st["rebuild_target"].as_u64().unwrap_or(0);
        let at = st["indexed_batch"].as_u64().unwrap_or(0);
        if target == 0 {
            if let Some(b) = bar {
                b.finish_and_clear();
            }
            println!("reindexed: {} record(s) searchable, up to batch {at}", st["docs"]);
            return Ok(());
        }
        bar.get_or_insert_with(|| progress_bar(target, "reindexing")).set_position(at.min(target));
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

fn is_locked(e: &anyhow::Error) -> bool {
    e.downcast_ref::<StoreError>().is_some_and(|s| matches!(s, StoreError::Locked { .. }))
}

/// Percent-encodes a query-string value.
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
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
    out.push_str(&match found.total {
        0 => "no records match\n".to_string(),
        t if t == shown => format!("{t} record(s)\n"),
        t => format!("{shown} of {t} records (newest first; --limit shows more)\n"),
    });
    out
}

#[cfg(test)]
mod tests {
    use super::encode;

    #[test]
    fn query_values_are_percent_encoded() {
        assert_eq!(encode("small goblin"), "small%20goblin");
        assert_eq!(encode("\"a&b\""), "%22a%26b%22");
        assert_eq!(encode("héros"), "h%C3%A9ros");
    }
}
