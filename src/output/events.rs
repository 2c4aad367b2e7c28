//! `kubectl events`' table (k8s.io/kubectl pkg/cmd/events/event_printer.go): LAST SEEN, TYPE,
//! REASON, OBJECT, MESSAGE (NAMESPACE first with `-A`), events oldest first by the time they were
//! last seen.

use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::gocompat::time::{human_duration_since, parse_timestamp};

/// The time an event was last seen, as kubectl sorts by it: its series' last observation, else
/// `lastTimestamp`, else `eventTime`; `None` for none (Go's zero time, before every other).
fn last_seen(event: &Value) -> Option<SystemTime> {
    let series = event["series"]["lastObservedTime"].as_str();
    let text = match event["series"].is_object() {
        true => series,
        false => event["lastTimestamp"].as_str().or_else(|| event["eventTime"].as_str()),
    };
    text.and_then(precise_time)
}

/// An RFC 3339 time with its fraction of a second (`eventTime` is a MicroTime).
fn precise_time(text: &str) -> Option<SystemTime> {
    let whole = parse_timestamp(text)?;
    let fraction = text.get(19..).and_then(|rest| rest.strip_prefix('.')).unwrap_or_default();
    let digits: String = fraction.chars().take_while(char::is_ascii_digit).take(9).collect();
    let nanos = if digits.is_empty() { 0 } else { format!("{digits:0<9}").parse::<u64>().unwrap_or(0) };
    Some(whole + Duration::from_nanos(nanos))
}

/// Sorts `events` as kubectl does before printing them: by the time each was last seen, those
/// without one first; equal times keep the server's order (Go's sort keeps it for up to twelve
/// events, and shuffles more).
pub fn sort_events(events: &mut [Value]) {
    events.sort_by_key(last_seen);
}

/// The header line, tab-separated, for [`crate::gocompat::tabwriter::TabWriter`].
pub fn events_header(all_namespaces: bool) -> String {
    let namespace = if all_namespaces { "NAMESPACE\t" } else { "" };
    format!("{namespace}LAST SEEN\tTYPE\tREASON\tOBJECT\tMESSAGE\n")
}

/// One event's line, tab-separated, its ages counted to `now`.
pub fn event_row(event: &Value, all_namespaces: bool, now: SystemTime) -> String {
    let text = |pointer: &str| escape_terminal(event.pointer(pointer).and_then(Value::as_str).unwrap_or_default());
    let namespace = match all_namespaces {
        true => format!("{}\t", event["metadata"]["namespace"].as_str().unwrap_or_default()),
        false => String::new(),
    };
    format!(
        "{namespace}{}\t{}\t{}\t{}/{}\t{}\n",
        interval(event, now),
        text("/type"),
        text("/reason"),
        text("/involvedObject/kind"),
        text("/involvedObject/name"),
        escape_terminal(event["message"].as_str().unwrap_or_default().trim()),
    )
}

/// LAST SEEN: the age of the event, or `AGE (xCOUNT over FIRST)` when it happened more than once.
fn interval(event: &Value, now: SystemTime) -> String {
    let age = |pointer: &str| match event.pointer(pointer).and_then(Value::as_str).and_then(precise_time) {
        Some(time) => human_duration_since(time, now),
        None => "<unknown>".to_string(),
    };
    let first = match event["eventTime"].as_str().filter(|text| !text.is_empty()) {
        Some(_) => age("/eventTime"),
        None => age("/firstTimestamp"),
    };
    let count = event["count"].as_i64().unwrap_or(0);
    if event["series"].is_object() {
        let series_count = event["series"]["count"].as_i64().unwrap_or(0);
        format!("{} (x{series_count} over {first})", age("/series/lastObservedTime"))
    } else if count > 1 {
        format!("{} (x{count} over {first})", age("/lastTimestamp"))
    } else {
        first
    }
}

/// cli-runtime's `EscapeTerminal`: an escape character shows as `^[`, a carriage return as `\r`.
fn escape_terminal(text: &str) -> String {
    text.replace('\x1b', "^[").replace('\r', "\\r")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn at(text: &str) -> SystemTime {
        parse_timestamp(text).unwrap()
    }

    #[test]
    fn rows_read_as_kubectls() {
        let now = at("2026-01-01T01:00:00Z");
        let once = json!({"metadata": {"namespace": "ns"}, "type": "Normal", "reason": "Pulled",
            "involvedObject": {"kind": "Pod", "name": "web"}, "message": " pulled\r\n",
            "firstTimestamp": "2026-01-01T00:59:00Z", "lastTimestamp": "2026-01-01T00:59:00Z", "count": 1});
        assert_eq!(event_row(&once, false, now), "60s\tNormal\tPulled\tPod/web\tpulled\n");
        assert_eq!(event_row(&once, true, now), "ns\t60s\tNormal\tPulled\tPod/web\tpulled\n");
        let repeated = json!({"type": "Warning", "reason": "BackOff", "involvedObject": {"kind": "Pod", "name": "web"},
            "message": "x", "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:58:00Z", "count": 7});
        assert_eq!(
            event_row(&repeated, false, now),
            "2m\tWarning\tBackOff\tPod/web\tx\n".replace("2m", "2m (x7 over 60m)")
        );
        let series = json!({"eventTime": "2026-01-01T00:30:00.123456Z", "series": {"count": 3,
            "lastObservedTime": "2026-01-01T00:59:30.000000Z"}, "involvedObject": {}, "message": ""});
        // 29m59.88s since eventTime: Go's HumanDuration truncates to whole minutes.
        assert_eq!(event_row(&series, false, now), "30s (x3 over 29m)\t\t\t/\t\n");
        let timeless = json!({"involvedObject": {}});
        assert!(event_row(&timeless, false, now).starts_with("<unknown>\t"));
        assert_eq!(events_header(true), "NAMESPACE\tLAST SEEN\tTYPE\tREASON\tOBJECT\tMESSAGE\n");
    }

    #[test]
    fn events_sort_by_when_they_were_last_seen() {
        let mut events = vec![
            json!({"metadata": {"name": "late"}, "lastTimestamp": "2026-01-01T00:05:00Z"}),
            json!({"metadata": {"name": "series"}, "lastTimestamp": "2026-01-01T00:09:00Z",
                   "series": {"lastObservedTime": "2026-01-01T00:01:00.500000Z"}}),
            json!({"metadata": {"name": "micro"}, "eventTime": "2026-01-01T00:01:00.100000Z"}),
            json!({"metadata": {"name": "none"}}),
        ];
        sort_events(&mut events);
        let names: Vec<&str> = events.iter().map(|event| event["metadata"]["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["none", "micro", "series", "late"]);
    }
}
