//! Go's `strconv.ParseInt` as pflag calls it for integer flags (base 0: `0x1f`, `0o17`, `0b101`,
//! a leading `0` for octal, `_` between digits), with Go's error text.

/// The integer `text` names, fitting `bits` bits (32 for an `int32` flag, 64 for `int`).
pub fn parse_int(text: &str, bits: u32) -> Result<i64, String> {
    let error = |reason: &str| format!("strconv.ParseInt: parsing {}: {reason}", super::fmt::quote(text));
    let (negative, unsigned) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let lower = unsigned.to_ascii_lowercase();
    let (radix, digits, prefixed) = if let Some(rest) = lower.strip_prefix("0x") {
        (16, rest, true)
    } else if let Some(rest) = lower.strip_prefix("0o") {
        (8, rest, true)
    } else if let Some(rest) = lower.strip_prefix("0b") {
        (2, rest, true)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..], true)
    } else {
        (10, lower.as_str(), false)
    };
    if digits.is_empty() || !underscores_ok(digits, prefixed) {
        return Err(error("invalid syntax"));
    }
    let mut magnitude: u128 = 0;
    for c in digits.chars().filter(|c| *c != '_') {
        let digit = c.to_digit(radix).ok_or_else(|| error("invalid syntax"))?;
        magnitude = (magnitude * u128::from(radix) + u128::from(digit)).min(u128::from(u64::MAX) + 1);
    }
    let limit = 1u128 << (bits - 1);
    match negative {
        true if magnitude <= limit => Ok((magnitude as i128).wrapping_neg() as i64),
        false if magnitude < limit => Ok(magnitude as i64),
        _ => Err(error("value out of range")),
    }
}

/// Go's rule for `_`: only with a base prefix, and only between digits (or after the prefix).
fn underscores_ok(digits: &str, prefixed: bool) -> bool {
    if !digits.contains('_') {
        return true;
    }
    prefixed && !digits.ends_with('_') && !digits.contains("__")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_parse_as_pflag_parses_them() {
        assert_eq!(parse_int("30080", 64), Ok(30080));
        assert_eq!(parse_int("-7", 32), Ok(-7));
        assert_eq!(parse_int("0x10", 32), Ok(16));
        assert_eq!(parse_int("010", 32), Ok(8));
        assert_eq!(parse_int("0b1_01", 32), Ok(5));
        assert_eq!(parse_int("x", 32), Err("strconv.ParseInt: parsing \"x\": invalid syntax".into()));
        assert_eq!(parse_int("1_000", 32), Err("strconv.ParseInt: parsing \"1_000\": invalid syntax".into()));
        assert_eq!(
            parse_int("99999999999", 32),
            Err("strconv.ParseInt: parsing \"99999999999\": value out of range".into())
        );
        assert_eq!(parse_int("-2147483648", 32), Ok(-2147483648));
    }
}
