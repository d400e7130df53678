//! `pawns search` and `pawns reindex`: on the data file's index when no server holds
//! the file (catching the index up first), otherwise through the server's API.

use std::time::Duration;

use anyhow::{bail, Context};
use pawns_storage::{Store, StoreError};

use pawns::search::index::{index_dir, SearchIndex, SearchQuery};
use pawns::search::offline::{bring_up_to_date, offline_search, progress_bar, render};

use crate::cli::{ReindexArgs, SearchArgs};

pub async fn search(args: SearchArgs) -> anyhow::Result<()> {
    if args.limit == 0 || args.limit > pawns::search::index::MAX_LIMIT {
        bail!("--limit must be 1 to {}", pawns::search::index::MAX_LIMIT);
    }
    let since_us = args.since.map(|d| pawns::record::unix_us().saturating_sub(d.as_micros() as u64)).unwrap_or(0);
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
            let body = pawns::net::client::get(&url)
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
    pawns::net::client::post(&format!("{base}/api/admin/reindex")).await.with_context(held)?;
    let mut bar: Option<indicatif::ProgressBar> = None;
    loop {
        let body = pawns::net::client::get(&format!("{base}/api/search/status")).await.with_context(held)?;
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
