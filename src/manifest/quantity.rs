//! Kubernetes quantities (`500m`, `1.5Gi`, `2e3`) as numbers, for the values kubectl computes
//! from them: a container's resource in a divisor's units (`resourceFieldRef`).

use serde_json::Value;

const NANOS_PER_UNIT: i128 = 1_000_000_000;

/// kubectl's `ExtractContainerResourceValue`: the container's limit or request named by a
/// `resourceFieldRef` (`limits.cpu`, `requests.memory`, ...) in units of its divisor (default
/// 1), rounded up; CPU counted in thousandths, the others in whole units. An unset value is 0;
/// `None` for a resource kubectl does not extract.
pub fn container_resource(container: &Value, reference: &Value) -> Option<i128> {
    let resource = reference["resource"].as_str().unwrap_or_default();
    let (section, name) = resource.split_once('.')?;
    if !matches!(section, "limits" | "requests") {
        return None;
    }
    let divisor = reference["divisor"].as_str().and_then(nanos).filter(|d| *d != 0).unwrap_or(NANOS_PER_UNIT);
    let amount = container["resources"][section][name].as_str().and_then(nanos).unwrap_or(0);
    let unit = match name {
        "cpu" => 1_000_000,
        "memory" | "ephemeral-storage" => NANOS_PER_UNIT,
        _ if name.starts_with("hugepages-") => NANOS_PER_UNIT,
        _ => return None,
    };
    Some(div_ceil(div_ceil(amount, unit), div_ceil(divisor, unit).max(1)))
}

fn div_ceil(a: i128, b: i128) -> i128 {
    (a + b - 1).div_euclid(b)
}

/// A quantity in billionths of its unit; `None` when it is not one.
pub fn nanos(quantity: &str) -> Option<i128> {
    let end =
        quantity.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '+' || c == '-')).unwrap_or(quantity.len());
    let (number, suffix) = quantity.split_at(end);
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    let negative = whole.starts_with('-');
    let whole = whole.trim_start_matches(['+', '-']);
    let digits = format!("{whole}{fraction}");
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() > 30 {
        return None;
    }
    // number = digits × 10^-len(fraction); times the suffix; in billionths.
    let mut value: i128 = digits.parse().ok()?;
    let mut decimal_exponent: i32 = 9 - fraction.len() as i32;
    let binary = |power: u32| Some((1i128 << power, 0));
    let (factor, exponent) = match suffix {
        "" => (1, 0),
        "n" => (1, -9),
        "u" => (1, -6),
        "m" => (1, -3),
        "k" => (1, 3),
        "M" => (1, 6),
        "G" => (1, 9),
        "T" => (1, 12),
        "P" => (1, 15),
        "E" => (1, 18),
        "Ki" => binary(10)?,
        "Mi" => binary(20)?,
        "Gi" => binary(30)?,
        "Ti" => binary(40)?,
        "Pi" => binary(50)?,
        "Ei" => binary(60)?,
        exponent if exponent.starts_with(['e', 'E']) => (1, exponent[1..].parse().ok()?),
        _ => return None,
    };
    value = value.checked_mul(factor)?;
    decimal_exponent += exponent;
    let scaled = if decimal_exponent >= 0 {
        value.checked_mul(10i128.checked_pow(decimal_exponent as u32)?)?
    } else {
        div_ceil(value, 10i128.checked_pow((-decimal_exponent) as u32)?)
    };
    Some(if negative { -scaled } else { scaled })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn quantities_and_container_resources() {
        assert_eq!(nanos("1.5Gi"), Some(1_610_612_736 * NANOS_PER_UNIT));
        assert_eq!(nanos("2e3"), Some(2000 * NANOS_PER_UNIT));
        assert_eq!(nanos("500m"), Some(500_000_000));
        assert_eq!(nanos("x"), None);
        let container = json!({"resources": {"limits": {"cpu": "500m", "memory": "128Mi"}}});
        let field = |resource: &str, divisor: Option<&str>| {
            container_resource(&container, &json!({"resource": resource, "divisor": divisor}))
        };
        assert_eq!(field("limits.cpu", None), Some(1));
        assert_eq!(field("limits.cpu", Some("1m")), Some(500));
        assert_eq!(field("limits.memory", Some("1Mi")), Some(128));
        assert_eq!(field("requests.cpu", None), Some(0));
        assert_eq!(field("limits.gpu", None), None);
    }
}
