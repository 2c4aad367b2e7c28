//! apimachinery's `resource.Quantity` text: a quantity (`500m`, `1.5Gi`, `1e3`) read as
//! `ParseQuantity` reads it and written as the Quantity's `String()` writes it, which is what
//! kubectl prints for a quantity it made (`create quota --hard=cpu=1000m` prints `cpu: "1"`), and
//! its amount in nanos ([`nanos`]) where two quantities are compared or divided.
//!
//! Go's quirks are kept: a text already in canonical form is written as given (`+1G`, `01`,
//! `1.G`), values are rounded up to nanos, binary values are capped at 2^63-1, and a decimal
//! exponent without an SI suffix loses it (`1000E` is written `1`). Go computes with big
//! decimals; here 128-bit integers carry them, so a quantity of more than 38 digits is refused
//! as not numeric where Go would take it.

/// Why a text is not a quantity, in apimachinery's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum QuantityError {
    #[error("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")]
    Format,
    #[error("unable to parse quantity's numeric part")]
    Numeric,
    #[error("unable to parse quantity's suffix")]
    Suffix,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    DecimalExponent,
    BinarySI,
    DecimalSI,
}

const DECIMAL_SUFFIXES: [(&str, i32); 10] =
    [("n", -9), ("u", -6), ("m", -3), ("", 0), ("k", 3), ("M", 6), ("G", 9), ("T", 12), ("P", 15), ("E", 18)];
const BINARY_SUFFIXES: [(&str, i32); 6] = [("Ki", 10), ("Mi", 20), ("Gi", 30), ("Ti", 40), ("Pi", 50), ("Ei", 60)];

/// A parsed quantity: `unscaled × 10^-scale`, with the format its suffix asked for.
struct Quantity {
    unscaled: i128,
    scale: i32,
    format: Format,
}

/// The text Go writes for the quantity `text`, or why Go refuses it.
pub fn canonical(text: &str) -> Result<String, QuantityError> {
    if text.is_empty() {
        return Err(QuantityError::Format);
    }
    if text == "0" {
        return Ok(text.to_string());
    }
    let parts = split(text)?;
    let (base, exponent, format) = interpret(parts.suffix).ok_or(QuantityError::Suffix)?;
    if let Some(fast) = small(text, &parts, exponent, format)? {
        return Ok(fast);
    }
    Ok(write(&large(&parts, base, exponent, format)?))
}

/// The quantity `text` in billionths of its unit, as `ParseQuantity` reads it (rounded up to
/// nanos, binary values capped); `None` when Go refuses it or the amount overflows.
pub fn nanos(text: &str) -> Option<i128> {
    if text.is_empty() {
        return None;
    }
    let parts = split(text).ok()?;
    let (base, exponent, format) = interpret(parts.suffix)?;
    let quantity = large(&parts, base, exponent, format).ok()?;
    match 9 - quantity.scale {
        shift @ 0.. => quantity.unscaled.checked_mul(10i128.checked_pow(shift as u32)?),
        // `large` leaves at most nine digits after the point.
        _ => None,
    }
}

/// The pieces of a quantity's text, as apimachinery's `parseQuantityString` cuts them.
struct Parts<'a> {
    positive: bool,
    /// The number with its sign, up to the suffix.
    value: &'a str,
    /// The whole digits without leading zeros, at least `0`.
    num: &'a str,
    /// The digits after the point.
    denom: &'a str,
    suffix: &'a str,
}

fn split(text: &str) -> Result<Parts<'_>, QuantityError> {
    let bytes = text.as_bytes();
    let end = bytes.len();
    let mut parts = Parts { positive: true, value: "", num: "0", denom: "", suffix: "" };
    let mut pos = 0;
    match bytes[0] {
        b'-' => {
            parts.positive = false;
            pos += 1;
        }
        b'+' => pos += 1,
        _ => {}
    }
    while pos < end && bytes[pos] == b'0' {
        pos += 1;
    }
    if pos >= end {
        parts.value = "0";
        return Ok(parts);
    }
    let digits = |from: usize| from + bytes[from..].iter().take_while(|b| b.is_ascii_digit()).count();
    let num_end = digits(pos);
    if num_end > pos {
        parts.num = &text[pos..num_end];
    }
    if num_end >= end {
        parts.value = text;
        return Ok(parts);
    }
    pos = num_end;
    if bytes[pos] == b'.' {
        let denom_end = digits(pos + 1);
        parts.denom = &text[pos + 1..denom_end];
        if denom_end >= end {
            parts.value = text;
            return Ok(parts);
        }
        pos = denom_end;
    }
    parts.value = &text[..pos];
    let suffix_start = pos;
    pos += bytes[pos..].iter().take_while(|b| b"eEinumkKMGTP".contains(b)).count();
    if pos < end && matches!(bytes[pos], b'-' | b'+') {
        pos += 1;
    }
    if digits(pos) < end {
        return Err(QuantityError::Format);
    }
    parts.suffix = &text[suffix_start..];
    Ok(parts)
}

fn interpret(suffix: &str) -> Option<(u32, i32, Format)> {
    if let Some((_, exponent)) = DECIMAL_SUFFIXES.iter().find(|(name, _)| *name == suffix) {
        return Some((10, *exponent, Format::DecimalSI));
    }
    if let Some((_, exponent)) = BINARY_SUFFIXES.iter().find(|(name, _)| *name == suffix) {
        return Some((2, *exponent, Format::BinarySI));
    }
    let exponent = suffix.strip_prefix(['e', 'E']).filter(|rest| !rest.is_empty())?;
    // Go keeps the low 32 bits of the exponent.
    Some((10, exponent.parse::<i64>().ok()? as i32, Format::DecimalExponent))
}

/// apimachinery's fast path for quantities that fit an int64 of nanos or more: the text itself
/// when it is canonical already, else the canonical text; `None` to take the slow path.
fn small(text: &str, parts: &Parts, exponent: i32, format: Format) -> Result<Option<String>, QuantityError> {
    let digits = (parts.num.len() + parts.denom.len()) as i32;
    let (mut scale, mantissa, precision) = match format {
        Format::BinarySI if parts.denom.is_empty() => {
            (0, 1i64 << exponent, 15 - parts.num.len() as i32 - (exponent as f32 * 3.0 / 10.0) as i32 - 1)
        }
        Format::BinarySI => (0, 1, -1),
        _ => (exponent, 1, 18 - digits),
    };
    if precision < 0 {
        return Ok(None);
    }
    scale -= parts.denom.len() as i32;
    if scale < -9 {
        return Ok(None);
    }
    let shifted = format!("{}{}", parts.num, parts.denom);
    let value: i64 = shifted.parse().map_err(|_| QuantityError::Numeric)?;
    let Some(result) = value.checked_mul(mantissa) else { return Ok(None) };
    let canonical_already = match format {
        Format::BinarySI => exponent % 10 == 0 && value & 0x07 != 0,
        _ => scale % 3 == 0 && !shifted.ends_with("000") && !shifted.starts_with('0'),
    };
    if canonical_already {
        return Ok(Some(text.to_string()));
    }
    let result = if parts.positive { result } else { -result };
    let quantity = Quantity { unscaled: i128::from(result), scale: -scale, format };
    Ok(Some(write(&quantity)))
}

/// apimachinery's slow path: the exact decimal, rounded up to nanos, binary values capped.
fn large(parts: &Parts, base: u32, exponent: i32, mut format: Format) -> Result<Quantity, QuantityError> {
    let number = parts.value.trim_start_matches(['+', '-']);
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    let digits = format!("{whole}{fraction}");
    if digits.is_empty() {
        return Err(QuantityError::Numeric);
    }
    let mut magnitude: i128 = digits.parse().map_err(|_| QuantityError::Numeric)?;
    let mut scale = fraction.len() as i32;
    if base == 10 {
        scale -= exponent;
    } else {
        // Too large for 128 bits is over the binary cap below.
        magnitude = magnitude.checked_mul(1i128 << exponent).unwrap_or(i128::MAX);
    }
    if magnitude != 0 && scale > 9 {
        let divisor = 10i128.checked_pow((scale - 9) as u32);
        magnitude = divisor.map_or(1, |divisor| (magnitude + divisor - 1) / divisor);
        scale = 9;
    }
    if format == Format::BinarySI {
        let max = i128::from(i64::MAX);
        if scaled_cmp(magnitude, scale, max) == std::cmp::Ordering::Greater {
            (magnitude, scale) = (max, 0);
        }
        if magnitude > 0 && scaled_cmp(magnitude, scale, 1) == std::cmp::Ordering::Less {
            format = Format::DecimalSI;
        }
    }
    let unscaled = if parts.positive { magnitude } else { -magnitude };
    Ok(Quantity { unscaled, scale, format })
}

/// How `magnitude × 10^-scale` compares with `other`.
fn scaled_cmp(magnitude: i128, scale: i32, other: i128) -> std::cmp::Ordering {
    match scale {
        ..=0 => 10i128
            .checked_pow((-scale) as u32)
            .and_then(|f| magnitude.checked_mul(f))
            .map_or(std::cmp::Ordering::Greater, |value| value.cmp(&other)),
        _ => match 10i128.checked_pow(scale as u32).and_then(|f| other.checked_mul(f)) {
            Some(other) => magnitude.cmp(&other),
            None => std::cmp::Ordering::Less,
        },
    }
}

/// The Quantity's `String()`: binary suffixes for whole binary values of 1024 or more, else
/// the number with the exponent a multiple of three and its SI suffix (or `eN`).
fn write(quantity: &Quantity) -> String {
    if quantity.unscaled == 0 {
        return "0".into();
    }
    let mut format = quantity.format;
    if format == Format::BinarySI {
        let magnitude = quantity.unscaled.abs();
        if scaled_cmp(magnitude, quantity.scale, 1024) == std::cmp::Ordering::Less {
            format = Format::DecimalSI;
        } else if let Some(whole) = whole_rounded_up(quantity) {
            let (mut number, mut times) = (whole, 0);
            while number % 1024 == 0 && number.abs() >= 1024 {
                number /= 1024;
                times += 1;
            }
            let suffix =
                BINARY_SUFFIXES.iter().find(|(_, exponent)| *exponent == times * 10).map_or("", |(name, _)| name);
            return format!("{number}{suffix}");
        } else {
            format = Format::DecimalSI;
        }
    }
    let (mut number, mut exponent) = (quantity.unscaled, -quantity.scale);
    while number % 10 == 0 {
        number /= 10;
        exponent += 1;
    }
    while exponent.rem_euclid(3) != 0 {
        number *= 10;
        exponent -= 1;
    }
    let suffix = match format {
        Format::DecimalExponent if exponent == 0 => String::new(),
        Format::DecimalExponent => format!("e{exponent}"),
        _ => DECIMAL_SUFFIXES.iter().find(|(_, e)| *e == exponent).map_or(String::new(), |(name, _)| name.to_string()),
    };
    format!("{number}{suffix}")
}

/// The quantity as a whole number, when it is one.
fn whole_rounded_up(quantity: &Quantity) -> Option<i128> {
    if quantity.scale <= 0 {
        return quantity.unscaled.checked_mul(10i128.checked_pow((-quantity.scale) as u32)?);
    }
    let divisor = 10i128.checked_pow(quantity.scale as u32)?;
    (quantity.unscaled % divisor == 0).then(|| quantity.unscaled / divisor)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each text and what kubectl 1.37 prints for it in `create quota --hard` (recorded by hand).
    #[test]
    fn quantities_are_written_as_go_writes_them() {
        for (given, written) in [
            ("1000m", "1"),
            ("1.5Gi", "1536Mi"),
            ("10", "10"),
            ("1e3", "1e3"),
            ("0.5", "500m"),
            ("+1G", "+1G"),
            ("01", "01"),
            ("1024Mi", "1Gi"),
            ("8Gi", "8Gi"),
            ("1000", "1k"),
            ("0.1n", "1n"),
            ("1.G", "1.G"),
            ("1000E", "1"),
            ("1e100", "10e99"),
            ("-1", "-1"),
            ("1.5", "1500m"),
            ("1.5Ki", "1536"),
            ("1025", "1025"),
            ("1.5e3", "1500"),
            ("12345678901234567890", "12345678901234567890"),
            ("2048Ki", "2Mi"),
            ("0.5Gi", "512Mi"),
            ("1e-12", "1e-9"),
            ("1E3", "1E3"),
            (".5", "500m"),
            ("5.", "5."),
            ("-1.5Gi", "-1536Mi"),
            ("1000000000000000000000000Ei", "9223372036854775807"),
            ("1200M", "1200M"),
            ("0.000000001", "1n"),
            ("1023Ki", "1023Ki"),
            ("7Ki", "7Ki"),
            (".", "0"),
            ("+", "0"),
            ("9223372036854775808", "9223372036854775808"),
            ("1e99999999999", "10e1215752190"),
        ] {
            assert_eq!(canonical(given).as_deref(), Ok(written), "{given}");
        }
    }

    #[test]
    fn what_go_refuses_is_refused_in_its_words() {
        for (given, error) in [
            ("", QuantityError::Format),
            ("x", QuantityError::Format),
            ("1Q", QuantityError::Format),
            ("1..2", QuantityError::Format),
            ("1e", QuantityError::Suffix),
            ("1M5", QuantityError::Suffix),
            ("1ee3", QuantityError::Suffix),
        ] {
            assert_eq!(canonical(given), Err(error), "{given}");
        }
    }

    #[test]
    fn amounts_are_counted_in_nanos() {
        const UNIT: i128 = 1_000_000_000;
        assert_eq!(nanos("1.5Gi"), Some(1_610_612_736 * UNIT));
        assert_eq!(nanos("2e3"), Some(2000 * UNIT));
        assert_eq!(nanos("500m"), Some(500_000_000));
        assert_eq!(nanos("0.1n"), Some(1));
        assert_eq!(nanos("-1.5"), Some(-1_500_000_000));
        assert_eq!(nanos("0"), Some(0));
        for refused in ["x", "", "1Q", "1e"] {
            assert_eq!(nanos(refused), None, "{refused}");
        }
    }
}
