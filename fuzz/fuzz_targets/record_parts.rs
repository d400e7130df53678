//! The record log's parts values (`storage/src/parts.rs`: tail rows in LZ4, packs in
//! zstd, with or without a record dictionary): any bytes read as one give its parts or
//! an error — never a panic, never an allocation its bytes cannot explain — and
//! whatever parts come out, written again in any codec, read back the same.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use pawns_storage::dicts::Trained;
use pawns_storage::parts::{Parts, PartsWriter, ZSTD_LEVEL};

/// A dictionary for the round trip (raw content: zstd takes any bytes as one).
fn dict() -> &'static Trained {
    static D: OnceLock<Trained> = OnceLock::new();
    D.get_or_init(|| {
        let bytes = b"The Temple of the Ember\n[ Exits: north east south west up ]\nBrenda [agent] is standing here.\n".repeat(8);
        Trained::new(bytes, ZSTD_LEVEL).expect("zstd takes raw content as a dictionary")
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(parts) = Parts::decode(data) else { return };
    let Ok(got) = parts.iter().collect::<Result<Vec<(u64, &[u8])>, _>>() else { return };
    for codec in 0..3 {
        let mut w = PartsWriter::default();
        for (k, b) in &got {
            w.push(*k, b);
        }
        let mut v = Vec::new();
        match codec {
            0 => w.finish(&mut v),
            1 => w.finish_zstd(&mut v),
            _ => w.finish_zstd_dict(dict(), &mut v),
        }
        let again = Parts::decode(&v).unwrap();
        assert!(again.iter().map(Result::unwrap).eq(got.iter().copied()));
    }
});
