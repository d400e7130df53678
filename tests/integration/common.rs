//! The harness: a real server on port 0 and real telnet and WebSocket clients.

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use pawns::server::{self, RunningServer, ServerConfig};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

pub const WAIT: Duration = Duration::from_secs(15);

pub struct TestServer {
    pub addr: SocketAddr,
    pub running: Option<RunningServer>,
    /// Kept so the temporary directory lives as long as the server.
    pub _dir: tempfile::TempDir,
    pub cfg: ServerConfig,
}

pub fn test_config(dir: &std::path::Path) -> ServerConfig {
    let world = dir.join("world");
    super::world::write(&world);
    let mut cfg = ServerConfig { db: dir.join("test.redb"), world: Some(world), ..Default::default() };
    // Fast pulses: the rules count pulses, so a 2 s round is 400 ms here.
    cfg.engine.pulse = Duration::from_millis(20);
    cfg.engine.seed = 7;
    cfg.login.rate = 1000.0;
    cfg.login.burst = 1000.0;
    cfg
}

impl TestServer {
    pub async fn start() -> TestServer {
        Self::start_with(|_| {}).await
    }

    pub async fn start_with(f: impl FnOnce(&mut ServerConfig)) -> TestServer {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = test_config(dir.path());
        f(&mut cfg);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let running = server::start(cfg.clone(), listener).await.unwrap();
        TestServer { addr: running.addr, running: Some(running), _dir: dir, cfg }
    }

    /// Stops the server cleanly and starts a new one on the same data file (on the same
    /// port if it can).
    pub async fn restart(mut self) -> TestServer {
        self.stop().await;
        self.start_again().await;
        self
    }

    /// Stops the server cleanly; `start_again` brings it back.
    pub async fn stop(&mut self) {
        if let Some(r) = self.running.take() {
            r.shutdown().await;
        }
    }

    /// Starts the server again on the same data file, on the same port when it is free
    /// (a client reconnects where it was).
    pub async fn start_again(&mut self) {
        let listener = match tokio::net::TcpListener::bind(self.addr).await {
            Ok(l) => l,
            Err(_) => tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap(),
        };
        let running = server::start(self.cfg.clone(), listener).await.unwrap();
        self.addr = running.addr;
        self.running = Some(running);
    }

    /// A new agent key, through the loopback admin API.
    pub async fn key(&self, name: &str) -> String {
        pawns::client::create_key(&format!("http://{}", self.addr), name).await.unwrap()
    }

    pub async fn shutdown(mut self) {
        if let Some(r) = self.running.take() {
            r.shutdown().await;
        }
    }

    /// Stops the server but keeps its directory (and data file) for the caller to read.
    pub async fn shutdown_keep_dir(mut self) -> tempfile::TempDir {
        if let Some(r) = self.running.take() {
            r.shutdown().await;
        }
        self._dir
    }
}

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A WebSocket client that checks `seq` on every message it reads.
pub struct WsClient {
    pub ws: Ws,
    pub last_seq: u64,
    pub seen: Vec<Value>,
}

impl WsClient {
    pub async fn connect(addr: SocketAddr) -> WsClient {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws")).await.unwrap();
        WsClient { ws, last_seq: 0, seen: Vec::new() }
    }

    pub async fn send(&mut self, v: Value) {
        self.ws.send(Message::text(v.to_string())).await.unwrap();
    }

    pub async fn send_raw(&mut self, s: &str) {
        self.ws.send(Message::text(s.to_string())).await.unwrap();
    }

    /// The next JSON message; panics on timeout, close, or a `seq` that is not last+1.
    pub async fn next(&mut self) -> Value {
        loop {
            let Ok(m) = tokio::time::timeout(WAIT, self.ws.next()).await else {
                let tail: Vec<String> = self.seen.iter().rev().take(20).map(|v| v.to_string()).collect();
                panic!("timed out waiting for a message; the last ones were (newest first):\n{}", tail.join("\n"));
            };
            match m {
                Some(Ok(Message::Text(t))) => {
                    let v: Value = serde_json::from_str(t.as_str()).unwrap();
                    let seq = v["seq"].as_u64().expect("every message has seq");
                    assert_eq!(seq, self.last_seq + 1, "seq gap: {v}");
                    self.last_seq = seq;
                    self.seen.push(v.clone());
                    return v;
                }
                Some(Ok(Message::Ping(_))) | Some(Ok(Message::Pong(_))) => continue,
                other => panic!("connection ended: {other:?}"),
            }
        }
    }

    /// Reads until a message satisfies `pred`.
    pub async fn until(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        loop {
            let v = self.next().await;
            if pred(&v) {
                return v;
            }
        }
    }

    pub async fn expect(&mut self, ty: &str) -> Value {
        self.until(|v| v["type"] == ty).await
    }

    /// The next error's code.
    pub async fn error_code(&mut self) -> String {
        self.expect("error").await["data"]["code"].as_str().unwrap().to_string()
    }

    pub async fn cmd(&mut self, c: &str, id: &str) {
        self.send(json!({"type": "command", "data": {"command": c}, "id": id})).await;
    }

    /// Reads events until one contains `needle`; its text.
    pub async fn hear(&mut self, needle: &str) -> String {
        let v = self.until(|v| v["type"] == "event" && v["data"]["text"].as_str().is_some_and(|t| t.contains(needle))).await;
        v["data"]["text"].as_str().unwrap_or("").to_string()
    }

    /// Sends a command and waits for the `state` naming the room it ends in.
    pub async fn room_after(&mut self, c: &str, id: &str) -> u64 {
        self.cmd(c, id).await;
        self.until(|v| v["re"] == id && v["type"] == "state").await["data"]["room"]["vnum"].as_u64().unwrap()
    }

    /// Creates a new warrior named `name` and waits for its first `state`.
    pub async fn newcomer(addr: SocketAddr, name: &str) -> WsClient {
        let mut a = WsClient::connect(addr).await;
        a.send(json!({"type": "login", "data": {"player_name": name, "password": "pw-newcomer", "new_char": true, "class": 3}})).await;
        a.expect("state").await;
        a
    }

    /// Text of the event answering command `id`.
    pub async fn reply_text(&mut self, id: &str) -> String {
        let v = self.until(|v| v["re"] == id && v["type"] == "event").await;
        v["data"]["text"].as_str().unwrap().to_string()
    }

    /// Logs in with a key; returns the `state` message.
    pub async fn login_key(&mut self, name: &str, key: &str) -> Value {
        self.send(
            json!({"type": "login", "data": {"player_name": name, "password": key, "is_agent": true, "harness": "test", "model": "none"}}),
        )
        .await;
        self.expect("state").await
    }

    /// Waits for the connection to end; returns the close code if one came.
    pub async fn closed(&mut self) -> Option<u16> {
        loop {
            match tokio::time::timeout(WAIT, self.ws.next()).await.expect("timed out waiting for close") {
                Some(Ok(Message::Close(f))) => return f.map(|f| u16::from(f.code)),
                Some(Ok(Message::Text(t))) => {
                    let v: Value = serde_json::from_str(t.as_str()).unwrap();
                    self.seen.push(v);
                }
                Some(Ok(_)) => {}
                Some(Err(_)) | None => return None,
            }
        }
    }
}

/// A raw telnet client.
pub struct Telnet {
    pub s: TcpStream,
    /// What was read, decompressed (MCCP2) when the server compresses.
    pub buf: Vec<u8>,
    /// MCCP2: the zlib stream after `IAC SB MCCP2 IAC SE`, until it ends.
    inflate: Option<flate2::Decompress>,
    /// Bytes that came over the socket (compressed or not).
    pub wire: usize,
    /// The server ended its compressed stream cleanly (zlib's stream end).
    pub stream_ended: bool,
}

const MCCP2_START: [u8; 5] = [255, 250, 86, 255, 240];

impl Telnet {
    pub async fn connect(addr: SocketAddr) -> Telnet {
        Telnet { s: TcpStream::connect(addr).await.unwrap(), buf: Vec::new(), inflate: None, wire: 0, stream_ended: false }
    }

    pub async fn send_bytes(&mut self, b: &[u8]) {
        self.s.write_all(b).await.unwrap();
    }

    pub async fn line(&mut self, l: &str) {
        self.send_bytes(format!("{l}\r\n").as_bytes()).await;
    }

    /// Reads until `needle` appears; returns everything read up to and including it.
    pub async fn until(&mut self, needle: &str) -> String {
        String::from_utf8_lossy(&self.until_bytes(needle).await).into_owned()
    }

    /// Like `until`, with the raw bytes (telnet negotiation included).
    pub async fn until_bytes(&mut self, needle: &str) -> Vec<u8> {
        self.until_raw(needle.as_bytes()).await
    }

    /// Reads until the bytes `needle` arrive; everything up to and including them.
    pub async fn until_raw(&mut self, needle: &[u8]) -> Vec<u8> {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            if let Some(i) = find(&self.buf, needle) {
                let rest = self.buf.split_off(i + needle.len());
                return std::mem::replace(&mut self.buf, rest);
            }
            let n = self.read_some(deadline).await;
            if n == 0 {
                panic!("connection closed waiting for {needle:?}; have {:?}", String::from_utf8_lossy(&self.buf));
            }
        }
    }

    /// One read from the socket into `buf` (through MCCP2 once it started); 0 at close.
    pub async fn read_some(&mut self, deadline: tokio::time::Instant) -> usize {
        let mut chunk = [0u8; 4096];
        let n = tokio::time::timeout_at(deadline, self.s.read(&mut chunk))
            .await
            .unwrap_or_else(|_| panic!("timed out; have {:?}", String::from_utf8_lossy(&self.buf)))
            .unwrap();
        self.wire += n;
        self.take(&chunk[..n]);
        n
    }

    fn take(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            match self.inflate.as_mut() {
                None => {
                    let before = self.buf.len();
                    self.buf.extend_from_slice(bytes);
                    bytes = &[];
                    // The start marker may straddle reads: look back a little.
                    let from = before.saturating_sub(MCCP2_START.len());
                    if let Some(i) = find(&self.buf[from..], &MCCP2_START) {
                        let at = from + i + MCCP2_START.len();
                        let compressed = self.buf.split_off(at);
                        self.inflate = Some(flate2::Decompress::new(true));
                        self.take(&compressed);
                    }
                }
                Some(z) => {
                    let mut out = vec![0u8; 64 * 1024];
                    let in_before = z.total_in();
                    let out_before = z.total_out();
                    let status = z.decompress(bytes, &mut out, flate2::FlushDecompress::Sync).expect("the server's zlib stream is valid");
                    let used = (z.total_in() - in_before) as usize;
                    let made = (z.total_out() - out_before) as usize;
                    self.buf.extend_from_slice(&out[..made]);
                    bytes = &bytes[used..];
                    if status == flate2::Status::StreamEnd {
                        self.inflate = None;
                        self.stream_ended = true;
                    } else if used == 0 && made == 0 {
                        panic!("zlib stream stalled");
                    }
                }
            }
        }
    }

    /// Creates a character through the prompts and waits for the first game prompt.
    pub async fn create(&mut self, name: &str, password: &str) {
        self.until("known? ").await;
        self.answer_creation(name, password).await;
        self.until("mv > ").await;
    }

    /// The creation dialogue after the name prompt (a female human warrior), up to the
    /// last answer sent: what comes next (GMCP, the first prompt) is left unread.
    pub async fn answer_creation(&mut self, name: &str, password: &str) {
        self.line(name).await;
        self.until("(Y/N)? ").await;
        self.line("y").await;
        self.until(": ").await;
        self.line(password).await;
        self.until("retype password: ").await;
        self.line(password).await;
        self.until("(M/F)? ").await;
        self.line("f").await;
        self.until("Race: ").await;
        self.line("0").await;
        self.until("Class: ").await;
        self.line("3").await;
        self.until("reroll (R)? ").await;
        self.line("k").await;
    }

    pub async fn login(&mut self, name: &str, password: &str) {
        self.until("known? ").await;
        self.line(name).await;
        self.until("Password: ").await;
        self.line(password).await;
        self.until("mv > ").await;
    }

    /// Sends a command and returns the output up to the next prompt.
    pub async fn cmd(&mut self, c: &str) -> String {
        self.line(c).await;
        self.until("mv > ").await
    }
}

pub fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len().max(1)).position(|w| w == needle)
}

/// Plain HTTP GET; returns (status, body).
pub async fn http_get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    tokio::time::timeout(WAIT, s.read_to_end(&mut buf)).await.unwrap().unwrap();
    let text = String::from_utf8_lossy(&buf).into_owned();
    let status = text.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    (status, body)
}

pub async fn http_post(addr: std::net::SocketAddr, path: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(
        format!("POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pawns-Client: test\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            .as_bytes(),
    )
    .await
    .unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await.unwrap();
    let text = String::from_utf8_lossy(&buf).into_owned();
    let status = text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    (status, text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default())
}

/// What the stand-in LLM answers to one request.
pub enum StubAnswer {
    /// A chat completion whose message content is this text.
    Text(String),
    /// An error status with a JSON body.
    Status(u16),
    /// No answer for this long (then a 500), to make the client time out.
    Slow(Duration),
    /// A whole chat completion (a tool call, say).
    Completion(Value),
    /// An error status with this body.
    Error(u16, String),
}

pub type Seen = std::sync::Arc<std::sync::Mutex<Vec<String>>>;

/// A local HTTP server speaking the OpenAI chat-completions API: the one stand-in the
/// tests allow (an LLM cannot run here). `answer` sees each request's JSON body; every
/// raw request (head and body) is kept in the returned list.
pub async fn llm_stub_with(answer: impl Fn(&Value) -> StubAnswer + Send + Sync + 'static) -> (String, Seen) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen: Seen = Default::default();
    let seen2 = seen.clone();
    let answer = std::sync::Arc::new(answer);
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let seen = seen2.clone();
            let answer = answer.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                // The head, then the body by Content-Length.
                let body_at = loop {
                    let n = sock.read(&mut chunk).await.unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    let text = String::from_utf8_lossy(&buf).to_string();
                    if let Some(end) = text.find("\r\n\r\n") {
                        let len = text[..end]
                            .lines()
                            .find_map(|l| {
                                l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse::<usize>().unwrap())
                            })
                            .unwrap_or(0);
                        if buf.len() >= end + 4 + len {
                            break end + 4;
                        }
                    }
                };
                let raw = String::from_utf8_lossy(&buf).to_string();
                seen.lock().unwrap().push(raw);
                let body: Value = serde_json::from_slice(&buf[body_at..]).unwrap_or(Value::Null);
                let (status, body) = match answer(&body) {
                    StubAnswer::Text(t) => {
                        ("200 OK".to_string(), json!({"choices": [{"message": {"role": "assistant", "content": t}}]}).to_string())
                    }
                    StubAnswer::Status(code) => (format!("{code} Stub Error"), "{\"error\":\"down\"}".to_string()),
                    StubAnswer::Completion(v) => ("200 OK".to_string(), v.to_string()),
                    StubAnswer::Error(code, body) => (format!("{code} Stub Error"), body),
                    StubAnswer::Slow(d) => {
                        tokio::time::sleep(d).await;
                        ("500 Internal Server Error".to_string(), "{\"error\":\"slow\"}".to_string())
                    }
                };
                let resp = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = sock.write_all(resp.as_bytes()).await;
            });
        }
    });
    (format!("http://{addr}"), seen)
}

/// A stand-in model for agents: leaves a room where it remembers being hurt (its prompt
/// calls someone dangerous), else walks east.
pub async fn wary_walker() -> (String, Seen) {
    llm_stub_with(|req: &Value| {
        let prompt = req["messages"].to_string();
        let cmd = if prompt.contains("dangerous") { "flee" } else { "east" };
        StubAnswer::Text(format!("{{\"command\": \"{cmd}\"}}"))
    })
    .await
}

/// The same reply to every request; `""` answers 500.
pub async fn llm_stub(reply: &'static str) -> (String, Seen) {
    llm_stub_with(move |_| if reply.is_empty() { StubAnswer::Status(500) } else { StubAnswer::Text(reply.into()) }).await
}

/// A TCP proxy in front of the server that can swallow what the server sends and cut
/// every connection: a dropped link, on demand.
pub struct Proxy {
    pub addr: SocketAddr,
    freeze: std::sync::Arc<std::sync::atomic::AtomicBool>,
    discarded: std::sync::Arc<std::sync::atomic::AtomicU64>,
    /// Bytes the server sent that reached the client since the last `cut`.
    delivered: std::sync::Arc<std::sync::atomic::AtomicU64>,
    pumps: std::sync::Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>>,
}

impl Proxy {
    pub async fn start(target: SocketAddr) -> Proxy {
        use std::sync::atomic::Ordering::Relaxed;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let p = Proxy {
            addr: listener.local_addr().unwrap(),
            freeze: Default::default(),
            discarded: Default::default(),
            delivered: Default::default(),
            pumps: Default::default(),
        };
        let (freeze, discarded, pumps) = (p.freeze.clone(), p.discarded.clone(), p.pumps.clone());
        let delivered = p.delivered.clone();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let Ok(server) = TcpStream::connect(target).await else { continue };
                let (freeze, discarded, delivered) = (freeze.clone(), discarded.clone(), delivered.clone());
                let pump = tokio::spawn(async move {
                    let (mut cr, mut cw) = client.into_split();
                    let (mut sr, mut sw) = server.into_split();
                    let up = async move {
                        let _ = tokio::io::copy(&mut cr, &mut sw).await;
                    };
                    let down = async move {
                        let mut buf = [0u8; 8192];
                        loop {
                            let n = match sr.read(&mut buf).await {
                                Ok(0) | Err(_) => return,
                                Ok(n) => n,
                            };
                            if freeze.load(Relaxed) {
                                discarded.fetch_add(n as u64, Relaxed);
                            } else if cw.write_all(&buf[..n]).await.is_err() {
                                return;
                            } else {
                                delivered.fetch_add(n as u64, Relaxed);
                            }
                        }
                    };
                    tokio::select! { _ = up => {}, _ = down => {} }
                });
                pumps.lock().unwrap().push(pump);
            }
        });
        p
    }

    /// From now on, what the server sends is read and thrown away (lost on the wire).
    pub fn freeze(&self) {
        self.freeze.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Closes every proxied connection (both sides) and lets new ones through again.
    pub fn cut(&self) {
        for p in self.pumps.lock().unwrap().drain(..) {
            p.abort();
        }
        self.delivered.store(0, std::sync::atomic::Ordering::Relaxed);
        self.freeze.store(false, std::sync::atomic::Ordering::Relaxed);
    }

    /// Bytes from the server that reached the client since the last `cut`.
    pub fn delivered(&self) -> u64 {
        self.delivered.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn discarded(&self) -> u64 {
        self.discarded.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// The agent's memory from the API, waiting (bounded) for its first dream.
pub async fn memory_of(s: &TestServer, name: &str) -> Value {
    eventually(&format!("a memory for {name} after its logout"), || async {
        let (status, body) = http_get(s.addr, &format!("/api/agents/{name}/memory")).await;
        assert!(status == 200 || status == 404, "{status} {body}");
        (status == 200).then(|| serde_json::from_str(&body).unwrap())
    })
    .await
}

/// Asks `probe` every few milliseconds until it answers, and fails naming `what` if it
/// has not within `WAIT`: the way a test waits for something the server shows.
pub async fn eventually<T, F, Fut>(what: &str, probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    eventually_within(WAIT, what, probe).await
}

/// `eventually`, for something that may take longer than `WAIT`.
pub async fn eventually_within<T, F, Fut>(wait: Duration, what: &str, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = std::time::Instant::now() + wait;
    loop {
        if let Some(v) = probe().await {
            return v;
        }
        assert!(std::time::Instant::now() < deadline, "waited {wait:?} and still not: {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Waits until `name` is (or is no longer) in `/api/who` — logged in, link-dead
/// included; gone once its session ended or its grace period ran out.
pub async fn until_online(addr: SocketAddr, name: &str, online: bool) {
    let needle = format!("\"name\":\"{}\"", name).to_ascii_lowercase();
    let what = format!("{name} {}", if online { "online" } else { "offline" });
    eventually(&what, || async { (http_get(addr, "/api/who").await.1.to_ascii_lowercase().contains(&needle) == online).then_some(()) })
        .await
}

/// The real `pawns serve` on port 0 with the test world: the child and its address (read
/// from its "listening" line). `extra`: more flags (`--fault-injection`, `--log info`…).
pub fn serve_process(
    db: &std::path::Path,
    world: &std::path::Path,
    extra: &[&str],
    stderr: std::process::Stdio,
) -> (std::process::Child, SocketAddr) {
    use std::io::{BufRead, BufReader};
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pawns"))
        .args(["serve", "--host", "127.0.0.1", "--port", "0", "--log", "warn"])
        .args(extra)
        .arg("--db")
        .arg(db)
        .arg("--world")
        .arg(world)
        .stdout(std::process::Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let addr = line.split_whitespace().nth(3).expect("listening line").parse().expect(&line);
    (child, addr)
}
