//! Go's `encoding/csv` reading one record, as pflag reads the value of a `stringSlice` flag
//! (`--filename=a.yaml,"b,c.yaml"`): fields split at commas, a field in double quotes may hold
//! commas, newlines and `""` for a quote; a quote anywhere else is an error in Go's words.

/// Go's `csv.ErrBareQuote`.
const BARE_QUOTE: &str = "bare \" in non-quoted-field";
/// Go's `csv.ErrQuote`.
const QUOTE: &str = "extraneous or missing \" in quoted-field";

/// The fields of the first record of `text` (`csv.NewReader(text).Read()`), or Go's error text
/// (`EOF` when `text` holds only empty lines).
pub fn read_record(text: &str) -> Result<Vec<String>, String> {
    // Go's readLine: `\r\n` read as `\n`, a `\r` before the end of the text dropped.
    let mut lines = text.split_inclusive('\n').map(|line| match line.strip_suffix("\r\n") {
        Some(body) => format!("{body}\n"),
        None if !line.ends_with('\n') => line.strip_suffix('\r').unwrap_or(line).to_string(),
        None => line.to_string(),
    });
    let mut number = 0;
    let first = loop {
        let Some(line) = lines.next() else { return Err("EOF".to_string()) };
        number += 1;
        if !(line.is_empty() || line == "\n") {
            break line;
        }
    };
    let record_line = number;
    let error = |line: usize, column: usize, reason: &str| match record_line == line {
        true => format!("parse error on line {line}, column {column}: {reason}"),
        false => format!("record on line {record_line}; parse error on line {line}, column {column}: {reason}"),
    };
    let mut fields = Vec::new();
    let mut line = first;
    let mut rest: &str = &line;
    // Where `rest` starts: its line and byte column (1-based).
    let (mut at_line, mut column) = (number, 1);
    'fields: loop {
        if !rest.starts_with('"') {
            let comma = rest.find(',');
            let field = match comma {
                Some(end) => &rest[..end],
                None => rest.strip_suffix('\n').unwrap_or(rest),
            };
            if let Some(quote) = field.find('"') {
                return Err(error(number, column + quote, BARE_QUOTE));
            }
            fields.push(field.to_string());
            match comma {
                Some(end) => {
                    rest = &rest[end + 1..];
                    column += end + 1;
                    continue 'fields;
                }
                None => break 'fields,
            }
        }
        rest = &rest[1..];
        column += 1;
        let mut field = String::new();
        loop {
            if let Some(quote) = rest.find('"') {
                field.push_str(&rest[..quote]);
                rest = &rest[quote + 1..];
                column += quote + 1;
                if let Some(after) = rest.strip_prefix('"') {
                    field.push('"');
                    rest = after;
                    column += 1;
                } else if let Some(after) = rest.strip_prefix(',') {
                    fields.push(field);
                    rest = after;
                    column += 1;
                    continue 'fields;
                } else if rest.is_empty() || rest == "\n" {
                    fields.push(field);
                    break 'fields;
                } else {
                    return Err(error(number, column - 1, QUOTE));
                }
            } else if !rest.is_empty() {
                // The field goes on on the next line.
                field.push_str(rest);
                column += rest.len();
                line = lines.next().unwrap_or_default();
                if !line.is_empty() {
                    number += 1;
                    at_line += 1;
                    column = 1;
                }
                rest = &line;
            } else {
                return Err(error(at_line, column, QUOTE));
            }
        }
    }
    Ok(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(text: &str) -> Result<Vec<String>, String> {
        read_record(text)
    }

    // Go 1.25's answers: csv.NewReader(strings.NewReader(text)).Read().
    #[test]
    fn records_read_as_go_reads_them() {
        assert_eq!(record("a,b").unwrap(), ["a", "b"]);
        assert_eq!(record("a").unwrap(), ["a"]);
        assert_eq!(record("a,").unwrap(), ["a", ""]);
        assert_eq!(record(",").unwrap(), ["", ""]);
        assert_eq!(record(" a , b").unwrap(), [" a ", " b"]);
        assert_eq!(record("\"a,b\",c").unwrap(), ["a,b", "c"]);
        assert_eq!(record("\"a\"\"b\"").unwrap(), ["a\"b"]);
        assert_eq!(record("\"\"").unwrap(), [""]);
        assert_eq!(record("a\nb").unwrap(), ["a"]);
        assert_eq!(record("\n\na,b\r\n").unwrap(), ["a", "b"]);
        assert_eq!(record("a\r").unwrap(), ["a"]);
        assert_eq!(record("\"a\nb\",c").unwrap(), ["a\nb", "c"]);
        assert_eq!(record("\n").unwrap_err(), "EOF");
        assert_eq!(record("a\"b").unwrap_err(), "parse error on line 1, column 2: bare \" in non-quoted-field");
        assert_eq!(record("a,b\"").unwrap_err(), "parse error on line 1, column 4: bare \" in non-quoted-field");
        assert_eq!(
            record("\"a").unwrap_err(),
            "parse error on line 1, column 3: extraneous or missing \" in quoted-field"
        );
        assert_eq!(
            record("\"a\"b").unwrap_err(),
            "parse error on line 1, column 3: extraneous or missing \" in quoted-field"
        );
        assert_eq!(
            record("\"a\nb\"c").unwrap_err(),
            "record on line 1; parse error on line 2, column 2: extraneous or missing \" in quoted-field"
        );
    }
}
