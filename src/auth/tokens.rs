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
        format!("adm_{}", hex::encode(self.mac(b"pawns observatory admin token v1")))
    }

    /// Whether `token` is the admin token (compared in constant time).
    pub fn is_admin_token(&self, token: &str) -> bool {
        let Some(sig) = token.strip_prefix("adm_").and_then(|h| hex::decode(h).ok()) else { return false };
        let mut m = HmacSha256::new_from_slice(&self.0).expect("hmac takes any key length");
        m.update(b"pawns observatory admin token v1");
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

#[cfg(test)]
mod tests {
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
