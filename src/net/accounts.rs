//! Logging in and creating characters against the store. Everything slow (argon2,
//! redb) runs on the blocking pool, never on an async thread.

use std::sync::Arc;

use pawns_storage::{Account, AgentKeyRecord, CharacterRecord, Store};

use crate::auth::{keys, names, passwords};
use crate::game::model::character::{new_record, roll_abilities};
use crate::game::model::tables;
use crate::protocol::LoginData;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AuthError {
    #[error("auth_failed: {0}")]
    Failed(String),
    #[error("invalid_name: {0}")]
    InvalidName(String),
    #[error("name_taken: that name is taken")]
    NameTaken,
    #[error("bad_request: {0}")]
    BadRequest(String),
    #[error("internal: {0}")]
    Internal(String),
    /// A person's character (it logs in with a password) and a key, or the reverse.
    #[error("name_taken: {0}")]
    NotYours(String),
}

impl AuthError {
    pub fn code(&self) -> &'static str {
        match self {
            AuthError::Failed(_) => "auth_failed",
            AuthError::InvalidName(_) => "invalid_name",
            AuthError::NameTaken => "name_taken",
            AuthError::BadRequest(_) => "bad_request",
            AuthError::Internal(_) => "internal",
            AuthError::NotYours(_) => "name_taken",
        }
    }
    pub fn message(&self) -> String {
        match self {
            AuthError::Failed(m)
            | AuthError::InvalidName(m)
            | AuthError::BadRequest(m)
            | AuthError::Internal(m)
            | AuthError::NotYours(m) => m.clone(),
            AuthError::NameTaken => "that name is taken".into(),
        }
    }
    /// Whether it counts toward the address's lockout.
    pub fn counts_as_failure(&self) -> bool {
        matches!(self, AuthError::Failed(_))
    }
}

pub struct Authed {
    pub record: CharacterRecord,
    pub created: bool,
}

#[derive(Clone)]
pub struct Accounts {
    store: Arc<Store>,
    start_room: u32,
    /// What a new character carries (the world's starting kit).
    kit: Arc<crate::game::model::kit::StartKit>,
    /// Saves not yet on disk: logins read through them.
    unsaved: crate::game::records::persist::Unsaved,
    /// `new_char` without a password or key makes a guest (`serve --guests`); refused
    /// otherwise.
    guests: bool,
}

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, AuthError> {
    tokio::task::spawn_blocking(f).await.map_err(|e| AuthError::Internal(format!("worker failed: {e}")))
}

fn internal(e: pawns_storage::StoreError) -> AuthError {
    tracing::error!(code = e.code(), "store error during login: {e}");
    AuthError::Internal("storage error".into())
}

/// Class and race from a login, validated; defaults Warrior, Human.
pub fn class_race(data: &LoginData) -> Result<(u8, u8), AuthError> {
    let class = data.class.unwrap_or(3);
    let race = data.race.unwrap_or(0);
    if !tables::valid_class(class) {
        return Err(AuthError::BadRequest(
            "class must be one of 0 (Magic-user), 1 (Cleric), 2 (Thief), 3 (Warrior), 8 (Ninja), 9 (Psionic)".into(),
        ));
    }
    if !tables::valid_race(race) {
        return Err(AuthError::BadRequest(
            "race must be one of 0 (Human), 1 (Elf), 2 (Dwarf), 3 (Kender), 4 (Minotaur), 5 (Rakshasa), 6 (Ssaur)".into(),
        ));
    }
    if class == 8 && race != 0 {
        return Err(AuthError::BadRequest("Ninja (8) is for humans only".into()));
    }
    Ok((class as u8, race as u8))
}

impl Accounts {
    /// Characters saved by the game but not yet on disk.
    pub fn saves_pending(&self) -> usize {
        self.unsaved.pending()
    }

    pub fn new(
        store: Arc<Store>,
        start_room: u32,
        kit: Arc<crate::game::model::kit::StartKit>,
        unsaved: crate::game::records::persist::Unsaved,
    ) -> Self {
        Accounts { store, start_room, kit, unsaved, guests: false }
    }

    /// Takes guests: `new_char` with no password makes a one-session guest character.
    pub fn with_guests(mut self, guests: bool) -> Self {
        self.guests = guests;
        self
    }

    /// A character as last saved (queued saves included).
    pub async fn character(&self, name: &str) -> Result<Option<CharacterRecord>, AuthError> {
        let queued = self.unsaved.queued(name);
        let store = self.store.clone();
        let n = name.to_ascii_lowercase();
        let stored = blocking(move || store.character(&n)).await?.map_err(internal)?;
        Ok(queued.or(stored))
    }

    pub fn kit(&self) -> &crate::game::model::kit::StartKit {
        &self.kit
    }

    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// Makes a new agent key for a character name; returns the key (shown once). A key
    /// reserves its name at once. A person's character (one that logs in with a
    /// password) is never given a key unless an admin says so (`take_over`).
    pub fn create_key(store: &Store, name: &str, take_over: bool) -> Result<String, AuthError> {
        names::check(name).map_err(AuthError::InvalidName)?;
        let lower = name.to_ascii_lowercase();
        if !take_over && store.account(&lower).map_err(internal)?.is_some_and(|a| a.password_hash.is_some()) {
            return Err(AuthError::NotYours(format!(
                "{} is a person's character (it logs in with a password); a key is given to it only by an admin \
                 (pawns keygen --take-over, or take_over=1 on the admin API)",
                names::display(name)
            )));
        }
        let key = keys::generate();
        store
            .put_agent_key(
                &keys::hash(&key),
                &AgentKeyRecord { name: lower, created: crate::time::unix_secs(), revoked: false, takes_over: take_over },
            )
            .map_err(internal)?;
        Ok(key)
    }

    /// Logs in by key or password, creating the character where the protocol says so.
    pub async fn login(&self, data: &LoginData) -> Result<Authed, AuthError> {
        let secret = data.secret().map(str::to_string);
        if let Some(key) = secret.as_deref().filter(|s| s.starts_with("dp_")) {
            return self.key_login(key.to_string(), data).await;
        }
        let name = data.player_name.clone().unwrap_or_default();
        names::check(&name).map_err(AuthError::InvalidName)?;
        let named = name.as_str();
        let new_char = |password: Option<String>, guest: bool| async move {
            let (class, race) = class_race(data)?;
            let sex = data.sex.unwrap_or(1).clamp(0, 2) as u8;
            self.create_as(named, password, class, race, sex, data.wants_agent(), guest).await
        };
        let Some(password) = secret else {
            if data.new_char == Some(true) && self.guests {
                return new_char(None, true).await;
            }
            return Err(AuthError::BadRequest(
                "password (or api_key) is required (this server takes no guests: its operator may allow them with serve --guests)".into(),
            ));
        };
        if data.new_char == Some(true) {
            return new_char(Some(password), false).await;
        }
        // What is queued first, then the store (see `Unsaved::queued`).
        let queued = self.unsaved.queued(&name);
        let store = self.store.clone();
        let lname = name.clone();
        let (account, record) = blocking(move || Ok::<_, pawns_storage::StoreError>((store.account(&lname)?, store.character(&lname)?)))
            .await?
            .map_err(internal)?;
        let record = queued.or(record);
        let (Some(account), Some(mut record)) = (account, record) else {
            // As slow as a wrong password, so an unknown name does not show.
            blocking(move || passwords::verify_nothing(&password)).await?;
            return Err(AuthError::Failed("no such character, or wrong password".into()));
        };
        let Some(hash) = account.password_hash else {
            blocking(move || passwords::verify_nothing(&password)).await?;
            return Err(AuthError::Failed("no such character, or wrong password".into()));
        };
        let ok = blocking(move || passwords::verify(&password, &hash)).await?;
        if !ok {
            return Err(AuthError::Failed("no such character, or wrong password".into()));
        }
        record.is_agent |= data.wants_agent();
        Ok(Authed { record, created: false })
    }

    async fn key_login(&self, key: String, data: &LoginData) -> Result<Authed, AuthError> {
        if !keys::is_well_formed(&key) {
            return Err(AuthError::Failed("unknown or revoked agent key".into()));
        }
        let store = self.store.clone();
        let rec = blocking(move || store.agent_key(&keys::hash(&key))).await?.map_err(internal)?;
        let Some(rec) = rec.filter(|r| !r.revoked) else {
            return Err(AuthError::Failed("unknown or revoked agent key".into()));
        };
        // `player_name` does not choose the character: the key names it (the seed's rule;
        // the login tells the client when the names differ).
        let existing = self.character(&rec.name).await?;
        if existing.is_some() && !rec.takes_over {
            // A person's character is not a key's, whatever key names it.
            let store = self.store.clone();
            let n = rec.name.clone();
            let account = blocking(move || store.account(&n)).await?.map_err(internal)?;
            if account.is_some_and(|a| a.password_hash.is_some()) {
                return Err(AuthError::NotYours(format!(
                    "{} is a person's character (it logs in with a password); this key does not open it",
                    names::display(&rec.name)
                )));
            }
        }
        match existing {
            Some(mut record) => {
                record.is_agent = true;
                Ok(Authed { record, created: false })
            }
            None => {
                let (class, race) = class_race(data)?;
                let sex = data.sex.unwrap_or(1).clamp(0, 2) as u8;
                self.create(&rec.name, None, class, race, sex, true).await
            }
        }
    }

    /// Creates a character (and its account); `name_taken` if it exists.
    pub async fn create(
        &self,
        name: &str,
        password: Option<String>,
        class: u8,
        race: u8,
        sex: u8,
        is_agent: bool,
    ) -> Result<Authed, AuthError> {
        self.create_as(name, password, class, race, sex, is_agent, false).await
    }

    /// [`Accounts::create`], a guest's when `guest`.
    #[allow(clippy::too_many_arguments)]
    async fn create_as(
        &self,
        name: &str,
        password: Option<String>,
        class: u8,
        race: u8,
        sex: u8,
        is_agent: bool,
        guest: bool,
    ) -> Result<Authed, AuthError> {
        names::check(name).map_err(AuthError::InvalidName)?;
        let display = names::display(name);
        if let Some(p) = &password {
            let n = p.chars().count();
            if !(passwords::MIN_LEN..=passwords::MAX_LEN).contains(&n) {
                return Err(AuthError::BadRequest(format!(
                    "a new password is {} to {} characters (weak_password)",
                    passwords::MIN_LEN,
                    passwords::MAX_LEN
                )));
            }
        }
        if password.is_some() || guest {
            // A name with a key is taken: the key's agent may not have logged in yet.
            let store = self.store.clone();
            let n = name.to_string();
            if blocking(move || store.name_claimed(&n)).await?.map_err(internal)? {
                return Err(AuthError::NameTaken);
            }
        }
        let hash = match password {
            Some(p) => Some(blocking(move || passwords::hash(&p)).await?.map_err(AuthError::Internal)?),
            None => None,
        };
        let abilities = {
            use rand::Rng;
            let mut rng = rand::thread_rng();
            roll_abilities(class, race, &mut |lo: i32, hi: i32| rng.gen_range(lo..=hi.max(lo)))
        };
        let first = self.kit.first_room().unwrap_or(self.start_room);
        let mut record = new_record(&display, class, race, sex, is_agent, abilities, first);
        {
            use rand::Rng;
            let mut rng = rand::thread_rng();
            self.kit.apply_rolled(&mut record, &mut |lo: i32, hi: i32| rng.gen_range(lo..=hi.max(lo)));
        }
        let account = Account { name: display.clone(), password_hash: hash, is_agent, created: crate::time::unix_secs(), guest };
        let store = self.store.clone();
        let r2 = record.clone();
        let created = blocking(move || store.create_character(&account, &r2)).await?.map_err(internal)?;
        if !created {
            return Err(AuthError::NameTaken);
        }
        Ok(Authed { record, created: true })
    }

    /// Whether the name is taken: a character has it, or a key reserves it.
    pub async fn exists(&self, name: &str) -> Result<bool, AuthError> {
        let store = self.store.clone();
        let n = name.to_string();
        blocking(move || store.name_claimed(&n)).await?.map_err(internal)
    }
}
