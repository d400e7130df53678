//! Who may play: names, human passwords (argon2), agent keys, session tokens, and the
//! limits on logins and connections. A leaf: logging in against the store, which makes
//! characters, is the edge's (`net::accounts`).

pub mod keys;
pub mod limits;
pub mod names;
pub mod passwords;
pub mod tokens;
