//! The client's picture of the game, typed, built from what the server sends: `state`
//! (the full picture), `vars` deltas (merged: a variable missing from a delta keeps its
//! value), `event`s, and the memory messages in both of their shapes. Decoding is
//! forgiving where real servers differ (a `fighting` flag as a bool, a number or a
//! string) and never panics on anything a socket can carry.

use std::collections::VecDeque;

use serde_json::Value;

use crate::game::send::vars::Var;

/// A mob in the room, as `ROOM_MOBS` describes it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mob {
    pub name: String,
    pub instance_id: String,
    pub target_string: String,
    pub vnum: i64,
    /// Fighting someone (the protocol's bool; tolerant of 0/1 and "true").
    pub fighting: bool,
}

/// An item on the floor or carried.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Item {
    pub name: String,
    pub instance_id: String,
    pub target_string: String,
    pub vnum: i64,
}

/// Something that happened, as the client heard it.
#[derive(Debug, Clone, PartialEq)]
pub struct Heard {
    pub kind: String,
    pub text: String,
    pub from: Option<String>,
    /// The correlation id of the command that caused it, if any.
    pub re: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub struct GameState {
    pub name: String,
    pub class: String,
    pub race: String,
    pub hp: i64,
    pub max_hp: i64,
    pub mana: i64,
    pub max_mana: i64,
    pub moves: i64,
    pub max_moves: i64,
    pub gold: i64,
    pub level: i64,
    pub exp: i64,
    pub position: String,
    pub fighting: bool,
    pub room_vnum: i64,
    pub room_name: String,
    pub room_description: String,
    pub exits: Vec<String>,
    pub mobs: Vec<Mob>,
    pub items: Vec<Item>,
    pub players: Vec<String>,
    pub inventory: Vec<Item>,
    /// Slot → item name.
    pub equipment: Vec<(String, String)>,
    /// The session token (for `resume`).
    pub token: String,
    /// `memory_summary` (top-level `summary`, or `data.summary`).
    pub memory_summary: String,
    /// `memory_bootstrap.block`.
    pub memory_bootstrap: String,
    /// Recent things heard, oldest first (bounded).
    pub recent: VecDeque<Heard>,
    /// Deaths seen this session.
    pub deaths: u32,
    /// Kills seen this session.
    pub kills: u32,
    /// True once a `state` arrived.
    pub ready: bool,
}

/// What one server message changed, for the decision loop and the transcript.
#[derive(Debug, Clone, Default)]
pub struct Applied {
    pub heard: Vec<Heard>,
    pub room_changed: bool,
    pub died: bool,
    pub memory: bool,
    /// An `error` message: (code, message).
    pub error: Option<(String, String)>,
    /// `vars` came with `resumed:false`: the server could not fill a gap.
    pub not_resumed: bool,
}

const RECENT: usize = 40;

fn int(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A bool the way servers have sent it: `true`, `1`, `"true"`, `"yes"`.
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => matches!(s.trim().to_ascii_lowercase().as_str(), "true" | "1" | "yes" | "y"),
        _ => false,
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().map(|a| a.iter().filter_map(text).collect()).unwrap_or_default()
}

fn mob(v: &Value) -> Option<Mob> {
    if let Some(s) = v.as_str() {
        return Some(Mob { name: s.to_string(), target_string: first_keyword(s), ..Default::default() });
    }
    let o = v.as_object()?;
    let name = o.get("name").and_then(text).unwrap_or_default();
    Some(Mob {
        target_string: o.get("target_string").and_then(text).filter(|t| !t.is_empty()).unwrap_or_else(|| first_keyword(&name)),
        name,
        instance_id: o.get("instance_id").and_then(text).unwrap_or_default(),
        vnum: o.get("vnum").and_then(int).unwrap_or(0),
        fighting: o.get("fighting").is_some_and(truthy),
    })
}

fn item(v: &Value) -> Option<Item> {
    if let Some(s) = v.as_str() {
        return Some(Item { name: s.to_string(), target_string: first_keyword(s), ..Default::default() });
    }
    let o = v.as_object()?;
    let name = o.get("name").and_then(text).unwrap_or_default();
    Some(Item {
        target_string: o.get("target_string").and_then(text).filter(|t| !t.is_empty()).unwrap_or_else(|| first_keyword(&name)),
        name,
        instance_id: o.get("instance_id").and_then(text).unwrap_or_default(),
        vnum: o.get("vnum").and_then(int).unwrap_or(0),
    })
}

/// "a small goblin" → "goblin": the last word that is not an article (a fallback for
/// servers that send display strings only).
pub fn first_keyword(name: &str) -> String {
    name.split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_ascii_lowercase())
        .rfind(|w| !w.is_empty() && !["a", "an", "the", "some"].contains(&w.as_str()))
        .unwrap_or_default()
}

impl GameState {
    /// Folds one server message in.
    pub fn apply(&mut self, msg: &Value) -> Applied {
        let mut out = Applied::default();
        let data = &msg["data"];
        match msg["type"].as_str().unwrap_or("") {
            "state" => {
                self.apply_state(data);
                out.room_changed = true;
            }
            "vars" => {
                if let Some(m) = data.as_object() {
                    let before = self.room_vnum;
                    for (k, v) in m {
                        self.apply_var(k, v, &mut out, msg);
                    }
                    out.room_changed |= before != self.room_vnum;
                    out.not_resumed = data.get("resumed").is_some_and(|r| r == &Value::Bool(false));
                }
            }
            "event" => {
                let h = Heard {
                    kind: data["type"].as_str().unwrap_or("text").to_string(),
                    text: data["text"].as_str().unwrap_or("").to_string(),
                    from: data["from"].as_str().map(str::to_string),
                    re: msg["re"].as_str().map(str::to_string),
                };
                self.note(&h, &mut out);
            }
            "text" => {
                let t = data["text"].as_str().or(msg["text"].as_str()).or(data.as_str()).unwrap_or("").to_string();
                self.note(&Heard { kind: "text".into(), text: t, from: None, re: msg["re"].as_str().map(str::to_string) }, &mut out);
            }
            "memory_summary" => {
                let s = msg["summary"].as_str().or(data["summary"].as_str()).or(data.as_str()).unwrap_or("");
                self.memory_summary = s.to_string();
                out.memory = true;
            }
            "memory_bootstrap" => {
                self.memory_bootstrap = data["block"].as_str().or(msg["block"].as_str()).unwrap_or("").to_string();
                out.memory = true;
            }
            "token_refresh" => {
                if let Some(t) = data["token"].as_str().or(msg["token"].as_str()) {
                    self.token = t.to_string();
                }
            }
            "error" => {
                let code = data["code"].as_str().unwrap_or("error").to_string();
                let m = data["message"].as_str().or(msg["message"].as_str()).unwrap_or("").to_string();
                out.error = Some((code, m));
            }
            _ => {}
        }
        out
    }

    fn apply_state(&mut self, d: &Value) {
        let p = &d["player"];
        let set = |slot: &mut i64, v: &Value| {
            if let Some(n) = int(v) {
                *slot = n;
            }
        };
        if let Some(n) = p["name"].as_str() {
            self.name = n.to_string();
        }
        self.class = p["class"].as_str().unwrap_or(&self.class).to_string();
        self.race = p["race"].as_str().unwrap_or(&self.race).to_string();
        set(&mut self.hp, &p["health"]);
        set(&mut self.max_hp, &p["max_health"]);
        set(&mut self.mana, &p["mana"]);
        set(&mut self.max_mana, &p["max_mana"]);
        set(&mut self.moves, &p["move"]);
        set(&mut self.max_moves, &p["max_move"]);
        set(&mut self.level, &p["level"]);
        set(&mut self.exp, &p["exp"]);
        set(&mut self.gold, &p["gold"]);
        if let Some(s) = p["position"].as_str() {
            self.position = s.to_string();
        }
        let r = &d["room"];
        set(&mut self.room_vnum, &r["vnum"]);
        if let Some(s) = r["name"].as_str() {
            self.room_name = s.to_string();
        }
        self.room_description = r["description"].as_str().unwrap_or("").to_string();
        if r.get("exits").is_some() {
            self.exits = strings(&r["exits"]);
        }
        if r.get("players").is_some() {
            self.players = strings(&r["players"]);
        }
        // `state` lists mobs and items as display strings; the vars that follow (or came
        // before) carry the targets. Keep the richer form when the names agree.
        if let Some(a) = r["mobs"].as_array() {
            let names: Vec<String> = a.iter().filter_map(|v| mob(v).map(|m| m.name)).collect();
            if names != self.mobs.iter().map(|m| m.name.clone()).collect::<Vec<_>>() {
                self.mobs = a.iter().filter_map(mob).collect();
            }
        }
        if let Some(a) = r["items"].as_array() {
            let names: Vec<String> = a.iter().filter_map(|v| item(v).map(|m| m.name)).collect();
            if names != self.items.iter().map(|m| m.name.clone()).collect::<Vec<_>>() {
                self.items = a.iter().filter_map(item).collect();
            }
        }
        if let Some(t) = d["token"].as_str() {
            self.token = t.to_string();
        }
        self.ready = true;
    }

    fn apply_var(&mut self, k: &str, v: &Value, out: &mut Applied, msg: &Value) {
        let set = |slot: &mut i64| {
            if let Some(n) = int(v) {
                *slot = n;
            }
        };
        match Var::named(k) {
            Some(Var::Health) => set(&mut self.hp),
            Some(Var::MaxHealth) => set(&mut self.max_hp),
            Some(Var::Mana) => set(&mut self.mana),
            Some(Var::MaxMana) => set(&mut self.max_mana),
            Some(Var::Move) => set(&mut self.moves),
            Some(Var::MaxMove) => set(&mut self.max_moves),
            Some(Var::Gold) => set(&mut self.gold),
            Some(Var::Level) => set(&mut self.level),
            Some(Var::Exp) => set(&mut self.exp),
            Some(Var::RoomVnum) => set(&mut self.room_vnum),
            Some(Var::Position) => {
                if let Some(s) = text(v) {
                    self.position = s;
                }
            }
            Some(Var::RoomName) => {
                if let Some(s) = text(v) {
                    self.room_name = s;
                }
            }
            Some(Var::RoomExits) => self.exits = strings(v),
            Some(Var::RoomMobs) => self.mobs = v.as_array().map(|a| a.iter().filter_map(mob).collect()).unwrap_or_default(),
            Some(Var::RoomItems) => self.items = v.as_array().map(|a| a.iter().filter_map(item).collect()).unwrap_or_default(),
            Some(Var::Inventory) => self.inventory = v.as_array().map(|a| a.iter().filter_map(item).collect()).unwrap_or_default(),
            Some(Var::Equipment) => {
                self.equipment = v
                    .as_object()
                    .map(|m| {
                        m.iter().map(|(slot, it)| (slot.clone(), it["name"].as_str().or(it.as_str()).unwrap_or("").to_string())).collect()
                    })
                    .unwrap_or_default()
            }
            Some(Var::Fighting) => self.fighting = truthy(v),
            Some(Var::Events) => {
                for e in v.as_array().into_iter().flatten() {
                    let kind = e["type"].as_str().unwrap_or("").to_string();
                    // Feedback texts already came as `event` messages; EVENTS repeats
                    // room chatter and game events, which `event` messages also carry,
                    // so only the kinds that come nowhere else are noted here.
                    if matches!(kind.as_str(), "kill" | "rate_limited" | "events_dropped") {
                        let h = Heard {
                            text: e["text"]
                                .as_str()
                                .map(str::to_string)
                                .unwrap_or_else(|| e["command"].as_str().map(|c| format!("{kind}: {c}")).unwrap_or_else(|| kind.clone())),
                            kind,
                            from: e["from"].as_str().map(str::to_string),
                            re: msg["re"].as_str().map(str::to_string),
                        };
                        self.note(&h, out);
                    }
                }
            }
            // A variable this client does not follow, or a name from a newer server.
            None => {}
        }
    }

    fn note(&mut self, h: &Heard, out: &mut Applied) {
        match h.kind.as_str() {
            "death" if h.text.to_ascii_lowercase().contains("you are dead") => {
                self.deaths += 1;
                out.died = true;
            }
            "kill" => self.kills += 1,
            _ => {}
        }
        if self.recent.len() == RECENT {
            self.recent.pop_front();
        }
        self.recent.push_back(h.clone());
        out.heard.push(h.clone());
    }

    /// Hit points as a share of the most (0–100); 100 when unknown.
    pub fn hp_pct(&self) -> i64 {
        if self.max_hp <= 0 {
            100
        } else {
            (self.hp.max(0) * 100 / self.max_hp).min(100)
        }
    }

    /// The mob we are fighting: one marked fighting, if we are in a fight.
    pub fn foe(&self) -> Option<&Mob> {
        if !self.fighting {
            return None;
        }
        self.mobs.iter().find(|m| m.fighting)
    }

    /// Whether recent combat text says this mob struck at us.
    pub fn attacked_by(&self, m: &Mob) -> bool {
        let name = m.name.to_ascii_lowercase();
        let kw = m.target_string.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
        self.recent.iter().rev().take(10).any(|h| {
            let t = h.text.to_ascii_lowercase();
            (h.kind == "combat" || h.kind == "text") && t.contains(" you") && (t.contains(&name) || (!kw.is_empty() && t.contains(&kw)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn vars_merge_and_never_zero_missing_fields() {
        let mut s = GameState::default();
        s.apply(&json!({"type":"state","seq":1,"data":{"player":{"name":"ula","health":20,"max_health":20,"level":1},
            "room":{"vnum":8004,"name":"Temple","exits":["east"],"mobs":["a straw dummy"],"items":[]},"token":"t1"}}));
        assert_eq!((s.hp, s.max_hp, s.room_vnum, s.token.as_str()), (20, 20, 8004, "t1"));
        assert_eq!(s.mobs[0].target_string, "dummy");
        s.apply(&json!({"type":"vars","seq":2,"data":{"HEALTH":7}}));
        assert_eq!((s.hp, s.max_hp, s.level), (7, 20, 1));
        assert_eq!(s.hp_pct(), 35);
        // The wrong types real servers have sent: fighting as 1 and "true".
        s.apply(&json!({"type":"vars","seq":3,"data":{"FIGHTING":1,"ROOM_MOBS":[
            {"name":"a small goblin","instance_id":"mob_1_2","target_string":"2.goblin","vnum":1,"fighting":"true"}]}}));
        assert!(s.fighting);
        assert_eq!(s.foe().unwrap().target_string, "2.goblin");
        s.apply(&json!({"type":"vars","seq":4,"data":{"FIGHTING":false}}));
        assert!(!s.fighting && s.foe().is_none());
        // A state after a move keeps the richer mob form when the names agree.
        s.apply(&json!({"type":"state","seq":5,"data":{"player":{},"room":{"vnum":8004,"mobs":["a small goblin"]}}}));
        assert_eq!(s.mobs[0].target_string, "2.goblin");
        assert_eq!(s.hp, 7, "a state without health keeps it");
    }

    #[test]
    fn memory_in_both_shapes_and_garbage_is_harmless() {
        let mut s = GameState::default();
        assert!(s.apply(&json!({"type":"memory_summary","summary":"## Memory top"})).memory);
        assert_eq!(s.memory_summary, "## Memory top");
        s.apply(&json!({"type":"memory_summary","data":{"summary":"## Memory data"}}));
        assert_eq!(s.memory_summary, "## Memory data");
        s.apply(&json!({"type":"memory_bootstrap","data":{"block":"b","count":1}}));
        assert_eq!(s.memory_bootstrap, "b");
        for junk in [json!(null), json!([1, 2]), json!({"type": 5}), json!({"type":"vars","data":[1]}), json!({"type":"state","data":"x"})]
        {
            s.apply(&junk);
        }
        let a = s.apply(&json!({"type":"event","data":{"type":"death","text":"You are dead!  Sorry..."}}));
        assert!(a.died);
        assert_eq!(s.deaths, 1);
        let e = s.apply(&json!({"type":"error","data":{"code":"rate_limited","message":"slow"}}));
        assert_eq!(e.error.unwrap().0, "rate_limited");
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    fn json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map(Value::Number).unwrap_or(Value::Null)),
            prop_oneof![Just("state"), Just("vars"), Just("event"), Just("memory_summary"), Just("HEALTH"), Just("ROOM_MOBS"), Just("x")]
                .prop_map(Value::from),
            ".{0,12}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 40, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::btree_map(
                    prop_oneof![
                        Just("type".to_string()),
                        Just("data".to_string()),
                        Just("HEALTH".to_string()),
                        Just("ROOM_MOBS".to_string()),
                        Just("player".to_string()),
                        Just("room".to_string()),
                        Just("fighting".to_string()),
                        ".{0,6}".prop_map(|s| s)
                    ],
                    inner,
                    0..6
                )
                .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// Any message a socket can carry folds in without a panic, and a bad one never
        /// zeroes what was known.
        #[test]
        fn any_message_is_harmless(msgs in prop::collection::vec(json(), 1..8)) {
            let mut s = GameState::default();
            s.apply(&serde_json::json!({"type":"vars","data":{"MAX_HEALTH":40,"HEALTH":30}}));
            for m in &msgs {
                s.apply(m);
                let _ = s.hp_pct();
                let _ = s.foe();
            }
            prop_assert!(s.recent.len() <= RECENT);
        }
    }
}
