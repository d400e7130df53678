//! The agent socket's own write path. tungstenite reads the client's frames and queues
//! its automatic answers (the pong to a ping, the close reply); everything the server
//! says is framed here, into one buffer per connection that is written as a batch and
//! let go after a burst. (tungstenite's own write buffer keeps the largest burst it
//! ever held for the life of the connection: 32 KB per agent after an hour, and rising.)
//!
//! The two halves meet in [`Control`]: tungstenite writes into a [`Tap`], which keeps
//! the newest pong and the close; the [`Wire`] takes them between its own frames, so a
//! pong never lands inside a half-written message. One pong is enough (RFC 6455 §5.5.3
//! lets an endpoint answer only the latest ping), and it keeps a client that pings and
//! never reads from queueing answers without bound.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::sync::Notify;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{CloseCode, Data, OpCode};
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::{Bytes, Utf8Bytes};

/// A buffer larger than this after a batch is written goes back to the allocator.
pub const KEEP: usize = 8 * 1024;
/// The close reason is cut to fit a control frame (125 bytes, 2 of them the code).
const MAX_REASON: usize = 123;

/// What tungstenite wrote, waiting for the wire.
#[derive(Default)]
struct Control {
    state: Mutex<ControlState>,
    ready: Notify,
}

#[derive(Default)]
struct ControlState {
    /// The newest pong, framed.
    pong: Vec<u8>,
    /// tungstenite's close frame (the echo of a client's close), framed.
    close: Vec<u8>,
    /// The wire is gone or has said its close: tungstenite's writes go nowhere.
    done: bool,
}

/// The socket as tungstenite sees it: reads from the connection, writes into the
/// control queue (always all of it, at once). tungstenite writes only its automatic
/// answers here, whole control frames (the server never sends through it).
pub struct Tap<R> {
    read: R,
    ctl: Arc<Control>,
}

/// The connection's write half with the server's framing.
pub struct Wire<W> {
    io: W,
    buf: Vec<u8>,
    /// How much of `buf` the socket has taken.
    sent: usize,
    closed: bool,
    ctl: Arc<Control>,
}

/// One connection's read side for tungstenite and write side for the server.
pub fn pair<R, W>(read: R, write: W) -> (Tap<R>, Wire<W>) {
    let ctl = Arc::new(Control::default());
    (Tap { read, ctl: ctl.clone() }, Wire { io: write, buf: Vec::new(), sent: 0, closed: false, ctl })
}

impl<R: AsyncRead + Unpin> AsyncRead for Tap<R> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.read).poll_read(cx, buf)
    }
}

impl<R: Unpin> AsyncWrite for Tap<R> {
    fn poll_write(self: Pin<&mut Self>, _cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let mut s = self.ctl.state.lock().unwrap_or_else(|p| p.into_inner());
        if !s.done {
            for frame in control_frames(buf) {
                match frame[0] & 0x0f {
                    0xa => {
                        s.pong.clear();
                        s.pong.extend_from_slice(frame);
                    }
                    0x8 if s.close.is_empty() => s.close.extend_from_slice(frame),
                    op => tracing::debug!(op, "tungstenite wrote an unexpected frame to the tap; dropped"),
                }
            }
            drop(s);
            self.ctl.ready.notify_one();
        }
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl<W> Wire<W> {
    /// Queue one text message (a single final frame, unmasked: the server's side).
    pub fn push_text(&mut self, text: Utf8Bytes) {
        self.push(Frame::message(Bytes::from(text), OpCode::Data(Data::Text), true));
    }

    pub fn push_ping(&mut self) {
        self.push(Frame::ping(Bytes::new()));
    }

    /// Queue the close frame; nothing is framed after it, and tungstenite's own
    /// answers (a close reply of its own) are dropped from here on.
    pub fn push_close(&mut self, code: Option<u16>, reason: &str) {
        let msg = code.map(|c| CloseFrame { code: CloseCode::from(c), reason: cut(reason, MAX_REASON).to_string().into() });
        self.push(Frame::close(msg));
        self.closed = true;
        self.lock().done = true;
    }

    /// Whether the close frame has been queued.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// Bytes framed and not yet taken by the socket.
    pub fn pending(&self) -> usize {
        self.buf.len() - self.sent
    }

    /// The buffer's capacity (what the connection holds between batches).
    pub fn capacity(&self) -> usize {
        self.buf.capacity()
    }

    /// Move tungstenite's queued frames (pongs, its close reply) onto the wire.
    pub fn take_control(&mut self) {
        if self.closed {
            return;
        }
        let ctl = self.ctl.clone();
        let mut s = ctl.state.lock().unwrap_or_else(|p| p.into_inner());
        self.buf.extend_from_slice(&s.pong);
        s.pong.clear();
        if !s.close.is_empty() {
            self.buf.extend_from_slice(&s.close);
            // tungstenite has answered the client's close: that was the last frame.
            s.done = true;
            self.closed = true;
        }
    }

    /// Resolves when tungstenite has queued something to send.
    pub async fn control_ready(&self) {
        self.ctl.ready.notified().await
    }

    fn push(&mut self, frame: Frame) {
        if self.closed {
            return;
        }
        // Writing into a Vec cannot fail.
        let _ = frame.format(&mut self.buf);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ControlState> {
        self.ctl.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl<W: AsyncWrite + Unpin> Wire<W> {
    /// Write everything framed so far. Cancel-safe: dropped part-way, it leaves the
    /// unwritten rest in place, and the next call (or frames pushed meanwhile) goes on
    /// from there, so the peer never sees a torn frame.
    pub async fn drain(&mut self) -> io::Result<()> {
        while self.sent < self.buf.len() {
            let n = self.io.write(&self.buf[self.sent..]).await?;
            if n == 0 {
                return Err(io::ErrorKind::WriteZero.into());
            }
            self.sent += n;
        }
        self.io.flush().await?;
        self.buf.clear();
        self.sent = 0;
        if self.buf.capacity() > KEEP {
            self.buf = Vec::new();
        }
        Ok(())
    }
}

impl<W> Drop for Wire<W> {
    fn drop(&mut self) {
        let mut s = self.lock();
        s.done = true;
        s.pong = Vec::new();
        s.close = Vec::new();
    }
}

/// The frames in a run of whole server control frames, as tungstenite writes them here
/// (unmasked, at most 125 bytes of payload, so the length is the second byte). A
/// malformed tail (which tungstenite does not write) ends the run.
fn control_frames(mut bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    std::iter::from_fn(move || {
        let len = usize::from(*bytes.get(1)?);
        if len > 125 {
            return None;
        }
        let (frame, rest) = bytes.split_at_checked(2 + len)?;
        bytes = rest;
        Some(frame)
    })
}

/// `s` cut to at most `max` bytes on a character boundary.
fn cut(s: &str, max: usize) -> &str {
    &s[..s.floor_char_boundary(max)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::protocol::Role;
    use tokio_tungstenite::tungstenite::Message;
    use tokio_tungstenite::WebSocketStream;

    /// A server end (tap + wire) and a real tungstenite client over an in-memory pipe.
    async fn connect(
        pipe: usize,
    ) -> (
        WebSocketStream<Tap<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
        Wire<tokio::io::WriteHalf<tokio::io::DuplexStream>>,
        WebSocketStream<tokio::io::DuplexStream>,
    ) {
        let (server, client) = tokio::io::duplex(pipe);
        let (r, w) = tokio::io::split(server);
        let (tap, wire) = pair(r, w);
        let ws = WebSocketStream::from_raw_socket(tap, Role::Server, None).await;
        let client = WebSocketStream::from_raw_socket(client, Role::Client, None).await;
        (ws, wire, client)
    }

    /// What the client reads up to and with the close.
    async fn until_close(client: &mut WebSocketStream<tokio::io::DuplexStream>) -> Vec<Message> {
        let mut got = Vec::new();
        while let Some(Ok(m)) = client.next().await {
            let close = matches!(m, Message::Close(_));
            got.push(m);
            if close {
                break;
            }
        }
        got
    }

    #[tokio::test]
    async fn texts_arrive_whole_and_in_order() {
        let (_ws, mut wire, mut client) = connect(1 << 16).await;
        let long = "x".repeat(70_000);
        for t in ["a", "é", &"m".repeat(300), &long] {
            wire.push_text(t.to_string().into());
        }
        let drained = tokio::spawn(async move {
            wire.drain().await.unwrap();
            wire
        });
        for want in ["a".to_string(), "é".to_string(), "m".repeat(300), long.clone()] {
            match client.next().await {
                Some(Ok(Message::Text(t))) => assert_eq!(t.as_str(), want),
                other => panic!("expected a text frame, got {other:?}"),
            }
        }
        let wire = drained.await.unwrap();
        assert_eq!(wire.pending(), 0);
        // A 70 KB burst is let go once written.
        assert!(wire.capacity() <= KEEP, "capacity {}", wire.capacity());
    }

    #[tokio::test]
    async fn a_clients_ping_is_answered_between_frames() {
        let (mut ws, mut wire, mut client) = connect(1 << 16).await;
        client.send(Message::Ping(Bytes::from_static(b"hb"))).await.unwrap();
        // The server reads: tungstenite answers the ping with a pong into the tap (it is
        // the next read writes it out, as the session's read loop does).
        let read = tokio::spawn(async move { while let Some(Ok(_)) = ws.next().await {} });
        tokio::time::timeout(std::time::Duration::from_secs(5), wire.control_ready()).await.expect("tungstenite queued a pong");
        wire.push_text("before".into());
        wire.take_control();
        wire.push_text("after".into());
        wire.drain().await.unwrap();
        let mut got = Vec::new();
        for _ in 0..3 {
            got.push(client.next().await.unwrap().unwrap());
        }
        assert_eq!(got, vec![Message::Text("before".into()), Message::Pong(Bytes::from_static(b"hb")), Message::Text("after".into())]);
        read.abort();
    }

    #[tokio::test]
    async fn a_cancelled_drain_resumes_without_tearing_a_frame() {
        // A pipe of 1 KiB: the first drain cannot finish until the client reads.
        let (_ws, mut wire, mut client) = connect(1024).await;
        let big = "b".repeat(10_000);
        wire.push_text(big.clone().into());
        let cut_short = tokio::time::timeout(std::time::Duration::from_millis(50), wire.drain()).await;
        assert!(cut_short.is_err(), "the pipe is full: the drain waits");
        assert!(wire.pending() > 0 && wire.pending() < big.len());
        // Last words and the close go after the rest of the frame.
        wire.push_text("last".into());
        wire.push_close(Some(1008), "slow_consumer");
        wire.push_text("never".into());
        let drained = tokio::spawn(async move { wire.drain().await });
        let got = until_close(&mut client).await;
        drained.await.unwrap().unwrap();
        assert_eq!(got.len(), 3, "{got:?}");
        assert_eq!(got[0], Message::Text(big.into()));
        assert_eq!(got[1], Message::Text("last".into()));
        match &got[2] {
            Message::Close(Some(f)) => {
                assert_eq!(u16::from(f.code), 1008);
                assert_eq!(f.reason.as_str(), "slow_consumer");
            }
            other => panic!("expected the close, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_clients_close_is_echoed_once_and_ends_the_wire() {
        let (mut ws, mut wire, mut client) = connect(1 << 16).await;
        client.send(Message::Close(Some(CloseFrame { code: CloseCode::Normal, reason: "bye".into() }))).await.unwrap();
        match ws.next().await {
            Some(Ok(Message::Close(Some(f)))) => assert_eq!(f.reason.as_str(), "bye"),
            other => panic!("expected the client's close, got {other:?}"),
        }
        // The session flushes tungstenite's echo into the tap, as `ws::run` does.
        ws.flush().await.unwrap();
        wire.push_text("queued before the close was seen".into());
        wire.take_control();
        assert!(wire.is_closed());
        // The writer's own close (and anything after it) is not framed again.
        wire.push_close(None, "");
        wire.push_text("after".into());
        wire.drain().await.unwrap();
        let got = until_close(&mut client).await;
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[0], Message::Text("queued before the close was seen".into()));
        match &got[1] {
            Message::Close(Some(f)) => assert_eq!((u16::from(f.code), f.reason.as_str()), (1000, "bye")),
            other => panic!("expected the echoed close, got {other:?}"),
        }
    }

    #[test]
    fn control_frames_are_split_whole() {
        let mut buf = Vec::new();
        Frame::pong(Bytes::from_static(b"0123456789")).format(&mut buf).unwrap();
        Frame::close(None).format(&mut buf).unwrap();
        let frames: Vec<&[u8]> = control_frames(&buf).collect();
        assert_eq!(frames.len(), 2);
        assert_eq!((frames[0].len(), frames[0][0] & 0x0f), (12, 0xa));
        assert_eq!((frames[1].len(), frames[1][0] & 0x0f), (2, 0x8));
        assert_eq!(control_frames(&[0x8a]).count(), 0);
        assert_eq!(control_frames(&[]).count(), 0);
        assert_eq!(control_frames(&[0x8a, 5, 1]).count(), 0, "a short tail is not a frame");
        assert_eq!(control_frames(&[0x81, 126, 0, 200]).count(), 0, "not a control frame");
    }

    proptest::proptest! {
        /// Whatever is written to the tap, the frames found are a prefix of it, each a
        /// whole control frame, and nothing panics.
        #[test]
        fn control_frames_never_overrun(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..600)) {
            let mut at = 0;
            for f in control_frames(&bytes) {
                proptest::prop_assert!(f.len() >= 2 && f.len() == 2 + usize::from(f[1]) && f[1] <= 125);
                proptest::prop_assert_eq!(f, &bytes[at..at + f.len()]);
                at += f.len();
            }
            let (mut tap, mut wire) = pair((), ());
            let waker = futures_util::task::noop_waker();
            let mut cx = Context::from_waker(&waker);
            let _ = Pin::new(&mut tap).poll_write(&mut cx, &bytes);
            wire.take_control();
            proptest::prop_assert!(wire.pending() <= 2 * 127);
        }
    }

    /// A client that pings and never reads: the answers waiting for the socket stay one pong.
    #[test]
    fn only_the_newest_pong_waits() {
        let (mut tap, mut wire) = pair((), ());
        let waker = futures_util::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        for i in 0..10_000u32 {
            let mut frame = Vec::new();
            Frame::pong(Bytes::from(format!("ping {i} {}", "p".repeat(100)))).format(&mut frame).unwrap();
            assert!(matches!(Pin::new(&mut tap).poll_write(&mut cx, &frame), Poll::Ready(Ok(n)) if n == frame.len()));
        }
        wire.take_control();
        let mut last = Vec::new();
        Frame::pong(Bytes::from(format!("ping 9999 {}", "p".repeat(100)))).format(&mut last).unwrap();
        assert_eq!(wire.buf, last);
        assert!(!wire.is_closed());
    }

    #[test]
    fn a_long_close_reason_fits_a_control_frame() {
        assert_eq!(cut("abc", 2), "ab");
        assert_eq!(cut("ééé", 5), "éé");
        assert_eq!(cut("ok", 123), "ok");
        let (_tap, mut wire) = pair((), ());
        wire.push_close(Some(1000), &"é".repeat(200));
        // 2 header bytes + at most 125 of payload.
        assert!(wire.pending() <= 127, "{}", wire.pending());
        assert!(wire.is_closed());
    }
}
