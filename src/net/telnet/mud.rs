//! A MUD client's data channel: the engine's variable deltas (and `mud_vars` extras)
//! turned into GMCP messages and MSDP variables, each pushed only when the client asked
//! for it and only when its value changed; and the client's own GMCP/MSDP requests.

use std::collections::{BTreeSet, HashMap};

use serde_json::{json, Value};

use super::gmcp::{self, Supports};
use super::msdp::{self, MsdpVal};
use crate::game::send::mud_vars::{CHAR_INFO, ROOM_INFO};
use crate::game::send::output::EventKind;
use crate::game::send::vars::Var;

/// MSDP's names for the protocol's variables (the rest of `MSDP_VARIABLES` are made of
/// the character and room extras, or the server's own).
const MSDP_VARS: [(&str, Var); 11] = [
    ("HEALTH", Var::Health),
    ("HEALTH_MAX", Var::MaxHealth),
    ("MANA", Var::Mana),
    ("MANA_MAX", Var::MaxMana),
    ("MOVEMENT", Var::Move),
    ("MOVEMENT_MAX", Var::MaxMove),
    ("LEVEL", Var::Level),
    ("EXPERIENCE", Var::Exp),
    ("MONEY", Var::Gold),
    ("POSITION", Var::Position),
    ("INVENTORY", Var::Inventory),
];
/// GMCP `Char.Vitals`' keys for the protocol's variables.
const GMCP_VITALS: [(&str, Var); 6] = [
    ("hp", Var::Health),
    ("maxhp", Var::MaxHealth),
    ("mp", Var::Mana),
    ("maxmp", Var::MaxMana),
    ("mv", Var::Move),
    ("maxmv", Var::MaxMove),
];
/// GMCP `Char.Items`' locations, and the variable each lists.
const GMCP_ITEMS: [(&str, Var); 2] = [("inv", Var::Inventory), ("room", Var::RoomItems)];

/// The MSDP variables this server reports, and what each is made of.
pub const MSDP_VARIABLES: [&str; 23] = [
    "CHARACTER_NAME",
    "SERVER_ID",
    "SERVER_TIME",
    "HEALTH",
    "HEALTH_MAX",
    "MANA",
    "MANA_MAX",
    "MOVEMENT",
    "MOVEMENT_MAX",
    "LEVEL",
    "EXPERIENCE",
    "MONEY",
    "POSITION",
    "CLASS",
    "RACE",
    "OPPONENT_NAME",
    "OPPONENT_HEALTH",
    "ROOM",
    "ROOM_VNUM",
    "ROOM_NAME",
    "ROOM_AREA",
    "ROOM_EXITS",
    "INVENTORY",
];
const MSDP_COMMANDS: [&str; 5] = ["LIST", "REPORT", "RESET", "SEND", "UNREPORT"];
const MSDP_LISTS: [&str; 6] =
    ["COMMANDS", "LISTS", "CONFIGURABLE_VARIABLES", "REPORTABLE_VARIABLES", "REPORTED_VARIABLES", "SENDABLE_VARIABLES"];
const MSDP_CONFIGURABLE: [&str; 2] = ["CLIENT_NAME", "CLIENT_VERSION"];
/// More changes than this to one item list is sent as the whole list.
const ITEM_DIFF_MAX: usize = 4;
/// The channels `Comm.Channel.List` names (the game's talk commands).
const CHANNELS: [&str; 4] = ["say", "tell", "shout", "gossip"];

#[derive(Default)]
pub struct MudClient {
    pub gmcp: bool,
    pub msdp: bool,
    supports: Supports,
    /// `Core.Hello` (client and version), or MSDP's `CLIENT_NAME`/`CLIENT_VERSION`.
    pub hello: Option<(String, String)>,
    /// Every value the engine has sent (deltas applied), by variable name.
    vals: HashMap<&'static str, Value>,
    /// The last data of each GMCP message pushed.
    gmcp_sent: HashMap<&'static str, Value>,
    /// Item lists as last pushed (`inv`, `room`): instance ids and the item's GMCP form.
    items_sent: HashMap<&'static str, Vec<(String, Value)>>,
    reported: BTreeSet<&'static str>,
    msdp_sent: HashMap<&'static str, MsdpVal>,
}

/// What a client's GMCP/MSDP message asks of the session.
#[derive(Default, Debug)]
pub struct Reply {
    pub bytes: Vec<u8>,
}

impl MudClient {
    /// Whether the engine should compute variables for this session.
    pub fn wants_vars(&self) -> bool {
        self.gmcp || self.msdp
    }

    /// A delta (or the full set) from the engine: what changed, framed for the client.
    pub fn on_vars(&mut self, values: &[(&'static str, Value)]) -> Vec<u8> {
        for (k, v) in values {
            self.vals.insert(k, v.clone());
        }
        let mut out = Vec::new();
        if self.gmcp {
            self.push_gmcp(&mut out, false);
        }
        if self.msdp {
            let changed: Vec<&'static str> = self.reported.iter().copied().collect();
            self.push_msdp(&mut out, &changed, false);
        }
        out
    }

    /// A says/tells/shouts/gossip for `Comm.Channel.Text`.
    pub fn on_event(&mut self, kind: EventKind, text: &str, from: Option<&str>) -> Vec<u8> {
        if !self.gmcp || !matches!(kind, EventKind::Say | EventKind::Tell | EventKind::Shout | EventKind::Gossip) {
            return Vec::new();
        }
        if !self.supports.covers("Comm.Channel.Text") {
            return Vec::new();
        }
        gmcp::frame("Comm.Channel.Text", &json!({"channel": kind.as_str(), "talker": from.unwrap_or(""), "text": text}))
    }

    fn get(&self, var: &str, field: &str) -> Value {
        self.vals.get(var).and_then(|v| if field.is_empty() { Some(v) } else { v.get(field) }).cloned().unwrap_or(Value::Null)
    }

    fn gmcp_messages(&self) -> Vec<(&'static str, Value)> {
        let mut m = Vec::new();
        if self.vals.contains_key(Var::Health.name()) {
            let vitals: serde_json::Map<String, Value> = GMCP_VITALS.iter().map(|(k, v)| (k.to_string(), self.get(v.name(), ""))).collect();
            m.push(("Char.Vitals", Value::Object(vitals)));
        }
        if self.vals.contains_key(CHAR_INFO) {
            m.push(("Char.Name", json!({"name": self.get(CHAR_INFO, "name"), "fullname": self.get(CHAR_INFO, "name")})));
            m.push((
                "Char.Status",
                json!({
                    "name": self.get(CHAR_INFO, "name"), "level": self.get(Var::Level.name(), ""),
                    "class": self.get(CHAR_INFO, "class"), "race": self.get(CHAR_INFO, "race"),
                    "exp": self.get(Var::Exp.name(), ""), "gold": self.get(Var::Gold.name(), ""), "position": self.get(Var::Position.name(), ""),
                    "fighting": self.get(Var::Fighting.name(), ""), "opponent": self.get(CHAR_INFO, "opponent"),
                    "opponent_health": self.get(CHAR_INFO, "opponent_health"),
                }),
            ));
        }
        if let Some(room) = self.vals.get(ROOM_INFO) {
            m.push(("Room.Info", room.clone()));
        }
        m
    }

    /// Pushes every covered message whose data changed (all of them when `force`).
    fn push_gmcp(&mut self, out: &mut Vec<u8>, force: bool) {
        for (package, data) in self.gmcp_messages() {
            if !self.supports.covers(package) || (!force && self.gmcp_sent.get(package) == Some(&data)) {
                continue;
            }
            out.extend(gmcp::frame(package, &data));
            self.gmcp_sent.insert(package, data);
        }
        for (location, var) in GMCP_ITEMS.map(|(l, v)| (l, v.name())) {
            if self.supports.covers("Char.Items") && self.vals.contains_key(var) {
                self.push_items(out, location, var, force);
            }
        }
    }

    fn item_list(&self, var: &str) -> Vec<(String, Value)> {
        let list = self.vals.get(var).and_then(|v| v.as_array()).cloned().unwrap_or_default();
        list.iter()
            .map(|i| {
                let id = i.get("instance_id").and_then(|v| v.as_str()).unwrap_or("").to_string();
                (id.clone(), json!({"id": id, "name": i.get("name").cloned().unwrap_or(Value::Null), "vnum": i.get("vnum").cloned().unwrap_or(Value::Null)}))
            })
            .collect()
    }

    /// `Char.Items.List` the first time (or after many changes), else `Add`/`Remove`.
    fn push_items(&mut self, out: &mut Vec<u8>, location: &'static str, var: &str, force: bool) {
        let now = self.item_list(var);
        let before = self.items_sent.get(location);
        if !force && before == Some(&now) {
            return;
        }
        let list = |out: &mut Vec<u8>, now: &[(String, Value)]| {
            let items: Vec<&Value> = now.iter().map(|(_, v)| v).collect();
            out.extend(gmcp::frame("Char.Items.List", &json!({"location": location, "items": items})));
        };
        match before.filter(|_| !force) {
            None => list(out, &now),
            Some(before) => {
                let removed: Vec<&Value> = before.iter().filter(|(id, _)| !now.iter().any(|(n, _)| n == id)).map(|(_, v)| v).collect();
                let added: Vec<&Value> = now.iter().filter(|(id, _)| !before.iter().any(|(b, _)| b == id)).map(|(_, v)| v).collect();
                if removed.len() + added.len() > ITEM_DIFF_MAX || (removed.is_empty() && added.is_empty()) {
                    list(out, &now);
                } else {
                    for item in removed {
                        out.extend(gmcp::frame("Char.Items.Remove", &json!({"location": location, "item": item})));
                    }
                    for item in added {
                        out.extend(gmcp::frame("Char.Items.Add", &json!({"location": location, "item": item})));
                    }
                }
            }
        }
        self.items_sent.insert(location, now);
    }

    /// A GMCP message from the client.
    pub fn on_gmcp(&mut self, data: &[u8]) -> Reply {
        let mut reply = Reply::default();
        let msg = match gmcp::parse(data) {
            Ok(m) => m,
            Err(e) => {
                tracing::debug!(?e, "a GMCP message that does not read was ignored");
                return reply;
            }
        };
        let package = msg.package.to_ascii_lowercase();
        match package.as_str() {
            "core.hello" => {
                let s = |k: &str| msg.data.get(k).and_then(|v| v.as_str()).unwrap_or("").chars().take(64).collect::<String>();
                self.hello = Some((s("client"), s("version")));
            }
            "core.supports.set" | "core.supports.add" | "core.supports.remove" => {
                let had_comm = self.supports.covers("Comm.Channel.List");
                let verb = &package["core.supports.".len()..];
                if self.supports.apply(verb, &msg.data) {
                    // What the client now reads starts from the whole picture.
                    self.gmcp_sent.clear();
                    self.items_sent.clear();
                    self.push_gmcp(&mut reply.bytes, true);
                    if !had_comm && self.supports.covers("Comm.Channel.List") {
                        let list: Vec<Value> = CHANNELS.iter().map(|c| json!({"name": c, "caption": c, "command": c})).collect();
                        reply.bytes.extend(gmcp::frame("Comm.Channel.List", &json!(list)));
                    }
                }
            }
            "core.ping" => reply.bytes.extend(gmcp::frame("Core.Ping", &Value::Null)),
            "char.items.inv" | "char.items.room" => {
                let (location, var) = GMCP_ITEMS[usize::from(!package.ends_with("inv"))];
                let var = var.name();
                if self.vals.contains_key(var) {
                    self.push_items(&mut reply.bytes, location, var, true);
                }
            }
            _ => tracing::debug!(package = %msg.package, "a GMCP message this server does not take was ignored"),
        }
        reply
    }

    /// The value of one MSDP variable, if known yet.
    fn msdp_value(&self, name: &str) -> Option<MsdpVal> {
        let v = |var: &str, field: &str| {
            let v = self.get(var, field);
            (!v.is_null()).then(|| MsdpVal::from_json(&v))
        };
        if let Some((_, var)) = MSDP_VARS.iter().find(|(n, _)| *n == name).filter(|(_, var)| *var != Var::Inventory) {
            return v(var.name(), "");
        }
        match name {
            "CHARACTER_NAME" => v(CHAR_INFO, "name"),
            "SERVER_ID" => Some(MsdpVal::Str("pawns".into())),
            "SERVER_TIME" => Some(MsdpVal::Str(crate::time::unix_secs().to_string())),
            "CLASS" => v(CHAR_INFO, "class"),
            "RACE" => v(CHAR_INFO, "race"),
            "OPPONENT_NAME" => v(CHAR_INFO, "opponent"),
            "OPPONENT_HEALTH" => v(CHAR_INFO, "opponent_health"),
            "ROOM" => v(ROOM_INFO, "").map(|r| match r {
                MsdpVal::Table(fields) => MsdpVal::Table(
                    fields
                        .into_iter()
                        .map(|(k, v)| {
                            (
                                if k == "NUM" {
                                    "VNUM".into()
                                } else if k == "ENVIRONMENT" {
                                    "TERRAIN".into()
                                } else {
                                    k
                                },
                                v,
                            )
                        })
                        .collect(),
                ),
                other => other,
            }),
            "ROOM_VNUM" => v(ROOM_INFO, "num"),
            "ROOM_NAME" => v(ROOM_INFO, "name"),
            "ROOM_AREA" => v(ROOM_INFO, "area"),
            "ROOM_EXITS" => v(ROOM_INFO, "exits"),
            "INVENTORY" => self.vals.get(Var::Inventory.name()).and_then(|l| l.as_array()).map(|l| {
                MsdpVal::Array(l.iter().map(|i| MsdpVal::Str(i.get("name").and_then(|n| n.as_str()).unwrap_or("").to_string())).collect())
            }),
            _ => None,
        }
    }

    /// Sends the named variables whose values changed (all of them when `force`).
    fn push_msdp(&mut self, out: &mut Vec<u8>, names: &[&'static str], force: bool) {
        let mut vars = Vec::new();
        for name in names {
            let Some(v) = self.msdp_value(name) else { continue };
            if *name == "SERVER_TIME" && !force {
                continue; // sent when asked, not every second
            }
            if force || self.msdp_sent.get(name) != Some(&v) {
                self.msdp_sent.insert(name, v.clone());
                vars.push((name.to_string(), v));
            }
        }
        if !vars.is_empty() {
            out.extend(msdp::frame(&vars));
        }
    }

    /// An MSDP sub-negotiation from the client.
    pub fn on_msdp(&mut self, data: &[u8]) -> Reply {
        let mut reply = Reply::default();
        let Some(commands) = msdp::parse(data) else {
            tracing::debug!("an MSDP message that does not read was ignored");
            return reply;
        };
        for (command, vals) in commands {
            let raw: Vec<&str> = vals.iter().flat_map(|v| v.strings()).collect();
            let args: Vec<String> = raw.iter().map(|s| s.to_ascii_uppercase()).collect();
            let known = |a: &String| MSDP_VARIABLES.iter().find(|v| **v == a.as_str()).copied();
            match command.to_ascii_uppercase().as_str() {
                "LIST" => {
                    for what in &args {
                        let items: Vec<&str> = match what.as_str() {
                            "COMMANDS" => MSDP_COMMANDS.to_vec(),
                            "LISTS" => MSDP_LISTS.to_vec(),
                            "REPORTABLE_VARIABLES" | "SENDABLE_VARIABLES" => MSDP_VARIABLES.to_vec(),
                            "REPORTED_VARIABLES" => self.reported.iter().copied().collect(),
                            "CONFIGURABLE_VARIABLES" => MSDP_CONFIGURABLE.to_vec(),
                            _ => continue,
                        };
                        let list = MsdpVal::Array(items.into_iter().map(|s| MsdpVal::Str(s.into())).collect());
                        reply.bytes.extend(msdp::frame(&[(what.clone(), list)]));
                    }
                }
                "REPORT" => {
                    let names: Vec<&'static str> = args.iter().filter_map(known).collect();
                    self.reported.extend(names.iter().copied());
                    self.push_msdp(&mut reply.bytes, &names, true);
                }
                "UNREPORT" => {
                    for n in args.iter().filter_map(known) {
                        self.reported.remove(n);
                        self.msdp_sent.remove(n);
                    }
                }
                "SEND" => {
                    let names: Vec<&'static str> = args.iter().filter_map(known).collect();
                    self.push_msdp(&mut reply.bytes, &names, true);
                }
                "RESET" if args.iter().any(|a| a == "REPORTABLE_VARIABLES" || a == "REPORTED_VARIABLES") => {
                    self.reported.clear();
                    self.msdp_sent.clear();
                }
                "CLIENT_NAME" | "CLIENT_VERSION" => {
                    let value = raw.first().copied().unwrap_or_default().chars().take(64).collect::<String>();
                    let hello = self.hello.get_or_insert_with(Default::default);
                    if command.eq_ignore_ascii_case("CLIENT_NAME") {
                        hello.0 = value;
                    } else {
                        hello.1 = value;
                    }
                }
                _ => {}
            }
        }
        reply
    }
}

#[cfg(test)]
#[path = "mud_tests.rs"]
mod tests;
