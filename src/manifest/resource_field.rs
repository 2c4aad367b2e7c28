//! A container's resource in a divisor's units, as kubectl computes a `resourceFieldRef`
//! (`set env --from`, `describe`) from quantities read by [`crate::gocompat::quantity`].

use serde_json::Value;

use crate::gocompat::quantity::nanos;

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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn container_resources_in_their_divisors_units() {
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
