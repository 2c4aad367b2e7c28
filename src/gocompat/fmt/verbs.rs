//! One operand of Go's `fmt.Sprintf` under its verb, as Go's `printArg` prints the values JSON
//! decodes to: booleans (`%t %v`), integers (`%d %v %b %o %O %x %X %c %q`), floats (`%v %g %G %e
//! %E %f %F %x %X`), strings (`%v %s %q %x %X`), and lists and maps element by element (each padded to the
//! width); `%T` names the type. A verb the value does not take is Go's `%!d(string=web)`, the
//! value printed with `%v` and the verb's flags.

use std::fmt::Write as _;

use serde_json::Value;

use super::{GoValue, float_text, quote};

/// The flags, width and precision of one verb, as Go's `fmt` keeps them.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Spec {
    pub minus: bool,
    pub plus: bool,
    pub sharp: bool,
    pub space: bool,
    pub zero: bool,
    /// `%#v`: Go's syntax for the value (Go moves `#` here for `%v`).
    sharp_v: bool,
    pub width: usize,
    pub precision: Option<usize>,
}

impl Spec {
    /// Takes `byte` if it is a flag; as in Go, `-` turns `0` off (zeros pad on the left only).
    pub fn flag(&mut self, byte: u8) -> bool {
        match byte {
            b'-' => (self.minus, self.zero) = (true, false),
            b'+' => self.plus = true,
            b'#' => self.sharp = true,
            b' ' => self.space = true,
            b'0' => self.zero = !self.minus,
            _ => return false,
        }
        true
    }

    /// Go's `pad`: `text` to the width, on the right with `-`, else on the left with zeros (`0`)
    /// or spaces.
    fn pad(&self, out: &mut String, text: &str) {
        let padding = self.width.saturating_sub(text.chars().count());
        if self.minus {
            out.push_str(text);
            out.extend(std::iter::repeat_n(' ', padding));
        } else {
            out.extend(std::iter::repeat_n(if self.zero { '0' } else { ' ' }, padding));
            out.push_str(text);
        }
    }

    /// [`Spec::pad`] with spaces only: for numbers, whose zeros go after the sign.
    fn pad_spaces(self, out: &mut String, text: &str) {
        Spec { zero: false, ..self }.pad(out, text);
    }
}

/// Prints `arg` under `verb` (as `Sprintf` found them).
pub(super) fn print(out: &mut String, verb: char, arg: &GoValue, mut spec: Spec) {
    if verb == 'v' {
        // Go's `%#v` is Go's syntax, and `%+v` names struct fields (none here): neither is a flag.
        (spec.sharp_v, spec.sharp, spec.plus) = (spec.sharp, false, false);
    }
    print_arg(out, verb, arg, spec);
}

fn print_arg(out: &mut String, verb: char, arg: &GoValue, spec: Spec) {
    if verb == 'T' {
        return spec.pad(out, arg.type_name());
    }
    let printed = match arg {
        GoValue::Missing | GoValue::Nil if verb == 'v' => {
            spec.pad(out, "<nil>");
            true
        }
        GoValue::Bool(flag) if matches!(verb, 't' | 'v') => {
            spec.pad(out, if *flag { "true" } else { "false" });
            true
        }
        GoValue::Missing | GoValue::Nil | GoValue::Bool(_) => false,
        GoValue::Int(number) | GoValue::Count(number) => integer(out, verb, *number, spec),
        GoValue::Float(number) => float(out, verb, *number, spec),
        GoValue::Str(text) => string(out, verb, text, spec),
        GoValue::List(items) => {
            list(out, verb, items, spec);
            true
        }
        GoValue::Map(map) => {
            map_entries(out, verb, map, spec);
            true
        }
    };
    if !printed {
        bad_verb(out, verb, arg, spec);
    }
}

/// Go's `%!d(string=web)`: the value with `%v` and the same flags.
fn bad_verb(out: &mut String, verb: char, arg: &GoValue, spec: Spec) {
    let _ = write!(out, "%!{verb}(");
    match arg {
        GoValue::Missing | GoValue::Nil => out.push_str("<nil>"),
        _ => {
            out.push_str(arg.type_name());
            out.push('=');
            print_arg(out, 'v', arg, spec);
        }
    }
    out.push(')');
}

/// An element of a list or a map: a null is `<nil>` under any verb, unpadded (Go's empty
/// interface); `%#v` says `interface {}(nil)`.
fn element(out: &mut String, verb: char, value: &Value, spec: Spec) {
    match value {
        Value::Null if spec.sharp_v => out.push_str("interface {}(nil)"),
        Value::Null => out.push_str("<nil>"),
        _ => print_arg(out, verb, &GoValue::of(value), spec),
    }
}

/// `[a b]`, each element under the verb; `%#v`: `[]interface {}{a, b}`.
fn list(out: &mut String, verb: char, items: &[Value], spec: Spec) {
    out.push_str(if spec.sharp_v { "[]interface {}{" } else { "[" });
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(if spec.sharp_v { ", " } else { " " });
        }
        element(out, verb, item, spec);
    }
    out.push(if spec.sharp_v { '}' } else { ']' });
}

/// `map[k:v]` in key order, keys and values under the verb; `%#v`:
/// `map[string]interface {}{"k":v}`.
fn map_entries(out: &mut String, verb: char, map: &serde_json::Map<String, Value>, spec: Spec) {
    out.push_str(if spec.sharp_v { "map[string]interface {}{" } else { "map[" });
    for (i, (key, value)) in map.iter().enumerate() {
        if i > 0 {
            out.push_str(if spec.sharp_v { ", " } else { " " });
        }
        if !string(out, verb, key, spec) {
            bad_verb(out, verb, &GoValue::Str(key.clone()), spec);
        }
        out.push(':');
        element(out, verb, value, spec);
    }
    out.push(if spec.sharp_v { '}' } else { ']' });
}

/// Go's `fmtInteger` (and `%c`); false for a verb integers do not take.
fn integer(out: &mut String, verb: char, number: i64, spec: Spec) -> bool {
    let (base, upper) = match verb {
        'd' | 'v' => (10, false),
        'b' => (2, false),
        'o' | 'O' => (8, false),
        'x' => (16, false),
        'X' => (16, true),
        'c' | 'q' => {
            let rune = u32::try_from(number).ok().and_then(char::from_u32).unwrap_or('\u{FFFD}');
            let text = match verb {
                'q' => quote_rune(rune),
                _ => rune.to_string(),
            };
            spec.pad(out, &text);
            return true;
        }
        _ => return false,
    };
    let negative = number < 0;
    let signed = negative || spec.plus || spec.space;
    // Precision 0 prints no digits for 0, only the padding.
    if spec.precision == Some(0) && number == 0 {
        spec.pad_spaces(out, "");
        return true;
    }
    let magnitude = number.unsigned_abs();
    let mut digits = match (base, upper) {
        (2, _) => format!("{magnitude:b}"),
        (8, _) => format!("{magnitude:o}"),
        (16, false) => format!("{magnitude:x}"),
        (16, true) => format!("{magnitude:X}"),
        _ => magnitude.to_string(),
    };
    // The digits a precision asks for, or zeros to the width (the sign's place kept).
    let least = match spec.precision {
        Some(precision) => precision,
        None if spec.zero && spec.width > 0 => spec.width - usize::from(signed).min(spec.width),
        None => 0,
    };
    if digits.len() < least {
        digits.insert_str(0, &"0".repeat(least - digits.len()));
    }
    let prefix = match (spec.sharp, base) {
        (true, 2) => "0b",
        (true, 8) if !digits.starts_with('0') => "0",
        (true, 16) if upper => "0X",
        (true, 16) => "0x",
        _ if verb == 'O' => "0o",
        _ => "",
    };
    let sign = match () {
        _ if negative => "-",
        _ if spec.plus => "+",
        _ if spec.space => " ",
        _ => "",
    };
    spec.pad_spaces(out, &format!("{sign}{prefix}{digits}"));
    true
}

/// Go's `%q` of a rune (`strconv.QuoteRune`): `'A'`, with the escapes [`quote`] writes and `\'`.
fn quote_rune(rune: char) -> String {
    match rune {
        '\'' => "'\\''".to_string(),
        '"' => "'\"'".to_string(),
        _ => {
            let quoted = quote(rune.encode_utf8(&mut [0; 4]));
            format!("'{}'", &quoted[1..quoted.len() - 1])
        }
    }
}

/// Go's `fmtFloat`; false for a verb floats do not take here (`%b`, not printed by kubeupd).
fn float(out: &mut String, verb: char, number: f64, spec: Spec) -> bool {
    let unsigned = number.abs();
    let mut text = match (verb, spec.precision) {
        _ if !number.is_finite() => (if number.is_nan() { "NaN" } else { "Inf" }).to_string(),
        ('v' | 'g' | 'G', None) => float_text(unsigned),
        ('v' | 'g' | 'G', Some(precision)) => general(unsigned, precision),
        ('e' | 'E', precision) => exponent_form(unsigned, precision.unwrap_or(6)),
        ('f' | 'F', precision) => format!("{unsigned:.*}", precision.unwrap_or(6)),
        ('x' | 'X', precision) => hexadecimal(unsigned, precision),
        _ => return false,
    };
    if matches!(verb, 'G' | 'E' | 'X') {
        text = text.to_uppercase().replace("INF", "Inf").replace("NAN", "NaN");
    }
    let sign = match () {
        _ if number.is_sign_negative() && !number.is_nan() => "-",
        _ if spec.plus => "+",
        _ if spec.space => " ",
        // Go writes the sign of +Inf always.
        _ if number.is_infinite() => "+",
        _ => "",
    };
    // Zeros pad after the sign; never an infinity or NaN.
    if spec.zero && number.is_finite() && !sign.is_empty() {
        let padding = spec.width.saturating_sub(text.len() + 1);
        out.push_str(sign);
        out.extend(std::iter::repeat_n('0', padding));
        out.push_str(&text);
    } else if number.is_finite() {
        spec.pad(out, &format!("{sign}{text}"));
    } else {
        spec.pad_spaces(out, &format!("{sign}{text}"));
    }
    true
}

/// `%e`: Go writes at least two exponent digits (`1.500000e+00`).
fn exponent_form(number: f64, precision: usize) -> String {
    let text = format!("{number:.precision$e}");
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    format!("{mantissa}e{}{:02}", if exponent < 0 { '-' } else { '+' }, exponent.abs())
}

/// `%x` of a non-negative finite number (`strconv.FormatFloat(f, 'x', N, 64)`): `0x1.cp+01`, the
/// fraction's hexadecimal digits (all but trailing zeros, or N of them rounded half to even).
fn hexadecimal(number: f64, precision: Option<usize>) -> String {
    const LEAD: u64 = 1 << 60;
    let bits = number.to_bits();
    let (mut mantissa, stored_exponent) = (bits & ((1 << 52) - 1), (bits >> 52) & 0x7ff);
    let mut exponent = match stored_exponent {
        0 => -1022,
        _ => {
            mantissa |= 1 << 52;
            stored_exponent as i64 - 1023
        }
    };
    if mantissa == 0 {
        exponent = 0;
    }
    // The leading 1 at bit 60, four bits of room above for the rounding to carry into.
    mantissa <<= 8;
    while mantissa != 0 && mantissa & LEAD == 0 {
        mantissa <<= 1;
        exponent -= 1;
    }
    if let Some(precision) = precision.filter(|precision| *precision < 15) {
        let shift = precision as u32 * 4;
        let extra = (mantissa << shift) & (LEAD - 1);
        mantissa >>= 60 - shift;
        if extra | (mantissa & 1) > LEAD >> 1 {
            mantissa += 1;
        }
        mantissa <<= 60 - shift;
        if mantissa & (1 << 61) != 0 {
            mantissa >>= 1;
            exponent += 1;
        }
    }
    let mut text = format!("0x{}", (mantissa >> 60) & 1);
    let mut fraction = mantissa << 4;
    let digits = match precision {
        None => (0..15).take_while(|at| fraction << (at * 4) != 0).count(),
        Some(precision) => precision,
    };
    if digits > 0 {
        text.push('.');
        for _ in 0..digits {
            let _ = write!(text, "{:x}", (fraction >> 60) & 15);
            fraction <<= 4;
        }
    }
    let sign = if exponent < 0 { '-' } else { '+' };
    let _ = write!(text, "p{sign}{:02}", exponent.abs());
    text
}

/// `%.Ng` (`strconv.FormatFloat(f, 'g', N, 64)`) of a non-negative finite number: N significant
/// digits, trailing zeros dropped, in exponent form when the exponent is below -4 or at least N.
fn general(number: f64, precision: usize) -> String {
    let precision = precision.max(1);
    let rounded = format!("{number:.*e}", precision - 1);
    let (mantissa, exponent) = rounded.split_once('e').expect("{:e} always has an exponent");
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let digits = digits.trim_end_matches('0');
    // Go's decimal point position: 0 for the number 0.
    let point = if digits.is_empty() { 0 } else { exponent.parse::<i64>().expect("{:e} exponents are integers") + 1 };
    let count = digits.len() as i64;
    let mut shown = precision as i64;
    let mut limit = shown;
    if limit > count && count >= point {
        limit = count;
    }
    let exponent = point - 1;
    if exponent < -4 || exponent >= limit {
        shown = shown.min(count);
        let mut text = digits.get(..1).unwrap_or("0").to_string();
        if shown > 1 {
            text.push('.');
            text.push_str(&digits[1..shown as usize]);
        }
        let sign = if exponent < 0 { '-' } else { '+' };
        return format!("{text}e{sign}{:02}", exponent.abs());
    }
    if shown > point {
        shown = count;
    }
    let decimals = (shown - point).max(0);
    let digit =
        |at: i64| usize::try_from(at).ok().and_then(|at| digits.as_bytes().get(at)).map_or('0', |&d| char::from(d));
    let mut text: String = if point > 0 { (0..point).map(digit).collect() } else { "0".into() };
    if decimals > 0 {
        text.push('.');
        text.extend((0..decimals).map(|at| digit(point + at)));
    }
    text
}

/// Go's `fmtS`, `fmtQ` and `fmtSx`; false for a verb strings do not take.
fn string(out: &mut String, verb: char, text: &str, spec: Spec) -> bool {
    let cut = |text: &str| -> String {
        match spec.precision {
            Some(limit) => text.chars().take(limit).collect(),
            None => text.to_string(),
        }
    };
    match verb {
        'v' if spec.sharp_v => spec.pad(out, &quote(text)),
        's' | 'v' => spec.pad(out, &cut(text)),
        'q' => {
            let text = cut(text);
            let backquoted = spec.sharp && !text.contains('`') && text.chars().all(|c| c == '\t' || !c.is_control());
            spec.pad(out, &if backquoted { format!("`{text}`") } else { quote(&text) });
        }
        'x' | 'X' => {
            let bytes = text.as_bytes();
            let bytes = &bytes[..spec.precision.map_or(bytes.len(), |limit| limit.min(bytes.len()))];
            let mut hex = String::new();
            for (i, byte) in bytes.iter().enumerate() {
                if spec.space && i > 0 {
                    hex.push(' ');
                }
                if spec.sharp && (spec.space || i == 0) {
                    hex.push_str(if verb == 'X' { "0X" } else { "0x" });
                }
                let _ = if verb == 'X' { write!(hex, "{byte:02X}") } else { write!(hex, "{byte:02x}") };
            }
            spec.pad(out, &hex);
        }
        _ => return false,
    }
    true
}
