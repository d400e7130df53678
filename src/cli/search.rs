//! `pawns search` and `pawns reindex`: on the data file's index when no server holds
//! the file (catching the index up first), otherwise through the server's API.

use std::time::Duration;

use anyhow::{bail, Context};

use pawns::search::index::{index_dir, SearchIndex, SearchQuery};
use pawns::search::offline::{bring_up_to_date, offline_search, progress_bar, render};

use crate::cli::{ReindexArgs, SearchArgs};

pub async fn search(args: SearchArgs) -> anyhow::Result<()> {
    if args.limit == 0 || args.limit > pawns::search::index::MAX_LIMIT {
        bail!("--limit must be 1 to {}", pawns::search::index::MAX_LIMIT);
    }
    let since_us = args.since.map(|d| pawns::record::unix_us().saturating_sub(d.as_micros() as u64)).unwrap_or(0);
    let q = SearchQuery { q: args.query.clone(), agent: args.agent.clone(), kind: args.kind.clone(), since_us, limit: args.limit };
    let q2 = q.clone();
    let offline = match args.place.file()? {
        Some(db) => {
            pawns_storage::files::protect(&db);
            let found = tokio::task::spawn_blocking(move || {
                let (store, _scratch) = crate::cli::commands::open_for_reading(&db)?;
                offline_search(&db, &store, &q2)
            });
            match found.await? {
                Ok(found) => Ok(found),
                Err(e) if is_locked(&e) => Err(true),
                Err(e) => return Err(e),
            }
        }
        None => Err(false),
    };
    let found = match offline {
        Ok(found) => found,
        Err(held) => {
            let mut url = format!("{}/api/search?q={}&limit={}", args.place.server(), encode(&q.q), q.limit);
            for (k, v) in [("agent", &q.agent), ("kind", &q.kind)] {
                if let Some(v) = v {
                    url.push_str(&format!("&{k}={}", encode(v)));
                }
            }
            if since_us > 0 {
                url.push_str(&format!("&since_us={since_us}"));
            }
            let body = pawns::client::get(&url).await.with_context(|| args.place.why_server(held))?;
            serde_json::from_str(&body).context("the server's answer is not a search result")?
        }
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&found)?);
    } else {
        print!("{}", render(&found));
    }
    Ok(())
}

pub async fn reindex(args: ReindexArgs) -> anyhow::Result<()> {
    let Some(db) = args.place.file()? else { return via_server(&args, false).await };
    pawns_storage::files::protect(&db);
    let db2 = db.clone();
    // The data file is only read: the index beside it is what is rebuilt.
    let offline = tokio::task::spawn_blocking(move || -> anyhow::Result<(u64, u64)> {
        let (store, _scratch) = crate::cli::commands::open_for_reading(&db2)?;
        let dir = index_dir(&db2);
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
            println!("reindexed {docs} record(s) from {batches} batch(es) into {}", index_dir(&db).display());
            Ok(())
        }
        Err(e) if is_locked(&e) => via_server(&args, true).await,
        Err(e) => Err(e),
    }
}

/// Asks the server to rebuild its index and follows its progress.
async fn via_server(args: &ReindexArgs, held: bool) -> anyhow::Result<()> {
    let base = args.place.server();
    let why = || args.place.why_server(held);
    if held {
        eprintln!("the data file is held by a running server; it rebuilds its index while it plays...");
    }
    pawns::client::post(&format!("{base}/api/admin/reindex")).await.with_context(why)?;
    let mut bar: Option<indicatif::ProgressBar> = None;
    loop {
        let body = pawns::client::get(&format!("{base}/api/search/status")).await.with_context(why)?;
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
    crate::cli::commands::is_locked(e)
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
