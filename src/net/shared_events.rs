//! A broadcast rendered once per socket thread, not once per recipient.
//!
//! The engine sends a room's message to each of its people as the same `Arc<str>`
//! text. An `event` frame without `re` is the same bytes for all of them but its `seq`:
//! the part after the seq (its tail, `protocol::event_tail`) is rendered — its text
//! escaped — by the first of them this thread handles and kept in a small cache keyed
//! by the text's pointer; the others' frames are the head for their seq and that tail,
//! and their replay rings keep the tail itself, shared, instead of a copy each.
//!
//! The cache holds a clone of each text it keys, so a pointer it holds can never be a
//! freed text's reused address. It is a fixed table per thread: a collision only costs
//! a render.

use std::cell::RefCell;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use crate::game::EventKind;

/// A broadcast's rendered tail, shared by the rings that keep it: its memory is counted
/// in [`crate::metrics::SHARED_TAIL_BYTES`] from its making to its last holder's drop
/// (a ring's gauge counts only its pointer).
#[derive(Debug)]
pub struct Tail(Box<str>);

impl Tail {
    pub fn new(text: String) -> Arc<Tail> {
        let t = Tail(text.into_boxed_str());
        crate::metrics::SHARED_TAIL_BYTES.fetch_add(t.held() as u64, Relaxed);
        Arc::new(t)
    }

    /// Its memory: the text and the shared allocation around it.
    fn held(&self) -> usize {
        self.0.len() + std::mem::size_of::<Tail>() + 2 * std::mem::size_of::<usize>()
    }
}

impl Drop for Tail {
    fn drop(&mut self) {
        crate::metrics::SHARED_TAIL_BYTES.fetch_sub(self.held() as u64, Relaxed);
    }
}

impl std::ops::Deref for Tail {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

/// Slots per socket thread (a power of two).
const SLOTS: usize = 512;
/// A text held by fewer (the output and its observation record) has one recipient: it is
/// rendered whole, as before, without touching the cache.
const SHARED_MIN: usize = 3;

struct Slot {
    text: Arc<str>,
    kind: EventKind,
    from: Option<Arc<str>>,
    tail: Arc<Tail>,
}

thread_local! {
    static CACHE: RefCell<Vec<Option<Slot>>> = RefCell::new((0..SLOTS).map(|_| None).collect());
}

/// How an event frame without `re` is to be made.
pub enum Render {
    /// Not shared as far as anyone can tell: render it whole.
    Whole,
    /// Seen first here: the frame from this tail, kept whole by this ring.
    First(Arc<Tail>),
    /// Rendered already for another recipient: the frame from this tail, and the ring
    /// keeps the tail.
    Again(Arc<Tail>),
}

fn slot_of(text: &Arc<str>) -> usize {
    let addr = Arc::as_ptr(text) as *const u8 as usize as u64;
    ((addr >> 4).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SLOTS.trailing_zeros())) as usize
}

/// The tail of this event, if it is a broadcast's.
pub fn tail_for(kind: EventKind, text: &Arc<str>, from: Option<&Arc<str>>) -> Render {
    let slot = slot_of(text);
    CACHE.with_borrow_mut(|c| {
        if let Some(s) = &c[slot] {
            if Arc::ptr_eq(&s.text, text) && s.kind == kind && s.from.as_deref() == from.map(|f| &**f) {
                return Render::Again(s.tail.clone());
            }
        }
        if Arc::strong_count(text) < SHARED_MIN {
            return Render::Whole;
        }
        let tail = Tail::new(crate::protocol::event_tail(kind, text, from.map(|f| &**f)));
        c[slot] = Some(Slot { text: text.clone(), kind, from: from.cloned(), tail: tail.clone() });
        Render::First(tail)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shared tail's memory is counted while anyone holds it, once however many rings
    /// keep it (other tests make small tails meanwhile: a 4 MB one stands out of them).
    #[test]
    fn a_tail_is_counted_once_until_its_last_holder_lets_go() {
        let bytes = || crate::metrics::SHARED_TAIL_BYTES.load(Relaxed) as i64;
        let big = 4 << 20;
        let before = bytes();
        let tail = Tail::new("y".repeat(big));
        let held: Vec<Arc<Tail>> = (0..100).map(|_| tail.clone()).collect();
        let made = bytes() - before;
        assert!((made - big as i64).abs() < 64 << 10, "counted {made} for a {big}-byte tail");
        assert_eq!(&held[99][..3], "yyy");
        drop(tail);
        assert!((bytes() - before - made).abs() < 64 << 10, "still held by the rings");
        let mid = bytes();
        drop(held);
        let gone = mid - bytes();
        assert!((gone - made).abs() < 64 << 10, "let go of {gone} of {made}");
    }

    #[test]
    fn a_broadcast_is_rendered_once_and_a_lone_text_never_cached() {
        let text: Arc<str> = "Brenda arrives from the north.".into();
        let held = [text.clone(), text.clone()];
        let from: Option<Arc<str>> = Some("Brenda".into());
        let first = match tail_for(EventKind::Enter, &text, from.as_ref()) {
            Render::First(t) => t,
            _ => panic!("a text three hold is a broadcast, rendered here first"),
        };
        match tail_for(EventKind::Enter, &text, from.as_ref()) {
            Render::Again(t) => assert!(Arc::ptr_eq(&t, &first), "the same tail, not a new render"),
            _ => panic!("the second recipient reuses the tail"),
        }
        // The same words as another text, or as another kind, are not the cached frame.
        assert!(!matches!(tail_for(EventKind::Say, &text, from.as_ref()), Render::Again(_)));
        drop(held);
        let lone: Arc<str> = "You feel hungry.".into();
        assert!(matches!(tail_for(EventKind::Text, &lone, None), Render::Whole));
        // What a tail makes is what the whole frame is.
        let want = crate::protocol::event_frame(42, EventKind::Enter, &text, Some("Brenda"), None);
        assert_eq!(crate::protocol::event_frame_from_tail(42, &first), want);
        assert_eq!(crate::protocol::event_frame_len(42, &first), want.len());
    }
}
