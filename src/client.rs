//! The one HTTP client the command line uses to talk to a running server's API (keygen,
//! export, search, reindex, dream, the agent's whoami and memory, the bench's progress).
//! One `reqwest` client for the process: connections are reused, timeouts are the same
//! everywhere, and a failure says which URL could not be reached.

use std::sync::OnceLock;
use std::time::Duration;

use anyhow::{bail, Context};

/// How long a call may take (a dream of every agent, a big export).
const TIMEOUT: Duration = Duration::from_secs(300);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

fn client() -> &'static reqwest::Client {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    CLIENT.get_or_init(|| {
        // The admin API's POSTs want a header no HTML form can send (SECURITY.md).
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("x-pawns-client", reqwest::header::HeaderValue::from_static(concat!("pawns/", env!("CARGO_PKG_VERSION"))));
        reqwest::Client::builder().timeout(TIMEOUT).connect_timeout(CONNECT_TIMEOUT).default_headers(headers).build().unwrap_or_default()
    })
}

/// Sends one request; the status and the body, whatever the status.
pub async fn call(method: reqwest::Method, url: &str, bearer: Option<&str>) -> anyhow::Result<(u16, String)> {
    let mut req = client().request(method, url);
    if let Some(b) = bearer {
        req = req.bearer_auth(b);
    }
    let resp = req.send().await.with_context(|| format!("cannot reach {url}"))?;
    let status = resp.status().as_u16();
    let body = resp.text().await.with_context(|| format!("reading the answer of {url}"))?;
    Ok((status, body))
}

/// A POST; the body whatever the status (the API's errors are JSON the caller reads).
pub async fn post(url: &str) -> anyhow::Result<String> {
    Ok(call(reqwest::Method::POST, url, None).await?.1)
}

/// A POST with a JSON body; the status and the body, whatever the status.
pub async fn post_json(url: &str, body: &serde_json::Value) -> anyhow::Result<(u16, String)> {
    let resp = client().post(url).json(body).send().await.with_context(|| format!("cannot reach {url}"))?;
    let status = resp.status().as_u16();
    let text = resp.text().await.with_context(|| format!("reading the answer of {url}"))?;
    Ok((status, text))
}

/// A GET whose body must come back with status 200 (otherwise the body is the error).
pub async fn get(url: &str) -> anyhow::Result<String> {
    let (status, body) = call(reqwest::Method::GET, url, None).await?;
    if status != 200 {
        bail!("the server answered {status}: {}", body.trim());
    }
    Ok(body)
}

/// Asks a running server for an agent key through its loopback-only admin API.
pub async fn create_key(base: &str, name: &str) -> anyhow::Result<String> {
    create_key_with(base, name, false).await
}

/// [`create_key`], giving a person's character a key when `take_over` (an admin's say).
pub async fn create_key_with(base: &str, name: &str, take_over: bool) -> anyhow::Result<String> {
    let url = format!("{}/api/admin/keygen?name={}{}", base.trim_end_matches('/'), name, if take_over { "&take_over=1" } else { "" });
    let body = post(&url).await?;
    let v: serde_json::Value = serde_json::from_str(&body).context("server answered with something that is not JSON")?;
    match v.get("key").and_then(|k| k.as_str()) {
        Some(k) => Ok(k.to_string()),
        None => bail!("server refused: {}", v.get("message").and_then(|m| m.as_str()).unwrap_or(&body)),
    }
}
