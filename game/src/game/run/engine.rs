//! The engine task: its inbox, its pulse, and the per-pulse flush of outputs.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tokio::sync::{mpsc, oneshot};

use crate::game::model::character::{EventEntry, Link, EVENTS_CAP};
use crate::game::model::tables::Position;
use crate::game::model::world::{CharId, World};
use crate::game::records::persist::SaveQueue;
use crate::game::records::recording::CommandMeta;
use crate::game::send::vars::{self, EVENTS_VAR};
use crate::worldfile::WorldProto;

pub const PULSES_PER_COMBAT_ROUND: u64 = 20;
pub const PULSES_PER_MOB_AI: u64 = 40;
pub const PULSES_PER_ZONE_CHECK: u64 = 100;
pub const PULSES_PER_REGEN: u64 = 150;
/// Crowded rooms hear their comings and goings once a second.
pub const PULSES_PER_CROWD_NOTICE: u64 = 10;
/// Periodic (every-60-s) saves made in one housekeeping pass (once a second).
pub const SAVES_PER_PASS: usize = 100;
/// A pulse that has run this long looks at the inbox as it goes (`drain_inbox`), so a
/// command does not wait out a long pulse; a shorter one ends first, and what waits is
/// handled right after it (which keeps pulses short: commands taken in the middle of a
/// pulse made it longer).
pub const LONG_PULSE: Duration = Duration::from_millis(10);
/// Largest backlog of commands one player may have waiting.
pub const MAX_QUEUED: usize = 64;

#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Length of one pulse (100 ms in play; tests may shorten it, the rules count pulses).
    pub pulse: Duration,
    pub seed: u64,
    /// Where characters start and respawn, when not the world's own (`serve --start-room`).
    pub start_room: Option<u32>,
    /// The game hour at the first pulse (default: from the wall clock; see `clock`).
    pub start_hour: Option<u8>,
    /// Record humans' sessions too (agents are always recorded when recording is on).
    pub record_humans: bool,
    pub linkdead_grace: Duration,
    /// Changed characters are saved at least this often.
    pub save_interval: Duration,
    /// Tests only: the `__panic` and `__panic_engine` commands (see `boundary`).
    pub fault_injection: bool,
    /// The world's own behaviour: its Lua scripts and special procedures
    /// (`serve --no-scripts` turns both off).
    pub scripts: bool,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            pulse: Duration::from_millis(100),
            seed: rand::random(),
            start_room: None,
            start_hour: None,
            record_humans: true,
            linkdead_grace: Duration::from_secs(300),
            save_interval: Duration::from_secs(60),
            fault_injection: false,
            scripts: true,
        }
    }
}

pub use crate::game::run::pulse_stats::{PhaseClock, PulseStats};

pub struct EnterReply {
    pub char_id: CharId,
    /// The character was already in the world (link-dead or connected) and was taken back.
    pub reconnected: bool,
}

pub enum EngineMsg {
    /// Place an authenticated character in the world (or take it back if it is there).
    Enter {
        record: Box<pawns_storage::CharacterRecord>,
        link: Link,
        /// `Some(false)`: a resume that could not be filled; the `vars` dump says so.
        resumed: Option<bool>,
        reply: oneshot::Sender<EnterReply>,
    },
    Command {
        char_id: CharId,
        link_id: u64,
        line: String,
        id: Option<Arc<str>>,
        received: Instant,
        client: Option<Box<crate::game::records::recording::CommandClient>>,
    },
    Subscribe {
        char_id: CharId,
        link_id: u64,
        names: Vec<String>,
        add: bool,
        re: Option<Arc<str>>,
    },
    /// The socket went away: the character goes link-dead. A JSON link keeps
    /// buffering (it can be resumed); a telnet link is dropped.
    Detach {
        char_id: CharId,
        link_id: u64,
    },
    /// A resumed socket is back on its link; `resync` sends `state` and all `vars`.
    Reattach {
        char_id: CharId,
        link_id: u64,
        resync: bool,
    },
    /// Send `state` and a full `vars` dump (a resume that could not be filled).
    Resync {
        char_id: CharId,
        link_id: u64,
    },
    /// The session dropped a command over its rate: goes into `EVENTS`.
    RateLimited {
        char_id: CharId,
        link_id: u64,
        command: String,
    },
    /// Names of everyone in the world, for `/health`-style callers.
    Who {
        reply: oneshot::Sender<Vec<(String, bool)>>,
    },
    /// The HUD parts of a character in the world, by name (the observatory: whatever
    /// link it has, or none).
    HudOf {
        name: String,
        reply: oneshot::Sender<Option<crate::game::send::hud::HudSnapshot>>,
    },
    /// An `actions` message (protocol §11.1): `responses` and `actions`.
    Actions {
        char_id: CharId,
        link_id: u64,
        batch: serde_json::Value,
        re: Option<Arc<str>>,
        /// Results already made by the session for the `actions` at these indices (the
        /// memory layers of §12, which live outside the engine).
        premade: Vec<(usize, crate::game::run::actions::Outcome)>,
    },
    /// Words for a player from outside the engine (the memory layers' telnet answers), sent
    /// like the engine's own so the prompt follows them.
    Say {
        char_id: CharId,
        text: String,
    },
    /// Something a player keeps in its own memory (§12), recorded in its session so the
    /// search index has it for `recall`.
    MindRecorded {
        /// The player's name (it may be another's: a neural link's receiver).
        name: String,
        items: Vec<(&'static str, u64, String)>,
    },
    /// Where a player stands, for what the memory layers keep with what they make.
    Whereabouts {
        char_id: CharId,
        reply: oneshot::Sender<crate::game::rules::houses::Whereabouts>,
    },
    /// The parts of a player's HUD and its heartbeat (s); `beat`: this is a heartbeat,
    /// so the interval drifts back toward 10 s afterwards.
    Hud {
        char_id: CharId,
        link_id: u64,
        beat: bool,
        reply: oneshot::Sender<Option<crate::game::send::hud::HudSnapshot>>,
    },
    Shutdown {
        reply: oneshot::Sender<()>,
    },
    /// The resident manager's news (issue 15).
    Resident(crate::game::run::agents::ResidentNote),
}

#[derive(Clone)]
pub struct EngineHandle {
    pub tx: mpsc::Sender<EngineMsg>,
    /// The heartbeat HUD loops' wake-ups (`wake_agent`), shared with the engine.
    pub wakes: Arc<crate::game::run::agents::HudWakes>,
}

pub struct Engine {
    pub world: World,
    pub(crate) rng: StdRng,
    pub pulse: u64,
    pub cfg: EngineConfig,
    pub(crate) saves: SaveQueue,
    /// The command being dispatched: its actor gets `re` on what it is sent.
    pub(crate) cur: Option<(CharId, Option<Arc<str>>)>,
    pub(crate) start_room: usize,
    /// The game hour at pulse 0.
    pub start_hour: u64,
    /// What the house rooms held when last saved.
    pub(crate) houses: crate::game::rules::houses::HouseBook,
    /// Every character's chat room (protocol §11.2).
    pub chat: crate::game::model::chat_rooms::ChatBook,
    /// The bulletin boards' messages (the `gen_board` special).
    pub boards: crate::game::rules::specials::board::BoardBook,
    /// Every character's name, lower case (whom a letter may be addressed to); the
    /// server fills it at boot, `enter` adds new ones.
    pub registered: std::collections::HashSet<String>,
    /// The world's Lua scripts (their Lua state is on this thread: `script::host`).
    pub(crate) scripts: crate::script::ScriptBook,
    /// The world's DG Scripts triggers (tbaMUD), and the runs waiting on `wait`.
    pub(crate) dg: crate::dg::DgBook,
    pub(crate) dg_waiting: Vec<crate::game::scripting::dg_run::Waiting>,
    /// Triggers `attach`ed to or `detach`ed from one mob, thing or room: its whole list
    /// from then on (the prototype's stays as it was).
    pub(crate) dg_attached: std::collections::HashMap<crate::game::scripting::dg_run::Owner, Vec<u32>>,
    /// Things' `otimer`s: mud hours until their timer triggers fire.
    pub(crate) dg_timers: std::collections::BTreeMap<crate::game::model::world::ObjId, u32>,
    /// The agents the server runs itself, by lower-cased name.
    pub(crate) residents: std::collections::HashMap<String, crate::game::run::agents::ResidentInfo>,
    /// Where agent management goes to be carried out (`None`: no resident manager).
    pub resident_cmds: Option<tokio::sync::mpsc::UnboundedSender<crate::game::run::agents::ResidentCmd>>,
    pub wakes: Arc<crate::game::run::agents::HudWakes>,
    /// Where records go (none: nothing is recorded).
    pub recorder: Option<std::sync::Arc<dyn crate::game::records::record_sink::RecordSink>>,
    /// Records gathered since the engine last handed them over.
    pub(crate) rec_out: Vec<crate::game::records::record_sink::RecItem>,
    /// Records the last pulse made: the next one reserves as many up front (grown from
    /// nothing by doubling, a crowd's pulse of records was copied a dozen times over).
    rec_pulse_hint: usize,
    /// Players whose outbox holds something (see `deliver`); sent at the pulse's end.
    pub(crate) outbox_dirty: Vec<CharId>,
    /// A running server hands a pulse's batches over in slices (`deliver.rs`): whether
    /// it does, who is waiting for theirs, how many go per slice, and the fewest that
    /// are worth a slice of their own.
    pub(crate) pacing: bool,
    pub(crate) paced: std::collections::VecDeque<CharId>,
    pub(crate) pace_slice: usize,
    pub(crate) pace_min: usize,
    /// A session its own command just ended (see `recording::end_session`).
    pub(crate) ending: crate::game::records::recording::Ending,
    /// What an `actions` message said of how it was chosen (its model calls, its
    /// reason), while the engine applies it: the first game command it runs takes it.
    /// Whether it has run one (`ran`).
    pub(crate) batch_client: Option<(Box<crate::game::records::recording::CommandClient>, bool)>,
    /// Comings and goings in crowded rooms, told at the end of the pulse.
    pub(crate) crowd: crate::game::send::crowd::CrowdNotes,
    pub stats: PulseStats,
    /// Last flush's room variables (see `vars::compute_cached`).
    pub(crate) room_vars: vars::RoomCache,
    /// The inbox, lent to the engine while a pulse runs.
    inbox: Option<mpsc::Receiver<EngineMsg>>,
    pending_shutdown: Option<oneshot::Sender<()>>,
    /// Fault injection: the next pulse panics outside any boundary.
    pub(crate) fault_next_pulse: bool,
    /// `__slow_pulses`: (pulses left, ms each).
    pub(crate) fault_slow: (u32, u64),
    /// The HUD's server-wide message ids (and the context of what is being sent).
    pub(crate) message_ids: crate::game::send::hud::MessageIds,
    /// The time this step's records carry (unix µs): read once per pulse (and at its
    /// flush) and per message, journaled, so a replay stamps the same (`journal.rs`).
    pub(crate) now_us: u64,
    /// The last session id given (ids are start times, unique within the run).
    pub(crate) last_session_id: u64,
    /// The inputs journaled since the last hand-over (none: not journaling).
    pub(crate) journal: Option<crate::game::records::journal::Journal>,
    /// A replay's inputs for the middle of pulses (none: live).
    pub replay: Option<Box<crate::game::records::journal::ReplayFeed>>,
    /// Looks at the inbox so far in this pulse, and the one in progress (0: between pulses).
    pub(crate) drain_calls: u32,
    pub(crate) draining: u32,
    /// When the pulse running now began (none between pulses).
    pub(crate) pulse_started: Option<Instant>,
    /// The command being handled: when its session read it, as journaled.
    pub(crate) command_received_us: Option<u64>,
    /// Input held back while the record is far behind (`admission.rs`).
    pub(crate) admission: crate::game::run::admission::Admission,
}

impl Engine {
    pub fn new(mut proto: WorldProto, cfg: EngineConfig, saves: SaveQueue) -> Engine {
        // tbaMUD's colour codes are taken out of its world's text once, here (what
        // scripts and players say loses them as it is sent: `send_shared`).
        let mut coloured: Vec<(u32, String, String)> = Vec::new();
        if proto.profile.family == crate::worldfile::profile::Family::TbaMud {
            use crate::worldfile::colour::tba_to_marks;
            for r in &proto.rooms {
                let (n, d) = (tba_to_marks(&r.name), tba_to_marks(&r.description));
                if n.is_some() || d.is_some() {
                    coloured.push((
                        r.vnum,
                        n.unwrap_or_else(|| r.name.clone()),
                        d.unwrap_or_else(|| crate::worldfile::colour::strip_tba(&r.description).into_owned()),
                    ));
                }
            }
            crate::worldfile::colour::strip_world(&mut proto);
        }
        // `server::start` has checked an asked-for room exists; the world's own may not.
        let start_vnum = crate::worldfile::profile::start_room(&proto, &proto.profile, cfg.start_room).unwrap_or(0);
        let mut scripts = crate::script::ScriptBook::new(&proto);
        let mut dg = crate::dg::DgBook::new(&proto);
        let mut world = World::new(proto);
        if !cfg.scripts {
            scripts.off = true;
            world.mob_specials.clear();
            world.obj_specials.clear();
            world.room_specials.clear();
            world.behaving_vnums.clear();
            dg.off = true;
        } else {
            world.behaving_vnums.extend(scripts.attached.keys().filter(|(k, _)| *k == crate::script::ScriptKind::Mob).map(|(_, v)| *v));
            // Mobs carrying DG triggers behave too.
            world.behaving_vnums.extend(world.mob_protos.values().filter(|m| !m.triggers.is_empty()).map(|m| m.vnum));
        }
        for (vnum, name, description) in coloured {
            if let Some(r) = world.room_of_vnum(vnum) {
                world.rooms[r].coloured = Some(Box::new((name, description)));
            }
        }
        let start_room = world.room_of_vnum(start_vnum).unwrap_or(0);
        let start_hour = crate::game::rules::clock::starting_hour(cfg.start_hour);
        let mut e = Engine {
            world,
            rng: StdRng::seed_from_u64(cfg.seed),
            pulse: 0,
            cfg,
            saves,
            cur: None,
            start_room,
            start_hour,
            houses: Default::default(),
            chat: Default::default(),
            boards: Default::default(),
            registered: Default::default(),
            scripts,
            dg,
            dg_waiting: Vec::new(),
            dg_attached: Default::default(),
            dg_timers: Default::default(),
            residents: Default::default(),
            resident_cmds: None,
            wakes: Default::default(),
            recorder: None,
            rec_out: Vec::new(),
            rec_pulse_hint: 0,
            outbox_dirty: Vec::new(),
            pacing: false,
            paced: Default::default(),
            pace_slice: 0,
            pace_min: crate::game::send::deliver::PACE_MIN_SLICE,
            ending: None,
            batch_client: None,
            crowd: Default::default(),
            stats: PulseStats::default(),
            room_vars: Default::default(),
            inbox: None,
            pending_shutdown: None,
            fault_next_pulse: false,
            fault_slow: (0, 0),
            message_ids: Default::default(),
            now_us: crate::time::unix_us(),
            last_session_id: 0,
            journal: None,
            replay: None,
            drain_calls: 0,
            draining: 0,
            pulse_started: None,
            command_received_us: None,
            admission: Default::default(),
        };
        e.world.night = crate::game::rules::clock::is_night(e.hour());
        e.reset_all_zones();
        e
    }

    pub fn roll(&mut self, lo: i32, hi: i32) -> i32 {
        if hi <= lo {
            lo
        } else {
            self.rng.gen_range(lo..=hi)
        }
    }

    pub fn dice(&mut self, num: i32, size: i32) -> i32 {
        (0..num.clamp(0, 1000)).map(|_| self.roll(1, size.max(1))).sum()
    }

    fn pulses(&self, d: Duration) -> u64 {
        (d.as_millis() / self.cfg.pulse.as_millis().max(1)).max(1) as u64
    }

    /// Runs until `Shutdown`, then hands the engine back (tests read it). Never awaits
    /// anything but its inbox and its clock. The clock comes first: a pulse that is due
    /// runs before the next message, so a flooded inbox never delays the game's time
    /// (messages wait at most one pulse; long pulses also look at the inbox as they go).
    pub async fn run(mut self, mut rx: mpsc::Receiver<EngineMsg>) -> Engine {
        self.warm_scripts();
        let mut tick = tokio::time::interval(self.cfg.pulse);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        self.pacing = self.replay.is_none();
        // When the next slice of the pulse's batches goes.
        let mut next_slice: Option<tokio::time::Instant> = None;
        loop {
            // A far-behind record holds input back (`admission.rs`); the clock never.
            let open = self.admits();
            let msg = tokio::select! {
                biased;
                _ = tick.tick() => {
                    if !self.admission_tick() {
                        continue;
                    }
                    // Long pulses take a look at the inbox as they go (see `drain_inbox`).
                    self.inbox = Some(rx);
                    self.tick();
                    next_slice = self.send_paced(false).then(|| tokio::time::Instant::now() + crate::game::send::deliver::PACE_GAP);
                    self.hand_over_records();
                    rx = self.inbox.take().expect("the inbox comes back after a tick");
                    match self.pending_shutdown.take() {
                        Some(reply) => Some(EngineMsg::Shutdown { reply }),
                        None => continue,
                    }
                }
                _ = sleep_until_some(next_slice), if next_slice.is_some() => {
                    next_slice = self.send_paced(false).then(|| tokio::time::Instant::now() + crate::game::send::deliver::PACE_GAP);
                    continue;
                }
                msg = rx.recv(), if open => msg,
            };
            match msg {
                Some(EngineMsg::Shutdown { reply }) => {
                    self.send_paced(true);
                    self.shutdown();
                    self.hand_over_records();
                    let _ = reply.send(());
                    return self;
                }
                Some(m) => {
                    self.admitted();
                    self.handle(m);
                    // Hand records over when about to wait, so a burst is one message.
                    if rx.is_empty() {
                        self.hand_over_records();
                    }
                }
                None => {
                    self.send_paced(true);
                    self.shutdown();
                    self.hand_over_records();
                    return self;
                }
            }
        }
    }

    /// Handles what is waiting in the inbox in the middle of a pulse, so a command does
    /// not wait for a long pulse to end. Outputs stay correct: variables are compared
    /// with what was last sent, so a change made now goes out at the next flush at the
    /// latest.
    pub fn drain_inbox(&mut self) {
        self.drain_calls += 1;
        if self.replay.is_some() {
            self.replay_drain();
            return;
        }
        // A short pulse ends soon enough: what waits is handled right after it (the
        // journal notes where messages were taken, so a replay takes them at the same
        // looks whatever the clock said).
        if self.pulse_started.is_some_and(|t| t.elapsed() < LONG_PULSE) {
            return;
        }
        let Some(mut rx) = self.inbox.take() else { return };
        self.draining = self.drain_calls;
        for _ in 0..4096 {
            if !self.admits() {
                break;
            }
            match rx.try_recv() {
                Ok(EngineMsg::Shutdown { reply }) => {
                    self.pending_shutdown = Some(reply);
                    break;
                }
                Ok(m) => {
                    self.admitted();
                    self.handle(m)
                }
                Err(_) => break,
            }
        }
        self.draining = 0;
        self.inbox = Some(rx);
    }

    pub(crate) fn shutdown(&mut self) {
        self.journal_shutdown();
        let ids: Vec<CharId> = self.world.players.values().copied().collect();
        for id in ids {
            self.save_char(id);
            self.close_link(id, "shutdown", "The server is shutting down.");
            self.end_session(id, "shutdown");
        }
        self.save_houses(false);
        self.save_chat_rooms(false);
        self.save_boards();
        self.send_outboxes();
        // The Lua state lives on this thread; it goes with the engine.
        crate::script::host::drop_host(self.scripts.uid);
    }

    pub fn pc_link_matches(&self, id: CharId, link_id: u64) -> bool {
        self.world.ch(id).and_then(|c| c.pc.as_ref()).and_then(|p| p.link.as_ref()).is_some_and(|l| l.id == link_id)
    }

    pub fn push_event(&mut self, id: CharId, e: EventEntry) {
        if let Some(pc) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()) {
            // Only sessions that asked for EVENTS collect them.
            if !pc.subscribed.contains(EVENTS_VAR) {
                return;
            }
            if pc.events.len() >= EVENTS_CAP {
                pc.events.pop_front();
                pc.events_dropped += 1;
            }
            pc.events.push_back(e);
        }
    }

    /// One pulse (the run loop calls it on its clock; tests and fuzzing drive it directly).
    pub fn tick(&mut self) {
        let started = std::time::Instant::now();
        self.pulse_started = Some(started);
        let recorded = self.tick_started();
        if self.recorder.is_some() {
            self.rec_out.reserve(self.rec_pulse_hint);
        }
        self.tick_inner();
        self.rec_pulse_hint = self.rec_out.len() - recorded.min(self.rec_out.len());
        self.pulse_started = None;
        self.tick_ended(recorded);
        self.stats.record(started.elapsed(), self.cfg.pulse, self.pulse);
    }

    fn tick_inner(&mut self) {
        if std::mem::take(&mut self.fault_next_pulse) {
            panic!("fault injection: the engine panicked outside a command");
        }
        self.injected_slow_pulse();
        // The last pulse's batches that are still waiting go before this one's.
        self.send_paced(true);
        self.pulse += 1;
        self.world.night = crate::game::rules::clock::is_night(self.hour());
        let mut phase = PhaseClock::start();
        self.dispatch_queued();
        phase.lap(&mut self.stats.phase_max[0]);
        if self.pulse.is_multiple_of(PULSES_PER_COMBAT_ROUND) {
            self.combat_round();
            phase.lap(&mut self.stats.phase_max[1]);
        }
        // Every mob acts once per PULSES_PER_MOB_AI, a share of them each pulse.
        self.mob_activity_share();
        phase.lap(&mut self.stats.phase_max[2]);
        // Room and object pulses: every 4 s for each, spread over the 4 s.
        self.script_activity();
        // DG Scripts: runs whose wait is over, and random triggers every 13 s.
        self.dg_pulse();
        if self.pulse.is_multiple_of(PULSES_PER_ZONE_CHECK) {
            self.zone_update();
            phase.lap(&mut self.stats.phase_max[3]);
        }
        if self.pulse.is_multiple_of(PULSES_PER_REGEN) {
            self.regen_tick();
            phase.lap(&mut self.stats.phase_max[4]);
        }
        if self.pulse.is_multiple_of(10) {
            self.housekeeping();
            self.count_sessions();
            self.affect_update(10);
            self.save_houses(false);
            self.save_chat_rooms(false);
            if self.pulse.is_multiple_of(crate::game::rules::clock::PULSES_PER_MUD_HOUR) {
                self.hunger_tick();
                self.poison_tick();
                self.jail_tick();
                self.dg_hour();
            }
            // The rooms' own procedures every 4 s: a jail's prisoners, the burning hut.
            if self.pulse.is_multiple_of(40) {
                self.jail_release();
                self.room_procedures();
            }
            phase.lap(&mut self.stats.phase_max[5]);
        }
        self.flush();
        // What everyone was sent this pulse goes out: one batch per session.
        self.send_outboxes();
        phase.lap(&mut self.stats.phase_max[6]);
    }

    /// One queued command per player per pulse, after its wait state runs out. Only the
    /// players with a command queued or a wait to count down are read (`World::waiting`),
    /// in id order; a player acts once a pulse by its `acted_pulse`, not by a flag every
    /// player's pulse would reset.
    fn dispatch_queued(&mut self) {
        if self.world.waiting.is_empty() {
            return;
        }
        let ids: Vec<CharId> = self.world.waiting.iter().copied().collect();
        for id in ids {
            let Some(ch) = self.world.chars.get_mut(&id).filter(|c| c.pc.is_some()) else {
                self.world.waiting.remove(&id);
                continue;
            };
            if ch.wait > 0 {
                ch.wait -= 1;
                continue;
            }
            let Some(pc) = ch.pc.as_mut() else { continue };
            let Some(q) = pc.queue.pop_front() else {
                self.world.waiting.remove(&id);
                continue;
            };
            pc.pulse_re = q.id.clone();
            pc.acted_pulse = self.pulse;
            self.run_command(id, &q.line, CommandMeta { received: q.received, received_us: q.received_us, re: q.id, client: q.client });
            self.stats.command_ran(q.received.elapsed());
            self.deliver(id, crate::game::send::output::Out::Answered(q.received));
            // Still waiting: more queued, or a wait the command set (its own or another's).
            let more = self.world.ch(id).is_some_and(|c| c.wait > 0 || c.pc.as_ref().is_some_and(|p| !p.queue.is_empty()));
            if !more {
                self.world.waiting.remove(&id);
            }
        }
    }

    /// Link-dead timeouts and periodic saves.
    fn housekeeping(&mut self) {
        let grace = self.pulses(self.cfg.linkdead_grace);
        let save_every = self.pulses(self.cfg.save_interval);
        let mut ids: Vec<CharId> = self.world.players.values().copied().collect();
        // Periodic saves are spread out: at most SAVES_PER_PASS a pass, starting at a
        // different place each time, so a crowd that logged in together does not all
        // come due in one pulse.
        if !ids.is_empty() {
            let shift = (self.pulse / 10) as usize % ids.len();
            ids.rotate_left(shift);
        }
        let mut saved = 0;
        for id in ids {
            let Some(pc) = self.world.ch(id).and_then(|c| c.pc.as_ref()) else {
                continue;
            };
            if pc.linkdead_since.is_some_and(|since| self.pulse - since >= grace) {
                self.announce_here(id, false, "fades away.");
                self.save_char(id);
                self.end_session(id, "linkdead");
                self.world.extract_char(id);
                continue;
            }
            if saved < SAVES_PER_PASS && pc.dirty && self.pulse - pc.last_save_pulse >= save_every {
                self.save_char(id);
                saved += 1;
            }
        }
    }

    /// Makes sure a mob or player that stopped fighting stands up from "fighting".
    pub fn stop_fighting(&mut self, id: CharId) {
        self.world.clear_fighting(id);
        if let Some(c) = self.world.chars.get_mut(&id) {
            if c.position == Position::Fighting {
                c.position = Position::Standing;
            }
        }
    }
}

/// Waits until `at` (the caller only polls it when there is one).
async fn sleep_until_some(at: Option<tokio::time::Instant>) {
    if let Some(at) = at {
        tokio::time::sleep_until(at).await;
    }
}
