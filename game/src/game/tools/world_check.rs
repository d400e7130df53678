//! `pawns world check DIR`: what a world directory holds and what is wrong with it,
//! computed from a load (nothing here reads files). In the engine, as it compiles the
//! world's Lua scripts and DG triggers to say which fail.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

pub use crate::worldfile::counts::{counts, Counts};
use crate::worldfile::{Loaded, WorldProto};

/// What the world says about itself (`profile`), resolved against its rooms and objects.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ProfileLine {
    pub family: &'static str,
    pub name: String,
    /// The mortal start room and its name (`None`: the world has no such room).
    pub start_room: Option<(u32, String)>,
    pub welcome: String,
    /// Each kit item: (vnum, short description or "(missing)", classes it is for).
    pub kit: Vec<(u32, String, Vec<u8>)>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ZoneLine {
    pub vnum: u32,
    pub name: String,
    pub rooms: usize,
    pub top: u32,
    pub lifespan: u32,
    pub reset_mode: u32,
    pub reset_commands: usize,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Report {
    pub source: String,
    pub counts: Counts,
    pub profile: ProfileLine,
    pub zones: Vec<ZoneLine>,
    pub dangling_exits: usize,
    /// (room, direction, key vnum) for doors whose key is no object of this world.
    pub missing_keys: Vec<(u32, &'static str, i32)>,
    /// (shop, keeper vnum) for shops whose keeper is no mob of this world.
    pub missing_keepers: Vec<(u32, i32)>,
    /// Reset commands that name a mob, object or room this world does not have.
    pub broken_resets: Vec<String>,
    /// Special procedures assigned (name, how many prototypes), by name; which of them
    /// this server runs is `specials::SUPPORTED`.
    pub specials: Vec<(String, usize)>,
    /// The world's Lua scripts: files, attachments, and those that fail to compile.
    pub scripts: crate::script::ScriptCheck,
    /// The world's DG Scripts triggers: how many attached ones run, and which do not.
    pub dg: crate::dg::DgCheck,
    pub warnings: Vec<String>,
}

pub fn profile_line(w: &WorldProto) -> ProfileLine {
    let p = &w.profile;
    let start = crate::worldfile::profile::start_room(w, p, None).ok();
    let mut kit = Vec::new();
    fn walk(items: &[crate::worldfile::profile::KitItem], w: &WorldProto, out: &mut Vec<(u32, String, Vec<u8>)>) {
        for i in items {
            let name = w.objs.iter().find(|o| o.vnum == i.vnum).map(|o| o.short_descr.clone()).unwrap_or_else(|| "(missing)".into());
            out.push((i.vnum, name, i.classes.clone()));
            walk(&i.contains, w, out);
        }
    }
    walk(&p.kit, w, &mut kit);
    ProfileLine {
        family: p.family.as_str(),
        name: p.name.clone(),
        start_room: start.map(|v| (v, w.rooms.iter().find(|r| r.vnum == v).map(|r| r.name.clone()).unwrap_or_default())),
        welcome: p.welcome.clone(),
        kit,
    }
}

/// The zone a room belongs to: the first zone whose `top` is at or above it (zones are
/// ordered by vnum and each covers `vnum*100 ..= top`).
pub fn zone_of(zones: &[crate::worldfile::ZoneProto], room: u32) -> Option<u32> {
    let mut sorted: Vec<(u32, u32)> = zones.iter().map(|z| (z.vnum, z.top)).collect();
    sorted.sort_unstable();
    sorted.into_iter().find(|(v, top)| room >= v * 100 && room <= *top).map(|(v, _)| v)
}

pub fn report(source: String, loaded: &Loaded) -> Report {
    let w = &loaded.world;
    let objs: HashSet<u32> = w.objs.iter().map(|o| o.vnum).collect();
    let mobs: HashSet<u32> = w.mobs.iter().map(|m| m.vnum).collect();
    let rooms: HashSet<u32> = w.rooms.iter().map(|r| r.vnum).collect();
    let triggers: HashSet<u32> = w.triggers.iter().map(|t| t.vnum).collect();
    let mut rooms_per_zone: BTreeMap<u32, usize> = BTreeMap::new();
    for r in &w.rooms {
        if let Some(z) = zone_of(&w.zones, r.vnum) {
            *rooms_per_zone.entry(z).or_default() += 1;
        }
    }
    let mut missing_keys = Vec::new();
    for r in &w.rooms {
        for (d, e) in r.exits.iter().enumerate() {
            if let Some(e) = e {
                if e.key > 0 && !objs.contains(&(e.key as u32)) {
                    missing_keys.push((r.vnum, crate::worldfile::DIR_NAMES[d], e.key));
                }
            }
        }
    }
    let missing_keepers =
        w.shops.iter().filter(|s| s.keeper < 0 || !mobs.contains(&(s.keeper as u32))).map(|s| (s.vnum, s.keeper)).collect();
    let mut broken_resets = Vec::new();
    for z in &w.zones {
        for c in &z.commands {
            let has = |set: &HashSet<u32>, v: i32| v >= 0 && set.contains(&(v as u32));
            let problem = match c.command {
                'M' if !has(&mobs, c.args[0]) => Some(format!("mob {} does not exist", c.args[0])),
                'M' if !has(&rooms, c.args[2]) => Some(format!("room {} does not exist", c.args[2])),
                'O' if !has(&objs, c.args[0]) => Some(format!("object {} does not exist", c.args[0])),
                'O' if !has(&rooms, c.args[2]) => Some(format!("room {} does not exist", c.args[2])),
                'G' | 'E' | 'P' if !has(&objs, c.args[0]) => Some(format!("object {} does not exist", c.args[0])),
                'D' | 'R' if !has(&rooms, c.args[0]) => Some(format!("room {} does not exist", c.args[0])),
                'T' if !has(&triggers, c.args[1]) => Some(format!("trigger {} does not exist", c.args[1])),
                _ => None,
            };
            if let Some(p) = problem {
                broken_resets.push(format!("zone {} line {}: {} ({})", z.vnum, c.line, c.command, p));
            }
        }
    }
    Report {
        source,
        counts: counts(w),
        profile: profile_line(w),
        zones: w
            .zones
            .iter()
            .map(|z| ZoneLine {
                vnum: z.vnum,
                name: z.name.clone(),
                rooms: rooms_per_zone.get(&z.vnum).copied().unwrap_or(0),
                top: z.top,
                lifespan: z.lifespan,
                reset_mode: z.reset_mode,
                reset_commands: z.commands.len(),
            })
            .collect(),
        dangling_exits: loaded.dangling_exits,
        missing_keys,
        missing_keepers,
        broken_resets,
        specials: {
            let mut by: BTreeMap<String, usize> = BTreeMap::new();
            for a in &w.specials {
                *by.entry(a.special.clone()).or_default() += 1;
            }
            by.into_iter().collect()
        },
        scripts: crate::script::check(w),
        dg: crate::dg::check(w),
        warnings: loaded.warnings.iter().map(|w| w.to_string()).collect(),
    }
}

impl Report {
    /// The human-readable report.
    pub fn render(&self, verbose: bool) -> String {
        use std::fmt::Write;
        let c = &self.counts;
        let mut s = String::new();
        let _ = writeln!(s, "World: {}", self.source);
        let _ = writeln!(
            s,
            "  {} zones, {} rooms, {} exits, {} mobs, {} objects, {} shops, {} zone reset commands",
            c.zones, c.rooms, c.exits, c.mobs, c.objects, c.shops, c.reset_commands
        );
        if c.triggers + c.trigger_attachments + c.quests > 0 {
            let _ = writeln!(s, "  {} triggers ({} attached), {} quests", c.triggers, c.trigger_attachments, c.quests);
        }
        if c.specials > 0 {
            type Named<'a> = Vec<&'a (String, usize)>;
            let (run, not): (Named, Named) =
                self.specials.iter().partition(|(name, _)| crate::worldfile::specials::SUPPORTED.contains(&name.as_str()));
            let list = |v: &[&(String, usize)]| v.iter().map(|(n, k)| format!("{n} ({k})")).collect::<Vec<_>>().join(", ");
            let _ = writeln!(
                s,
                "  {} special procedure assignments; run: {}",
                c.specials,
                if run.is_empty() { "none yet".into() } else { list(&run) }
            );
            if !not.is_empty() {
                let _ = writeln!(s, "  not supported (assigned, not run): {}", list(&not));
            }
        }
        let sc = &self.scripts;
        if sc.files + sc.attached.iter().sum::<usize>() > 0 {
            let [m, r, o] = sc.attached;
            let _ = writeln!(
                s,
                "  {} Lua script files; scripts attached to {m} mobs, {r} rooms, {o} objects; {}",
                sc.files,
                if sc.failing.is_empty() { "all compile".to_string() } else { format!("{} fail:", sc.failing.len()) }
            );
            for f in &sc.failing {
                let _ = writeln!(s, "    {f}");
            }
        }
        let dg = &self.dg;
        if dg.triggers > 0 {
            let _ = writeln!(
                s,
                "  DG Scripts: {} attached triggers run here; {} do not (or not whole){}",
                dg.runnable,
                dg.not_run.len(),
                if dg.not_run.is_empty() { "" } else { ":" }
            );
            let shown = if verbose { dg.not_run.len() } else { dg.not_run.len().min(20) };
            for n in &dg.not_run[..shown] {
                let _ = writeln!(s, "    {n}");
            }
            if shown < dg.not_run.len() {
                let _ = writeln!(s, "    … and {} more (--verbose lists them all)", dg.not_run.len() - shown);
            }
        }
        let p = &self.profile;
        let _ = writeln!(s, "\nProfile: {} ({})", p.name, p.family);
        match &p.start_room {
            Some((v, name)) => {
                let _ = writeln!(s, "  start room {v} ({name})");
            }
            None => {
                let _ = writeln!(s, "  start room: none (the world has no rooms)");
            }
        }
        let _ = writeln!(s, "  welcome: {}", p.welcome);
        let kit: Vec<String> = p
            .kit
            .iter()
            .map(|(v, name, classes)| if classes.is_empty() { format!("{v} {name}") } else { format!("{v} {name} (classes {classes:?})") })
            .collect();
        let _ = writeln!(s, "  starting kit: {}", if kit.is_empty() { "none".to_string() } else { kit.join(", ") });
        let _ = writeln!(s, "\nZones:");
        for z in &self.zones {
            let _ = writeln!(
                s,
                "  #{:<5} {:<40} {:>4} rooms  top {:<6} lifespan {:>3}  mode {}  {} resets",
                z.vnum,
                clip(&z.name, 40),
                z.rooms,
                z.top,
                z.lifespan,
                z.reset_mode,
                z.reset_commands
            );
        }
        let section = |s: &mut String, title: &str, items: Vec<String>| {
            let _ = writeln!(s, "\n{title}: {}", items.len());
            let shown = if verbose { items.len() } else { 20 };
            for i in items.iter().take(shown) {
                let _ = writeln!(s, "  {i}");
            }
            if items.len() > shown {
                let _ = writeln!(s, "  ... and {} more (--verbose shows all)", items.len() - shown);
            }
        };
        let _ = writeln!(s, "\nDangling exits (removed): {}", self.dangling_exits);
        section(
            &mut s,
            "Doors whose key is no object",
            self.missing_keys.iter().map(|(r, d, k)| format!("room {r} {d}: key {k}")).collect(),
        );
        section(
            &mut s,
            "Shops with a missing keeper",
            self.missing_keepers.iter().map(|(sh, k)| format!("shop {sh}: keeper {k}")).collect(),
        );
        section(&mut s, "Reset commands naming nothing", self.broken_resets.clone());
        section(&mut s, "Warnings", self.warnings.clone());
        s
    }
}

fn clip(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worldfile::{load, MemSource};

    #[test]
    fn report_counts_and_names_problems() {
        let mut m = MemSource::default();
        m.0.insert("wld/index".into(), "a.wld\n$\n".into());
        m.0.insert(
            "wld/a.wld".into(),
            "#100\nA~\nx\n~\n1 0 0\nD0\n~\ndoor~\n1 999 101\nD2\n~\n~\n0 -1 555\nS\n#101\nB~\ny\n~\n1 0 0\nS\n$\n".into(),
        );
        m.0.insert("zon/index".into(), "1.zon\n$\n".into());
        m.0.insert("zon/1.zon".into(), "#1\nZone~\n199 10 2\nM 0 50 1 100\nO 0 7 1 101\nS\n$\n".into());
        m.0.insert("shp/index".into(), "1.shp\n$\n".into());
        m.0.insert(
            "shp/1.shp".into(),
            "CircleMUD v3.0 Shop File~\n#1~\n-1\n1.1\n0.9\n-1\na~\nb~\nc~\nd~\ne~\nf~\ng~\n0\n0\n42\n0\n100\n-1\n0\n28\n0\n0\n$~\n".into(),
        );
        let loaded = load(&m).unwrap();
        let r = report("mem".into(), &loaded);
        assert_eq!(
            r.counts,
            Counts {
                zones: 1,
                rooms: 2,
                exits: 1,
                mobs: 0,
                objects: 0,
                shops: 1,
                reset_commands: 2,
                triggers: 0,
                trigger_attachments: 0,
                quests: 0,
                specials: 0
            }
        );
        assert_eq!(r.profile.start_room, Some((100, "A".to_string())), "no 3001 here: the first real room");
        assert_eq!(r.dangling_exits, 1);
        assert_eq!(r.missing_keys, vec![(100, "north", 999)]);
        assert_eq!(r.missing_keepers, vec![(1, 42)]);
        assert_eq!(r.broken_resets.len(), 2, "{:?}", r.broken_resets);
        assert_eq!(r.zones[0].rooms, 2);
        let text = r.render(false);
        assert!(text.contains("1 zones, 2 rooms, 1 exits"), "{text}");
        assert!(text.contains("room 100 north: key 999"), "{text}");
    }
}
