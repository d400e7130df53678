//! Who may play: names, human passwords (argon2), agent keys, session tokens, and the
//! limits on logins and connections. A leaf: logging in against the store, which makes
//! characters, is the edge's (`net::accounts`).

pub mod keys;
pub mod limits;
/// Character names: the engine's (`pawns-game`), used here too.
pub use pawns_game::names;
pub mod passwords;
pub mod tokens;
