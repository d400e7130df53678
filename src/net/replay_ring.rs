//! A JSON session's replay ring: the frames it was sent, kept for `resume` (protocol
//! §9: at least the last 1,024 messages or 1 MiB, counted as sent).
//!
//! The newest frames are kept as they were sent (a resume of a short drop, the usual
//! case, replays them without work). Once a run of them is old enough to fill a
//! block, it is sealed: the frames, each prefixed by its length, compressed as one LZ4
//! block. Game frames are JSON that repeats itself (keys, room text, the same events),
//! so a sealed block holds several times less memory than its frames; a thousand active
//! sessions each keeping a thousand frames is what held most of a busy server's memory.
//!
//! An `event` frame a crowd was sent (a broadcast) is kept as its tail, everything
//! after its `seq`, shared by every recipient's ring: a pointer where each ring used to
//! hold (and compress) its own copy. It is rebuilt from its seq and tail on replay, the
//! same bytes as sent.
//!
//! Only whole blocks are let go of, and only while what stays still holds at least the
//! limits' worth of frames: the ring keeps at least what a frame-by-frame ring would,
//! and at most one block more.

use std::collections::VecDeque;
use std::sync::Arc;

use tokio_tungstenite::tungstenite::Utf8Bytes;

use super::shared_events::Tail;

/// A frame as the ring keeps it.
#[derive(Debug, Clone)]
pub enum Kept {
    /// As sent.
    Whole(Utf8Bytes),
    /// An `event` frame without `re`, by its tail (`protocol::event_tail`), which a
    /// crowd's rings share.
    Event(Arc<Tail>),
}

impl From<Utf8Bytes> for Kept {
    fn from(f: Utf8Bytes) -> Kept {
        Kept::Whole(f)
    }
}

/// What a shared tail costs the ring that points to it (the pointer).
const SHARED_HELD: usize = std::mem::size_of::<Arc<Tail>>();
/// The length that marks a shared tail in a sealed block.
const SHARED_MARK: u32 = u32::MAX;

impl Kept {
    /// Its length as sent, for frame `seq`.
    fn sent_len(&self, seq: u64) -> usize {
        match self {
            Kept::Whole(f) => f.len(),
            Kept::Event(tail) => crate::protocol::event_frame_len(seq, tail),
        }
    }

    /// The memory this ring holds for it.
    fn held(&self) -> usize {
        match self {
            Kept::Whole(f) => f.len(),
            Kept::Event(_) => SHARED_HELD,
        }
    }

    /// The frame as sent.
    fn frame(&self, seq: u64) -> Utf8Bytes {
        match self {
            Kept::Whole(f) => f.clone(),
            Kept::Event(tail) => crate::protocol::event_frame_from_tail(seq, tail).into(),
        }
    }
}

/// Most frames in one sealed block.
const BLOCK_FRAMES: usize = 64;
/// Most bytes (as sent) in one sealed block.
const BLOCK_BYTES: usize = 32 * 1024;

/// One sealed run of frames.
struct Block {
    first_seq: u64,
    frames: usize,
    /// Their bytes as sent.
    bytes: usize,
    /// `len (u32 LE) ‖ frame` for each, compressed (size-prepended LZ4 block); a shared
    /// tail is `SHARED_MARK` alone, the tail itself in `shared`.
    lz: Box<[u8]>,
    /// The shared tails, in order.
    shared: Box<[Arc<Tail>]>,
}

thread_local! {
    /// Sealing's scratch: the frames laid end to end, and the compressor's output. Reused
    /// by every link a socket thread runs, so a block costs one allocation (its own).
    static SCRATCH: std::cell::RefCell<(Vec<u8>, Vec<u8>)> = const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

impl Block {
    fn seal(first_seq: u64, frames: impl Iterator<Item = Kept>) -> Block {
        SCRATCH.with_borrow_mut(|(raw, out)| {
            raw.clear();
            let mut n = 0;
            let mut bytes = 0;
            let mut shared = Vec::new();
            for f in frames {
                bytes += f.sent_len(first_seq + n as u64);
                match f {
                    Kept::Whole(f) => {
                        raw.extend_from_slice(&(f.len() as u32).to_le_bytes());
                        raw.extend_from_slice(f.as_bytes());
                    }
                    Kept::Event(tail) => {
                        raw.extend_from_slice(&SHARED_MARK.to_le_bytes());
                        shared.push(tail);
                    }
                }
                n += 1;
            }
            out.resize(lz4_flex::block::get_maximum_output_size(raw.len()), 0);
            // The output is sized for the worst case: compressing cannot fail.
            let len = lz4_flex::compress_into(raw, out).expect("lz4 output sized for the worst case");
            // Size-prepended, as `decompress_size_prepended` reads it.
            let mut lz = Vec::with_capacity(4 + len);
            lz.extend_from_slice(&(raw.len() as u32).to_le_bytes());
            lz.extend_from_slice(&out[..len]);
            // A one-off giant frame leaves no giant scratch behind.
            if raw.capacity() > 4 * BLOCK_BYTES {
                *raw = Vec::new();
                *out = Vec::new();
            }
            Block { first_seq, frames: n, bytes, lz: lz.into_boxed_slice(), shared: shared.into_boxed_slice() }
        })
    }

    /// The memory it holds.
    fn held(&self) -> usize {
        self.lz.len() + self.shared.len() * SHARED_HELD
    }

    /// The frames back, in order, with their seq numbers.
    fn open(&self) -> Vec<(u64, Utf8Bytes)> {
        // The block was made here from valid frames; a failure would be memory corruption.
        let raw = lz4_flex::decompress_size_prepended(&self.lz).expect("a sealed replay block decompresses");
        let mut out = Vec::with_capacity(self.frames);
        let mut shared = self.shared.iter();
        let mut at = 0;
        while at + 4 <= raw.len() {
            let len = u32::from_le_bytes(raw[at..at + 4].try_into().expect("four bytes"));
            let seq = self.first_seq + out.len() as u64;
            if len == SHARED_MARK {
                let tail = shared.next().expect("a shared tail for each mark");
                out.push((seq, Kept::Event(tail.clone()).frame(seq)));
                at += 4;
                continue;
            }
            let len = len as usize;
            let text = std::str::from_utf8(&raw[at + 4..at + 4 + len]).expect("frames are text");
            out.push((seq, Utf8Bytes::from(text.to_string())));
            at += 4 + len;
        }
        out
    }
}

/// The ring. Its frames' seq numbers are consecutive.
pub struct ReplayRing {
    max_frames: usize,
    max_bytes: usize,
    /// Frames per sealed block, bytes per sealed block (small limits make small blocks).
    block_frames: usize,
    block_bytes: usize,
    sealed: VecDeque<Block>,
    /// The newest frames, as sent (or by their shared tail).
    open: VecDeque<(u64, Kept)>,
    open_bytes: usize,
    /// Every frame kept, and their bytes as sent.
    frames: usize,
    bytes: usize,
    /// What the ring holds in memory: sealed blocks' compressed bytes and open frames.
    held: usize,
}

/// What a push changed, for the server's gauges.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Change {
    /// Frames let go of (too old to resume from).
    pub evicted: usize,
    /// The change in bytes held.
    pub held_delta: isize,
    /// The change in frames kept.
    pub frames_delta: isize,
}

impl ReplayRing {
    pub fn new(max_frames: usize, max_bytes: usize) -> ReplayRing {
        let max_frames = max_frames.max(1);
        ReplayRing {
            max_frames,
            max_bytes,
            block_frames: (max_frames / 16).clamp(1, BLOCK_FRAMES),
            block_bytes: (max_bytes / 16).clamp(1, BLOCK_BYTES),
            sealed: VecDeque::new(),
            open: VecDeque::new(),
            open_bytes: 0,
            frames: 0,
            bytes: 0,
            held: 0,
        }
    }

    /// Keeps frame `seq` (the one after the last kept).
    pub fn push(&mut self, seq: u64, frame: impl Into<Kept>) -> Change {
        let frame = frame.into();
        let (held0, frames0) = (self.held, self.frames);
        debug_assert!(self.last_seq().is_none_or(|l| l + 1 == seq), "replay seq numbers are consecutive");
        let len = frame.sent_len(seq);
        self.open_bytes += len;
        self.bytes += len;
        self.held += frame.held();
        self.frames += 1;
        self.open.push_back((seq, frame));
        // The oldest open frames are sealed a block at a time once a block's worth waits
        // beyond the newest quarter block, which stays open (a short drop's resume replays
        // it without work). Open frames are held whole, several times a sealed frame's
        // memory: the less stays open, the less a ring holds and the less it swings with
        // what the game says (room views or short lines).
        let keep_frames = self.block_frames.div_ceil(4);
        let keep_bytes = self.block_bytes.div_ceil(4);
        while self.open.len() >= self.block_frames + keep_frames
            || self.open_bytes >= self.block_bytes.max(1) + keep_bytes && self.open.len() > 1
        {
            self.seal_oldest();
        }
        let evicted = self.evict();
        Change { evicted, held_delta: self.held as isize - held0 as isize, frames_delta: self.frames as isize - frames0 as isize }
    }

    fn seal_oldest(&mut self) {
        let mut n = 0;
        let mut bytes = 0;
        let mut held = 0;
        for (seq, f) in self.open.iter() {
            let len = f.sent_len(*seq);
            if n > 0 && (n >= self.block_frames || bytes + len > self.block_bytes) {
                break;
            }
            n += 1;
            bytes += len;
            held += f.held();
        }
        let first_seq = self.open[0].0;
        let block = Block::seal(first_seq, self.open.drain(..n).map(|(_, f)| f));
        self.open_bytes -= bytes;
        self.held = self.held - held + block.held();
        self.sealed.push_back(block);
    }

    /// Lets go of whole blocks (then of open frames, when nothing is sealed) while what
    /// stays still holds the limits' worth. Returns the frames let go of.
    fn evict(&mut self) -> usize {
        let mut evicted = 0;
        let enough = |frames: usize, bytes: usize| frames >= self.max_frames || bytes >= self.max_bytes;
        while let Some(b) = self.sealed.front() {
            if !enough(self.frames - b.frames, self.bytes - b.bytes) {
                break;
            }
            let b = self.sealed.pop_front().expect("a front block");
            self.frames -= b.frames;
            self.bytes -= b.bytes;
            self.held -= b.held();
            evicted += b.frames;
        }
        if self.sealed.is_empty() {
            while self.open.len() > 1 {
                let (seq, f) = &self.open[0];
                let (len, held) = (f.sent_len(*seq), f.held());
                if !enough(self.frames - 1, self.bytes - len) {
                    break;
                }
                self.open.pop_front();
                self.open_bytes -= len;
                self.frames -= 1;
                self.bytes -= len;
                self.held -= held;
                evicted += 1;
            }
        }
        evicted
    }

    /// The oldest seq still kept.
    pub fn first_seq(&self) -> Option<u64> {
        self.sealed.front().map(|b| b.first_seq).or_else(|| self.open.front().map(|(s, _)| *s))
    }

    fn last_seq(&self) -> Option<u64> {
        self.open.back().map(|(s, _)| *s).or_else(|| self.sealed.back().map(|b| b.first_seq + b.frames as u64 - 1))
    }

    /// Every kept frame after `seq`, in order.
    pub fn since(&self, seq: u64) -> Vec<Utf8Bytes> {
        let mut out = Vec::new();
        for b in &self.sealed {
            if b.first_seq + b.frames as u64 - 1 > seq {
                out.extend(b.open().into_iter().filter(|(s, _)| *s > seq).map(|(_, f)| f));
            }
        }
        out.extend(self.open.iter().filter(|(s, _)| *s > seq).map(|(s, f)| f.frame(*s)));
        out
    }

    /// Frames kept.
    pub fn frames(&self) -> usize {
        self.frames
    }

    /// Bytes held in memory (compressed blocks and open frames; a shared tail counts as
    /// its pointer, its text being every recipient's).
    pub fn held(&self) -> usize {
        self.held
    }

    /// Bytes kept, as sent.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn frame(seq: u64) -> Utf8Bytes {
        let text = match seq % 3 {
            0 => format!(
                r#"{{"type":"event","seq":{seq},"data":{{"type":"text","text":"The Temple Square\nYou are standing in the square. [ Exits: n e s w ]"}}}}"#
            ),
            1 => format!(r#"{{"type":"vars","seq":{seq},"data":{{"HP":{},"ROOM_EXITS":{{"north":3001}}}}}}"#, seq % 97),
            _ => format!(r#"{{"type":"event","seq":{seq},"data":{{"type":"say","from":"Brenda","text":"Brenda says, 'hello {seq}'"}}}}"#),
        };
        text.into()
    }

    #[test]
    fn keeps_the_last_1024_frames_and_replays_them_exactly() {
        let mut r = ReplayRing::new(1024, 1 << 20);
        for s in 1..=5000 {
            r.push(s, frame(s));
        }
        let first = r.first_seq().unwrap();
        assert!(first <= 5000 - 1023, "at least the last 1,024 are kept: first {first}");
        assert!(r.frames() <= 1024 + BLOCK_FRAMES, "at most a block more: {}", r.frames());
        for from in [first - 1, first + 5, 4000, 4990, 4999, 5000] {
            let got = r.since(from);
            let want: Vec<Utf8Bytes> = (from + 1..=5000).map(frame).collect();
            assert_eq!(got, want, "since {from}");
        }
        // Sealed game frames take several times less memory than as sent.
        assert!(r.held() * 3 < r.bytes(), "held {} of {} bytes", r.held(), r.bytes());
    }

    #[test]
    fn a_byte_limit_keeps_at_least_that_many_bytes() {
        let mut r = ReplayRing::new(1_000_000, 10_000);
        for s in 1..=2000 {
            r.push(s, frame(s));
        }
        let kept: usize = r.since(0).iter().map(|f| f.len()).sum();
        assert_eq!(kept, r.bytes());
        assert!((10_000..10_000 + BLOCK_BYTES + 200).contains(&kept), "{kept}");
    }

    #[test]
    fn at_most_a_block_and_a_quarter_stays_open() {
        let mut r = ReplayRing::new(1024, 1 << 20);
        let mut most_open = 0;
        for s in 1..=3000 {
            r.push(s, frame(s));
            most_open = most_open.max(r.open.len());
            assert!(!r.open.is_empty());
        }
        // Blocks of 64: what waits is sealed at 64 + 16, leaving the newest 16 whole.
        assert_eq!(most_open, BLOCK_FRAMES + BLOCK_FRAMES / 4 - 1);
        assert_eq!(r.open.len(), BLOCK_FRAMES / 4 + (3000 - BLOCK_FRAMES / 4) % BLOCK_FRAMES);
        // Large frames seal by bytes: the open part stays under a block and a quarter.
        let big: String = "x".repeat(3000);
        for s in 3001..=3200 {
            r.push(s, Utf8Bytes::from(format!(r#"{{"type":"event","seq":{s},"data":{{"text":"{big}"}}}}"#)));
            assert!(r.open_bytes < BLOCK_BYTES + BLOCK_BYTES / 4 + 4000, "{} open bytes", r.open_bytes);
        }
        let back = r.since(2999);
        assert_eq!(back.len(), 201, "sealed and open frames replay alike");
        assert_eq!(back[0], frame(3000));
    }

    #[test]
    fn small_limits_let_go_frame_by_frame() {
        let mut r = ReplayRing::new(4, 1 << 20);
        let mut evicted = 0;
        for s in 1..=10 {
            evicted += r.push(s, frame(s)).evicted;
        }
        assert_eq!(r.first_seq(), Some(7));
        assert_eq!(evicted, 6);
        assert_eq!(r.since(6).len(), 4);
    }

    #[test]
    fn shared_tails_replay_as_sent_and_hold_a_pointer_each() {
        let tail = Tail::new(crate::protocol::event_tail(crate::game::EventKind::Enter, "Brenda arrives from the north.", Some("Brenda")));
        let mut r = ReplayRing::new(1024, 1 << 20);
        let mut sent = Vec::new();
        for s in 1..=3000u64 {
            if s % 4 == 0 {
                sent.push(frame(s));
                r.push(s, frame(s));
            } else {
                sent.push(crate::protocol::event_frame_from_tail(s, &tail).into());
                r.push(s, Kept::Event(tail.clone()));
            }
        }
        let first = r.first_seq().unwrap();
        assert!(first <= 3000 - 1023);
        let want: Vec<Utf8Bytes> = sent[first as usize - 1..].to_vec();
        assert_eq!(r.since(first - 1), want);
        assert_eq!(r.since(2990), sent[2990..].to_vec());
        let as_sent: usize = want.iter().map(|f| f.len()).sum();
        assert_eq!(r.bytes(), as_sent, "bytes count the frames as sent");
        // Three in four frames are a pointer to the one tail: what is held is the other
        // frames (at most as sent) and a pointer each.
        let shared = (first..=3000).filter(|s| s % 4 != 0).count();
        let whole: usize = (first..=3000).filter(|s| s % 4 == 0).map(|s| frame(s).len()).sum();
        assert!(r.held() <= whole + shared * SHARED_HELD, "held {} for {whole} whole bytes and {shared} shared", r.held());
        assert!(r.held() * 4 < r.bytes(), "held {} of {}", r.held(), r.bytes());
        // Everything it holds of the tail is let go of with it.
        let strong = Arc::strong_count(&tail);
        assert_eq!(strong, 1 + shared);
    }

    proptest! {
        /// Whatever the frames and limits: what is replayed is exactly what was sent
        /// after the seq asked for, and at least the limits' worth is kept.
        #[test]
        fn replays_what_was_sent(sizes in proptest::collection::vec(0usize..3000, 1..400), max_frames in 1usize..200, max_bytes in 1usize..40_000, ask in 0usize..400) {
            let mut r = ReplayRing::new(max_frames, max_bytes);
            // A size divisible by 7 stands for a broadcast: kept by its shared tail.
            let tail = |n: usize| -> Arc<Tail> { Tail::new(crate::protocol::event_tail(crate::game::EventKind::Say, &"y".repeat(n), Some("Ann"))) };
            let sent: Vec<Utf8Bytes> = sizes.iter().enumerate().map(|(i, n)| {
                if n % 7 == 0 { crate::protocol::event_frame_from_tail(i as u64 + 1, &tail(*n)).into() } else { format!("{i}:{}", "x".repeat(*n)).into() }
            }).collect();
            let mut held = 0isize;
            for (i, f) in sent.iter().enumerate() {
                let n = sizes[i];
                let kept = if n % 7 == 0 { Kept::Event(tail(n)) } else { Kept::Whole(f.clone()) };
                held += r.push(i as u64 + 1, kept).held_delta;
            }
            prop_assert_eq!(held as usize, r.held());
            let first = r.first_seq().unwrap() as usize;
            let kept = &sent[first - 1..];
            prop_assert!(kept.len() >= max_frames.min(sent.len()) || kept.iter().map(|f| f.len()).sum::<usize>() >= max_bytes.min(sent.iter().map(|f| f.len()).sum()));
            let ask = (ask.min(sent.len()) as u64).max(first as u64 - 1);
            let want: Vec<Utf8Bytes> = sent[ask as usize..].to_vec();
            prop_assert_eq!(r.since(ask), want);
        }
    }
}
