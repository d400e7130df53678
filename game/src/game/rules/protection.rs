//! Who may not be hurt (issue 51): the original's `damage()` refuses before any blow
//! lands. A shopkeeper whose shop will not start a fight (the `.shp` bitvector's
//! `WILL_START_FIGHT`) slaps the attacker and tells it to get out before it calls the
//! guards (`ok_damage_shopkeeper`, in every family). Dark Pawns also laughs off any
//! attack on its town's officials (`is_shopkeeper`: keepers, guildmasters, guild guards,
//! butlers, clerks, and mobs 8003–8011 and 8078); tbaMUD protects `MOB_NOKILL` mobs. The
//! fight stops on both sides and nothing is hurt.

use crate::game::model::world::CharId;
use crate::game::rules::spells::AffectKind;
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;
use crate::worldfile::profile::Family;

/// tbaMUD's `MOB_NOKILL` (bit 18).
const TBA_NOKILL: u64 = 1 << 18;

/// What a shopkeeper tells its attacker (the original's `MSG_CANT_KILL_KEEPER`).
pub const CANT_KILL_KEEPER: &str = "Get out of here before I call the guards!";

/// Dark Pawns's officials by procedure (`is_shopkeeper`).
const DP_OFFICIALS: &[&str] = &["guild", "guild_guard", "butler", "clerk"];

impl Engine {
    /// Whether `ch` may not hurt `victim`; the refusal is said and the fight stopped.
    pub(crate) fn protected_from(&mut self, ch: CharId, victim: CharId) -> bool {
        if ch == victim {
            return false;
        }
        let Some(v) = self.world.ch(victim) else { return false };
        let Some(vnum) = v.npc_vnum else { return false };
        let charmed = v.affects.iter().any(|a| a.kind == AffectKind::Charm);
        let nokill = v.mob_flags & TBA_NOKILL != 0;
        let family = self.world.profile.family;
        // A keeper of any peaceful shop is protected (`World::keepers`, made at load).
        let keeper = self.world.keepers.get(&vnum).copied();
        let peaceful_keeper = !charmed && keeper == Some(false);
        if peaceful_keeper {
            self.keeper_slaps(victim, ch);
        }
        let official = family == Family::DarkPawns
            && (keeper.is_some()
                || (8003..=8011).contains(&vnum)
                || vnum == 8078
                || self.mob_special(victim).is_some_and(|s| DP_OFFICIALS.contains(&s)));
        let nokill = family == Family::TbaMud && nokill;
        if !(peaceful_keeper || official || nokill) {
            return false;
        }
        match family {
            Family::DarkPawns => self.send_text(ch, "Ha ha... Don't think so."),
            Family::TbaMud => self.send_text(ch, "This mob is protected."),
            Family::Circle => {}
        }
        for id in [ch, victim] {
            if self.world.ch(id).is_some_and(|c| c.fighting.is_some()) {
                self.stop_fighting(id);
            }
        }
        true
    }

    /// The keeper slaps `ch` (the world's `slap` social) and tells it to get out — in
    /// that order in Dark Pawns, the other way round in tbaMUD.
    fn keeper_slaps(&mut self, keeper: CharId, ch: CharId) {
        let tba = self.world.profile.family == Family::TbaMud;
        // The slap as each original's socials word it (those files live outside the
        // world directories); another world's own `slap`, or ours.
        let slap = self.world.socials.iter().find(|s| s.name == "slap").map(|s| s.messages.clone());
        let line =
            |i: usize, fallback: &str| slap.as_ref().and_then(|m| m.get(i).cloned().flatten()).unwrap_or_else(|| fallback.to_string());
        let victim = match self.world.profile.family {
            Family::DarkPawns => "You are slapped by $n.".to_string(),
            Family::TbaMud => "$n slaps you. Ow!".to_string(),
            Family::Circle => line(4, "$n slaps you."),
        };
        let others = line(3, "$n slaps $N.");
        let tell = format!("$n tells you, '{CANT_KILL_KEEPER}'");
        if tba {
            self.act(&tell, keeper, Some(ch), None, To::Victim, EventKind::Tell);
        }
        self.act(&others, keeper, Some(ch), None, To::NotVictim, EventKind::Emote);
        self.act(&victim, keeper, Some(ch), None, To::Victim, EventKind::Emote);
        if !tba {
            self.act(&tell, keeper, Some(ch), None, To::Victim, EventKind::Tell);
        }
    }
}
