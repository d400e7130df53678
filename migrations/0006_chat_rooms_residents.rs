//! Migration 6: chat rooms and resident agents (protocol §11.2, issue 15).
//!
//! Frozen once released. Adds `chat_rooms`: room id → a `ChatRoomRecord` (its owner,
//! billboard, keys, members and pending access requests), and `residents`: agent name
//! lower-cased → a `ResidentRecord` (an agent the server runs itself: its persona or
//! role, model, whether it may manage agents, who made it, when it retired).

use redb::WriteTransaction;

pub const VERSION: u32 = 6;

pub fn apply(tx: &WriteTransaction) -> Result<(), redb::Error> {
    tx.open_table(crate::tables::CHAT_ROOMS)?;
    tx.open_table(crate::tables::RESIDENTS)?;
    Ok(())
}
