//! Go's `text/tabwriter` as kubectl's `get --watch` writes through it (liggitt/tabwriter, a fork
//! that remembers column widths across flushes, so later rows of a watched table never narrow
//! a column): cells end at tabs, consecutive lines with a cell in the same column form a block
//! whose cells are padded to the block's widest cell plus the padding. Everything kubectl prints
//! in watch mode passes through it, tabs inside JSONPath or KYAML output included.

/// A cell: its text and its width in characters; `tab` when a tab ended it.
#[derive(Debug, Clone, Default)]
struct Cell {
    text: String,
    width: usize,
    tab: bool,
}

/// The tab writer, fed with [`TabWriter::write`] and emptied with [`TabWriter::flush`]; both
/// return the text ready to be printed.
#[derive(Debug)]
pub struct TabWriter {
    min_width: usize,
    padding: usize,
    lines: Vec<Vec<Cell>>,
    cell: Cell,
    /// The widths of the columns of the block being formatted.
    widths: Vec<usize>,
    /// The widest each column has been since the writer was made.
    remembered: Vec<usize>,
    /// Whether widths are remembered across flushes (liggitt/tabwriter) or not (Go's own).
    remember: bool,
}

impl TabWriter {
    /// kubectl's `printers.GetNewTabWriter`: minimum width 6, padding 3, spaces, widths remembered.
    pub fn kubectl() -> TabWriter {
        TabWriter {
            min_width: 6,
            padding: 3,
            lines: vec![Vec::new()],
            cell: Cell::default(),
            widths: Vec::new(),
            remembered: Vec::new(),
            remember: true,
        }
    }

    /// Go's own `text/tabwriter` as kubectl's describers set it up (`Init(buf, 0, 8, 2, ' ', 0)`):
    /// minimum width 0, padding 2, spaces; each flush lays out its text afresh.
    pub fn describe() -> TabWriter {
        TabWriter { min_width: 0, padding: 2, remember: false, ..TabWriter::kubectl() }
    }

    /// Takes `text`; returns what a line without tabs let it write out already.
    pub fn write(&mut self, text: &str) -> String {
        let mut out = String::new();
        for c in text.chars() {
            match c {
                '\t' | '\u{b}' | '\n' | '\u{c}' => {
                    let cells = self.end_cell(c == '\t');
                    if matches!(c, '\n' | '\u{c}') {
                        self.lines.push(Vec::new());
                        // A line with no tab ends every block: nothing after it aligns with
                        // what came before.
                        if c == '\u{c}' || cells == 1 {
                            out.push_str(&self.flush());
                        }
                    }
                }
                c => {
                    self.cell.text.push(c);
                    self.cell.width += 1;
                }
            }
        }
        out
    }

    /// Writes out everything taken so far, the last line even if unfinished.
    pub fn flush(&mut self) -> String {
        if !self.cell.text.is_empty() {
            self.end_cell(false);
        }
        let mut out = String::new();
        self.format(&mut out, 0, self.lines.len());
        self.lines = vec![Vec::new()];
        self.widths.clear();
        out
    }

    fn end_cell(&mut self, tab: bool) -> usize {
        let mut cell = std::mem::take(&mut self.cell);
        cell.tab = tab;
        let line = self.lines.last_mut().expect("there is always a line");
        line.push(cell);
        line.len()
    }

    /// Go's `format`: lines `first..end` with the columns left of `self.widths.len()` laid out;
    /// each run of lines with a cell in the next column is laid out with that column's width.
    fn format(&mut self, out: &mut String, first: usize, end: usize) {
        let column = self.widths.len();
        let has_column = |line: &Vec<Cell>| column + 1 < line.len();
        let mut written = first;
        let mut this = first;
        while this < end {
            if !has_column(&self.lines[this]) {
                this += 1;
                continue;
            }
            self.write_lines(out, written, this);
            let block = this;
            let mut width = self.min_width;
            while this < end && has_column(&self.lines[this]) {
                width = width.max(self.lines[this][column].width + self.padding);
                this += 1;
            }
            if !self.remember {
                self.widths.push(width);
                self.format(out, block, this);
                self.widths.pop();
                written = this;
                this += 1;
                continue;
            }
            if self.remembered.len() < column {
                let missing = self.widths[self.remembered.len()..].to_vec();
                self.remembered.extend(missing);
            }
            match self.remembered.get_mut(column) {
                None => self.remembered.push(width),
                Some(widest) if *widest > width => width = *widest,
                Some(widest) => *widest = width,
            }
            self.widths.push(width);
            self.format(out, block, this);
            self.widths.pop();
            written = this;
            // The line that ended the block has no cell in this column: it is written below.
            this += 1;
        }
        self.write_lines(out, written, end);
    }

    fn write_lines(&self, out: &mut String, first: usize, end: usize) {
        for index in first..end {
            for (column, cell) in self.lines[index].iter().enumerate() {
                out.push_str(&cell.text);
                if let Some(&width) = self.widths.get(column) {
                    out.extend(std::iter::repeat_n(' ', width.saturating_sub(cell.width)));
                }
            }
            if index + 1 < self.lines.len() {
                out.push('\n');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_align_to_the_widest_cell_plus_padding() {
        let mut writer = TabWriter::kubectl();
        let mut out = writer.write("NAME\tDATA\tAGE\nsettings\t1\t5s\n");
        out += &writer.flush();
        assert_eq!(out, "NAME       DATA   AGE\nsettings   1      5s\n");
    }

    #[test]
    fn widths_are_remembered_across_flushes_and_never_shrink() {
        let mut writer = TabWriter::kubectl();
        let mut out = writer.write("NAME\tDATA\tAGE\nsettings\t1\t5s\n");
        out += &writer.flush();
        out += &writer.write("a\t2\t0s\n");
        out += &writer.flush();
        out += &writer.write("a-much-longer-name\t3\t1s\n");
        out += &writer.flush();
        assert_eq!(
            out,
            "NAME       DATA   AGE\nsettings   1      5s\na          2      0s\na-much-longer-name   3      1s\n"
        );
    }

    #[test]
    fn the_describers_writer_pads_by_two_and_forgets_widths() {
        let mut writer = TabWriter::describe();
        let mut out = writer.write("Name:\tweb\nNamespace:\tdefault\n");
        out += &writer.flush();
        out += &writer.write("a:\tb\n");
        out += &writer.flush();
        assert_eq!(out, "Name:       web\nNamespace:  default\na:  b\n");
    }

    #[test]
    fn a_line_without_tabs_is_written_at_once_and_ends_the_block() {
        let mut writer = TabWriter::kubectl();
        assert_eq!(writer.write("plain line\n"), "plain line\n");
        assert_eq!(writer.write("a\tb\n"), "");
        assert_eq!(writer.write("tab\there\nend\n"), "a     b\ntab   here\nend\n");
        assert_eq!(writer.write("unfinished"), "");
        assert_eq!(writer.flush(), "unfinished");
    }
}
