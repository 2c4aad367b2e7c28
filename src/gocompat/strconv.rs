//! Go's `strconv` as pflag and kubectl call it: `ParseInt` (base 0 for pflag's integer flags:
//! `0x1f`, `0o17`, `0b101`, a leading `0` for octal, `_` between digits; base 10 where kubectl asks
//! for it), `ParseUint` and `ParseBool`, each with Go's error text; `Unquote` as kubectl's
//! JSONPath and Go's templates read a quoted string.

use std::fmt;

/// Why a number did not parse, in Go's words (`strconv.NumError`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumError {
    /// The function that failed: `ParseInt`, `ParseUint`, `ParseBool`.
    pub func: &'static str,
    /// The text given.
    pub num: String,
    /// Whether the text is a number at all.
    pub range: bool,
}

impl fmt::Display for NumError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let reason = if self.range { "value out of range" } else { "invalid syntax" };
        write!(f, "strconv.{}: parsing {}: {reason}", self.func, super::fmt::quote(&self.num))
    }
}

impl std::error::Error for NumError {}

/// `strconv.ParseInt(text, 0, bits)`, as pflag reads an integer flag: the integer `text` names,
/// fitting `bits` bits (32 for an `int32` flag, 64 for `int` and `int64`).
pub fn parse_int(text: &str, bits: u32) -> Result<i64, NumError> {
    parse_int_base(text, 0, bits)
}

/// `strconv.ParseInt(text, base, bits)` for `base` 0 (the prefix says the base) or 2 to 36.
pub fn parse_int_base(text: &str, base: u32, bits: u32) -> Result<i64, NumError> {
    let error = |range| NumError { func: "ParseInt", num: text.to_string(), range };
    let (negative, unsigned) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let magnitude = parse_magnitude(unsigned, base, text).ok_or_else(|| error(false))?;
    let limit = 1u128 << (bits - 1);
    match negative {
        true if magnitude <= limit => Ok((magnitude as i128).wrapping_neg() as i64),
        false if magnitude < limit => Ok(magnitude as i64),
        _ => Err(error(true)),
    }
}

/// `strconv.ParseUint(text, 0, 64)`: no sign, the base from the prefix as [`parse_int`] reads it.
pub fn parse_uint(text: &str) -> Result<u64, NumError> {
    let error = |range| NumError { func: "ParseUint", num: text.to_string(), range };
    if text.starts_with(['+', '-']) {
        return Err(error(false));
    }
    let magnitude = parse_magnitude(text, 0, text).ok_or_else(|| error(false))?;
    u64::try_from(magnitude).map_err(|_| error(true))
}

/// The value of the digits of `unsigned` (a number without its sign), saturated above `u64`'s
/// range, or `None` for invalid syntax; `whole` is the text with its sign, for Go's underscore rule.
fn parse_magnitude(unsigned: &str, base: u32, whole: &str) -> Option<u128> {
    let lower = unsigned.to_ascii_lowercase();
    let (radix, digits) = match base {
        0 if lower.len() >= 3 && lower.starts_with("0x") => (16, &lower[2..]),
        0 if lower.len() >= 3 && lower.starts_with("0o") => (8, &lower[2..]),
        0 if lower.len() >= 3 && lower.starts_with("0b") => (2, &lower[2..]),
        0 if lower.starts_with('0') => (8, &lower[1..]),
        0 => (10, lower.as_str()),
        _ => (base, lower.as_str()),
    };
    if unsigned.is_empty() {
        return None;
    }
    let mut magnitude: u128 = 0;
    let mut underscores = false;
    for c in digits.chars() {
        if c == '_' && base == 0 {
            underscores = true;
            continue;
        }
        let digit = c.to_digit(radix)?;
        magnitude = (magnitude * u128::from(radix) + u128::from(digit)).min(u128::from(u64::MAX) + 1);
    }
    (!underscores || underscores_ok(whole)).then_some(magnitude)
}

/// Go's `underscoreOK`: an `_` only between digits, or between a base prefix and a digit.
fn underscores_ok(text: &str) -> bool {
    let text = text.strip_prefix(['+', '-']).unwrap_or(text);
    let bytes = text.as_bytes();
    // What came last: the start, a digit (or a prefix), an underscore, or anything else.
    #[derive(PartialEq)]
    enum Saw {
        Start,
        Digit,
        Underscore,
        Other,
    }
    let mut saw = Saw::Start;
    let mut at = 0;
    let mut hex = false;
    if bytes.len() >= 2 && bytes[0] == b'0' && matches!(bytes[1].to_ascii_lowercase(), b'b' | b'o' | b'x') {
        at = 2;
        saw = Saw::Digit;
        hex = bytes[1].eq_ignore_ascii_case(&b'x');
    }
    for &byte in &bytes[at..] {
        if byte.is_ascii_digit() || (hex && byte.is_ascii_hexdigit()) {
            saw = Saw::Digit;
        } else if byte == b'_' {
            if saw != Saw::Digit {
                return false;
            }
            saw = Saw::Underscore;
        } else if saw == Saw::Underscore {
            return false;
        } else {
            saw = Saw::Other;
        }
    }
    saw != Saw::Underscore
}

/// `strconv.ParseBool`, which pflag uses for boolean flags.
pub fn parse_bool(text: &str) -> Result<bool, NumError> {
    match text {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Ok(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Ok(false),
        _ => Err(NumError { func: "ParseBool", num: text.to_string(), range: false }),
    }
}

/// Go's `strconv.Unquote` of a string in double quotes, which kubectl's JSONPath extends to
/// single quotes (`UnquoteExtend`): the text between the quotes with Go's escapes read (`\n`,
/// `\x41`, `\u00e9`, `\101`, ...); `None` for invalid syntax.
pub fn unquote(text: &str) -> Option<String> {
    let inner = match text.as_bytes().first() {
        Some(b'"') => text.strip_prefix('"')?.strip_suffix('"')?,
        Some(b'\'') => text.strip_prefix('\'')?.strip_suffix('\'')?,
        _ => return None,
    };
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    let code = |chars: &mut std::str::Chars<'_>, digits: usize, radix: u32| {
        let text: String = chars.take(digits).collect();
        (text.len() == digits).then(|| u32::from_str_radix(&text, radix).ok().and_then(char::from_u32))?
    };
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            'a' => '\x07',
            'b' => '\x08',
            'f' => '\x0c',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\x0b',
            c @ ('\\' | '\'' | '"') => c,
            'x' => code(&mut chars, 2, 16)?,
            'u' => code(&mut chars, 4, 16)?,
            'U' => code(&mut chars, 8, 16)?,
            d @ '0'..='7' => {
                let rest: String = chars.by_ref().take(2).collect();
                u32::from_str_radix(&format!("{d}{rest}"), 8).ok().and_then(char::from_u32)?
            }
            _ => return None,
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(text: &str, bits: u32) -> Result<i64, String> {
        parse_int(text, bits).map_err(|err| err.to_string())
    }

    // Go 1.25's answers: strconv.ParseInt(text, 0, bits).
    #[test]
    fn integers_parse_as_pflag_parses_them() {
        assert_eq!(int("30080", 64), Ok(30080));
        assert_eq!(int("-7", 32), Ok(-7));
        assert_eq!(int("+7", 32), Ok(7));
        assert_eq!(int("0x10", 32), Ok(16));
        assert_eq!(int("0X1f", 32), Ok(31));
        assert_eq!(int("0o17", 32), Ok(15));
        assert_eq!(int("010", 32), Ok(8));
        assert_eq!(int("0", 32), Ok(0));
        assert_eq!(int("0b1_01", 32), Ok(5));
        assert_eq!(int("0x_1f", 32), Ok(31));
        assert_eq!(int("1_000", 32), Ok(1000));
        assert_eq!(int("-1_000", 64), Ok(-1000));
        assert_eq!(int("0_10", 64), Ok(8));
        assert_eq!(int("x", 32), Err("strconv.ParseInt: parsing \"x\": invalid syntax".into()));
        for bad in ["", "-", "0x", "08", "1__0", "_1", "1_", "0x_", "1.5", "1e3", " 1", "0b2"] {
            assert_eq!(int(bad, 64), Err(format!("strconv.ParseInt: parsing {bad:?}: invalid syntax")), "{bad:?}");
        }
        assert_eq!(int("99999999999", 32), Err("strconv.ParseInt: parsing \"99999999999\": value out of range".into()));
        assert_eq!(int("2147483648", 32), Err("strconv.ParseInt: parsing \"2147483648\": value out of range".into()));
        assert_eq!(int("-2147483648", 32), Ok(-2147483648));
        assert_eq!(int("9223372036854775807", 64), Ok(i64::MAX));
        assert!(int("9223372036854775808", 64).unwrap_err().ends_with("value out of range"));
        assert!(int("99999999999999999999999", 64).unwrap_err().ends_with("value out of range"));
    }

    #[test]
    fn unsigned_integers_take_no_sign() {
        assert_eq!(parse_uint("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(parse_uint("0x1_0"), Ok(16));
        assert!(parse_uint("18446744073709551616").unwrap_err().range);
        assert_eq!(parse_uint("+1").unwrap_err().to_string(), "strconv.ParseUint: parsing \"+1\": invalid syntax");
    }

    #[test]
    fn base_ten_takes_no_prefix_nor_underscore() {
        let ten = |text: &str| parse_int_base(text, 10, 32).map_err(|err| err.to_string());
        assert_eq!(ten("010"), Ok(10));
        assert_eq!(ten("0x1"), Err("strconv.ParseInt: parsing \"0x1\": invalid syntax".into()));
        assert_eq!(ten("1_0"), Err("strconv.ParseInt: parsing \"1_0\": invalid syntax".into()));
    }

    #[test]
    fn booleans_take_gos_spellings() {
        for yes in ["1", "t", "T", "TRUE", "true", "True"] {
            assert_eq!(parse_bool(yes), Ok(true));
        }
        for no in ["0", "f", "F", "FALSE", "false", "False"] {
            assert_eq!(parse_bool(no), Ok(false));
        }
        assert_eq!(parse_bool("yes").unwrap_err().to_string(), "strconv.ParseBool: parsing \"yes\": invalid syntax");
    }

    #[test]
    fn quoted_strings_unquote_as_go_reads_them() {
        assert_eq!(unquote(r#""a\tb\"c""#).as_deref(), Some("a\tb\"c"));
        assert_eq!(unquote(r#""\u00e9\x41\101""#).as_deref(), Some("\u{e9}AA"));
        assert_eq!(unquote(r"'it\'s'").as_deref(), Some("it's"));
        for bad in [r#""\q""#, r#""\x4""#, r#""a"#, "a", r#""\""#] {
            assert_eq!(unquote(bad), None, "{bad}");
        }
    }
}
