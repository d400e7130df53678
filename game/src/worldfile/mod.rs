//! The reader for the CircleMUD world-file family.
//!
//! Loading is index-driven: each kind's `index` names the files to read, in order, and
//! files not named there are not read. Nothing in a world file can make the reader
//! panic; a malformed record is skipped with a [`Warning`] that names file, line and
//! vnum, and the rest of the world still loads.

pub mod colour;
pub mod counts;
pub mod lexer;
mod mob;
mod obj;
pub mod profile;
mod qst;
mod shp;
pub mod social;
pub mod specials;
pub mod stored;
mod trg;
pub mod types;
mod wld;
mod zon;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

pub use types::*;

/// Where area files come from: a directory on disk or the starter world in the binary.
pub trait WorldSource {
    /// Reads `kind/name` (e.g. `wld/index`). `None` when the file does not exist.
    fn read(&self, rel: &str) -> Result<Option<String>, String>;
    fn describe(&self) -> String;
    /// The world's Lua scripts (see `lua_files`): none unless the source has them.
    fn lua_scripts(&self, _warnings: &mut Vec<Warning>) -> Result<Vec<LuaScript>, String> {
        Ok(Vec::new())
    }
}

/// The most one script file may weigh, and all of them together.
pub const MAX_SCRIPT_BYTES: u64 = 1 << 20;
pub const MAX_SCRIPTS_BYTES: u64 = 64 << 20;

/// Where a world directory keeps its Lua scripts: a `scripts/` folder inside it, or
/// beside it (the original layout: `lib/world` and `lib/scripts`).
pub fn scripts_dir(world: &Path) -> Option<PathBuf> {
    [world.join("scripts"), world.join("..").join("scripts")].into_iter().find(|d| d.is_dir())
}

/// Every `.lua` file under `root` (hidden folders such as `.svn` skipped), paths
/// relative to it with `/`, in path order; files too large are warned and left out.
pub fn lua_files(root: &Path, warnings: &mut Vec<Warning>) -> Result<Vec<LuaScript>, String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    let mut total = 0u64;
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let kind = entry.file_type().map_err(|e| format!("{}: {e}", path.display()))?;
            if name.starts_with('.') {
                continue;
            }
            if kind.is_dir() {
                stack.push(path);
                continue;
            }
            if !name.ends_with(".lua") || !kind.is_file() {
                continue;
            }
            let rel = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
            if size > MAX_SCRIPT_BYTES || total + size > MAX_SCRIPTS_BYTES {
                warnings.push(Warning {
                    file: format!("scripts/{rel}"),
                    line: 0,
                    vnum: None,
                    message: format!(
                        "{size} bytes: past the limit for scripts ({MAX_SCRIPT_BYTES} per file, {MAX_SCRIPTS_BYTES} in all); left out"
                    ),
                });
                continue;
            }
            total += size;
            let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            // Old scripts may be Latin-1: each byte its own character, never refused.
            let source = String::from_utf8(bytes).unwrap_or_else(|e| e.into_bytes().iter().map(|b| *b as char).collect());
            out.push(LuaScript { path: rel, source });
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

pub struct DirSource(pub PathBuf);

impl WorldSource for DirSource {
    fn read(&self, rel: &str) -> Result<Option<String>, String> {
        let p = self.0.join(rel);
        match std::fs::read(&p) {
            // Old area files are not always UTF-8; decode leniently rather than refuse.
            Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("{}: {e}", p.display())),
        }
    }
    fn describe(&self) -> String {
        self.0.display().to_string()
    }
    fn lua_scripts(&self, warnings: &mut Vec<Warning>) -> Result<Vec<LuaScript>, String> {
        match scripts_dir(&self.0) {
            Some(dir) => lua_files(&dir, warnings),
            None => Ok(Vec::new()),
        }
    }
}

/// The starter world written for this project (`data/world`), embedded at build time.
pub struct StarterWorld;

include!(concat!(env!("OUT_DIR"), "/starter_world.rs"));

impl WorldSource for StarterWorld {
    fn read(&self, rel: &str) -> Result<Option<String>, String> {
        Ok(STARTER_FILES.iter().find(|(p, _)| *p == rel).map(|(_, t)| t.to_string()))
    }
    fn describe(&self) -> String {
        "starter world (embedded)".into()
    }
}

/// Area files held in memory (relative path → text): for tools, tests and fuzzing.
#[derive(Default)]
pub struct MemSource(pub std::collections::HashMap<String, String>);

impl WorldSource for MemSource {
    fn read(&self, rel: &str) -> Result<Option<String>, String> {
        Ok(self.0.get(rel).cloned())
    }
    fn describe(&self) -> String {
        "in-memory world".into()
    }
    /// Entries named `scripts/<path>.lua`.
    fn lua_scripts(&self, _warnings: &mut Vec<Warning>) -> Result<Vec<LuaScript>, String> {
        let mut out: Vec<LuaScript> = self
            .0
            .iter()
            .filter_map(|(k, v)| Some(LuaScript { path: k.strip_prefix("scripts/")?.to_string(), source: v.clone() }))
            .filter(|s| s.path.ends_with(".lua"))
            .collect();
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }
}

/// Collects records and warnings for one file.
pub struct Sink<'a, T> {
    file: &'a str,
    out: &'a mut Vec<T>,
    seen: &'a mut HashSet<u32>,
    warnings: &'a mut Vec<Warning>,
}

impl<T> Sink<'_, T> {
    fn push(&mut self, vnum: u32, line: u32, item: T) {
        if self.seen.insert(vnum) {
            self.out.push(item);
        } else {
            self.warn(line, Some(vnum), "duplicate vnum; the first definition is kept".into());
        }
    }
    fn warn(&mut self, line: u32, vnum: Option<u32>, message: String) {
        self.warnings.push(Warning { file: self.file.to_string(), line, vnum, message });
    }
}

/// Walks the `#vnum` records of one file until `$`: each is parsed by `record`, which
/// may add warnings of its own; a record that fails is skipped with a warning naming
/// its line and vnum, and reading goes on at the next record.
pub(crate) fn each_record<T>(
    lx: &mut lexer::Lexer<'_>,
    sink: &mut Sink<'_, T>,
    what: &str,
    mut record: impl FnMut(&mut lexer::Lexer<'_>, u32, &mut Vec<(u32, String)>) -> lexer::LexResult<T>,
) {
    while let Some(line) = lx.peek_content() {
        if line.trim_start().starts_with('$') {
            return;
        }
        let start = lx.line_no();
        let header = lx.content_line().unwrap_or_default();
        let Some(vnum) = lexer::parse_vnum_header(header) else {
            sink.warn(start, None, format!("expected '#vnum', found '{}'", wld::clip(header)));
            lx.skip_to_record();
            continue;
        };
        let mut warnings = Vec::new();
        match record(lx, vnum, &mut warnings) {
            Ok(r) => sink.push(vnum, start, r),
            Err(e) => {
                sink.warn(e.line, Some(vnum), format!("{what} skipped: {}", e.message));
                lx.skip_to_record();
            }
        }
        for (line, msg) in warnings {
            sink.warn(line, Some(vnum), msg);
        }
    }
}

/// A load that could not happen at all (as opposed to warnings, which it survives).
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("world {source_name}: cannot read {file}: {reason}")]
    Unreadable { source_name: String, file: String, reason: String },
    #[error("world {0}: no wld/index (is this a CircleMUD world directory?)")]
    NoIndex(String),
    #[error("world {0}: no rooms loaded")]
    Empty(String),
    #[error("world {source_name}: {reason}")]
    BadProfile { source_name: String, reason: String },
}

impl LoadError {
    pub fn code(&self) -> &'static str {
        match self {
            LoadError::Unreadable { .. } => "world_unreadable",
            LoadError::NoIndex(_) => "world_no_index",
            LoadError::Empty(_) => "world_empty",
            LoadError::BadProfile { .. } => "world_profile_invalid",
        }
    }
}

pub struct Loaded {
    pub world: WorldProto,
    pub warnings: Vec<Warning>,
    /// Exits that named rooms that do not exist (turned into no exit).
    pub dangling_exits: usize,
}

fn index_entries(src: &dyn WorldSource, kind: &str) -> Result<Option<Vec<String>>, LoadError> {
    let rel = format!("{kind}/index");
    let text = src.read(&rel).map_err(|reason| LoadError::Unreadable { source_name: src.describe(), file: rel.clone(), reason })?;
    let Some(text) = text else { return Ok(None) };
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for line in text.lines() {
        let name = line.trim();
        if name.is_empty() || name.starts_with('*') {
            continue;
        }
        if name.starts_with('$') {
            break;
        }
        // A duplicated index entry loads once.
        if seen.insert(name.to_string()) {
            out.push(name.to_string());
        }
    }
    Ok(Some(out))
}

fn load_kind<T>(
    src: &dyn WorldSource,
    kind: &str,
    out: &mut Vec<T>,
    warnings: &mut Vec<Warning>,
    parse: fn(&str, &mut Sink<'_, T>),
) -> Result<bool, LoadError> {
    let Some(files) = index_entries(src, kind)? else {
        return Ok(false);
    };
    let mut seen = HashSet::new();
    for name in files {
        let rel = format!("{kind}/{name}");
        match src.read(&rel) {
            Ok(Some(text)) => {
                let mut sink = Sink { file: &rel, out, seen: &mut seen, warnings };
                parse(&text, &mut sink);
            }
            Ok(None) => warnings.push(Warning {
                file: format!("{kind}/index"),
                line: 0,
                vnum: None,
                message: format!("{name} is in the index but does not exist"),
            }),
            Err(reason) => return Err(LoadError::Unreadable { source_name: src.describe(), file: rel, reason }),
        }
    }
    Ok(true)
}

/// Loads a whole world from a source.
pub fn load(src: &dyn WorldSource) -> Result<Loaded, LoadError> {
    let mut w = WorldProto::default();
    let mut warnings = Vec::new();
    if !load_kind(src, "wld", &mut w.rooms, &mut warnings, wld::parse)? {
        return Err(LoadError::NoIndex(src.describe()));
    }
    load_kind(src, "mob", &mut w.mobs, &mut warnings, mob::parse)?;
    load_kind(src, "obj", &mut w.objs, &mut warnings, obj::parse)?;
    load_kind(src, "zon", &mut w.zones, &mut warnings, zon::parse)?;
    load_kind(src, "shp", &mut w.shops, &mut warnings, shp::parse)?;
    // tbaMUD's DG Scripts triggers and quests; other worlds have neither directory.
    load_kind(src, "trg", &mut w.triggers, &mut warnings, trg::parse)?;
    load_kind(src, "qst", &mut w.quests, &mut warnings, qst::parse)?;
    // Socials are optional: CircleMUD keeps them in lib/misc/socials.
    match src.read("misc/socials") {
        Ok(Some(text)) => w.socials = social::parse("misc/socials", &text, &mut warnings),
        Ok(None) => {}
        Err(reason) => return Err(LoadError::Unreadable { source_name: src.describe(), file: "misc/socials".into(), reason }),
    }
    // Special procedures: the world's own table, if it ships one.
    match src.read(specials::FILE) {
        Ok(Some(text)) => w.specials = specials::parse(&text, &mut warnings),
        Ok(None) => {}
        Err(reason) => return Err(LoadError::Unreadable { source_name: src.describe(), file: specials::FILE.into(), reason }),
    }
    // Lua scripts (Dark Pawns): a `scripts/` folder in the world directory or beside it.
    w.lua_scripts = src.lua_scripts(&mut warnings).map_err(|reason| LoadError::Unreadable {
        source_name: src.describe(),
        file: "scripts/".into(),
        reason,
    })?;
    if w.rooms.is_empty() {
        return Err(LoadError::Empty(src.describe()));
    }
    {
        let (mobs, objs, rooms): (HashSet<u32>, HashSet<u32>, HashSet<u32>) =
            (w.mobs.iter().map(|m| m.vnum).collect(), w.objs.iter().map(|o| o.vnum).collect(), w.rooms.iter().map(|r| r.vnum).collect());
        for a in &w.specials {
            let known = match a.kind {
                specials::SpecialKind::Mob => mobs.contains(&a.vnum),
                specials::SpecialKind::Obj => objs.contains(&a.vnum),
                specials::SpecialKind::Room => rooms.contains(&a.vnum),
            };
            if !known {
                warnings.push(Warning {
                    file: specials::FILE.into(),
                    line: 0,
                    vnum: Some(a.vnum),
                    message: format!("{} assigned to {} {}, which this world does not have", a.special, a.kind.as_str(), a.vnum),
                });
            }
        }
    }
    let family = profile::family_of(&w);
    // tbaMUD assigns its procedures in C: a tbaMUD world without a table of its own
    // gets those (as far as it has the mobs and things).
    let own_table = src.read(specials::FILE).ok().flatten().is_some();
    if family == profile::Family::TbaMud && !own_table {
        let (mobs, objs): (HashSet<u32>, HashSet<u32>) = (w.mobs.iter().map(|m| m.vnum).collect(), w.objs.iter().map(|o| o.vnum).collect());
        w.specials = specials::tbamud_builtin()
            .into_iter()
            .filter(|a| match a.kind {
                specials::SpecialKind::Mob => mobs.contains(&a.vnum),
                specials::SpecialKind::Obj => objs.contains(&a.vnum),
                specials::SpecialKind::Room => false,
            })
            .collect();
    }
    w.profile = profile::WorldProfile::read(src, family).map_err(|reason| LoadError::BadProfile { source_name: src.describe(), reason })?;
    // A kit the world's own file names must exist; a family's default kit is given as
    // far as the world has its objects (a small world made from parts of one has few).
    let own_file = src.read(profile::PROFILE_FILE).ok().flatten().is_some();
    for vnum in w.profile.missing_kit_objects(&w).into_iter().filter(|_| own_file) {
        warnings.push(Warning {
            file: profile::PROFILE_FILE.into(),
            line: 0,
            vnum: Some(vnum),
            message: "the starting kit names an object this world does not have; new characters go without it".into(),
        });
    }
    let triggers: HashSet<u32> = w.triggers.iter().map(|t| t.vnum).collect();
    if !triggers.is_empty() || w.rooms.iter().any(|r| !r.triggers.is_empty()) {
        let attached = w
            .rooms
            .iter()
            .map(|r| (r.vnum, "room", &r.triggers))
            .chain(w.mobs.iter().map(|m| (m.vnum, "mob", &m.triggers)))
            .chain(w.objs.iter().map(|o| (o.vnum, "object", &o.triggers)));
        for (vnum, kind, ts) in attached {
            for t in ts.iter().filter(|t| !triggers.contains(t)) {
                warnings.push(Warning {
                    file: format!("trg (attached to {kind} {vnum})"),
                    line: 0,
                    vnum: Some(vnum),
                    message: format!("trigger {t} does not exist"),
                });
            }
        }
    }
    let rooms: HashSet<u32> = w.rooms.iter().map(|r| r.vnum).collect();
    let mut dangling = 0;
    for r in &mut w.rooms {
        for (d, exit) in r.exits.iter_mut().enumerate() {
            if let Some(e) = exit {
                if e.to_room < 0 || !rooms.contains(&(e.to_room as u32)) {
                    if e.to_room >= 0 {
                        dangling += 1;
                        warnings.push(Warning {
                            file: format!("wld (zone {})", r.zone),
                            line: 0,
                            vnum: Some(r.vnum),
                            message: format!("exit {} leads to missing room {}; removed", DIR_NAMES[d], e.to_room),
                        });
                    }
                    *exit = None;
                }
            }
        }
    }
    Ok(Loaded { world: w, warnings, dangling_exits: dangling })
}

/// Loads from a directory path.
pub fn load_dir(dir: &Path) -> Result<Loaded, LoadError> {
    load(&DirSource(dir.to_path_buf()))
}

#[cfg(test)]
mod tests;
