//! The browser's pages, embedded in the binary at build time (no build step, no
//! front-end dependencies): `GET /` the play client (the JSON protocol on `/ws`),
//! `GET /observatory` the operator's view (its API is `api/observe.rs`), and their
//! script and style under `/static/`.

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{HeaderValue, CACHE_CONTROL, CONTENT_TYPE};
use hyper::{Response, StatusCode};

use super::api::Body;

const FILES: [(&str, &str, &str); 8] = [
    ("/", "text/html; charset=utf-8", include_str!("../../web/index.html")),
    ("/observatory", "text/html; charset=utf-8", include_str!("../../web/observatory.html")),
    ("/static/style.css", "text/css; charset=utf-8", include_str!("../../web/style.css")),
    ("/static/play.js", "text/javascript; charset=utf-8", include_str!("../../web/play.js")),
    ("/static/observatory.js", "text/javascript; charset=utf-8", include_str!("../../web/observatory.js")),
    ("/static/graph.js", "text/javascript; charset=utf-8", include_str!("../../web/graph.js")),
    ("/static/map.js", "text/javascript; charset=utf-8", include_str!("../../web/map.js")),
    ("/static/timeline.js", "text/javascript; charset=utf-8", include_str!("../../web/timeline.js")),
];

/// The page or file at `path`, if it is one of ours.
pub fn page(path: &str) -> Option<Response<Body>> {
    let path = match path {
        "/index.html" | "/play" => "/",
        "/observatory/" | "/observatory.html" => "/observatory",
        p => p,
    };
    let (_, mime, body) = FILES.iter().find(|(p, _, _)| *p == path)?;
    let mut r = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    *r.status_mut() = StatusCode::OK;
    r.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static(mime));
    r.headers_mut().insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Some(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_is_served_and_nothing_else() {
        for (p, _, _) in FILES {
            assert!(page(p).is_some(), "{p}");
        }
        assert!(page("/play").is_some());
        assert!(page("/static/../Cargo.toml").is_none());
        assert!(page("/api/who").is_none());
    }
}
