//! Signed session tokens (HMAC-SHA256). The key lives in the store's `meta` table,
//! generated on first start, so no environment variable is needed.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

pub const TOKEN_LIFETIME_SECS: u64 = 24 * 3600;

#[derive(Clone)]
pub struct TokenKey(pub [u8; 32]);

#[derive(Debug, PartialEq)]
pub struct Claims {
    pub name: String,
    pub issued: u64,
}

impl TokenKey {
    fn mac(&self, payload: &[u8]) -> Vec<u8> {
        let mut m = HmacSha256::new_from_slice(&self.0).expect("hmac takes any key length");
        m.update(payload);
        m.finalize().into_bytes().to_vec()
    }

    /// The observatory's admin token: derived from this data file's key, so
    /// `pawns admin token` prints the same one (online or offline) until the key changes.
    pub fn admin_token(&self) -> String {
        self.admin_token_at(0)
    }

    /// Whether `token` is the admin token (compared in constant time).
    pub fn is_admin_token(&self, token: &str) -> bool {
        self.is_admin_token_at(token, 0)
    }

    /// What the admin token of a generation signs: generation 0 is the first token's
    /// (tokens handed out before rotation existed stay good until a rotation).
    fn admin_payload(generation: u64) -> Vec<u8> {
        let mut p = b"pawns observatory admin token v1".to_vec();
        if generation > 0 {
            p.extend_from_slice(format!("#{generation}").as_bytes());
        }
        p
    }

    /// The admin token of `generation` (`pawns admin rotate-token` moves to the next).
    pub fn admin_token_at(&self, generation: u64) -> String {
        format!("adm_{}", hex::encode(self.mac(&Self::admin_payload(generation))))
    }

    pub fn is_admin_token_at(&self, token: &str, generation: u64) -> bool {
        let Some(sig) = token.strip_prefix("adm_").and_then(|h| hex::decode(h).ok()) else { return false };
        let mut m = HmacSha256::new_from_slice(&self.0).expect("hmac takes any key length");
        m.update(&Self::admin_payload(generation));
        m.verify_slice(&sig).is_ok()
    }

    pub fn issue(&self, name: &str, now: u64) -> String {
        let payload = format!("{}|{}", name.to_ascii_lowercase(), now);
        format!("{}.{}", URL_SAFE_NO_PAD.encode(&payload), URL_SAFE_NO_PAD.encode(self.mac(payload.as_bytes())))
    }

    /// Checks signature and age.
    pub fn verify(&self, token: &str, now: u64) -> Result<Claims, &'static str> {
        let (p, s) = token.split_once('.').ok_or("malformed token")?;
        let payload = URL_SAFE_NO_PAD.decode(p).map_err(|_| "malformed token")?;
        let sig = URL_SAFE_NO_PAD.decode(s).map_err(|_| "malformed token")?;
        let mut m = HmacSha256::new_from_slice(&self.0).expect("hmac takes any key length");
        m.update(&payload);
        m.verify_slice(&sig).map_err(|_| "bad token signature")?;
        let payload = String::from_utf8(payload).map_err(|_| "malformed token")?;
        let (name, issued) = payload.split_once('|').ok_or("malformed token")?;
        let issued: u64 = issued.parse().map_err(|_| "malformed token")?;
        if now.saturating_sub(issued) > TOKEN_LIFETIME_SECS {
            return Err("token expired");
        }
        Ok(Claims { name: name.to_string(), issued })
    }
}

/// The admin token in force: the data file's key and the token's generation (meta
/// `admin_token_generation`), which a rotation moves on; the old token stops working.
pub struct AdminToken {
    pub key: TokenKey,
    generation: std::sync::atomic::AtomicU64,
}

/// Where a data file keeps its admin token's generation.
pub const ADMIN_GENERATION_KEY: &str = "admin_token_generation";

impl AdminToken {
    pub fn new(key: TokenKey, generation: u64) -> AdminToken {
        AdminToken { key, generation: generation.into() }
    }

    pub fn generation(&self) -> u64 {
        self.generation.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn token(&self) -> String {
        self.key.admin_token_at(self.generation())
    }

    pub fn is(&self, token: &str) -> bool {
        self.key.is_admin_token_at(token, self.generation())
    }

    /// Moves to the next generation (the caller stores it); the new token.
    pub fn rotate(&self) -> (u64, String) {
        let g = self.generation.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        (g, self.key.admin_token_at(g))
    }
}

/// A data file's admin token generation (0 when never rotated).
pub fn stored_generation(store: &pawns_storage::Store) -> Result<u64, pawns_storage::StoreError> {
    Ok(store.meta_get(ADMIN_GENERATION_KEY)?.and_then(|b| <[u8; 8]>::try_from(b.as_slice()).ok()).map(u64::from_le_bytes).unwrap_or(0))
}

/// Session tokens voided before they expire: a `quit` voids every token its character
/// was given until then (a token copied from a log or a screen logged in for 24 h after).
/// Kept in memory: a restart forgets it (SECURITY.md says so).
#[derive(Default)]
pub struct Revoked {
    by_name: std::sync::Mutex<std::collections::HashMap<String, u64>>,
}

impl Revoked {
    /// Voids `name`'s tokens issued at or before `now` (unix s).
    pub fn void(&self, name: &str, now: u64) {
        let mut m = self.by_name.lock().unwrap_or_else(|e| e.into_inner());
        if m.len() > 10_000 {
            m.retain(|_, at| now.saturating_sub(*at) <= TOKEN_LIFETIME_SECS);
        }
        // Past the last void too: tokens given since it were signed a second after it
        // (`issue_at`), perhaps still ahead of `now`.
        let at = m.entry(name.to_ascii_lowercase()).or_default();
        *at = if *at == 0 { now } else { (*at + 1).max(now) };
    }

    /// Whether these claims were voided.
    pub fn is_void(&self, c: &Claims) -> bool {
        self.by_name.lock().unwrap_or_else(|e| e.into_inner()).get(&c.name).is_some_and(|at| c.issued <= *at)
    }

    /// The time to sign a new token of `name` with: never one its last void covers (a
    /// login in the same second as the quit gets a token that works).
    pub fn issue_at(&self, name: &str, now: u64) -> u64 {
        match self.by_name.lock().unwrap_or_else(|e| e.into_inner()).get(&name.to_ascii_lowercase()) {
            Some(at) if *at >= now => at + 1,
            _ => now,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_quit_voids_the_tokens_given_before_it() {
        let k = TokenKey([7; 32]);
        let r = Revoked::default();
        let old = k.issue("Brenda", 1000);
        r.void("brenda", 1005);
        assert!(r.is_void(&k.verify(&old, 1006).unwrap()));
        let new = k.issue("brenda", r.issue_at("brenda", 1005));
        assert!(!r.is_void(&k.verify(&new, 1006).unwrap()), "a login in the same second gets a live token");
        let other = k.issue("ann", 1000);
        assert!(!r.is_void(&k.verify(&other, 1006).unwrap()));
    }

    use super::*;

    #[test]
    fn the_admin_token_is_the_keys_own() {
        let k = TokenKey([7; 32]);
        let t = k.admin_token();
        assert!(t.starts_with("adm_") && k.is_admin_token(&t));
        assert_eq!(t, TokenKey([7; 32]).admin_token(), "stable for one key");
        assert!(!TokenKey([8; 32]).is_admin_token(&t), "another file's key refuses it");
        for bad in ["", "adm_", "adm_zz", &t[..t.len() - 2], "dp_abc"] {
            assert!(!k.is_admin_token(bad), "{bad}");
        }
    }

    #[test]
    fn tokens_verify_expire_and_resist_tampering() {
        let k = TokenKey([7; 32]);
        let t = k.issue("Brenda", 1000);
        assert_eq!(k.verify(&t, 1001).unwrap(), Claims { name: "brenda".into(), issued: 1000 });
        assert_eq!(k.verify(&t, 1000 + TOKEN_LIFETIME_SECS + 1), Err("token expired"));
        assert!(TokenKey([8; 32]).verify(&t, 1001).is_err());
        let forged = format!("{}.{}", URL_SAFE_NO_PAD.encode("admin|1000"), t.split_once('.').unwrap().1);
        assert!(k.verify(&forged, 1001).is_err());
        assert!(k.verify("garbage", 1).is_err());
    }
}
