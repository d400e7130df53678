//! Accepting connections and sorting them: an HTTP request line goes to hyper,
//! anything else (telnet negotiation, text, or 300 ms of silence) is a telnet session.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use crate::net::shared::Shared;

const METHODS: [&[u8]; 6] = [b"GET ", b"POST ", b"HEAD ", b"PUT ", b"DELETE ", b"OPTIONS "];
const PEEK_WAIT: Duration = Duration::from_millis(300);

#[derive(Debug, PartialEq, Eq)]
pub enum Kind {
    Http,
    Telnet,
    Closed,
}

/// `Some(true)` HTTP, `Some(false)` not HTTP, `None` cannot tell yet.
pub fn http_prefix(bytes: &[u8]) -> Option<bool> {
    let mut maybe = false;
    for m in METHODS {
        let n = bytes.len().min(m.len());
        if bytes[..n] == m[..n] {
            if bytes.len() >= m.len() {
                return Some(true);
            }
            maybe = true;
        }
    }
    if maybe {
        None
    } else {
        Some(false)
    }
}

pub async fn classify(stream: &TcpStream) -> Kind {
    let deadline = tokio::time::Instant::now() + PEEK_WAIT;
    let mut buf = [0u8; 8];
    loop {
        match tokio::time::timeout_at(deadline, stream.peek(&mut buf)).await {
            // Silence: a telnet client waits for the server to speak first. What came
            // while this task waited to run again is still looked at (a busy server's
            // timer fires late; the request line may be there by then).
            Err(_) => {
                use futures_util::FutureExt;
                return match stream.peek(&mut buf).now_or_never() {
                    Some(Ok(n)) if n > 0 && http_prefix(&buf[..n]) == Some(true) => Kind::Http,
                    _ => Kind::Telnet,
                };
            }
            Ok(Err(_)) | Ok(Ok(0)) => return Kind::Closed,
            Ok(Ok(n)) => match http_prefix(&buf[..n]) {
                Some(true) => return Kind::Http,
                Some(false) => return Kind::Telnet,
                None => {
                    if tokio::time::Instant::now() >= deadline {
                        return Kind::Telnet;
                    }
                    tokio::time::sleep(Duration::from_millis(3)).await;
                }
            },
        }
    }
}

/// Accepts until `shutdown` turns true. Each connection is a task in the server's set
/// (`Shared::tasks`), which the stop waits for and ends.
pub async fn accept_loop(listener: TcpListener, shared: Arc<Shared>, mut shutdown: watch::Receiver<bool>) {
    loop {
        tokio::select! {
            _ = shutdown.changed() => return,
            r = listener.accept() => match r {
                Ok((stream, peer)) => {
                    let _ = stream.set_nodelay(true);
                    shared.tasks.spawn(handle(stream, peer, shared.clone(), shutdown.clone()));
                }
                Err(e) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    tracing::warn!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }
}

async fn handle(stream: TcpStream, peer: SocketAddr, shared: Arc<Shared>, shutdown: watch::Receiver<bool>) {
    let permit = shared.conns.acquire(peer.ip());
    match classify(&stream).await {
        Kind::Http => super::http::serve(stream, peer, shared, permit, shutdown).await,
        Kind::Telnet => super::telnet::run(stream, peer, shared, permit).await,
        Kind::Closed => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_lines_are_told_from_telnet() {
        assert_eq!(http_prefix(b"GET /ws HTTP/1.1"), Some(true));
        assert_eq!(http_prefix(b"OPTIONS "), Some(true));
        assert_eq!(http_prefix(b"GE"), None);
        assert_eq!(http_prefix(b"DEL"), None);
        assert_eq!(http_prefix(b"brenda\r\n"), Some(false));
        assert_eq!(http_prefix(&[255, 251, 1]), Some(false));
        assert_eq!(http_prefix(b"get /"), Some(false));
    }
}
