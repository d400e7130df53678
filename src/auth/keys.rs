//! Agent keys: `dp_` + 64 lowercase hex (32 random bytes), stored only as SHA-256.

use rand::RngCore;
use sha2::{Digest, Sha256};

pub fn generate() -> String {
    let mut b = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut b);
    format!("dp_{}", hex::encode(b))
}

pub fn is_well_formed(key: &str) -> bool {
    key.len() == 67 && key.starts_with("dp_") && key[3..].bytes().all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
}

/// The stored form of a key.
pub fn hash(key: &str) -> String {
    hex::encode(Sha256::digest(key.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_have_the_protocol_shape() {
        let k = generate();
        assert!(is_well_formed(&k), "{k}");
        assert_ne!(k, generate());
        assert!(!is_well_formed("dp_XYZ"));
        assert!(!is_well_formed(&k.to_uppercase()));
        assert_eq!(hash(&k).len(), 64);
    }
}
