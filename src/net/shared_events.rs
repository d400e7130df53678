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
use std::sync::Arc;

use crate::game::EventKind;

/// Slots per socket thread (a power of two).
const SLOTS: usize = 512;
/// A text held by fewer (the output and its observation record) has one recipient: it is
/// rendered whole, as before, without touching the cache.
const SHARED_MIN: usize = 3;

struct Slot {
    text: Arc<str>,
    kind: EventKind,
    from: Option<Arc<str>>,
    tail: Arc<str>,
}

thread_local! {
    static CACHE: RefCell<Vec<Option<Slot>>> = RefCell::new((0..SLOTS).map(|_| None).collect());
}

/// How an event frame without `re` is to be made.
pub enum Render {
    /// Not shared as far as anyone can tell: render it whole.
    Whole,
    /// Seen first here: the frame from this tail, kept whole by this ring.
    First(Arc<str>),
    /// Rendered already for another recipient: the frame from this tail, and the ring
    /// keeps the tail.
    Again(Arc<str>),
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
        let tail: Arc<str> = crate::protocol::event_tail(kind, text, from.map(|f| &**f)).into();
        c[slot] = Some(Slot { text: text.clone(), kind, from: from.cloned(), tail: tail.clone() });
        Render::First(tail)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
