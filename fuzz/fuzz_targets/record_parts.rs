//! The record log's parts values (`storage/src/parts.rs`: tail rows in LZ4, packs in
//! zstd): any bytes read as one give its parts or an error — never a panic, never an
//! allocation its bytes cannot explain — and whatever parts come out, written again in
//! either codec, read back the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pawns_storage::parts::{Parts, PartsWriter};

fuzz_target!(|data: &[u8]| {
    let Ok(parts) = Parts::decode(data) else { return };
    let Ok(got) = parts.iter().collect::<Result<Vec<(u64, &[u8])>, _>>() else { return };
    for zstd in [false, true] {
        let mut w = PartsWriter::default();
        for (k, b) in &got {
            w.push(*k, b);
        }
        let mut v = Vec::new();
        if zstd {
            w.finish_zstd(&mut v);
        } else {
            w.finish(&mut v);
        }
        let again = Parts::decode(&v).unwrap();
        assert!(again.iter().map(Result::unwrap).eq(got.iter().copied()));
    }
});
