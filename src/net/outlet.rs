//! An agent socket's write side, shared by whoever speaks on it: the link (everything
//! the game says, stamped), the connection before login, and its keepalive. A speaker
//! frames its batch into the connection's [`Wire`] and writes it to the socket then and
//! there, without waiting: on a socket that keeps up (nearly all of them) a batch costs
//! one `write` and wakes no other task. What the socket would not take waits in the
//! wire for the connection's flusher task, which sleeps until then, writes the rest as
//! the socket drains, sends tungstenite's answers (pongs, the close's echo), and ends
//! once the close is out (or its grace ran out, or the socket failed).
//!
//! A socket that stops reading holds at most `cap` batches the socket has not finished
//! taking; one more and the link cuts it off as a slow consumer:
//! the frame in flight is finished, the rest is dropped (the link's replay ring still
//! holds it for a resume), and the last word and the 1008 close follow.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::net::tcp::OwnedWriteHalf;
use tokio::sync::Notify;
use tokio_tungstenite::tungstenite::Utf8Bytes;

use super::ws_wire::{Control, Wire};
use crate::metrics::Metrics;

/// How long the socket has to take what is queued once the close is: then it is let go.
const CLOSE_GRACE: Duration = Duration::from_secs(5);

pub struct Outlet {
    io: OwnedWriteHalf,
    st: Mutex<State>,
    /// The flusher: something is left for it (the socket would block, the wire closed,
    /// or a write failed).
    wake: Notify,
    ctl: Arc<Control>,
    /// Batches the socket may leave waiting before it is a slow consumer.
    cap: usize,
    metrics: Arc<Metrics>,
}

struct State {
    wire: Wire,
    /// Where each batch the socket has not finished taking ends in the wire's buffer.
    ends: VecDeque<usize>,
    /// When each command the waiting frames answer was read (timed once written).
    asked: Vec<Instant>,
    /// When the close was queued.
    closed_at: Option<Instant>,
    /// A write failed, or the flusher has ended: nothing more goes out.
    broken: bool,
}

/// What became of a batch.
#[derive(Debug, PartialEq, Eq)]
pub enum Sent {
    /// Written, or queued behind what the socket has yet to take.
    Out,
    /// The socket has `cap` batches waiting: the speaker decides (the link cuts it off).
    Full,
    /// The socket is closed or failed: nothing more goes on it.
    Gone,
}

enum Flush {
    Out,
    Blocked,
    Broken,
}

impl Outlet {
    pub fn new(io: OwnedWriteHalf, wire: Wire, cap: usize, metrics: Arc<Metrics>) -> Arc<Outlet> {
        let ctl = wire.control().clone();
        let st = State { wire, ends: VecDeque::new(), asked: Vec::new(), closed_at: None, broken: false };
        Arc::new(Outlet { io, st: Mutex::new(st), wake: Notify::new(), ctl, cap: cap.max(1), metrics })
    }

    /// One batch of text frames, written together: what one engine step sent the
    /// session, or one frame of its own. `asked`: when the command they answer was read.
    pub fn send(&self, texts: impl IntoIterator<Item = Utf8Bytes>, asked: Option<Instant>) -> Sent {
        let mut st = self.lock();
        if st.broken || st.wire.is_closed() {
            return Sent::Gone;
        }
        if st.ends.len() >= self.cap {
            return Sent::Full;
        }
        // Frames already waiting: the flusher is on them, and takes these too.
        let behind = st.wire.pending() > 0;
        for t in texts {
            st.wire.push_text(t);
        }
        let end = st.wire.framed();
        st.ends.push_back(end);
        st.asked.extend(asked);
        if !behind {
            self.speak(&mut st);
        }
        Sent::Out
    }

    /// The connection's keepalive (not counted against the cap).
    pub fn ping(&self) {
        let mut st = self.lock();
        if st.broken || st.wire.is_closed() {
            return;
        }
        let behind = st.wire.pending() > 0;
        st.wire.push_ping();
        if !behind {
            self.speak(&mut st);
        }
    }

    /// Closes the socket after what is queued (`None`: a close without a code). Nothing
    /// is sent after it.
    pub fn close(&self, code: Option<u16>, reason: &str) {
        let mut st = self.lock();
        if st.broken || st.wire.is_closed() {
            return;
        }
        st.wire.take_control();
        st.wire.push_close(code, reason);
        st.closed_at.get_or_insert_with(Instant::now);
        self.speak(&mut st);
    }

    /// Cuts off a slow consumer: the frame in flight is finished, what the socket has
    /// not begun is dropped, then `last` and the 1008 close.
    pub fn cut_off(&self, last: Utf8Bytes) {
        let mut st = self.lock();
        if st.broken || st.wire.is_closed() {
            return;
        }
        st.wire.drop_unsent();
        st.ends.clear();
        st.asked.clear();
        st.wire.push_text(last);
        st.wire.push_close(Some(1008), "slow_consumer");
        st.closed_at = Some(Instant::now());
        self.speak(&mut st);
    }

    /// The socket is closing or gone: nothing more will be sent on it (a close was
    /// queued, it was cut off or taken over, or it failed).
    pub fn closing(&self) -> bool {
        let st = self.lock();
        st.broken || st.closed_at.is_some() || st.wire.is_closed()
    }

    /// Batches the socket has not finished taking.
    pub fn waiting(&self) -> usize {
        self.lock().ends.len()
    }

    /// The connection's flusher: sleeps until a speaker leaves something the socket would
    /// not take (or tungstenite queues an answer), then writes it as the socket drains.
    /// Returns once the close is out, the socket failed, or the close's grace ran out;
    /// nothing is written after that (speakers are told `Gone`).
    pub async fn flusher(self: Arc<Self>) {
        self.flush_until_done().await;
        self.lock().broken = true;
        // The peer hears the end now: the socket itself lives as long as its last holder
        // (a link kept for a resume holds it for minutes), and a client that waits for
        // the connection to end after a close frame waited that long.
        let _ = socket2::SockRef::from(self.io.as_ref()).shutdown(std::net::Shutdown::Write);
    }

    async fn flush_until_done(&self) {
        loop {
            tokio::select! {
                _ = self.wake.notified() => {}
                _ = self.ctl.ready() => {}
            }
            loop {
                let (flush, closed_at) = {
                    let mut st = self.lock();
                    (self.write_out(&mut st), st.closed_at)
                };
                match flush {
                    Flush::Broken => return,
                    Flush::Out if closed_at.is_some() => return,
                    Flush::Out => break,
                    Flush::Blocked => {}
                }
                let grace = closed_at.map(|at| at + CLOSE_GRACE);
                tokio::select! {
                    r = self.io.writable() => {
                        if r.is_err() {
                            return;
                        }
                    }
                    // A speaker closed or cut the socket off meanwhile: its grace starts.
                    _ = self.wake.notified() => {}
                    _ = until(grace) => return,
                }
            }
        }
    }

    /// Writes what it can now, from a speaker; the flusher gets what is left (and a close).
    fn speak(&self, st: &mut State) {
        match self.write_out(st) {
            Flush::Out if st.closed_at.is_none() => {}
            _ => self.wake.notify_one(),
        }
    }

    /// tungstenite's answers onto the wire, then as much as the socket takes without waiting.
    fn write_out(&self, st: &mut State) -> Flush {
        if st.broken {
            return Flush::Broken;
        }
        st.wire.take_control();
        if st.wire.is_closed() && st.closed_at.is_none() {
            // tungstenite echoed the client's close.
            st.closed_at = Some(Instant::now());
        }
        match st.wire.write_out(|b| self.io.try_write(b)) {
            Ok(true) => {
                st.ends.clear();
                for at in st.asked.drain(..) {
                    self.metrics.command_reply.observe_duration(at.elapsed());
                }
                Flush::Out
            }
            Ok(false) => {
                let taken = st.wire.taken();
                while st.ends.front().is_some_and(|end| *end <= taken) {
                    st.ends.pop_front();
                }
                Flush::Blocked
            }
            Err(e) => {
                tracing::debug!(error = %e, "agent socket write failed");
                st.broken = true;
                Flush::Broken
            }
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.st.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Sleeps until `at`, or forever.
async fn until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::{SinkExt, StreamExt};
    use tokio::net::{TcpListener, TcpSocket, TcpStream};
    use tokio_tungstenite::tungstenite::protocol::Role;
    use tokio_tungstenite::tungstenite::{Bytes, Message};
    use tokio_tungstenite::WebSocketStream;

    type ServerRead = WebSocketStream<super::super::ws_wire::Tap<tokio::net::tcp::OwnedReadHalf>>;

    /// A server end (tungstenite over the tap, the outlet and its flusher) and a real
    /// tungstenite client, over a real loopback TCP connection. `recv_buf`: the client's
    /// receive buffer (small, so a client that does not read fills the socket soon).
    async fn connect(
        cap: usize,
        recv_buf: Option<u32>,
    ) -> (ServerRead, Arc<Outlet>, tokio::task::JoinHandle<()>, WebSocketStream<TcpStream>, Arc<Metrics>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let sock = TcpSocket::new_v4().unwrap();
        if let Some(b) = recv_buf {
            sock.set_recv_buffer_size(b).unwrap();
        }
        let (client, accepted) = tokio::join!(sock.connect(listener.local_addr().unwrap()), listener.accept());
        let (read, write) = accepted.unwrap().0.into_split();
        let (tap, wire) = super::super::ws_wire::pair(read);
        let metrics = Arc::new(Metrics::default());
        let outlet = Outlet::new(write, wire, cap, metrics.clone());
        let flusher = tokio::spawn(outlet.clone().flusher());
        let server = WebSocketStream::from_raw_socket(tap, Role::Server, None).await;
        let client = WebSocketStream::from_raw_socket(client.unwrap(), Role::Client, None).await;
        (server, outlet, flusher, client, metrics)
    }

    async fn next_text(client: &mut WebSocketStream<TcpStream>) -> String {
        match tokio::time::timeout(Duration::from_secs(10), client.next()).await {
            Ok(Some(Ok(Message::Text(t)))) => t.to_string(),
            other => panic!("expected a text frame, got {other:?}"),
        }
    }

    /// Sends numbered `big` frames ("0 zzz…", "1 zzz…") to a client that does not read,
    /// until the outlet is full; how many went.
    fn fill(outlet: &Outlet, big: &str) -> usize {
        let mut sent = 0;
        loop {
            match outlet.send(vec![Utf8Bytes::from(format!("{sent} {big}"))], None) {
                Sent::Out => sent += 1,
                Sent::Full => return sent,
                Sent::Gone => panic!("the socket went while filling it"),
            }
            assert!(sent < 2_000, "the kernel took {sent} frames of 256 KiB without blocking");
        }
    }

    #[tokio::test]
    async fn batches_go_straight_out_in_order_and_replies_are_timed() {
        let (_server, outlet, flusher, mut client, metrics) = connect(4, None).await;
        let asked = Instant::now();
        for i in 0..100 {
            let batch = vec![Utf8Bytes::from(format!("{i}a")), Utf8Bytes::from(format!("{i}b"))];
            assert_eq!(outlet.send(batch, (i % 10 == 0).then_some(asked)), Sent::Out);
        }
        for i in 0..100 {
            assert_eq!(next_text(&mut client).await, format!("{i}a"));
            assert_eq!(next_text(&mut client).await, format!("{i}b"));
        }
        // A socket that keeps up never has batches waiting, however many were sent.
        assert_eq!(outlet.waiting(), 0);
        assert_eq!(metrics.command_reply.snapshot().2, 10, "each answered command timed once");
        outlet.close(Some(1000), "bye");
        match tokio::time::timeout(Duration::from_secs(10), client.next()).await {
            Ok(Some(Ok(Message::Close(Some(f))))) => assert_eq!((u16::from(f.code), f.reason.as_str()), (1000, "bye")),
            other => panic!("expected the close, got {other:?}"),
        }
        tokio::time::timeout(Duration::from_secs(10), flusher).await.expect("the flusher ends with the close").unwrap();
        assert_eq!(outlet.send(vec!["late".into()], None), Sent::Gone);
    }

    #[tokio::test]
    async fn a_socket_that_stops_reading_fills_up_and_is_cut_off_after_the_frame_in_flight() {
        let cap = 4;
        let (_server, outlet, flusher, mut client, _) = connect(cap, Some(4096)).await;
        let big = "z".repeat(256 * 1024);
        let sent = fill(&outlet, &big);
        assert_eq!(outlet.waiting(), cap);
        outlet.cut_off("last".into());
        assert_eq!(outlet.send(vec!["after the cut".into()], None), Sent::Gone);
        // The client reads again: whole frames in order, then the last word and the close.
        let mut got = Vec::new();
        let close = loop {
            match tokio::time::timeout(Duration::from_secs(10), client.next()).await {
                Ok(Some(Ok(Message::Text(t)))) => got.push(t.to_string()),
                Ok(Some(Ok(Message::Close(f)))) => break f,
                other => panic!("expected frames then the close, got {other:?} after {} frames", got.len()),
            }
        };
        assert_eq!(close.map(|f| (u16::from(f.code), f.reason.to_string())), Some((1008, "slow_consumer".to_string())));
        assert_eq!(got.last().map(String::as_str), Some("last"));
        let frames = &got[..got.len() - 1];
        assert!(frames.len() < sent, "what the socket had not begun was dropped ({} of {sent})", frames.len());
        for (i, f) in frames.iter().enumerate() {
            assert!(f.starts_with(&format!("{i} ")) && f.len() == format!("{i} ").len() + big.len(), "frame {i} whole");
        }
        tokio::time::timeout(Duration::from_secs(10), flusher).await.expect("the flusher ends after the close").unwrap();
    }

    /// A client that reads slowly but does read is not a slow consumer: what the socket
    /// has taken no longer counts against the cap.
    #[tokio::test]
    async fn batches_the_socket_took_no_longer_count() {
        let cap = 4;
        let (_server, outlet, _flusher, mut client, _) = connect(cap, Some(4096)).await;
        let big = "z".repeat(256 * 1024);
        let sent = fill(&outlet, &big);
        assert_eq!(outlet.waiting(), cap);
        // The client reads everything that was sent before the batches that wait, and one more.
        for i in 0..=(sent - cap) {
            assert!(next_text(&mut client).await.starts_with(&format!("{i} ")));
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while outlet.waiting() >= cap {
            assert!(Instant::now() < deadline, "still {} batches waiting", outlet.waiting());
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(outlet.send(vec!["room again".into()], None), Sent::Out);
    }

    #[tokio::test]
    async fn a_clients_ping_is_answered_by_the_flusher() {
        let (mut server, outlet, _flusher, mut client, _) = connect(4, None).await;
        // The session's read loop: tungstenite answers pings into the tap as it reads.
        let read = tokio::spawn(async move { while let Some(Ok(_)) = server.next().await {} });
        client.send(Message::Ping(Bytes::from_static(b"hb"))).await.unwrap();
        match tokio::time::timeout(Duration::from_secs(10), client.next()).await {
            Ok(Some(Ok(Message::Pong(p)))) => assert_eq!(&p[..], b"hb"),
            other => panic!("expected the pong, got {other:?}"),
        }
        assert_eq!(outlet.send(vec!["still open".into()], None), Sent::Out);
        assert_eq!(next_text(&mut client).await, "still open");
        read.abort();
    }

    #[tokio::test]
    async fn a_close_the_client_never_reads_is_let_go_after_its_grace() {
        let (_server, outlet, flusher, _client, _) = connect(1_000, Some(4096)).await;
        let big = Utf8Bytes::from("q".repeat(1 << 20));
        while outlet.send(vec![big.clone()], None) == Sent::Out && outlet.waiting() == 0 {}
        let at = Instant::now();
        outlet.close(Some(1000), "bye");
        tokio::time::timeout(CLOSE_GRACE * 3, flusher).await.expect("the flusher gives up on a socket that never reads").unwrap();
        assert!(at.elapsed() >= CLOSE_GRACE - Duration::from_millis(100), "gave up after {:?}", at.elapsed());
    }
}
