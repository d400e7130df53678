//! Migration 12: record formats older builds cannot read (issue 56).
//!
//! Frozen once released. Changes no table. It marks a file whose record log may hold
//! framed pack groups (`record_chunks` values of version byte 7) and parts of codec
//! version 8 (a decision's times as differences), so a build from before them refuses
//! the file when it opens it ("written by a newer pawns") instead of failing at the
//! first read of a record. This build reads files of schema 11 as they are
//! (`migrate::READABLE_FROM`): nothing in them needs changing to be read.

use redb::WriteTransaction;

pub const VERSION: u32 = 12;

pub fn apply(_tx: &WriteTransaction) -> Result<(), redb::Error> {
    Ok(())
}
