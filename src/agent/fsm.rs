//! Decisions without a language model.
//!
//! [`survival`] is the seed's combat FSM and runs before any policy: hit points under
//! 25 % in a fight → `flee`; not fighting while a mob in the room is fighting us →
//! counter-attack it by its `target_string`. It never starts a fight with an idle mob.
//!
//! [`Planner`] is `--policy fsm`: a whole player without an LLM. It fights only what
//! `consider` (the same command a human uses) calls an even match or easier, loots
//! corpses and what lies on the floor, rests when hurt, and explores the exits it has
//! used least, avoiding the rooms where it died. It reads the memory the server injected
//! at login as a player would: whoever its `### Relationships` call dangerous (a mob)
//! or a rival (a player) it leaves the room rather than face — so what an agent
//! remembers, and how it felt about it, shows in what it does. [`random_action`] is
//! `--policy random`.

use std::collections::{HashMap, HashSet};

use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::Rng;

use super::state::{GameState, Heard, Mob};

/// A command to send, with why.
#[derive(Debug, Clone, PartialEq)]
pub struct Action {
    pub command: String,
    /// Something to `say` after it (LLM policy).
    pub say: Option<String>,
    pub why: String,
}

impl Action {
    pub fn new(command: impl Into<String>, why: impl Into<String>) -> Action {
        Action { command: command.into(), say: None, why: why.into() }
    }
}

/// The share of hit points under which the FSM flees.
pub const FLEE_BELOW_PCT: i64 = 25;

fn in_a_fight(s: &GameState) -> bool {
    s.fighting || s.position == "fighting"
}

/// The seed's survival rules. "Regardless of combat state" is read as: whatever the
/// `FIGHTING` flag says, a mob in the room fighting counts as a fight (the flag and the
/// room list arrive in different deltas); out of any fight, low hit points are for resting.
pub fn survival(s: &GameState) -> Option<Action> {
    if !s.ready || s.max_hp <= 0 || matches!(s.position.as_str(), "dead" | "mortally wounded" | "incapacitated" | "stunned") {
        return None;
    }
    let mob_fighting = s.mobs.iter().any(|m| m.fighting);
    let act = if s.hp_pct() < FLEE_BELOW_PCT && (in_a_fight(s) || mob_fighting) {
        Action::new("flee", format!("HP {}/{} is under {FLEE_BELOW_PCT}%", s.hp, s.max_hp))
    } else if !in_a_fight(s) {
        let m = attacker(s)?;
        Action::new(format!("kill {}", m.target_string), format!("{} is attacking", m.name))
    } else {
        return None;
    };
    // Nobody flees or fights lying down: the game refuses both (`wrong_position`).
    Some(match s.position.as_str() {
        "sleeping" => Action::new("wake", format!("woken to {}: {}", act.command, act.why)),
        "resting" | "sitting" => Action::new("stand", format!("standing to {}: {}", act.command, act.why)),
        _ => act,
    })
}

/// A mob fighting in the room that is fighting us: alone with us, or named in combat
/// text aimed at us.
fn attacker(s: &GameState) -> Option<&Mob> {
    s.mobs.iter().find(|m| m.fighting && !m.target_string.is_empty() && (s.players.is_empty() || s.attacked_by(m)))
}

/// `consider`'s answers, as level differences (victim − us).
const CONSIDER: [(&str, i32); 11] = [
    ("now where did that chicken go", -10),
    ("you could do it with a needle", -5),
    ("fairly easy", -1),
    ("easy", -2),
    ("the perfect match", 0),
    ("you would need a lot of luck and great equipment", 3),
    ("you would need a lot of luck", 2),
    ("you would need some luck", 1),
    ("do you feel lucky, punk", 4),
    ("you are mad", 11),
    ("are you mad", 6),
];

/// Dark Pawns' `consider` (its own `do_consider`): three clauses — damage, hit points,
/// level — each read as a difference; the answer means the most dangerous of them.
const DP_CONSIDER: [(&str, i32); 21] = [
    ("could eat you for lunch", 6),
    ("could tear you up in a fight", 3),
    ("could hurt you in a fight", 1),
    ("looks like a fair fight", 0),
    ("looks like a very easy kill", -2),
    ("looks like an easy kill", -1),
    ("might not even be worth the effort", -5),
    ("in much better physical shape", 4),
    ("in a lot better physical shape", 2),
    ("in better physical shape", 1),
    ("in about the same physical shape", 0),
    ("in a little worse physical shape", -1),
    ("in a worse physical shape", -2),
    ("in a lot worse physical shape", -3),
    ("of many won battles", 4),
    ("seems to know", 2),
    ("about as confident", 0),
    ("seems less confident", -1),
    ("much less confident", -3),
    ("ready to run from a fight", -5),
    ("never been in battle before", -7),
];

/// The level difference a `consider` answer means: CircleMUD's lines, or Dark Pawns'
/// three clauses (the most dangerous counts).
pub fn consider_diff(text: &str) -> Option<i32> {
    let t = text.trim().to_ascii_lowercase();
    if let Some((_, d)) = CONSIDER.iter().find(|(p, _)| t.starts_with(p)) {
        return Some(*d);
    }
    // Its clauses are wrapped over lines: read them as one.
    let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut seen = DP_CONSIDER.iter().filter(|(p, _)| t.contains(p)).map(|(_, d)| *d).peekable();
    seen.peek()?;
    seen.max()
}

/// What the planner makes of a mob whose `consider` answer it could not read: not to
/// be fought, and not asked again.
const UNREADABLE: i32 = i32::MAX;

fn mob_key(m: &Mob) -> String {
    if m.vnum != 0 {
        format!("v{}", m.vnum)
    } else {
        m.name.to_ascii_lowercase()
    }
}

/// `--policy fsm`.
#[derive(Debug)]
pub struct Planner {
    rng: SmallRng,
    /// Mob → level difference, learned from `consider`.
    considered: HashMap<String, i32>,
    /// The mob a `consider` was sent for.
    asking: Option<String>,
    /// Attacks started per (room, mob) that did not become a fight.
    attempts: HashMap<(i64, String), u32>,
    /// Things on the floor already tried (taken or refused).
    tried: HashSet<(i64, String)>,
    /// (room, exit) → times taken.
    used: HashMap<(i64, String), u32>,
    /// Rooms where the agent died.
    deadly: HashSet<i64>,
    /// Resting until hit points are back.
    resting: bool,
    /// Where the last move started, to learn which exit leads to a deadly room.
    last_move: Option<(i64, String)>,
    /// Whom the injected memory calls dangerous or a rival (lower-cased), and the
    /// summary it was read from.
    feared: HashSet<String>,
    read_summary: String,
    /// A room with no exit seen: the room, and how many ways out were tried there.
    blind: Option<(i64, usize)>,
}

/// Whom a memory summary's `### Relationships` call dangerous (mobs) or a rival or wary
/// (players), lower-cased: "A grizzly bear — dangerous (met 3 times)".
pub fn feared_in(summary: &str) -> HashSet<String> {
    let Some(at) = summary.find("### Relationships") else { return HashSet::new() };
    summary[at..]
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("###"))
        .filter_map(|l| {
            let mut parts = l.split(" — ");
            let who = parts.next()?.trim();
            let how = parts.next()?;
            ["dangerous", "rival", "wary"].iter().any(|w| how.starts_with(w)).then(|| who.to_lowercase())
        })
        .collect()
}

impl Planner {
    pub fn new(rng: SmallRng) -> Planner {
        Planner {
            rng,
            considered: HashMap::new(),
            asking: None,
            attempts: HashMap::new(),
            tried: HashSet::new(),
            used: HashMap::new(),
            deadly: HashSet::new(),
            resting: false,
            last_move: None,
            feared: HashSet::new(),
            read_summary: String::new(),
            blind: None,
        }
    }

    /// Learns from what the game said.
    pub fn observe(&mut self, s: &GameState, heard: &[Heard], died_in: Option<i64>) {
        for h in heard {
            if let (Some(key), Some(d)) = (self.asking.as_ref(), consider_diff(&h.text)) {
                self.considered.insert(key.clone(), d);
                self.asking = None;
            }
        }
        if let Some(room) = died_in {
            self.deadly.insert(room);
            // The exit that led there is as bad as the room.
            if let Some((from, dir)) = self.last_move.take() {
                *self.used.entry((from, dir)).or_default() += 1_000;
            }
            self.resting = false;
        }
        if s.fighting {
            self.attempts.retain(|(room, _), _| *room != s.room_vnum);
        }
    }

    /// The next command, or `None` to let the game run (a fight, resting).
    pub fn decide(&mut self, s: &GameState) -> Option<Action> {
        if !s.ready || in_a_fight(s) {
            return None;
        }
        let tired = self.tired(s);
        match s.position.as_str() {
            "dead" | "mortally wounded" | "incapacitated" | "stunned" => return None,
            "sleeping" if self.resting && (s.hp_pct() < 90 || tired) => return None,
            "resting" | "sitting" if self.resting && (s.hp_pct() < 90 || tired) => return None,
            "sleeping" => return Some(Action::new("wake", "rested")),
            "resting" | "sitting" => {
                self.resting = false;
                return Some(Action::new("stand", "rested"));
            }
            _ => {}
        }
        if s.memory_summary != self.read_summary {
            self.feared = feared_in(&s.memory_summary);
            self.read_summary = s.memory_summary.clone();
        }
        let feared = s.mobs.iter().map(|m| &m.name).chain(&s.players).find(|n| self.feared.contains(&n.to_lowercase()));
        if let Some(who) = feared {
            let why = format!("remembers {who} as dangerous: leaving");
            return self.explore(s).map(|a| Action { why, ..a });
        }
        if s.hp_pct() < 50 {
            self.resting = true;
            return Some(Action::new("rest", format!("HP {}/{}: resting", s.hp, s.max_hp)));
        }
        // Out of breath: walking is refused ("You are too exhausted"), so rest until the
        // moves are back rather than try again and again.
        if self.out_of_moves(s) {
            self.resting = true;
            return Some(Action::new("rest", format!("moves {}/{}: too tired to walk, resting", s.moves, s.max_moves)));
        }
        if let Some(a) = self.loot(s) {
            return Some(a);
        }
        if let Some(a) = self.fight(s) {
            return Some(a);
        }
        self.explore(s)
    }

    fn loot(&mut self, s: &GameState) -> Option<Action> {
        for it in &s.items {
            let id = if it.instance_id.is_empty() { it.name.clone() } else { it.instance_id.clone() };
            if !self.tried.insert((s.room_vnum, id)) {
                continue;
            }
            let kw = it.target_string.rsplit('.').next().unwrap_or("");
            if it.name.to_ascii_lowercase().contains("corpse") {
                return Some(Action::new(format!("get all {}", it.target_string), format!("looting {}", it.name)));
            }
            if !kw.is_empty() {
                return Some(Action::new(format!("get {}", it.target_string), format!("picking up {}", it.name)));
            }
        }
        None
    }

    fn fight(&mut self, s: &GameState) -> Option<Action> {
        if s.hp_pct() < 70 {
            return None;
        }
        for m in &s.mobs {
            if m.target_string.is_empty() {
                continue;
            }
            let key = mob_key(m);
            // Asked, and no answer it could read came back: never ask again (it asked a
            // Dark Pawns knight 1,048 times in a row).
            if self.asking.as_ref() == Some(&key) && !self.considered.contains_key(&key) {
                self.considered.insert(key.clone(), UNREADABLE);
                self.asking = None;
                continue;
            }
            match self.considered.get(&key) {
                None => {
                    self.asking = Some(key);
                    return Some(Action::new(format!("consider {}", m.target_string), format!("sizing up {}", m.name)));
                }
                Some(d) if *d <= 0 => {
                    let n = self.attempts.entry((s.room_vnum, key)).or_default();
                    if *n >= 2 {
                        continue;
                    }
                    *n += 1;
                    return Some(Action::new(format!("kill {}", m.target_string), format!("{} is an even match or easier", m.name)));
                }
                Some(_) => continue,
            }
        }
        None
    }

    fn explore(&mut self, s: &GameState) -> Option<Action> {
        if s.exits.is_empty() {
            // Look once; then try each way in turn rather than look again and again (a
            // planner looked 233 times in a row in a room whose exits it could not see).
            const WAYS: [&str; 6] = ["north", "east", "south", "west", "up", "down"];
            return Some(match self.blind {
                Some((room, tried)) if room == s.room_vnum => {
                    self.blind = Some((room, tried + 1));
                    let way = WAYS[tried % WAYS.len()];
                    Action::new(way, format!("no way out seen: trying {way}"))
                }
                _ => {
                    self.blind = Some((s.room_vnum, 0));
                    Action::new("look", "no way out seen")
                }
            });
        }
        let mut options: Vec<(u32, &String)> =
            s.exits.iter().map(|d| (*self.used.get(&(s.room_vnum, d.clone())).unwrap_or(&0), d)).collect();
        options.shuffle(&mut self.rng);
        options.sort_by_key(|(n, _)| *n);
        let (_, dir) = options[0];
        *self.used.entry((s.room_vnum, dir.clone())).or_default() += 1;
        self.last_move = Some((s.room_vnum, dir.clone()));
        Some(Action::new(dir.clone(), "exploring the exit used least"))
    }

    /// Too few moves left to walk on (under a tenth, or 5).
    fn out_of_moves(&self, s: &GameState) -> bool {
        s.max_moves > 0 && s.moves < (s.max_moves / 10).max(5)
    }

    /// Resting for moves: until they are back over half.
    fn tired(&self, s: &GameState) -> bool {
        s.max_moves > 0 && s.moves * 2 < s.max_moves
    }

    /// Rooms where the agent died (for reports).
    pub fn deadly_rooms(&self) -> usize {
        self.deadly.len()
    }
}

/// `--policy random`: a random exit, a look, or (rarely) a swing at a mob.
pub fn random_action(s: &GameState, rng: &mut SmallRng) -> Option<Action> {
    if !s.ready || in_a_fight(s) {
        return None;
    }
    if !matches!(s.position.as_str(), "standing" | "") {
        return Some(Action::new("stand", "random: stand up"));
    }
    let roll: f64 = rng.gen();
    if roll < 0.1 {
        if let Some(m) = s.mobs.choose(rng) {
            return Some(Action::new(format!("kill {}", m.target_string), "random: attack"));
        }
    }
    if roll < 0.2 || s.exits.is_empty() {
        return Some(Action::new("look", "random: look"));
    }
    s.exits.choose(rng).map(|d| Action::new(d.clone(), "random: walk"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn st(hp: i64, fighting: bool, mobs: Vec<Mob>) -> GameState {
        GameState {
            ready: true,
            hp,
            max_hp: 100,
            fighting,
            position: if fighting { "fighting".into() } else { "standing".into() },
            room_vnum: 1,
            exits: vec!["north".into()],
            mobs,
            ..Default::default()
        }
    }

    fn goblin(fighting: bool) -> Mob {
        Mob { name: "a small goblin".into(), target_string: "2.goblin".into(), vnum: 3001, fighting, ..Default::default() }
    }

    #[test]
    fn survival_flees_low_and_counter_attacks_only_attackers() {
        assert_eq!(survival(&st(24, true, vec![goblin(true)])).unwrap().command, "flee");
        assert_eq!(survival(&st(25, true, vec![goblin(true)])), None, "25% is not under 25%");
        // Not fighting yet, but the goblin is on us (the flag lags): flee, not counter.
        assert_eq!(survival(&st(10, false, vec![goblin(true)])).unwrap().command, "flee");
        // Out of any fight at low HP: the policy rests; the FSM does nothing.
        assert_eq!(survival(&st(10, false, vec![goblin(false)])), None);
        assert_eq!(survival(&st(90, false, vec![goblin(true)])).unwrap().command, "kill 2.goblin");
        assert_eq!(survival(&st(90, false, vec![goblin(false)])), None, "never attacks idle mobs");
        // Another player is here: the goblin may be fighting them.
        let mut s = st(90, false, vec![goblin(true)]);
        s.players = vec!["Bram".into()];
        assert_eq!(survival(&s), None);
        s.recent.push_back(Heard { kind: "combat".into(), text: "A small goblin hits you.".into(), from: None, re: None });
        assert_eq!(survival(&s).unwrap().command, "kill 2.goblin");
        let mut dead = st(1, true, vec![goblin(true)]);
        dead.position = "stunned".into();
        assert_eq!(survival(&dead), None);
    }

    /// A room with no exit it can see: one look, then each way in turn.
    #[test]
    fn the_planner_looks_once_then_tries_the_ways_out() {
        let mut p = Planner::new(SmallRng::seed_from_u64(1));
        let mut s = st(100, false, vec![]);
        s.exits.clear();
        let got: Vec<String> = (0..4).map(|_| p.decide(&s).unwrap().command).collect();
        assert_eq!(got, vec!["look", "north", "east", "south"]);
        s.room_vnum += 1;
        assert_eq!(p.decide(&s).unwrap().command, "look", "a new room: look first");
    }

    /// Issue 54: the planner fled and fought while resting (the game refused 34 of 46
    /// flees: `wrong_position`) and walked on with no moves left (2,600 refused moves).
    #[test]
    fn the_planner_stands_before_it_flees_and_rests_when_out_of_moves() {
        let mut s = st(10, true, vec![goblin(true)]);
        s.position = "resting".into();
        let a = survival(&s).unwrap();
        assert_eq!((a.command.as_str(), a.why.as_str()), ("stand", "standing to flee: HP 10/100 is under 25%"));
        s.position = "sleeping".into();
        assert_eq!(survival(&s).unwrap().command, "wake");
        let mut s = st(90, false, vec![goblin(true)]);
        s.position = "sitting".into();
        assert_eq!(survival(&s).unwrap().command, "stand");

        let mut p = Planner::new(SmallRng::seed_from_u64(1));
        let mut s = st(100, false, vec![]);
        (s.moves, s.max_moves) = (3, 100);
        let a = p.decide(&s).unwrap();
        assert_eq!((a.command.as_str(), a.why.as_str()), ("rest", "moves 3/100: too tired to walk, resting"));
        s.position = "resting".into();
        s.moves = 40;
        assert_eq!(p.decide(&s), None, "resting until the moves are back over half");
        s.moves = 60;
        assert_eq!(p.decide(&s).unwrap().command, "stand");
        s.position = "standing".into();
        assert_eq!(p.decide(&s).unwrap().command, "north", "walks again");
    }

    #[test]
    fn the_planner_leaves_what_its_memory_calls_dangerous() {
        let summary = "## Memory\n\n### Session 1\n\nWas killed by a small goblin (a harrowing moment).\n\n### Relationships\n\nA small goblin — dangerous (met 2 times)\nBram — rival (met once)\nCora — friendly (met once)\n\n### World map\n\nThe Yard: east → 8011\n";
        assert_eq!(feared_in(summary), ["a small goblin", "bram"].into_iter().map(String::from).collect());
        let mut p = Planner::new(SmallRng::seed_from_u64(1));
        let mut s = st(100, false, vec![goblin(false)]);
        assert_eq!(p.decide(&s).unwrap().command, "consider 2.goblin", "no memory: sizes it up");
        s.memory_summary = summary.into();
        let a = p.decide(&s).unwrap();
        assert_eq!((a.command.as_str(), a.why.as_str()), ("north", "remembers a small goblin as dangerous: leaving"));
        // Felt as nothing (a valence:false memory says "known"): it stays and sizes it up.
        let mut p = Planner::new(SmallRng::seed_from_u64(1));
        s.memory_summary = summary.replace("dangerous", "known");
        assert_eq!(p.decide(&s).unwrap().command, "consider 2.goblin");
    }

    #[test]
    fn the_planner_considers_before_it_fights_and_rests_when_hurt() {
        let mut p = Planner::new(SmallRng::seed_from_u64(1));
        let s = st(100, false, vec![goblin(false)]);
        assert_eq!(p.decide(&s).unwrap().command, "consider 2.goblin");
        let said = |t: &str| vec![Heard { kind: "text".into(), text: t.into(), from: None, re: None }];
        p.observe(&s, &said("You would need some luck!"), None);
        assert_eq!(p.decide(&s).unwrap().command, "north", "too strong: explore instead");
        let mut p = Planner::new(SmallRng::seed_from_u64(1));
        p.decide(&s);
        p.observe(&s, &said("The perfect match!"), None);
        assert_eq!(p.decide(&s).unwrap().command, "kill 2.goblin");
        assert_eq!(p.decide(&s).unwrap().command, "kill 2.goblin");
        assert_eq!(p.decide(&s).unwrap().command, "north", "two attacks that never became a fight: give up here");
        let hurt = st(40, false, vec![]);
        assert_eq!(p.decide(&hurt).unwrap().command, "rest");
        let mut resting = hurt.clone();
        resting.position = "resting".into();
        assert_eq!(p.decide(&resting), None);
        resting.hp = 95;
        assert_eq!(p.decide(&resting).unwrap().command, "stand");
        assert_eq!(consider_diff("Are you mad!?"), Some(6));
        assert_eq!(consider_diff("You ARE mad!"), Some(11));
        assert_eq!(consider_diff("Easy."), Some(-2));
        assert_eq!(consider_diff("Fairly easy."), Some(-1));
        // Dark Pawns' answers, as its do_consider writes them (wrapped over lines).
        let lunch = "The knight templar looks like he could eat you for lunch, looks to be\nin much better physical shape than you, and moves with an ease telling\nof many won battles.";
        assert_eq!(consider_diff(lunch), Some(6));
        let easy = "The beastly fido looks like an easy kill, looks to be\nin a little worse physical shape as you, and seems less confident in\nbattle than you do.";
        assert_eq!(consider_diff(easy), Some(-1));
        // The original Dark Pawns server's answer, as typed into it side by side.
        let zealot = "A zealot looks like an easy kill, looks to be\nin about the same physical shape as you, and seems about as confident in\nbattle as you do.";
        assert_eq!(consider_diff(zealot), Some(0), "an even match: it fights");
        // An answer it cannot read: asked once, then left alone.
        let mut p = Planner::new(SmallRng::seed_from_u64(1));
        let s = st(100, false, vec![goblin(false)]);
        assert_eq!(p.decide(&s).unwrap().command, "consider 2.goblin");
        p.observe(&s, &said("It looks at you blankly."), None);
        assert_eq!(p.decide(&s).unwrap().command, "north", "not asked again");
        assert_eq!(p.decide(&s).unwrap().command, "north");
    }
}
