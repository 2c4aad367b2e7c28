//! Times as Kubernetes writes and shows them: RFC 3339 in UTC to the second (metav1.Time), and
//! apimachinery's `HumanDuration`, the AGE kubectl prints for an object it shows itself.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// `time` as RFC 3339 in UTC to the second (`2026-11-23T21:08:54Z`).
pub fn timestamp(time: SystemTime) -> String {
    let seconds = time.duration_since(UNIX_EPOCH).map_or(0, |since| since.as_secs());
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rest / 3600, rest % 3600 / 60, rest % 60)
}

/// `time` as Go's `time.RFC1123Z` writes it in UTC (`Sat, 05 Dec 2026 04:46:47 +0000`), as
/// kubectl's describers show times (kubectl uses the local zone; kubeupd says UTC).
pub fn rfc1123z(time: SystemTime) -> String {
    let seconds = match time.duration_since(UNIX_EPOCH) {
        Ok(since) => since.as_secs() as i64,
        Err(before) => -(before.duration().as_secs_f64().ceil() as i64),
    };
    let (days, rest) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    format!(
        "{}, {day:02} {} {year:04} {:02}:{:02}:{:02} +0000",
        WEEKDAYS[days.rem_euclid(7) as usize],
        MONTHS[month as usize - 1],
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// The time a metav1.Time text (`2026-11-23T21:08:54Z`, or with an offset) names; `None` when
/// it is not one.
pub fn parse_timestamp(text: &str) -> Option<SystemTime> {
    let number = |range: std::ops::Range<usize>| text.get(range)?.parse::<i64>().ok();
    let bytes = text.as_bytes();
    if bytes.len() < 20 || bytes[4] != b'-' || bytes[7] != b'-' || !matches!(bytes[10], b'T' | b't') {
        return None;
    }
    let (year, month, day) = (number(0..4)?, number(5..7)?, number(8..10)?);
    let (hour, minute, second) = (number(11..13)?, number(14..16)?, number(17..19)?);
    let mut rest = &text[19..];
    if let Some(fraction) = rest.strip_prefix('.') {
        rest = fraction.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    let offset = match rest {
        "Z" | "z" => 0,
        zone if zone.len() == 6 && matches!(&zone[..1], "+" | "-") && &zone[3..4] == ":" => {
            let minutes = zone[1..3].parse::<i64>().ok()? * 60 + zone[4..6].parse::<i64>().ok()?;
            if zone.starts_with('-') { -minutes * 60 } else { minutes * 60 }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset;
    Some(if seconds >= 0 {
        UNIX_EPOCH + Duration::from_secs(seconds as u64)
    } else {
        UNIX_EPOCH - Duration::from_secs(seconds.unsigned_abs())
    })
}

/// A plain scalar that go-yaml (v2 and v3 alike) decodes as a `time.Time` (`2001-12-14`,
/// `2001-12-14T21:59:43.10-05:00`), as Go's `encoding/json` then writes the time (RFC 3339, the
/// fraction without trailing zeros); `None` for any other text.
pub fn go_yaml_time(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    if bytes.len() < 5 || !bytes[..4].iter().all(u8::is_ascii_digit) || bytes[4] != b'-' {
        return None;
    }
    let mut parts = text[5..].splitn(2, '-');
    let month: u32 = parts.next().filter(|part| (1..=2).contains(&part.len()))?.parse().ok()?;
    let rest = parts.next()?;
    let day_len = rest.bytes().take_while(u8::is_ascii_digit).count();
    if !(1..=2).contains(&day_len) {
        return None;
    }
    let day: u32 = rest[..day_len].parse().ok()?;
    let year: i64 = text[..4].parse().ok()?;
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        _ => return None,
    };
    if day == 0 || day > days_in_month {
        return None;
    }
    if rest.len() == day_len {
        return Some(format!("{year:04}-{month:02}-{day:02}T00:00:00Z"));
    }
    // Times of day: RFC 3339 with short fields, or after a space without a zone (UTC).
    let time = &rest[day_len..];
    let time = match time.strip_prefix(['T', 't']) {
        Some(time) => time.to_string(),
        None => format!("{}Z", time.strip_prefix(' ').filter(|time| !time.contains(['Z', 'z', '+', '-']))?),
    };
    let full = format!("{year:04}-{month:02}-{day:02}T{}", pad_time(&time)?);
    parse_timestamp(&full)?;
    Some(full.replace("+00:00", "Z"))
}

/// Whether go-yaml reads `text` as a timestamp: [`go_yaml_time`] without building its text where
/// it can. The form every server time has (`2024-01-02T03:04:05Z`, in each object's metadata an
/// encoder writes) is checked in place.
pub fn is_go_yaml_time(text: &str) -> bool {
    is_utc_seconds(text) || go_yaml_time(text).is_some()
}

/// `YYYY-MM-DDTHH:MM:SSZ` with every field in Go's range.
fn is_utc_seconds(text: &str) -> bool {
    let bytes = text.as_bytes();
    let Ok(bytes) = <&[u8; 20]>::try_from(bytes) else { return false };
    let digits = |at: usize, len: usize| -> Option<u32> {
        bytes[at..at + len]
            .iter()
            .try_fold(0, |value, byte| byte.is_ascii_digit().then(|| value * 10 + u32::from(byte - b'0')))
    };
    let separators = [(4, b'-'), (7, b'-'), (10, b'T'), (13, b':'), (16, b':'), (19, b'Z')];
    if separators.iter().any(|&(at, separator)| bytes[at] != separator) {
        return false;
    }
    let (Some(year), Some(month), Some(day), Some(hour), Some(minute), Some(second)) =
        (digits(0, 4), digits(5, 2), digits(8, 2), digits(11, 2), digits(14, 2), digits(17, 2))
    else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days_in_month).contains(&day) && hour < 24 && minute < 60 && second < 60
}

/// `15:4:5.5Z` with each field in two digits; `None` for a field out of Go's range (`time.Parse`
/// refuses an hour past 23, a minute or a second past 59, a zone's hour past 24 or minute past 60).
fn pad_time(time: &str) -> Option<String> {
    let zone_at = time.find(['Z', 'z', '+', '-'])?;
    let (clock, zone) = time.split_at(zone_at);
    let (clock, fraction) = match clock.split_once('.') {
        Some((clock, fraction)) => (clock, format!(".{fraction}")),
        None => (clock, String::new()),
    };
    let fields: Vec<&str> = clock.split(':').collect();
    if fields.len() != 3 || fields.iter().any(|field| !(1..=2).contains(&field.len())) {
        return None;
    }
    let in_range = |field: &str, limit: u32| field.parse::<u32>().is_ok_and(|value| value < limit);
    if !(in_range(fields[0], 24) && in_range(fields[1], 60) && in_range(fields[2], 60)) {
        return None;
    }
    if let Some((hours, minutes)) = zone.get(1..).and_then(|offset| offset.split_once(':'))
        && !(in_range(hours, 25) && in_range(minutes, 61))
    {
        return None;
    }
    let fraction = fraction.trim_end_matches('0').trim_end_matches('.');
    let zone = if zone == "z" { "Z" } else { zone };
    Some(format!("{:0>2}:{:0>2}:{:0>2}{fraction}{zone}", fields[0], fields[1], fields[2]))
}

/// How long ago `then` was at `now`, as apimachinery's `HumanDuration` says it (`45s`, `5m30s`,
/// `3h20m`, `2d5h`, `1y20d`); `<invalid>` for more than a second in the future.
pub fn human_duration_since(then: SystemTime, now: SystemTime) -> String {
    let seconds: i64 = match now.duration_since(then) {
        Ok(elapsed) => elapsed.as_secs() as i64,
        // Go truncates toward zero: less than a whole second ahead is 0.
        Err(ahead) => -(ahead.duration().as_secs() as i64),
    };
    if seconds < -1 {
        return "<invalid>".to_string();
    }
    if seconds < 0 {
        return "0s".to_string();
    }
    if seconds < 120 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        return match seconds % 60 {
            0 => format!("{minutes}m"),
            rest => format!("{minutes}m{rest}s"),
        };
    }
    if minutes < 180 {
        return format!("{minutes}m");
    }
    let hours = seconds / 3600;
    if hours < 8 {
        return match minutes % 60 {
            0 => format!("{hours}h"),
            rest => format!("{hours}h{rest}m"),
        };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        return match hours % 24 {
            0 => format!("{}d", hours / 24),
            rest => format!("{}d{rest}h", hours / 24),
        };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        return match (hours / 24) % 365 {
            0 => format!("{}y", hours / 24 / 365),
            rest => format!("{}y{rest}d", hours / 24 / 365),
        };
    }
    format!("{}y", hours / 24 / 365)
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's algorithm).
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// The days from 1970-01-01 to a proleptic Gregorian date (the inverse of `civil_from_days`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The `time` package's own quoting in its errors: `"` and `\\` escaped, every byte of a character
/// that is not printable ASCII as `\\xNN`.
fn quote(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='\x7f' => out.push(c),
            _ => {
                for byte in c.to_string().bytes() {
                    out.push_str(&format!("\\x{byte:02x}"));
                }
            }
        }
    }
    out + "\""
}

/// Go's `time.ParseDuration`, as pflag reads a duration flag: signed nanoseconds, or Go's error
/// text (`time: invalid duration "x"`, `time: missing unit in duration "5"`, ...).
pub fn parse_duration(text: &str) -> Result<i64, String> {
    const UNITS: [(&str, u128); 8] = [
        ("ns", 1),
        ("us", 1_000),
        ("\u{b5}s", 1_000),
        ("\u{3bc}s", 1_000),
        ("ms", 1_000_000),
        ("s", 1_000_000_000),
        ("m", 60_000_000_000),
        ("h", 3_600_000_000_000),
    ];
    let invalid = || format!("time: invalid duration {}", quote(text));
    let (negative, mut rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if rest == "0" {
        return Ok(0);
    }
    if rest.is_empty() {
        return Err(invalid());
    }
    let limit: u128 = 1 << 63;
    let mut total: u128 = 0;
    while !rest.is_empty() {
        if !(rest.starts_with('.') || rest.starts_with(|c: char| c.is_ascii_digit())) {
            return Err(invalid());
        }
        let whole_len = rest.bytes().take_while(u8::is_ascii_digit).count();
        let whole: u128 = match whole_len {
            0 => 0,
            _ => rest[..whole_len].parse().ok().filter(|v| *v < limit).ok_or_else(invalid)?,
        };
        rest = &rest[whole_len..];
        let (mut fraction, mut scale) = (0u128, 1f64);
        if let Some(after) = rest.strip_prefix('.') {
            let fraction_len = after.bytes().take_while(u8::is_ascii_digit).count();
            for digit in after[..fraction_len].bytes() {
                // Go stops taking digits once they no longer fit.
                if fraction < limit / 10 {
                    fraction = fraction * 10 + u128::from(digit - b'0');
                    scale *= 10.0;
                }
            }
            rest = &after[fraction_len..];
            if whole_len == 0 && fraction_len == 0 {
                return Err(invalid());
            }
        } else if whole_len == 0 {
            return Err(invalid());
        }
        let unit_len = rest.find(|c: char| c == '.' || c.is_ascii_digit()).unwrap_or(rest.len());
        if unit_len == 0 {
            return Err(format!("time: missing unit in duration {}", quote(text)));
        }
        let unit_text = &rest[..unit_len];
        rest = &rest[unit_len..];
        let Some((_, unit)) = UNITS.iter().find(|(name, _)| *name == unit_text) else {
            return Err(format!("time: unknown unit {} in duration {}", quote(unit_text), quote(text)));
        };
        if whole > limit / unit {
            return Err(invalid());
        }
        let mut value = whole * unit;
        if fraction > 0 {
            value += (fraction as f64 * (*unit as f64 / scale)) as u128;
            if value > limit {
                return Err(invalid());
            }
        }
        total += value;
        if total > limit {
            return Err(invalid());
        }
    }
    match negative {
        true => Ok((total as i128).wrapping_neg() as i64),
        false if total > limit - 1 => Err(invalid()),
        false => Ok(total as i64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The in-place check of a server time answers as the whole reading does.
    #[test]
    fn a_server_time_is_a_time_as_go_yaml_reads_one() {
        for text in [
            "2024-01-02T03:04:05Z",
            "2000-02-29T23:59:59Z",
            "1900-02-29T00:00:00Z",
            "2023-02-29T00:00:00Z",
            "2024-04-31T00:00:00Z",
            "2024-13-01T00:00:00Z",
            "2024-00-01T00:00:00Z",
            "2024-01-00T00:00:00Z",
            "2024-01-01T24:00:00Z",
            "2024-01-01T23:60:00Z",
            "2024-01-01T23:59:60Z",
            "2024-01-01t00:00:00Z",
            "2024-01-01T00:00:00z",
            "2024-01-01T00:00:0aZ",
            "2024-01-01 00:00:00Z",
        ] {
            assert_eq!(is_go_yaml_time(text), go_yaml_time(text).is_some(), "{text}");
        }
        assert!(is_utc_seconds("2024-01-02T03:04:05Z"));
        assert!(!is_utc_seconds("2024-01-02T03:04:05.5Z"));
    }

    /// As `kubectl kustomize` 1.37.1 wrote them: a time out of Go's ranges is no time, and stays text.
    #[test]
    fn go_yaml_times_are_in_gos_ranges() {
        assert_eq!(go_yaml_time("2001-1-2 3:4:5").as_deref(), Some("2001-01-02T03:04:05Z"));
        for text in [
            "2001-01-01T25:00:00Z",
            "2001-01-01T23:60:00Z",
            "2001-01-01T23:00:60Z",
            "2001-01-01 24:00:00",
            "2001-01-01T23:00:00+25:00",
        ] {
            assert_eq!(go_yaml_time(text), None, "{text:?}");
        }
    }

    #[test]
    fn timestamps_are_rfc3339_utc_and_read_back() {
        assert_eq!(timestamp(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        assert_eq!(timestamp(UNIX_EPOCH + Duration::from_secs(951_782_400)), "2000-02-29T00:00:00Z");
        let time = UNIX_EPOCH + Duration::from_secs(1_795_468_134);
        assert_eq!(timestamp(time), "2026-11-23T21:08:54Z");
        assert_eq!(parse_timestamp("2026-11-23T21:08:54Z"), Some(time));
        assert_eq!(parse_timestamp("2026-11-23T22:08:54.5+01:00"), Some(time));
        assert_eq!(parse_timestamp("yesterday"), None);
    }

    #[test]
    fn durations_read_as_apimachinery_writes_them() {
        let now = UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        let ago = |seconds: u64| human_duration_since(now - Duration::from_secs(seconds), now);
        let cases = [
            (0, "0s"),
            (119, "119s"),
            (120, "2m"),
            (330, "5m30s"),
            (600, "10m"),
            (179 * 60 + 59, "179m"),
            (3 * 3600, "3h"),
            (3 * 3600 + 20 * 60, "3h20m"),
            (8 * 3600, "8h"),
            (47 * 3600, "47h"),
            (53 * 3600, "2d5h"),
            (8 * 86_400, "8d"),
            (730 * 86_400, "2y"),
            (750 * 86_400, "2y20d"),
            (3000 * 86_400, "8y"),
        ];
        for (seconds, text) in cases {
            assert_eq!(ago(seconds), text, "{seconds}s");
        }
        assert_eq!(human_duration_since(now + Duration::from_millis(1500), now), "0s");
        assert_eq!(human_duration_since(now + Duration::from_secs(5), now), "<invalid>");
    }

    #[test]
    fn rfc1123z_as_go_writes_it() {
        let time = parse_timestamp("2026-12-05T04:46:47Z").unwrap();
        assert_eq!(rfc1123z(time), "Sat, 05 Dec 2026 04:46:47 +0000");
        assert_eq!(rfc1123z(parse_timestamp("1970-01-01T00:00:00Z").unwrap()), "Thu, 01 Jan 1970 00:00:00 +0000");
        assert_eq!(rfc1123z(parse_timestamp("2024-02-29T23:59:59+01:00").unwrap()), "Thu, 29 Feb 2024 22:59:59 +0000");
    }

    #[test]
    fn durations_parse_as_go_parses_them() {
        assert_eq!(parse_duration("1h30m"), Ok(5_400_000_000_000));
        assert_eq!(parse_duration("-1.5s"), Ok(-1_500_000_000));
        assert_eq!(parse_duration("0"), Ok(0));
        assert_eq!(parse_duration(".5ms"), Ok(500_000));
        assert_eq!(parse_duration("1\u{b5}s"), Ok(1_000));
        assert_eq!(parse_duration("x"), Err("time: invalid duration \"x\"".into()));
        assert_eq!(parse_duration("5"), Err("time: missing unit in duration \"5\"".into()));
        assert_eq!(parse_duration("5q"), Err("time: unknown unit \"q\" in duration \"5q\"".into()));
        assert_eq!(parse_duration("."), Err("time: invalid duration \".\"".into()));
        assert!(parse_duration("9999999999h").is_err());
        assert_eq!(
            parse_duration("1\u{b5}x"),
            Err("time: unknown unit \"\\xc2\\xb5x\" in duration \"1\\xc2\\xb5x\"".into())
        );
    }
}

/// Go's `time.Parse(time.RFC3339, text)` as kubectl reads `--since-time` (an optional fraction
/// of a second, `Z` or an offset), with Go's error for a text that is not one:
/// `parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"`.
pub fn parse_rfc3339(text: &str) -> Result<SystemTime, String> {
    const LAYOUT: &str = "2006-01-02T15:04:05Z07:00";
    let cannot = |rest: &str, element: &str| {
        format!("parsing time {text:?} as {LAYOUT:?}: cannot parse {rest:?} as {element:?}")
    };
    let out_of_range = |what: &str| format!("parsing time {text:?}: {what} out of range");
    // The layout's elements: a number of so many digits, or a literal.
    let elements: [(&str, usize); 11] = [
        ("2006", 4),
        ("-", 0),
        ("01", 2),
        ("-", 0),
        ("02", 2),
        ("T", 0),
        ("15", 2),
        (":", 0),
        ("04", 2),
        (":", 0),
        ("05", 2),
    ];
    let mut rest = text;
    let mut numbers = Vec::new();
    for (element, digits) in elements {
        if digits == 0 {
            rest = rest.strip_prefix(element).ok_or_else(|| cannot(rest, element))?;
            continue;
        }
        let taken = rest.bytes().take(digits).take_while(u8::is_ascii_digit).count();
        if taken < digits {
            return Err(cannot(rest, element));
        }
        numbers.push(rest[..digits].parse::<i64>().unwrap_or(0));
        rest = &rest[digits..];
    }
    let mut nanos = 0u64;
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return Err(cannot(rest, "Z07:00"));
        }
        nanos = format!("{:0<9}", &fraction[..digits.min(9)]).parse().unwrap_or(0);
        rest = &fraction[digits..];
    }
    let offset = if let Some(after) = rest.strip_prefix('Z') {
        rest = after;
        0
    } else {
        let sign = match rest.as_bytes().first() {
            Some(b'+') => 1,
            Some(b'-') => -1,
            _ => return Err(cannot(rest, "Z07:00")),
        };
        let zone = rest.get(1..6).filter(|zone| {
            let bytes = zone.as_bytes();
            bytes[..2].iter().chain(&bytes[3..]).all(u8::is_ascii_digit) && bytes[2] == b':'
        });
        let Some(zone) = zone else { return Err(cannot(rest, "Z07:00")) };
        let minutes = zone[..2].parse::<i64>().unwrap_or(0) * 60 + zone[3..].parse::<i64>().unwrap_or(0);
        rest = &rest[6..];
        sign * minutes * 60
    };
    if !rest.is_empty() {
        return Err(format!("parsing time {text:?}: extra text: {rest:?}"));
    }
    let [year, month, day, hour, minute, second] = numbers[..] else { unreachable!("six numbers") };
    let days_in_month = match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    for (what, bad) in [
        ("month", !(1..=12).contains(&month)),
        ("day", !(1..=days_in_month).contains(&day)),
        ("hour", hour > 23),
        ("minute", minute > 59),
        ("second", second > 59),
    ] {
        if bad {
            return Err(out_of_range(what));
        }
    }
    let seconds = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset;
    let whole = match seconds >= 0 {
        true => UNIX_EPOCH + Duration::from_secs(seconds as u64),
        false => UNIX_EPOCH - Duration::from_secs(seconds.unsigned_abs()),
    };
    Ok(whole + Duration::from_nanos(nanos))
}

#[cfg(test)]
mod rfc3339_tests {
    use super::*;

    #[test]
    fn times_parse_and_fail_as_in_go() {
        let at = parse_rfc3339("2026-12-05T04:00:00.5+01:00").unwrap();
        assert_eq!(timestamp(at), "2026-12-05T03:00:00Z");
        assert_eq!(
            parse_rfc3339("garbage").unwrap_err(),
            r#"parsing time "garbage" as "2006-01-02T15:04:05Z07:00": cannot parse "garbage" as "2006""#
        );
        assert_eq!(
            parse_rfc3339("2026/01/01").unwrap_err(),
            r#"parsing time "2026/01/01" as "2006-01-02T15:04:05Z07:00": cannot parse "/01/01" as "-""#
        );
        assert_eq!(
            parse_rfc3339("2026-01-01T00:00:00").unwrap_err(),
            r#"parsing time "2026-01-01T00:00:00" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00""#
        );
        assert_eq!(
            parse_rfc3339("2026-13-01T00:00:00Z").unwrap_err(),
            r#"parsing time "2026-13-01T00:00:00Z": month out of range"#
        );
        assert_eq!(
            parse_rfc3339("2026-01-01T00:00:00Zx").unwrap_err(),
            r#"parsing time "2026-01-01T00:00:00Zx": extra text: "x""#
        );
    }
}
