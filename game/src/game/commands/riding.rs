//! Dark Pawns's mounts: `ride` (`mount`), `dismount`, and the stablehand who sells
//! horses. A rider's mount walks under it (and pays the moves); tbaMUD has none of it.

use super::CmdStatus;
use crate::game::model::tables::{mob_flag, room_flag, MAX_LEVEL};
use crate::game::model::world::CharId;
use crate::game::rules::clock::PULSES_PER_MUD_HOUR;
use crate::game::rules::spells::{Affect, AffectKind};
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;
use crate::worldfile::profile::Family;

/// What a horse costs at the stables.
pub const HORSE_PRICE: i64 = 300;
/// The stables' horse (mob 8021).
const HORSE: u32 = 8021;

impl Engine {
    /// The mount `ch` rides, if it is here with it.
    pub(crate) fn mount_of(&self, ch: CharId) -> Option<CharId> {
        let c = self.world.ch(ch)?;
        c.riding.filter(|m| self.world.ch(*m).is_some_and(|mc| mc.room == c.room))
    }

    /// Whether someone rides `mount`.
    fn ridden(&self, mount: CharId) -> bool {
        self.world.ch(mount).and_then(|m| m.master).and_then(|r| self.world.ch(r)).is_some_and(|r| r.riding == Some(mount))
    }

    pub fn do_ride(&mut self, ch: CharId, args: &str) -> CmdStatus {
        if self.world.profile.family != Family::DarkPawns {
            self.huh(ch);
            return CmdStatus::UnknownCommand;
        }
        let Some(c) = self.world.ch(ch) else { return CmdStatus::Failed };
        if c.fighting.is_some() {
            self.send_text(ch, "You're too busy fighting!");
            return CmdStatus::Failed;
        }
        if self.world.rooms[c.room].proto.flags[0] & room_flag::INDOORS != 0 {
            self.send_text(ch, "Go outside if you want to ride!");
            return CmdStatus::Failed;
        }
        let arg = args.split_whitespace().next().unwrap_or("");
        if arg.is_empty() {
            self.send_text(ch, "What do you wish to ride?");
            return CmdStatus::InvalidTarget;
        }
        let Some(mount) = self.find_char_room(ch, arg) else {
            self.send_text(ch, "No-one by that name here.");
            return CmdStatus::InvalidTarget;
        };
        if mount == ch {
            self.send_text(ch, "That's disgusting!");
            return CmdStatus::InvalidTarget;
        }
        let refusal = if self.mount_of(ch).is_some() {
            Some("You can't ride two beasts at once!".to_string())
        } else if self.ridden(mount) {
            Some("The beast is already being ridden!".to_string())
        } else if self.world.ch(mount).is_none_or(|m| !m.is_npc() || m.mob_flags & mob_flag::MOUNTABLE == 0) {
            Some("You can't ride $N!".to_string())
        } else if self.affected(ch, AffectKind::Charm) {
            Some("Get your master's permission first!".to_string())
        } else if self.affected(mount, AffectKind::Charm) && self.world.ch(mount).and_then(|m| m.master) != Some(ch) {
            Some("$S master would not like that!".to_string())
        } else {
            None
        };
        if let Some(r) = refusal {
            self.act(&r, ch, Some(mount), None, To::Actor, EventKind::Text);
            return CmdStatus::Failed;
        }
        if !self.affected(mount, AffectKind::Charm) {
            self.add_affect(mount, Affect { kind: AffectKind::Charm, pulses: 24 * 365 * PULSES_PER_MUD_HOUR, modifier: 0 });
        }
        if self.world.ch(mount).and_then(|m| m.master) != Some(ch) {
            self.stop_follower(mount);
            self.follow_quietly(mount, ch);
        }
        if let Some(c) = self.world.chars.get_mut(&ch) {
            c.riding = Some(mount);
        }
        self.send_text(ch, "You hop on your mount.");
        self.act("$n hops on your back!", ch, Some(mount), None, To::Victim, EventKind::Text);
        self.act("$n hops onto the back of $N.", ch, Some(mount), None, To::NotVictim, EventKind::Text);
        CmdStatus::Ok
    }

    pub fn do_dismount(&mut self, ch: CharId, _args: &str) -> CmdStatus {
        if self.world.profile.family != Family::DarkPawns {
            self.huh(ch);
            return CmdStatus::UnknownCommand;
        }
        let Some(mount) = self.mount_of(ch) else {
            self.send_text(ch, "You need to be riding before you can dismount!");
            return CmdStatus::Failed;
        };
        self.send_text(ch, "You hop off your mount.");
        self.act("$n dismounts from the back of $N.", ch, Some(mount), None, To::NotVictim, EventKind::Text);
        self.send_text(mount, "Your rider dismounts, whew!");
        if let Some(c) = self.world.chars.get_mut(&ch) {
            c.riding = None;
        }
        CmdStatus::Ok
    }

    /// Follows without a word (`add_follower_quiet`).
    fn follow_quietly(&mut self, ch: CharId, leader: CharId) {
        if let Some(c) = self.world.chars.get_mut(&ch) {
            c.master = Some(leader);
        }
        if let Some(l) = self.world.chars.get_mut(&leader) {
            if !l.followers.contains(&ch) {
                l.followers.push(ch);
            }
        }
    }

    /// `stableboy`: `list` names the price of a horse, `buy horse` brings one up from
    /// the stables, tame and following (other wares: "Buy what, fine adventurer?").
    pub(crate) fn spec_stableboy(&mut self, boy: CharId, ch: CharId, cmd: &str, args: &str) -> Option<CmdStatus> {
        if !matches!(cmd, "list" | "buy") || self.world.ch(ch)?.is_npc() {
            return None;
        }
        let tell = |e: &mut Engine, text: &str| e.act(&format!("$n tells you, '{text}'"), boy, Some(ch), None, To::Victim, EventKind::Tell);
        if cmd == "list" {
            tell(self, &format!("You can buy a horse for {HORSE_PRICE} gold coins."));
            return Some(CmdStatus::Ok);
        }
        if !args.trim().eq_ignore_ascii_case("horse") {
            tell(self, "Buy what, fine adventurer?");
            return Some(CmdStatus::InvalidTarget);
        }
        let c = self.world.ch(ch)?;
        let (room, gold, cha, followers) = (c.room, c.gold, c.abilities[5], c.followers.len());
        if followers >= (cha / 2) as usize && c.level <= MAX_LEVEL {
            self.send_text(ch, "You can't have any more followers!");
            return Some(CmdStatus::Failed);
        }
        if gold < HORSE_PRICE {
            tell(self, "You can't afford a mount!");
            return Some(CmdStatus::Failed);
        }
        let mut rng = std::mem::replace(&mut self.rng, rand::SeedableRng::seed_from_u64(0));
        let horse = self.world.create_mob(HORSE, room, &mut |lo, hi| rand::Rng::gen_range(&mut rng, lo..=hi.max(lo)));
        self.rng = rng;
        let Some(horse) = horse else {
            tell(self, "The stables are empty today.");
            return Some(CmdStatus::Failed);
        };
        if let Some(h) = self.world.chars.get_mut(&horse) {
            (h.moves, h.max_moves) = (230, 230);
        }
        self.add_affect(horse, Affect { kind: AffectKind::Charm, pulses: 24 * 365 * PULSES_PER_MUD_HOUR, modifier: 0 });
        self.follow_quietly(horse, ch);
        self.act("$N brings $n up from the stables out back.", horse, Some(boy), None, To::Room, EventKind::Text);
        if let Some(c) = self.world.chars.get_mut(&ch) {
            c.gold -= HORSE_PRICE;
            c.mark_dirty();
        }
        tell(self, "That'll be 300 coins, treat'er well");
        Some(CmdStatus::Ok)
    }
}
