//! Characters: players and mobs share one shape, as in CircleMUD.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc;

use crate::game::model::tables::{self, Position, NUM_WEARS};
use crate::game::model::world::{CharId, ObjId, RoomId};
use crate::game::send::output::{Out, Outs};
use crate::game::send::vars::{VarSet, VarValues};
use crate::worldfile::{Dice, MobProto};

/// The engine's end of a session.
pub struct Link {
    /// Unique per login; lets the engine ignore messages from a replaced session.
    pub id: u64,
    /// The session's queue: each item is what one engine step sent it (see `deliver`).
    pub tx: mpsc::Sender<Outs>,
    /// JSON (agent/browser) or telnet text.
    pub json: bool,
    /// What the client said about itself at login (recorded with the session).
    pub client: Arc<ClientInfo>,
}

impl Link {
    /// A person reads this link's text: a telnet session, or a JSON one that asked for
    /// a screen's display (the web client). It gets colour marks (rendered by its
    /// edge), the room on entering, and a MUD client's extras (`CHAR_INFO`, `ROOM_INFO`).
    pub fn screen(&self) -> bool {
        !self.json || self.client.display
    }
}

/// A session's client, as its login described it.
#[derive(Debug, Clone, Default)]
pub struct ClientInfo {
    pub harness: Option<String>,
    pub model: Option<String>,
    pub version: Option<String>,
    pub tier: Option<String>,
    /// `false`: the valence ablation (protocol §4).
    pub valence: bool,
    /// The agent's memory, read at login, sent after `vars` (protocol §7).
    pub memory: Option<Arc<pawns_graph::known::LoginMemory>>,
    /// A `system` event for this client right after login: an agent key logged in its
    /// own character, not the `player_name` the client asked for (protocol §4).
    pub notice: Option<String>,
    /// A JSON client that shows the game to a person (the web client's login
    /// `display`): see `Link::screen`.
    pub display: bool,
}

pub struct Queued {
    pub line: String,
    pub id: Option<Arc<str>>,
    pub received: Instant,
    pub received_us: u64,
    pub client: Option<Box<crate::game::records::recording::CommandClient>>,
}

/// An `EVENTS` entry.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct EventEntry {
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Shared with the message it stands beside (a room's broadcast is one text for
    /// every agent there, not a copy each).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<std::sync::Arc<str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<std::sync::Arc<str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
}

pub const EVENTS_CAP: usize = 100;

/// `prompt`'s bits: hit points, mana, moves.
pub const PROMPT_ALL: u8 = 7;

/// A player's own settings: `title`, `prompt`, `alias`.
#[derive(Debug, Clone, Default)]
pub struct Prefs {
    pub title: String,
    pub prompt: u8,
    pub aliases: Vec<(String, String)>,
    /// Dark Pawns's hometown (1 Kir Drax'in, 2 Kir-Oshi, 3 Alaozar; 0 none).
    pub hometown: u8,
    /// Dark Pawns's tattoo (1 + its number; 0 none).
    pub tattoo: u8,
    /// `color`: 0 off … 3 complete (`None`: as the telnet client says it can).
    pub colour: Option<u8>,
}

/// What only player characters have.
pub struct PcState {
    pub is_agent: bool,
    pub link: Option<Link>,
    /// Batches handed to this character's sessions so far: where a slow-consumer cut
    /// happened, for a replay (`journal.rs`).
    pub delivered: u64,
    /// What was delivered since the session's queue was last handed a batch.
    pub outbox: Vec<Out>,
    /// The pulse's batch, made at its end and waiting for its turn to go (`deliver.rs`,
    /// pacing): anything sent the session before then sends it first.
    pub staged: Option<Outs>,
    pub queue: VecDeque<Queued>,
    pub subscribed: VarSet,
    /// What this session was last sent, per variable.
    pub last_sent: Option<Box<VarValues>>,
    /// A MUD client's last `CHAR_INFO` (`mud_vars`): sent again only when it changes.
    pub mud_char: Option<Box<serde_json::Value>>,
    pub events: VecDeque<EventEntry>,
    pub events_dropped: u64,
    /// `id` of the command dispatched this pulse: the vars flush that follows carries it.
    pub pulse_re: Option<Arc<str>>,
    /// Anything sent this pulse (telnet gets a prompt after).
    pub sent_this_pulse: bool,
    /// The pulse in which this player's one command of a pulse last ran (`u64::MAX`:
    /// never).
    pub acted_pulse: u64,
    pub dirty: bool,
    pub last_save_pulse: u64,
    pub linkdead_since: Option<u64>,
    pub password_hash: Option<String>,
    /// Spells and skills learned, in percent.
    pub skills: std::collections::BTreeMap<String, u8>,
    pub practices: u32,
    /// Coins kept at the bank (the `bank` special procedure).
    pub bank_gold: i64,
    /// Below this many hit points a fight is fled (`wimpy`; 0: never).
    pub wimp_level: u32,
    /// Mud hours left in jail (Dark Pawns's `take_to_jail`).
    pub jail_timer: u32,
    /// `title`, `prompt` and `alias`.
    pub prefs: Box<Prefs>,
    /// Drunk, full, thirst: 0..=24 (see `food`).
    pub conditions: [i8; 3],
    /// The session being recorded, if recording is on.
    pub rec: Option<Box<crate::game::records::recording::SessionRec>>,
    /// What the agent's HUD shows of its conversations and its last actions.
    pub hud: Box<crate::game::send::hud::HudState>,
}

pub struct Char {
    pub id: CharId,
    /// `Some(vnum)` for mobs.
    pub npc_vnum: Option<u32>,
    /// A player's name, or a mob's short description.
    pub name: Arc<str>,
    pub keywords: String,
    pub long_descr: String,
    pub description: String,
    pub level: u8,
    pub class: u8,
    pub race: u8,
    pub sex: u8,
    pub exp: i64,
    pub gold: i64,
    pub hit: i32,
    pub max_hit: i32,
    pub mana: i32,
    pub max_mana: i32,
    pub moves: i32,
    pub max_moves: i32,
    /// str, int, wis, dex, con, cha.
    pub abilities: [u8; 6],
    pub alignment: i32,
    /// Armour class before equipment, CircleMUD scale (100 = naked, lower is better).
    pub base_ac: i32,
    pub hitroll: i32,
    pub damroll: i32,
    pub npc_damage: Dice,
    /// A mob's bare-hand attack type (its `BareHandAttack` spec: 4 a bite), an index of
    /// the attack table.
    pub npc_attack: u8,
    pub mob_flags: u64,
    pub default_position: Position,
    pub position: Position,
    /// A mob whose prototype has a special procedure or a script (see `Room::behaving`).
    pub behaves: bool,
    pub fighting: Option<CharId>,
    pub room: RoomId,
    pub inventory: Vec<ObjId>,
    pub equipment: [Option<ObjId>; NUM_WEARS],
    /// Pulses before the next queued command may run.
    pub wait: u32,
    pub deaths: u32,
    pub kills: u32,
    /// Mobs remember who attacked them.
    pub memory: Vec<CharId>,
    /// Whom this character follows, and who follows it.
    pub master: Option<CharId>,
    pub followers: Vec<CharId>,
    /// The mount it rides (Dark Pawns's `ride`).
    pub riding: Option<CharId>,
    /// In its leader's group (a leader with grouped followers is grouped too).
    pub grouped: bool,
    /// Spell effects with the pulses they have left.
    pub affects: Vec<crate::game::rules::spells::Affect>,
    pub pc: Option<Box<PcState>>,
}

impl Char {
    pub fn is_npc(&self) -> bool {
        self.npc_vnum.is_some()
    }

    pub fn from_mob(id: CharId, p: &MobProto, room: RoomId, roll: &mut impl FnMut(i32, i32) -> i32) -> Char {
        let hp = (0..p.hit_dice.num.clamp(0, 1000)).map(|_| roll(1, p.hit_dice.size.max(1))).sum::<i32>() + p.hit_dice.plus;
        let hp = hp.max(1);
        let pos = Position::from_file(p.default_position);
        Char {
            id,
            npc_vnum: Some(p.vnum),
            name: p.short_descr.as_str().into(),
            keywords: p.keywords.clone(),
            long_descr: p.long_descr.clone(),
            description: p.description.clone(),
            level: p.level.clamp(0, 100) as u8,
            class: 3,
            race: 0,
            sex: p.sex.clamp(0, 2) as u8,
            exp: p.exp,
            gold: p.gold,
            hit: hp,
            max_hit: hp,
            mana: 10,
            max_mana: 10,
            moves: 100,
            max_moves: 100,
            abilities: [11; 6],
            alignment: p.alignment,
            base_ac: p.ac * 10,
            hitroll: 20 - p.thac0,
            damroll: p.damage_dice.plus,
            npc_damage: p.damage_dice,
            npc_attack: p
                .specs
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("BareHandAttack"))
                .and_then(|(_, v)| v.trim().parse::<u8>().ok())
                .filter(|t| *t < 15)
                .unwrap_or(0),
            mob_flags: p.action_flags[0],
            default_position: pos,
            position: pos,
            fighting: None,
            room,
            inventory: Vec::new(),
            equipment: [None; NUM_WEARS],
            wait: 0,
            deaths: 0,
            kills: 0,
            memory: Vec::new(),
            master: None,
            followers: Vec::new(),
            riding: None,
            grouped: false,
            behaves: false,
            affects: Vec::new(),
            pc: None,
        }
    }

    pub fn from_record(id: CharId, r: &pawns_storage::CharacterRecord, room: RoomId, password_hash: Option<String>) -> Char {
        Char {
            id,
            npc_vnum: None,
            name: r.name.as_str().into(),
            keywords: r.name.to_ascii_lowercase(),
            long_descr: String::new(),
            description: String::new(),
            level: r.level.clamp(1, tables::MAX_LEVEL),
            class: r.class,
            race: r.race,
            sex: r.sex,
            exp: r.exp,
            gold: r.gold,
            hit: r.hit.max(1),
            max_hit: r.max_hit.max(1),
            mana: r.mana,
            max_mana: r.max_mana,
            moves: r.moves,
            max_moves: r.max_moves,
            abilities: r.abilities,
            alignment: r.alignment,
            base_ac: 100,
            hitroll: 0,
            damroll: 0,
            npc_damage: Dice::default(),
            npc_attack: 0,
            mob_flags: 0,
            default_position: Position::Standing,
            position: Position::Standing,
            fighting: None,
            room,
            inventory: Vec::new(),
            equipment: [None; NUM_WEARS],
            wait: 0,
            deaths: r.deaths,
            kills: r.kills,
            memory: Vec::new(),
            master: None,
            followers: Vec::new(),
            riding: None,
            grouped: false,
            behaves: false,
            affects: Vec::new(),
            pc: Some(Box::new(PcState {
                delivered: 0,
                outbox: Vec::new(),
                staged: None,
                is_agent: r.is_agent,
                link: None,
                queue: VecDeque::new(),
                subscribed: VarSet::empty(),
                last_sent: None,
                mud_char: None,
                events: VecDeque::new(),
                events_dropped: 0,
                pulse_re: None,
                sent_this_pulse: false,
                acted_pulse: u64::MAX,
                dirty: false,
                last_save_pulse: 0,
                linkdead_since: None,
                password_hash,
                skills: r.skills.iter().cloned().collect(),
                practices: r.practices,
                bank_gold: r.bank_gold.max(0),
                wimp_level: r.wimp_level,
                jail_timer: r.jail_timer,
                prefs: Box::new(Prefs {
                    title: r.title.clone(),
                    prompt: r.prompt.unwrap_or(PROMPT_ALL),
                    aliases: r.aliases.clone(),
                    hometown: r.hometown,
                    tattoo: r.tattoo,
                    colour: r.colour.map(|c| c.min(3)),
                }),
                conditions: r.conditions.unwrap_or(crate::game::rules::food::FRESH),
                rec: None,
                hud: Box::new(crate::game::send::hud::HudState::from_record(r.hud.as_ref())),
            })),
        }
    }

    pub fn is_agent(&self) -> bool {
        self.pc.as_ref().map(|p| p.is_agent).unwrap_or(false)
    }

    pub fn str_(&self) -> u8 {
        self.abilities[0]
    }
    pub fn dex(&self) -> u8 {
        self.abilities[3]
    }
    pub fn con(&self) -> u8 {
        self.abilities[4]
    }

    pub fn is_fighting(&self) -> bool {
        self.fighting.is_some()
    }

    pub fn awake(&self) -> bool {
        self.position > Position::Sleeping
    }

    pub fn mark_dirty(&mut self) {
        if let Some(pc) = self.pc.as_mut() {
            pc.dirty = true;
        }
    }

    /// He/she/it.
    pub fn he(&self) -> &'static str {
        match self.sex {
            1 => "he",
            2 => "she",
            _ => "it",
        }
    }
    pub fn his(&self) -> &'static str {
        match self.sex {
            1 => "his",
            2 => "her",
            _ => "its",
        }
    }
}

/// Starting abilities for a new character: 4d6 drop lowest, sorted into the class's
/// preferred order, then the race's adjustments.
pub fn roll_abilities(class: u8, race: u8, roll: &mut impl FnMut(i32, i32) -> i32) -> [u8; 6] {
    let mut rolls: Vec<u8> = (0..6)
        .map(|_| {
            let mut d: Vec<i32> = (0..4).map(|_| roll(1, 6)).collect();
            d.sort_unstable();
            (d[1] + d[2] + d[3]) as u8
        })
        .collect();
    rolls.sort_unstable_by(|a, b| b.cmp(a));
    // Index order: str, int, wis, dex, con, cha; the table says which gets the best roll.
    let order: [usize; 6] = match class {
        0 | 9 => [1, 2, 3, 0, 4, 5],
        1 => [2, 1, 0, 3, 4, 5],
        2 | 8 => [3, 0, 4, 1, 2, 5],
        _ => [0, 4, 3, 2, 1, 5],
    };
    let mut a = [0u8; 6];
    for (rank, idx) in order.iter().enumerate() {
        a[*idx] = rolls[rank];
    }
    let adj: [i8; 6] = match race {
        1 => [0, 1, 0, 1, -1, 0],
        2 => [0, 0, 0, -1, 1, -1],
        3 => [-1, 0, 0, 2, 0, 0],
        4 => [2, -1, -1, 0, 1, -1],
        5 => [1, 0, 0, 1, 0, -1],
        6 => [1, -1, 0, 0, 1, -1],
        _ => [0; 6],
    };
    for i in 0..6 {
        a[i] = (a[i] as i16 + adj[i] as i16).clamp(3, 18) as u8;
    }
    a
}

/// A level-1 character record, ready to save and to enter the world at the temple.
pub fn new_record(
    name: &str,
    class: u8,
    race: u8,
    sex: u8,
    is_agent: bool,
    abilities: [u8; 6],
    start_room: u32,
) -> pawns_storage::CharacterRecord {
    let (hp_die, _) = tables::level_gain_dice(class);
    let max_hit = 10 + hp_die + (abilities[4] as i32 - 10) / 2;
    let max_mana = if matches!(class, 0 | 1 | 9) { 100 } else { 50 };
    pawns_storage::CharacterRecord {
        name: name.to_string(),
        is_agent,
        class,
        race,
        sex,
        level: 1,
        exp: 0,
        gold: 20,
        hit: max_hit,
        max_hit,
        mana: max_mana,
        max_mana,
        moves: 80,
        max_moves: 80,
        abilities,
        alignment: 0,
        room_vnum: start_room,
        inventory: Vec::new(),
        equipment: Vec::new(),
        deaths: 0,
        kills: 0,
        saved_at: 0,
        skills: Vec::new(),
        practices: crate::game::rules::spells::STARTING_PRACTICES,
        conditions: None,
        hud: None,
        bank_gold: 0,
        wimp_level: 0,
        jail_timer: 0,
        title: String::new(),
        prompt: None,
        aliases: Vec::new(),
        hometown: 0,
        tattoo: 0,
        colour: None,
    }
}
