//! The journal's stored rows (`storage/src/journal.rs`): any bytes read as a row give its
//! chunks or an error — never a panic, never an allocation a row's size cannot explain —
//! and whatever chunks come out, framed again, read back the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pawns_storage::journal::{framed, row_chunks};

fuzz_target!(|data: &[u8]| {
    if let Ok(chunks) = row_chunks(data) {
        let refs: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
        assert_eq!(row_chunks(&framed(&refs)).unwrap(), chunks);
    }
});
