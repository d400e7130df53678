//! One login path for every edge: password and key logins through the same gate and
//! lockout (`authenticate`), character creation (`create_character`), and entering the
//! world — as JSON sessions (`login_json`, `create_and_enter_json`: resume, key,
//! password, creation) or as telnet ones (`net/telnet.rs` calls the same two).

use std::net::IpAddr;
use std::sync::Arc;

use tokio::sync::oneshot;

use super::link::{LinkCtl, LinkHandle, LinkTask, NewLink};
use super::outlet::Outlet;
use super::shared::Shared;
use super::telnet_login::Creation;
use crate::auth::limits::LoginDenied;
use crate::game::model::character::Link;
use crate::game::model::world::CharId;
use crate::game::EngineMsg;
use crate::net::accounts::{AuthError, Authed};
use crate::protocol::LoginData;

pub enum LoginOutcome {
    In(LinkHandle),
    Refused {
        code: &'static str,
        message: String,
        close: bool,
        /// Set on `locked_out` (every one carries it) and `rate_limited`.
        retry_after_ms: Option<u64>,
    },
}

/// Why a login was refused, for any edge.
#[derive(Debug, Clone)]
pub struct Refusal {
    pub code: &'static str,
    pub message: String,
    /// `locked_out`: the address failed too often; the session should end.
    pub locked_out: bool,
    pub retry_after_ms: Option<u64>,
}

impl Shared {
    /// Places a character in the world through the engine.
    pub async fn enter(&self, record: pawns_storage::CharacterRecord, link: Link, resumed: Option<bool>) -> Option<CharId> {
        let (tx, rx) = oneshot::channel();
        self.engine.tx.send(EngineMsg::Enter { record: Box::new(record), link, resumed, reply: tx }).await.ok()?;
        rx.await.ok().map(|r| r.char_id)
    }

    async fn enter_json(
        &self,
        data: &LoginData,
        record: pawns_storage::CharacterRecord,
        sock: Arc<Outlet>,
        pre_seq: u64,
        resumed: Option<bool>,
    ) -> LoginOutcome {
        let link_id = self.next_link_id();
        let name = record.name.to_ascii_lowercase();
        let (ctl, out_tx, bind) = LinkTask::spawn(NewLink {
            name: name.clone(),
            link_id,
            seq_start: pre_seq,
            sock: sock.clone(),
            token_key: self.token_key.clone(),
            revoked: self.revoked.clone(),
            limits: self.edge.link,
            engine: self.engine.clone(),
            hub: self.hub.clone(),
            metrics: self.metrics.clone(),
            display: data.display,
        });
        // An agent's memory is read here, off the engine, and handed to it with the login.
        let memory = if record.is_agent && self.edge.record {
            let store = self.accounts.store().clone();
            let (n, tier) = (name.clone(), data.tier.clone());
            match tokio::task::spawn_blocking(move || crate::memory::login::login_memory(&store, &n, tier.as_deref())).await {
                Ok(Ok(m)) => m.map(Arc::new),
                Ok(Err(e)) => {
                    tracing::warn!(agent = %name, code = e.code(), "could not read the agent's memory: {e}");
                    None
                }
                Err(_) => None,
            }
        } else {
            None
        };
        // The seed ignores `player_name` on a key login: the key's character logs in, and says so.
        let notice = data
            .secret()
            .filter(|s| s.starts_with("dp_"))
            .and(data.player_name.as_deref())
            .filter(|asked| !asked.trim().is_empty() && !asked.trim().eq_ignore_ascii_case(&record.name))
            .map(|asked| format!("This key belongs to {}; you are playing {} (not {}).", record.name, record.name, asked.trim()));
        let client = Arc::new(crate::game::model::character::ClientInfo {
            notice,
            harness: data.harness.clone(),
            model: data.model.clone(),
            version: data.version.clone(),
            tier: data.tier.clone(),
            valence: data.valence.unwrap_or(true),
            memory,
            display: data.display.is_some(),
        });
        let Some(char_id) = self.enter(record, Link { id: link_id, tx: out_tx, json: true, client }, resumed).await else {
            return LoginOutcome::Refused {
                code: "internal",
                message: "the game is shutting down".into(),
                close: true,
                retry_after_ms: None,
            };
        };
        let _ = bind.send(char_id);
        let handle = LinkHandle { link_id, char_id, ctl, name: Arc::from(name.as_str()), sock };
        self.hub.insert(&name, handle.clone());
        LoginOutcome::In(handle)
    }

    /// A failed login: counted against the address (a lockout when it passes the limit).
    fn refusal(&self, ip: IpAddr, target: &str, e: AuthError) -> Refusal {
        if e.counts_as_failure() {
            if let Some(LoginDenied::LockedOut { retry_after_ms }) = self.login_failed(ip, target) {
                return Refusal {
                    code: "locked_out",
                    message: "too many failed logins (from your address, or for this character)".into(),
                    locked_out: true,
                    retry_after_ms: Some(retry_after_ms),
                };
            }
        }
        Refusal { code: e.code(), message: e.message(), locked_out: false, retry_after_ms: None }
    }

    fn refuse(&self, ip: IpAddr, e: AuthError) -> LoginOutcome {
        let r = self.refusal(ip, "", e);
        LoginOutcome::Refused { code: r.code, message: r.message, close: r.locked_out, retry_after_ms: r.retry_after_ms }
    }

    /// A password or key login, for every edge: success clears the address's failures;
    /// a failure counts toward its lockout.
    pub async fn authenticate(&self, data: &LoginData, ip: IpAddr) -> Result<Authed, Refusal> {
        let target = login_target(data);
        match self.accounts.login(data).await {
            Ok(authed) => {
                self.login_ok(ip, &target);
                Ok(authed)
            }
            Err(e) => Err(self.refusal(ip, &target, e)),
        }
    }

    /// A new character with the creation's choices, saved at once, for every edge.
    /// Whether the world asks a new character's hometown (Dark Pawns).
    pub fn asks_hometown(&self) -> bool {
        self.accounts.kit().family() == crate::worldfile::profile::Family::DarkPawns
    }

    /// The world's family (its server's words and rules).
    pub fn family(&self) -> crate::worldfile::profile::Family {
        self.accounts.kit().family()
    }

    pub async fn create_character(&self, name: &str, secret: Option<String>, c: &Creation) -> Result<Authed, AuthError> {
        let mut authed = self.accounts.create(name, secret, c.class, c.race, c.sex, false).await?;
        authed.record.abilities = c.abilities;
        if c.hometown != 0 {
            authed.record.hometown = c.hometown;
        }
        let rec = authed.record.clone();
        let store = self.accounts.store().clone();
        let _ = tokio::task::spawn_blocking(move || store.save_characters(&[rec])).await;
        Ok(authed)
    }

    /// A JSON login: resume, key, or password (protocol §4, §9).
    pub async fn login_json(&self, data: &LoginData, ip: IpAddr, sock: Arc<Outlet>, pre_seq: u64) -> LoginOutcome {
        if let Some(resume) = &data.resume {
            let now = crate::time::unix_secs();
            let claims = match self.verify_token(&resume.token, now) {
                Ok(c) => c,
                Err(why) => return self.refuse(ip, AuthError::Failed(format!("resume refused: {why}"))),
            };
            if let Some(h) = self.hub.get(&claims.name) {
                let (tx, rx) = oneshot::channel();
                if h.ctl.send(LinkCtl::Attach { sock: sock.clone(), last_seq: resume.last_seq, reply: tx }).await.is_ok()
                    && rx.await.is_ok()
                {
                    // A reloaded page may have another window than the one before.
                    if let Some(display) = data.display {
                        let _ = h.ctl.send(LinkCtl::Display { display, from: sock.clone() }).await;
                    }
                    return LoginOutcome::In(LinkHandle { sock, ..h });
                }
                return LoginOutcome::Refused {
                    code: "internal",
                    message: "could not resume; log in again".into(),
                    close: false,
                    retry_after_ms: None,
                };
            }
            // The session is gone (grace period over): a fresh start, flagged.
            let rec = self.accounts.character(&claims.name).await.ok().flatten();
            return match rec {
                Some(mut r) => {
                    r.is_agent |= data.wants_agent();
                    self.enter_json(data, r, sock, pre_seq, Some(false)).await
                }
                None => self.refuse(ip, AuthError::Failed("resume refused: no such character".into())),
            };
        }
        match self.authenticate(data, ip).await {
            Ok(authed) => self.enter_json(data, authed.record, sock, pre_seq, None).await,
            Err(r) => LoginOutcome::Refused { code: r.code, message: r.message, close: r.locked_out, retry_after_ms: r.retry_after_ms },
        }
    }

    pub async fn create_and_enter_json(&self, data: &LoginData, c: &Creation, sock: Arc<Outlet>, pre_seq: u64) -> LoginOutcome {
        let name = data.player_name.clone().unwrap_or_default();
        match self.create_character(&name, data.secret().map(str::to_string), c).await {
            Ok(authed) => self.enter_json(data, authed.record, sock, pre_seq, None).await,
            Err(e) => LoginOutcome::Refused { code: e.code(), message: e.message(), close: false, retry_after_ms: None },
        }
    }
}

/// Whom a login is against, for its lockout: the character named by a password login;
/// "" for a key (the key names the character, and guessing keys is the address's).
pub fn login_target(data: &LoginData) -> String {
    if data.secret().is_some_and(|s| s.starts_with("dp_")) {
        return String::new();
    }
    data.player_name.as_deref().unwrap_or("").to_ascii_lowercase()
}
