//! Record encoding: one version byte, then rmp-serde.
//!
//! The version byte lets a reader tell an old record layout from a new one without a
//! table-wide rewrite; today every record type is at version 1.

use serde::{de::DeserializeOwned, Serialize};

use crate::StoreError;

pub const RECORD_VERSION: u8 = 1;

pub fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, StoreError> {
    let mut out = vec![RECORD_VERSION];
    rmp_serde::encode::write_named(&mut out, value).map_err(|e| StoreError::Codec(e.to_string()))?;
    Ok(out)
}

pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, StoreError> {
    match bytes.split_first() {
        Some((&RECORD_VERSION, rest)) => rmp_serde::from_slice(rest).map_err(|e| StoreError::Codec(e.to_string())),
        Some((v, _)) => Err(StoreError::Codec(format!("unknown record version {v}"))),
        None => Err(StoreError::Codec("empty record".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_version_check() {
        let bytes = encode(&("brenda", 42u32)).unwrap();
        assert_eq!(bytes[0], RECORD_VERSION);
        let back: (String, u32) = decode(&bytes).unwrap();
        assert_eq!(back, ("brenda".to_string(), 42));
        let mut bad = bytes.clone();
        bad[0] = 9;
        assert!(matches!(decode::<(String, u32)>(&bad), Err(StoreError::Codec(_))));
        assert!(decode::<u32>(&[]).is_err());
    }
}
