//! argon2id password hashes (PHC strings). Both functions are slow by design: call
//! them from `spawn_blocking`, never on an async thread.

use argon2::password_hash::{rand_core::OsRng, PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;

/// The shortest new password a person may choose (characters), and the longest.
pub const MIN_LEN: usize = 6;
pub const MAX_LEN: usize = 128;

/// The same work as [`verify`] for a name with no password: a login for an unknown name
/// takes as long as one for a known name, so timing does not tell which names exist.
pub fn verify_nothing(password: &str) {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let phc = DUMMY.get_or_init(|| hash("pawns: no such character").unwrap_or_default());
    let _ = verify(password, phc);
}

pub fn hash(password: &str) -> Result<String, String> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default().hash_password(password.as_bytes(), &salt).map(|h| h.to_string()).map_err(|e| e.to_string())
}

pub fn verify(password: &str, phc: &str) -> bool {
    match PasswordHash::new(phc) {
        Ok(h) => Argon2::default().verify_password(password.as_bytes(), &h).is_ok(),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn hash_verifies_only_the_right_password() {
        let h = super::hash("hunter2").unwrap();
        assert!(h.starts_with("$argon2"));
        assert!(super::verify("hunter2", &h));
        assert!(!super::verify("hunter3", &h));
        assert!(!super::verify("hunter2", "not a hash"));
    }
}
