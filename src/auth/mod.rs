//! Who may play: names, human passwords (argon2), agent keys, session tokens, and the
//! limits on logins and connections.

pub mod accounts;
pub mod keys;
pub mod limits;
pub mod names;
pub mod passwords;
pub mod tokens;
