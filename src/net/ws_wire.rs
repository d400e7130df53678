//! The agent socket's framing. tungstenite reads the client's frames and queues its
//! automatic answers (the pong to a ping, the close reply); everything the server says
//! is framed here, into one buffer per connection that is written as a batch and let go
//! after a burst. (tungstenite's own write buffer keeps the largest burst it ever held
//! for the life of the connection: 32 KB per agent after an hour, and rising.) The
//! socket itself, and who writes the buffer out when, is [`super::outlet`]'s.
//!
//! The two halves meet in [`Control`]: tungstenite writes into a [`Tap`], which keeps
//! the newest pong and the close; the [`Wire`] takes them between its own frames, so a
//! pong never lands inside a half-written message. One pong is enough (RFC 6455 §5.5.3
//! lets an endpoint answer only the latest ping), and it keeps a client that pings and
//! never reads from queueing answers without bound: a pong waits in the buffer, and
//! newer ones in the tap, only one of each.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
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
pub struct Control {
    state: Mutex<ControlState>,
    ready: Notify,
}

impl Control {
    /// Resolves when tungstenite has queued something to send.
    pub async fn ready(&self) {
        self.ready.notified().await
    }
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

/// The server's frames for one connection, waiting for its socket.
pub struct Wire {
    buf: Vec<u8>,
    /// How much of `buf` the socket has taken.
    sent: usize,
    /// Where a pong taken from tungstenite ends in `buf` (0: none waiting).
    pong_end: usize,
    closed: bool,
    ctl: Arc<Control>,
}

/// One connection's read side for tungstenite and write side for the server.
pub fn pair<R>(read: R) -> (Tap<R>, Wire) {
    let ctl = Arc::new(Control::default());
    (Tap { read, ctl: ctl.clone() }, Wire { buf: Vec::new(), sent: 0, pong_end: 0, closed: false, ctl })
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

impl Wire {
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

    /// Bytes framed since the buffer was last emptied (where the next frame will start).
    pub fn framed(&self) -> usize {
        self.buf.len()
    }

    /// How much of what was framed the socket has taken.
    pub fn taken(&self) -> usize {
        self.sent
    }

    /// The buffer's capacity (what the connection holds between batches).
    pub fn capacity(&self) -> usize {
        self.buf.capacity()
    }

    /// The connection's control queue (where tungstenite's answers wait).
    pub fn control(&self) -> &Arc<Control> {
        &self.ctl
    }

    /// Move tungstenite's queued frames (a pong, its close reply) onto the wire. A pong
    /// still waiting in the buffer is not joined by another: the newest stays in the tap.
    pub fn take_control(&mut self) {
        if self.closed {
            return;
        }
        let ctl = self.ctl.clone();
        let mut s = ctl.state.lock().unwrap_or_else(|p| p.into_inner());
        if !s.pong.is_empty() && self.sent >= self.pong_end {
            self.buf.extend_from_slice(&s.pong);
            self.pong_end = self.buf.len();
            s.pong.clear();
        }
        if !s.close.is_empty() {
            self.buf.extend_from_slice(&s.close);
            // tungstenite has answered the client's close: that was the last frame.
            s.done = true;
            self.closed = true;
        }
    }

    /// Writes the buffer out through `write` (a non-blocking socket write) until it is
    /// all taken (`true`: the buffer is emptied, and let go if a burst grew it) or the
    /// socket would block (`false`: the rest stays, and the next call goes on from
    /// there, so the peer never sees a torn frame).
    pub fn write_out(&mut self, mut write: impl FnMut(&[u8]) -> io::Result<usize>) -> io::Result<bool> {
        while self.sent < self.buf.len() {
            match write(&self.buf[self.sent..]) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => self.sent += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.buf.clear();
        self.sent = 0;
        self.pong_end = 0;
        if self.buf.capacity() > KEEP {
            self.buf = Vec::new();
        }
        Ok(true)
    }

    /// Drops the frames the socket has not begun to take; one it is part-way through
    /// is kept whole (a slow consumer's cut: its last word follows what is in flight).
    pub fn drop_unsent(&mut self) {
        let end = frame_end_at(&self.buf, self.sent);
        self.buf.truncate(end);
        if self.pong_end > end {
            self.pong_end = 0;
        }
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

impl Drop for Wire {
    fn drop(&mut self) {
        let mut s = self.lock();
        s.done = true;
        s.pong = Vec::new();
        s.close = Vec::new();
    }
}

/// Where the frame holding byte `at` of `buf` ends (`at` itself if a frame starts
/// there): `buf` is whole server frames from its first byte (unmasked; the length is
/// 7 bits, or 16 or 64 after them).
fn frame_end_at(buf: &[u8], at: usize) -> usize {
    let mut start = 0;
    while start < buf.len() && start < at {
        let Some(&b1) = buf.get(start + 1) else { return buf.len() };
        let (head, len) = match b1 & 0x7f {
            126 => (4, buf.get(start + 2..start + 4).map_or(0, |b| u64::from(u16::from_be_bytes([b[0], b[1]])))),
            127 => (10, buf.get(start + 2..start + 10).map_or(0, |b| u64::from_be_bytes(b.try_into().expect("eight bytes")))),
            n => (2, u64::from(n)),
        };
        start = start.saturating_add(head).saturating_add(usize::try_from(len).unwrap_or(usize::MAX));
    }
    start.min(buf.len())
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
    use futures_util::StreamExt;
    use tokio::io::AsyncWriteExt;
    use tokio_tungstenite::tungstenite::protocol::Role;
    use tokio_tungstenite::tungstenite::Message;
    use tokio_tungstenite::WebSocketStream;

    /// What a real tungstenite client reads from `bytes` (up to and with a close, or the end).
    async fn as_client(bytes: Vec<u8>) -> Vec<Message> {
        let (mut server, client) = tokio::io::duplex(bytes.len() + 1);
        server.write_all(&bytes).await.unwrap();
        server.shutdown().await.unwrap();
        let mut client = WebSocketStream::from_raw_socket(client, Role::Client, None).await;
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

    /// A socket that takes `room` more bytes, then would block.
    fn socket(out: &mut Vec<u8>, room: usize) -> impl FnMut(&[u8]) -> io::Result<usize> + '_ {
        let cap = out.len() + room;
        move |b: &[u8]| {
            let n = b.len().min(cap - out.len());
            if n == 0 {
                return Err(io::ErrorKind::WouldBlock.into());
            }
            out.extend_from_slice(&b[..n]);
            Ok(n)
        }
    }

    /// tungstenite's answer to `ping`, as it writes it into the tap.
    fn pong(payload: &str) -> Vec<u8> {
        let mut f = Vec::new();
        Frame::pong(Bytes::from(payload.to_string())).format(&mut f).unwrap();
        f
    }

    fn tap_write(tap: &mut Tap<()>, bytes: &[u8]) {
        let waker = futures_util::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        assert!(matches!(Pin::new(tap).poll_write(&mut cx, bytes), Poll::Ready(Ok(n)) if n == bytes.len()));
    }

    #[tokio::test]
    async fn texts_arrive_whole_and_in_order() {
        let (_tap, mut wire) = pair(());
        let long = "x".repeat(70_000);
        for t in ["a", "é", &"m".repeat(300), &long] {
            wire.push_text(t.to_string().into());
        }
        let mut out = Vec::new();
        assert!(wire.write_out(socket(&mut out, usize::MAX / 2)).unwrap());
        assert_eq!(wire.pending(), 0);
        // A 70 KB burst is let go once written.
        assert!(wire.capacity() <= KEEP, "capacity {}", wire.capacity());
        let want: Vec<Message> =
            ["a".to_string(), "é".to_string(), "m".repeat(300), long].into_iter().map(|t| Message::Text(t.into())).collect();
        assert_eq!(as_client(out).await, want);
    }

    #[tokio::test]
    async fn a_write_that_would_block_goes_on_where_it_stopped() {
        let (_tap, mut wire) = pair(());
        let big = "b".repeat(10_000);
        wire.push_text(big.clone().into());
        wire.push_text("next".into());
        let mut out = Vec::new();
        // The socket takes a little at a time, as a full kernel buffer drains.
        for room in [1, 1, 3, 500, 0, 4096] {
            assert!(!wire.write_out(socket(&mut out, room)).unwrap());
        }
        assert_eq!(wire.pending(), 10_004 + 6 - out.len());
        assert!(wire.write_out(socket(&mut out, usize::MAX / 2)).unwrap());
        assert_eq!(as_client(out).await, vec![Message::Text(big.into()), Message::Text("next".into())]);
    }

    #[tokio::test]
    async fn a_cut_keeps_the_frame_in_flight_and_drops_the_rest() {
        let (_tap, mut wire) = pair(());
        let big = "b".repeat(10_000);
        wire.push_text(big.clone().into());
        wire.push_text("queued, never begun".into());
        wire.push_text("m".repeat(200).into());
        let mut out = Vec::new();
        assert!(!wire.write_out(socket(&mut out, 1024)).unwrap());
        // Last words and the close go after the rest of the frame in flight.
        wire.drop_unsent();
        wire.push_text("last".into());
        wire.push_close(Some(1008), "slow_consumer");
        wire.push_text("never".into());
        assert!(wire.write_out(socket(&mut out, usize::MAX / 2)).unwrap());
        let got = as_client(out).await;
        assert_eq!(got.len(), 3, "{got:?}");
        assert_eq!(got[0], Message::Text(big.into()));
        assert_eq!(got[1], Message::Text("last".into()));
        match &got[2] {
            Message::Close(Some(f)) => assert_eq!((u16::from(f.code), f.reason.as_str()), (1008, "slow_consumer")),
            other => panic!("expected the close, got {other:?}"),
        }
    }

    #[test]
    fn a_cut_between_frames_keeps_nothing_unsent() {
        let (_tap, mut wire) = pair(());
        wire.push_text("one".into());
        wire.push_text("two".into());
        wire.drop_unsent();
        assert_eq!(wire.pending(), 0);
        // Frames of every length encoding are walked whole.
        for len in [0, 125, 126, 65_535, 65_536, 70_000] {
            let (_tap, mut wire) = pair(());
            wire.push_text("x".repeat(len).into());
            wire.push_text("tail".into());
            let mut out = Vec::new();
            assert!(!wire.write_out(socket(&mut out, 1)).unwrap());
            wire.drop_unsent();
            // The frame in flight, whole: its header and its payload, and not a byte more.
            let head = match len {
                0..126 => 2,
                126..65_536 => 4,
                _ => 10,
            };
            assert_eq!(wire.buf.len(), head + len, "length {len}");
            assert_eq!(frame_end_at(&wire.buf, 1), head + len, "length {len}");
        }
    }

    #[tokio::test]
    async fn a_clients_ping_is_answered_between_frames() {
        let (mut tap, mut wire) = pair(());
        wire.push_text("before".into());
        tap_write(&mut tap, &pong("hb"));
        wire.take_control();
        wire.push_text("after".into());
        let mut out = Vec::new();
        assert!(wire.write_out(socket(&mut out, usize::MAX / 2)).unwrap());
        assert_eq!(
            as_client(out).await,
            vec![Message::Text("before".into()), Message::Pong(Bytes::from_static(b"hb")), Message::Text("after".into())]
        );
    }

    #[tokio::test]
    async fn a_clients_close_is_echoed_once_and_ends_the_wire() {
        let (mut tap, mut wire) = pair(());
        let mut close = Vec::new();
        Frame::close(Some(CloseFrame { code: CloseCode::Normal, reason: "bye".into() })).format(&mut close).unwrap();
        wire.push_text("queued before the close was seen".into());
        tap_write(&mut tap, &close);
        wire.take_control();
        assert!(wire.is_closed());
        // The server's own close (and anything after it) is not framed again.
        wire.push_close(None, "");
        wire.push_text("after".into());
        let mut out = Vec::new();
        assert!(wire.write_out(socket(&mut out, usize::MAX / 2)).unwrap());
        let got = as_client(out).await;
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
            let (mut tap, mut wire) = pair(());
            let waker = futures_util::task::noop_waker();
            let mut cx = Context::from_waker(&waker);
            let _ = Pin::new(&mut tap).poll_write(&mut cx, &bytes);
            wire.take_control();
            proptest::prop_assert!(wire.pending() <= 2 * 127);
        }

        /// Whatever frames are queued and however far the socket got, a cut ends on a
        /// frame boundary at or past what was sent, and never past the buffer.
        #[test]
        fn a_cut_ends_on_a_frame_boundary(lens in proptest::collection::vec(0usize..70_000, 1..6), sent in 0usize..400_000) {
            let (_tap, mut wire) = pair(());
            let mut ends = vec![0];
            for len in &lens {
                wire.push_text("y".repeat(*len).into());
                ends.push(wire.buf.len());
            }
            let sent = sent.min(wire.buf.len());
            let end = frame_end_at(&wire.buf, sent);
            proptest::prop_assert!(ends.contains(&end) && end >= sent);
            proptest::prop_assert!(ends.iter().all(|e| *e < sent || *e >= end));
        }
    }

    /// A client that pings and never reads: the answers waiting for the socket stay one
    /// pong in the buffer and the newest in the tap.
    #[test]
    fn only_the_newest_pong_waits() {
        let (mut tap, mut wire) = pair(());
        for i in 0..10_000u32 {
            tap_write(&mut tap, &pong(&format!("ping {i} {}", "p".repeat(100))));
            wire.take_control();
            let mut blocked = Vec::new();
            assert!(!wire.write_out(socket(&mut blocked, 0)).unwrap());
        }
        assert_eq!(wire.buf, pong(&format!("ping 0 {}", "p".repeat(100))));
        // Once that one is out, the newest follows it.
        let mut out = Vec::new();
        assert!(wire.write_out(socket(&mut out, usize::MAX / 2)).unwrap());
        wire.take_control();
        assert_eq!(wire.buf, pong(&format!("ping 9999 {}", "p".repeat(100))));
        assert!(!wire.is_closed());
    }

    #[test]
    fn a_long_close_reason_fits_a_control_frame() {
        assert_eq!(cut("abc", 2), "ab");
        assert_eq!(cut("ééé", 5), "éé");
        assert_eq!(cut("ok", 123), "ok");
        let (_tap, mut wire) = pair(());
        wire.push_close(Some(1000), &"é".repeat(200));
        // 2 header bytes + at most 125 of payload.
        assert!(wire.pending() <= 127, "{}", wire.pending());
        assert!(wire.is_closed());
    }
}
