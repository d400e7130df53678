//! tbaMUD's DG Scripts: triggers (`trg/`) attached to mobs, objects and rooms by `T`
//! lines, run by an interpreter of our own (`program.rs`: the lines and their blocks;
//! `expr.rs`: expressions; `subst.rs`: `%…%` variables). The engine's side is
//! `game/scripting/dg_run.rs` (what a script's variables and commands mean in the world, where
//! each trigger fires, and the runs waiting on `wait`).
//!
//! Supported trigger types (the letters of a trigger's type field):
//! mobs — `b` random, `c` command, `d` speech, `e` act, `f` death, `g` greet, `h` greet-all,
//! `i` entry, `j` receive, `k` fight, `l` hit percent, `m` bribe, `n` load, `p` cast, `q`
//! leave, `r` door, `t` time (`a` global lets random and time run without players in
//! the zone); objects — `b` random, `c` command, `f` timer, `g` get, `h` drop, `i` give,
//! `j` wear, `l` remove, `n` load, `q` leave, `s` consume, `t` time; rooms — `b` random,
//! `c` command, `d` speech, `f` zone reset, `g` enter, `h` drop, `p` cast, `q` leave, `r`
//! door, `s` login, `t` time. (Not run: a mob's memory `o` and damage `u`, a thing's cast
//! `p` — pawns's spells take no thing as their target.) `pawns world check` lists
//! every attached trigger that uses another type or fails to compile.

pub mod expr;
pub mod program;
pub mod speech;
pub mod subst;

use std::collections::{BTreeMap, HashMap};

use crate::worldfile::{TriggerProto, WorldProto};

/// What a trigger is attached to (the file's attach type: 0 mob, 1 object, 2 room).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Attach {
    Mob,
    Obj,
    Room,
}

impl Attach {
    pub fn of(t: &TriggerProto) -> Option<Attach> {
        match t.attach_type {
            0 => Some(Attach::Mob),
            1 => Some(Attach::Obj),
            2 => Some(Attach::Room),
            _ => None,
        }
    }
    /// The prefix of its script commands (`msend`, `osend`, `wsend`).
    pub fn prefix(self) -> char {
        match self {
            Attach::Mob => 'm',
            Attach::Obj => 'o',
            Attach::Room => 'w',
        }
    }
}

/// A trigger type: its letter's bit in `TriggerProto.flags`.
pub const fn bit(letter: char) -> u64 {
    1 << (letter as u8 - b'a')
}

/// The types this server runs, per attach type.
pub fn supported(attach: Attach) -> &'static str {
    match attach {
        Attach::Mob => "abcdefghijklmnpqrt",
        Attach::Obj => "abcfghijlnqst",
        Attach::Room => "abcdfghpqrst",
    }
}

/// The letters of a trigger's types that are not run here.
pub fn unsupported_types(t: &TriggerProto) -> String {
    let Some(a) = Attach::of(t) else { return "?".into() };
    (b'a'..=b'z').map(|c| c as char).filter(|c| t.flags & bit(*c) != 0 && !supported(a).contains(*c)).collect()
}

/// The world's triggers, compiled: the engine owns it.
#[derive(Default)]
pub struct DgBook {
    pub triggers: HashMap<u32, TriggerProto>,
    pub programs: HashMap<u32, Result<program::Program, String>>,
    /// The last error each trigger met, with its line (logged; as in tbaMUD the trigger
    /// keeps working: a failed line is skipped, a run past its budget ends).
    pub last_errors: HashMap<u32, String>,
    /// Each entity's global variables (`global`, `remote`), by its uid.
    pub globals: HashMap<String, BTreeMap<String, String>>,
    pub off: bool,
    pub stats: crate::script::ScriptStats,
    /// Triggers running inside triggers right now.
    pub depth: u32,
}

impl DgBook {
    pub fn new(world: &WorldProto) -> DgBook {
        let mut b = DgBook::default();
        for t in &world.triggers {
            b.programs.insert(t.vnum, program::compile(&t.commands));
            b.triggers.insert(t.vnum, t.clone());
        }
        b
    }

    /// The trigger `vnum` if it runs for `letter` on `attach`, compiled and on.
    pub fn runnable(&self, vnum: u32, attach: Attach, letter: char) -> Option<(&TriggerProto, &program::Program)> {
        if self.off {
            return None;
        }
        let t = self.triggers.get(&vnum)?;
        if Attach::of(t) != Some(attach) || t.flags & bit(letter) == 0 {
            return None;
        }
        let p = self.programs.get(&vnum)?.as_ref().ok()?;
        Some((t, p))
    }
}

/// The script commands pawns does not run (the line is logged and skipped, as tbaMUD
/// skips a command it does not know, or is a mob's unknown command).
const UNSUPPORTED: &[&str] = &["wtransform"];

/// The first command of a program pawns does not run, if any.
pub fn unsupported_commands(p: &program::Program) -> Option<String> {
    p.ops.iter().find_map(|op| match op {
        program::Op::Command(line) => {
            let w = line.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
            UNSUPPORTED.contains(&w.as_str()).then_some(w)
        }
        _ => None,
    })
}

/// What `pawns world check` says of a world's DG Scripts.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct DgCheck {
    pub triggers: usize,
    /// Attached (by `T` lines) and runnable here.
    pub runnable: usize,
    /// "trigger 3000 (mob, q): …" for every attached trigger that will not run whole.
    pub not_run: Vec<String>,
}

pub fn check(world: &WorldProto) -> DgCheck {
    let mut c = DgCheck { triggers: world.triggers.len(), ..Default::default() };
    let mut attached: Vec<u32> = world
        .rooms
        .iter()
        .flat_map(|r| r.triggers.iter())
        .chain(world.mobs.iter().flat_map(|m| m.triggers.iter()))
        .chain(world.objs.iter().flat_map(|o| o.triggers.iter()))
        .copied()
        .collect();
    attached.sort_unstable();
    attached.dedup();
    let by: HashMap<u32, &TriggerProto> = world.triggers.iter().map(|t| (t.vnum, t)).collect();
    for v in attached {
        let Some(t) = by.get(&v) else {
            c.not_run.push(format!("trigger {v}: attached but not defined"));
            continue;
        };
        let kind = match Attach::of(t) {
            Some(Attach::Mob) => "mob",
            Some(Attach::Obj) => "obj",
            Some(Attach::Room) => "room",
            None => "?",
        };
        let unsupported = unsupported_types(t);
        match program::compile(&t.commands) {
            Err(e) => c.not_run.push(format!("trigger {v} ({kind}): {e}")),
            Ok(_) if !unsupported.is_empty() => c.not_run.push(format!("trigger {v} ({kind}): type {unsupported} is not run")),
            Ok(p) => match unsupported_commands(&p) {
                Some(cmd) => c.not_run.push(format!("trigger {v} ({kind}): uses {cmd}, which is not run")),
                None => c.runnable += 1,
            },
        }
    }
    c
}
