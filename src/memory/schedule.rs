//! The daily dream: every day at a local time in a named zone (03:30 America/New_York by
//! default), every agent with something new dreams. Daylight-saving days are handled by
//! the zone's rules: a time that does not exist that day runs at the next one that does.

use chrono::{DateTime, Duration, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;

use super::DreamerHandle;

/// `HH:MM` (24-hour).
pub fn parse_time(s: &str) -> Result<NaiveTime, String> {
    NaiveTime::parse_from_str(s.trim(), "%H:%M").map_err(|_| format!("'{s}' is not a time of day (HH:MM, 24-hour, e.g. 03:30)"))
}

/// An IANA zone name (`America/New_York`, `UTC`).
pub fn parse_zone(s: &str) -> Result<Tz, String> {
    s.trim().parse::<Tz>().map_err(|_| format!("'{s}' is not a time zone (an IANA name such as America/New_York or UTC)"))
}

/// The first moment strictly after `now` when the clock in `tz` reads `at`.
pub fn next_run(now: DateTime<Utc>, at: NaiveTime, tz: Tz) -> DateTime<Utc> {
    let local_today = now.with_timezone(&tz).date_naive();
    for days in 0..3 {
        let day = local_today + Duration::days(days);
        // A skipped local time (spring forward) runs at the first minute that exists.
        for shift in 0..120 {
            let t = day.and_time(at) + Duration::minutes(shift);
            if let Some(when) = tz.from_local_datetime(&t).earliest() {
                let when = when.with_timezone(&Utc);
                if when > now {
                    return when;
                }
                break;
            }
        }
    }
    now + Duration::days(1)
}

/// Runs forever (until the task is aborted): sleeps until the next run, asks for a dream
/// of every agent.
pub async fn daily(dreamer: DreamerHandle, at: NaiveTime, tz: Tz) {
    loop {
        let now = Utc::now();
        let next = next_run(now, at, tz);
        let wait = (next - now).to_std().unwrap_or(std::time::Duration::from_secs(60));
        tracing::info!(next = %next.with_timezone(&tz), "the daily dream is scheduled");
        tokio::time::sleep(wait).await;
        dreamer.request_all("daily");
        // Past the minute, so the same run is not taken twice.
        tokio::time::sleep(std::time::Duration::from_secs(61)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn next_run_in_new_york() {
        let tz = parse_zone("America/New_York").unwrap();
        let at = parse_time("03:30").unwrap();
        // Winter: EST is UTC−5.
        assert_eq!(next_run(utc("2026-01-10T12:00:00Z"), at, tz), utc("2026-01-11T08:30:00Z"));
        assert_eq!(next_run(utc("2026-01-10T08:00:00Z"), at, tz), utc("2026-01-10T08:30:00Z"));
        // Summer: EDT is UTC−4.
        assert_eq!(next_run(utc("2026-07-01T00:00:00Z"), at, tz), utc("2026-07-01T07:30:00Z"));
        // Spring forward (2026-03-08): 02:30 does not exist that night; it runs at 03:00 EDT.
        let at2 = parse_time("02:30").unwrap();
        assert_eq!(next_run(utc("2026-03-08T05:00:00Z"), at2, tz), utc("2026-03-08T07:00:00Z"));
    }

    #[test]
    fn bad_input_is_refused() {
        assert!(parse_time("25:00").is_err());
        assert!(parse_time("3.30").is_err());
        assert!(parse_zone("Mars/Olympus").is_err());
        assert_eq!(parse_zone("UTC").unwrap(), chrono_tz::UTC);
    }
}
