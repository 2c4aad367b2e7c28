//! Go's `fmt.Sprintf`: the format read as Go's `doPrintf` reads it (flags, widths and precisions
//! written or taken from the operands with `*`, operand indexes `%[2]d`) and Go's words for its
//! mistakes; each operand printed by [`super::verbs`].

use std::fmt::Write as _;

use super::GoValue;
use super::verbs::{self, Spec};

/// The largest width or precision Go's `fmt` takes (its `tooLarge`).
const MAX_WIDTH: usize = 1_000_000;

/// A number in `format[start..end]` as Go's `fmt` reads a width, precision or operand index:
/// the number, whether there were digits, and where reading stopped. A number that grows past a
/// million before its last digit ends the reading at `end` (Go then takes the rest of the format
/// for it, `%!(NOVERB)`), so that no format asks for gigabytes of padding.
fn parse_number(format: &[u8], start: usize, end: usize) -> (usize, bool, usize) {
    let (mut number, mut at) = (0_usize, start);
    while at < end && format[at].is_ascii_digit() {
        if number > MAX_WIDTH {
            return (0, false, end);
        }
        number = number * 10 + usize::from(format[at] - b'0');
        at += 1;
    }
    (number, at > start, at)
}

/// Where a verb takes its operands: the next one, or the one an index (`%[2]d`) names.
struct Operands<'a> {
    args: &'a [GoValue],
    next: usize,
    /// An index was written: Go then reports no unused operands (`%!(EXTRA ...)`).
    reordered: bool,
    /// The verb's index named no operand (`%!d(BADINDEX)`).
    bad_index: bool,
}

impl Operands<'_> {
    /// Reads an index `[n]` at `at`, if one is written there; where reading stopped, and whether
    /// an index was read.
    fn index(&mut self, format: &[u8], at: usize) -> (usize, bool) {
        if format.get(at) != Some(&b'[') {
            return (at, false);
        }
        self.reordered = true;
        let close = format[at..].iter().position(|&byte| byte == b']').filter(|_| format.len() - at >= 3);
        let Some(close) = close else {
            self.bad_index = true;
            return (at + 1, false);
        };
        let (number, digits, stop) = parse_number(&format[at..], 1, close);
        let read = digits && stop == close;
        match number.checked_sub(1).filter(|index| read && *index < self.args.len()) {
            Some(index) => self.next = index,
            None => self.bad_index = true,
        }
        (at + close + 1, read)
    }

    /// The operand `*` takes as a width or precision: an integer within a million either way,
    /// else none (Go's `%!(BADWIDTH)`, `%!(BADPREC)`); an operand is used when there is one.
    fn star(&mut self) -> Option<i64> {
        let arg = self.args.get(self.next)?;
        self.next += 1;
        arg.int().filter(|number| number.unsigned_abs() <= MAX_WIDTH as u64)
    }
}

/// Go's `fmt.Sprintf` for the verbs templates use (see [`verbs`]), with flags, width and
/// precision (`*` taking them from the operands), and operand indexes (`%[2]d`); a verb the value
/// does not take prints `%!d(string=web)`, and Go's other mistakes are Go's words.
pub fn sprintf(format: &str, args: &[GoValue]) -> String {
    let bytes = format.as_bytes();
    let end = bytes.len();
    let mut out = String::new();
    let mut operands = Operands { args, next: 0, reordered: false, bad_index: false };
    let mut at = 0;
    while at < end {
        let text_start = at;
        while at < end && bytes[at] != b'%' {
            at += 1;
        }
        out.push_str(&format[text_start..at]);
        if at >= end {
            break;
        }
        at += 1;
        operands.bad_index = false;
        let mut spec = Spec::default();
        while at < end && spec.flag(bytes[at]) {
            at += 1;
        }
        let (after, mut indexed) = operands.index(bytes, at);
        at = after;
        if bytes.get(at) == Some(&b'*') {
            at += 1;
            match operands.star() {
                Some(number) => {
                    // A negative width pads on the right, never with zeros.
                    if number < 0 {
                        (spec.minus, spec.zero) = (true, false);
                    }
                    spec.width = number.unsigned_abs() as usize;
                }
                None => out.push_str("%!(BADWIDTH)"),
            }
            indexed = false;
        } else {
            let (number, digits, stop) = parse_number(bytes, at, end);
            (spec.width, at) = (number, stop);
            // `%[3]2d`: a width after an index is Go's mistake.
            operands.bad_index |= indexed && digits;
        }
        if at + 1 < end && bytes[at] == b'.' {
            at += 1;
            operands.bad_index |= indexed;
            (at, indexed) = operands.index(bytes, at);
            if bytes.get(at) == Some(&b'*') {
                at += 1;
                spec.precision = operands.star().and_then(|number| usize::try_from(number).ok());
                if spec.precision.is_none() {
                    out.push_str("%!(BADPREC)");
                }
                indexed = false;
            } else {
                let (number, _, stop) = parse_number(bytes, at, end);
                (spec.precision, at) = (Some(number), stop);
            }
        }
        if !indexed {
            (at, _) = operands.index(bytes, at);
        }
        let Some(verb) = format[at..].chars().next() else {
            out.push_str("%!(NOVERB)");
            break;
        };
        at += verb.len_utf8();
        if verb == '%' {
            out.push('%');
            continue;
        }
        if operands.bad_index {
            let _ = write!(out, "%!{verb}(BADINDEX)");
            continue;
        }
        let Some(arg) = args.get(operands.next) else {
            let _ = write!(out, "%!{verb}(MISSING)");
            continue;
        };
        operands.next += 1;
        verbs::print(&mut out, verb, arg, spec);
    }
    if !operands.reordered && operands.next < args.len() {
        out.push_str("%!(EXTRA ");
        for (i, arg) in args[operands.next..].iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            match arg {
                GoValue::Missing | GoValue::Nil => out.push_str("<nil>"),
                _ => {
                    let _ = write!(out, "{}={}", arg.type_name(), arg.text());
                }
            }
        }
        out.push(')');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gocompat::fmt::sprint;

    // Expectations from the fmt package's documentation ("Printing" and its error strings).
    #[test]
    fn sprintf_writes_verbs_and_its_mistakes_as_go_does() {
        let int = GoValue::Count;
        let text = |value: &str| GoValue::Str(value.to_string());
        assert_eq!(
            sprintf(
                "%5.2f|%x|%X|%t|%e",
                &[GoValue::Float(2.345), int(255), int(255), GoValue::Bool(true), GoValue::Float(1.5)]
            ),
            " 2.35|ff|FF|true|1.500000e+00"
        );
        assert_eq!(sprintf("%-4d|%04d|%+d|%q", &[int(7), int(-7), int(7), text("hi\n")]), "7   |-007|+7|\"hi\\n\"");
        assert_eq!(sprintf("%d", &[text("hi")]), "%!d(string=hi)");
        assert_eq!(sprintf("hi%d", &[]), "hi%!d(MISSING)");
        assert_eq!(sprintf("hi", &[text("guys")]), "hi%!(EXTRA string=guys)");
        assert_eq!(sprintf("%d%%", &[int(5)]), "5%");
        // Widths and precisions as far as Go takes them (Go 1.26 printed these).
        assert_eq!(sprintf("%99999999d|", &[int(1)]), "%!(NOVERB)%!(EXTRA int=1)");
        assert_eq!(sprintf("%.99999999f|", &[GoValue::Float(1.5)]), "%!(NOVERB)%!(EXTRA float64=1.5)");
        assert_eq!(sprintf("%9999999d", &[int(1)]).len(), 9_999_999);
        assert_eq!(sprintf("%1000001s|%d", &[text("a"), int(2)]).len(), 1_000_003);
        assert_eq!(sprint(&[text("a"), int(1), int(2), text("b")]), "a1 2b");
    }

    // kubectl 1.37.1 printed these through `-o go-template` (Go's `*` and `[n]`).
    #[test]
    fn widths_precisions_and_indexes_from_the_operands_are_gos() {
        let int = GoValue::Count;
        let text = |value: &str| GoValue::Str(value.to_string());
        let cases: &[(&str, Vec<GoValue>, &str)] = &[
            ("%*d|", vec![int(3), int(1)], "  1|"),
            ("%*d|", vec![int(-3), int(1)], "1  |"),
            ("%0*d|", vec![int(-3), int(1)], "1  |"),
            ("%-*d|", vec![int(3), int(1)], "1  |"),
            ("%*d", vec![text("x"), int(1)], "%!(BADWIDTH)1"),
            ("%*d|", vec![GoValue::Float(1.5), int(1)], "%!(BADWIDTH)1|"),
            ("%*d|", vec![GoValue::Bool(true), int(1)], "%!(BADWIDTH)1|"),
            ("%*d|", vec![int(1_000_001), int(1)], "%!(BADWIDTH)1|"),
            ("%*d|", vec![], "%!(BADWIDTH)%!d(MISSING)|"),
            ("%*d|", vec![int(3)], "%!d(MISSING)|"),
            ("%.*d|", vec![text("x"), int(1)], "%!(BADPREC)1|"),
            ("%.*f|", vec![int(-1), GoValue::Float(1.5)], "%!(BADPREC)1.500000|"),
            ("%.*f|", vec![int(2), GoValue::Float(1.5)], "1.50|"),
            ("%[2]*[1]d|", vec![int(1), int(3)], "  1|"),
            ("%[3]*d|", vec![int(1), int(3)], "%!d(BADINDEX)|"),
            ("%[2]d %[1]d|", vec![int(1), int(2)], "2 1|"),
            ("%[2]d|", vec![int(1), int(2), int(3)], "2|"),
            ("%[0]d|", vec![int(1)], "%!d(BADINDEX)|"),
            ("%[x]d|", vec![int(1)], "%!d(BADINDEX)|"),
            ("%[1]2d|", vec![int(1)], "%!d(BADINDEX)|"),
            ("%[1]d %d|", vec![int(1), int(2)], "1 2|"),
            ("%[1", vec![int(1)], "%!(NOVERB)"),
            ("%5.", vec![int(1)], "%!.(int=    1)"),
        ];
        for (format, args, printed) in cases {
            assert_eq!(sprintf(format, args), *printed, "{format}");
        }
    }
}
