//! A world's script lines and script files: an attachment line reads or is nothing; a
//! Lua source is rewritten for Lua 4's table loops and compiled (or refused) in a state
//! without io, os or debug; a DG Scripts trigger compiles (or is refused) and its lines
//! evaluate as expressions, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = pawns::script::parse_attachment(text);
        let _ = pawns::script::compat::rewrite_table_for(text);
        let _ = pawns::script::compile_source(text);
        let _ = pawns::dg::program::compile(text);
        let _ = pawns::dg::expr::eval(text);
    }
});
