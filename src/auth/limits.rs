//! Login rate and lockout per address; total and per-address connection caps.
//!
//! Connection slots are RAII permits: dropping one (a finished, failed or aborted
//! connection) always gives the slot back, so the accounting cannot leak.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A token bucket: `rate` per second, holding at most `burst`.
#[derive(Debug, Clone)]
pub struct TokenBucket {
    tokens: f64,
    last: Instant,
    rate: f64,
    burst: f64,
}

impl TokenBucket {
    pub fn new(rate: f64, burst: f64, now: Instant) -> Self {
        TokenBucket { tokens: burst, last: now, rate, burst }
    }

    /// Takes one token, or says how long until one is there.
    pub fn take(&mut self, now: Instant) -> Result<(), u64> {
        let dt = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        // Refilling never lowers what `credit` granted above the burst.
        self.tokens = (self.tokens + dt * self.rate).min(self.burst.max(self.tokens));
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            Ok(())
        } else {
            let wait = (1.0 - self.tokens) / self.rate.max(1e-9);
            Err((wait * 1000.0).ceil() as u64)
        }
    }
}

impl TokenBucket {
    /// The server kept the client waiting `waited` (it did not read while the engine's
    /// inbox was full): what the client sent at its rate meanwhile comes in at once and
    /// is not the client's burst, so the time is granted on top of the burst (at most
    /// `MAX_CREDIT` of it).
    pub fn credit(&mut self, waited: Duration) {
        let granted = waited.min(MAX_CREDIT).as_secs_f64() * self.rate;
        self.tokens = (self.tokens + granted).min(self.burst + MAX_CREDIT.as_secs_f64() * self.rate);
    }
}

/// The most waiting a bucket is credited with (`TokenBucket::credit`).
pub const MAX_CREDIT: Duration = Duration::from_secs(60);

#[derive(Debug, Clone)]
pub struct LoginLimits {
    pub rate: f64,
    pub burst: f64,
    /// Failed logins from one address (against any characters) that lock it out. A
    /// success clears only the failures against the character it logged in.
    pub lockout_after: u32,
    /// Failed logins against one character (from any addresses) that lock its password
    /// logins out, against guessing spread over many addresses.
    pub account_lockout_after: u32,
    pub lockout_for: Duration,
}

impl Default for LoginLimits {
    fn default() -> Self {
        LoginLimits { rate: 5.0, burst: 10.0, lockout_after: 10, account_lockout_after: 30, lockout_for: Duration::from_secs(15 * 60) }
    }
}

#[derive(Debug, PartialEq)]
pub enum LoginDenied {
    RateLimited { retry_after_ms: u64 },
    LockedOut { retry_after_ms: u64 },
}

struct IpState {
    bucket: TokenBucket,
    /// Failures by the character they were against (lower-cased; "" for a key).
    failures: HashMap<String, u32>,
    locked_until: Option<Instant>,
}

#[derive(Default)]
struct AccountState {
    failures: u32,
    locked_until: Option<Instant>,
}

pub struct LoginLimiter {
    limits: LoginLimits,
    by_ip: Mutex<HashMap<IpAddr, IpState>>,
    by_account: Mutex<HashMap<String, AccountState>>,
}

impl LoginLimiter {
    pub fn new(limits: LoginLimits) -> Self {
        LoginLimiter { limits, by_ip: Mutex::new(HashMap::new()), by_account: Mutex::new(HashMap::new()) }
    }

    fn ip_state<'a>(&self, map: &'a mut HashMap<IpAddr, IpState>, ip: IpAddr, now: Instant) -> &'a mut IpState {
        map.entry(ip).or_insert_with(|| IpState {
            bucket: TokenBucket::new(self.limits.rate, self.limits.burst, now),
            failures: HashMap::new(),
            locked_until: None,
        })
    }

    /// Called before each login attempt against `target` (the character's name, "" when
    /// a key names it).
    pub fn check(&self, ip: IpAddr, target: &str, now: Instant) -> Result<(), LoginDenied> {
        {
            let mut accounts = self.by_account.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(a) = accounts.get_mut(&target.to_ascii_lowercase()) {
                match a.locked_until {
                    Some(until) if until > now => {
                        return Err(LoginDenied::LockedOut { retry_after_ms: until.duration_since(now).as_millis() as u64 })
                    }
                    Some(_) => *a = AccountState::default(),
                    None => {}
                }
            }
        }
        let mut map = self.by_ip.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() > 50_000 {
            // Forget quiet addresses that are not locked.
            map.retain(|_, s| !s.failures.is_empty() || s.locked_until.is_some_and(|t| t > now));
        }
        let st = self.ip_state(&mut map, ip, now);
        if let Some(until) = st.locked_until {
            if until > now {
                return Err(LoginDenied::LockedOut { retry_after_ms: until.duration_since(now).as_millis() as u64 });
            }
            st.locked_until = None;
            st.failures.clear();
        }
        st.bucket.take(now).map_err(|ms| LoginDenied::RateLimited { retry_after_ms: ms })
    }

    /// A failed login against `target`; returns the lockout if this one triggered it
    /// (of the address, or of the character).
    pub fn failure(&self, ip: IpAddr, target: &str, now: Instant) -> Option<LoginDenied> {
        let target = target.to_ascii_lowercase();
        let locked = Some(LoginDenied::LockedOut { retry_after_ms: self.limits.lockout_for.as_millis() as u64 });
        if !target.is_empty() {
            let mut accounts = self.by_account.lock().unwrap_or_else(|e| e.into_inner());
            if accounts.len() > 50_000 {
                accounts.retain(|_, a| a.locked_until.is_some_and(|t| t > now));
            }
            let a = accounts.entry(target.clone()).or_default();
            a.failures += 1;
            if a.failures >= self.limits.account_lockout_after {
                a.locked_until = Some(now + self.limits.lockout_for);
            }
        }
        let mut map = self.by_ip.lock().unwrap_or_else(|e| e.into_inner());
        let st = self.ip_state(&mut map, ip, now);
        *st.failures.entry(target.clone()).or_default() += 1;
        if st.failures.values().sum::<u32>() >= self.limits.lockout_after {
            st.locked_until = Some(now + self.limits.lockout_for);
            return locked;
        }
        drop(map);
        let accounts = self.by_account.lock().unwrap_or_else(|e| e.into_inner());
        if accounts.get(&target).is_some_and(|a| a.locked_until.is_some()) {
            return locked;
        }
        None
    }

    /// A login against `target` succeeded: the failures against it are forgotten (those
    /// against other characters are not: one's own login does not clear guessing).
    pub fn success(&self, ip: IpAddr, target: &str) {
        let target = target.to_ascii_lowercase();
        let mut map = self.by_ip.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(st) = map.get_mut(&ip) {
            st.failures.remove(&target);
        }
        drop(map);
        self.by_account.lock().unwrap_or_else(|e| e.into_inner()).remove(&target);
    }
}

#[derive(Debug, Clone, Copy)]
pub struct ConnLimits {
    pub total: usize,
    pub per_ip: usize,
}

impl Default for ConnLimits {
    fn default() -> Self {
        ConnLimits { total: 20_000, per_ip: 10_000 }
    }
}

pub struct ConnLimiter {
    limits: ConnLimits,
    total: AtomicUsize,
    per_ip: Mutex<HashMap<IpAddr, usize>>,
}

/// One connection's slot; released on drop.
pub struct ConnPermit {
    limiter: Arc<ConnLimiter>,
    ip: IpAddr,
}

impl Drop for ConnPermit {
    fn drop(&mut self) {
        self.limiter.total.fetch_sub(1, Ordering::SeqCst);
        let mut m = self.limiter.per_ip.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = m.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                m.remove(&self.ip);
            }
        }
    }
}

impl ConnLimiter {
    pub fn new(limits: ConnLimits) -> Arc<Self> {
        Arc::new(ConnLimiter { limits, total: AtomicUsize::new(0), per_ip: Mutex::new(HashMap::new()) })
    }

    pub fn acquire(self: &Arc<Self>, ip: IpAddr) -> Option<ConnPermit> {
        let mut m = self.per_ip.lock().unwrap_or_else(|e| e.into_inner());
        let n = m.get(&ip).copied().unwrap_or(0);
        if n >= self.limits.per_ip || self.total.load(Ordering::SeqCst) >= self.limits.total {
            return None;
        }
        m.insert(ip, n + 1);
        self.total.fetch_add(1, Ordering::SeqCst);
        Some(ConnPermit { limiter: self.clone(), ip })
    }

    pub fn open(&self) -> usize {
        self.total.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const IP: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);

    /// What a client sent at its rate while the server did not read (its inbox full) is
    /// not taken for a burst: before the credit, an agent at 1 command/s kept waiting
    /// 20 s had half of its commands refused as rate_limited.
    #[test]
    fn waiting_the_server_made_is_credited_not_refused() {
        let t0 = Instant::now();
        let mut b = TokenBucket::new(10.0, 10.0, t0);
        let t1 = t0 + Duration::from_secs(20);
        b.credit(Duration::from_secs(20));
        // 20 s of commands at the rate and the burst on top, all read at once at t1.
        for i in 0..30 {
            assert!(b.take(t1).is_ok(), "command {i} refused");
        }
        // ...and then the rate holds again: the credit is no lasting allowance.
        for _ in 0..200 {
            let _ = b.take(t1);
        }
        assert!(b.take(t1).is_err());
        // The credit is bounded.
        let mut c = TokenBucket::new(10.0, 10.0, t0);
        c.credit(Duration::from_secs(3600));
        let granted = (0..100_000).take_while(|_| c.take(t0).is_ok()).count();
        assert_eq!(granted, 10 + MAX_CREDIT.as_secs() as usize * 10);
    }

    #[test]
    fn bucket_allows_burst_then_rate() {
        let t0 = Instant::now();
        let mut b = TokenBucket::new(10.0, 10.0, t0);
        for _ in 0..10 {
            assert!(b.take(t0).is_ok());
        }
        let wait = b.take(t0).unwrap_err();
        assert!((90..=100).contains(&wait), "{wait}");
        assert!(b.take(t0 + Duration::from_millis(100)).is_ok());
    }

    #[test]
    fn ten_failures_lock_out_and_success_resets() {
        let l = LoginLimiter::new(LoginLimits { rate: 1000.0, burst: 1000.0, ..Default::default() });
        let t = Instant::now();
        for _ in 0..9 {
            assert!(l.check(IP, "ann", t).is_ok());
            assert!(l.failure(IP, "ann", t).is_none());
        }
        l.success(IP, "ann");
        for _ in 0..9 {
            assert!(l.failure(IP, "ann", t).is_none());
        }
        assert!(matches!(l.failure(IP, "ann", t), Some(LoginDenied::LockedOut { .. })));
        assert!(matches!(l.check(IP, "ann", t), Err(LoginDenied::LockedOut { .. })));
        assert!(l.check(IP, "ann", t + Duration::from_secs(15 * 60 + 1)).is_ok());
    }

    /// Nine wrong guesses at someone else's character, one right login to one's own,
    /// repeated: the guesses still add up (54 were made this way, never locked).
    #[test]
    fn a_login_to_another_character_does_not_reset_the_guessing() {
        let l = LoginLimiter::new(LoginLimits { rate: 1000.0, burst: 1000.0, ..Default::default() });
        let t = Instant::now();
        let mut locked_after = None;
        for guess in 1..=54 {
            if l.check(IP, "victim", t).is_err() {
                locked_after = Some(guess);
                break;
            }
            let _ = l.failure(IP, "victim", t);
            if guess % 9 == 0 {
                l.success(IP, "mallory");
            }
        }
        assert_eq!(locked_after, Some(11), "locked at the tenth failure");
    }

    /// Guesses at one character from many addresses lock that character's logins.
    #[test]
    fn guesses_from_many_addresses_lock_the_character() {
        let l = LoginLimiter::new(LoginLimits { rate: 1000.0, burst: 1000.0, ..Default::default() });
        let t = Instant::now();
        for i in 0..30u8 {
            let ip = IpAddr::from([10, 0, 0, i]);
            assert!(l.check(ip, "victim", t).is_ok(), "guess {i}");
            let _ = l.failure(ip, "victim", t);
        }
        assert!(matches!(l.check(IpAddr::from([10, 0, 1, 1]), "victim", t), Err(LoginDenied::LockedOut { .. })));
        assert!(l.check(IpAddr::from([10, 0, 1, 1]), "someone", t).is_ok(), "other characters are not");
    }

    #[test]
    fn permits_never_leak() {
        let c = ConnLimiter::new(ConnLimits { total: 3, per_ip: 2 });
        let a = c.acquire(IP).unwrap();
        let b = c.acquire(IP).unwrap();
        assert!(c.acquire(IP).is_none(), "per-address cap");
        let other = IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 2));
        let d = c.acquire(other).unwrap();
        assert!(c.acquire(other).is_none(), "total cap");
        drop((a, b, d));
        assert_eq!(c.open(), 0);
        assert!(c.acquire(IP).is_some());
    }
}
