//! Property tests of the streaming Markdown renderer on a simulated terminal: any Unicode, any
//! chunking, any width, and what the screen shows is the input's text without its markup.

use proptest::prelude::*;

use super::markdown::{MarkdownStream, char_width, rows_below_start};
use super::sanitize;

/// A terminal `cols` wide that understands what the renderer writes: text (wide characters take
/// two cells and wrap as a whole), `\n`, `\r`, `ESC[nA` (up), `ESC[J` (erase below) and SGR.
struct Screen {
    rows: Vec<Vec<String>>,
    row: usize,
    col: usize,
    cols: usize,
    /// Zero-width characters written at column 0, waiting for a cell.
    marks: String,
}

impl Screen {
    fn new(cols: usize) -> Self {
        Screen {
            rows: vec![Vec::new()],
            row: 0,
            col: 0,
            cols,
            marks: String::new(),
        }
    }

    fn feed(&mut self, transcript: &str) {
        let mut chars = transcript.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\n' => self.move_to(self.row + 1, 0),
                '\r' => {
                    self.settle_marks();
                    self.col = 0;
                }
                '\x1b' => {
                    assert_eq!(chars.next(), Some('['), "only CSI sequences are written");
                    let mut arg = String::new();
                    while let Some(d) = chars.next_if(|d| d.is_ascii_digit() || *d == ';') {
                        arg.push(d);
                    }
                    match chars.next() {
                        Some('A') => {
                            let n = arg.parse().unwrap_or(1);
                            assert!(n <= self.row, "moved above the start of the output");
                            self.row -= n;
                        }
                        Some('J') => self.erase_below(),
                        Some('m') => {}
                        other => panic!("unexpected escape ending in {other:?}"),
                    }
                }
                c => self.put(c),
            }
        }
    }

    fn move_to(&mut self, row: usize, col: usize) {
        self.settle_marks();
        while self.rows.len() <= row {
            self.rows.push(Vec::new());
        }
        self.row = row;
        self.col = col;
    }

    fn put(&mut self, c: char) {
        assert!(
            !c.is_control() || c == '\t',
            "a control character reached the terminal: {c:?}"
        );
        let width = char_width(c);
        let line = &mut self.rows[self.row];
        if width == 0 {
            // A combining mark joins the cell before it (at column 0, the one after it).
            match self.col.checked_sub(1).and_then(|col| line.get_mut(col)) {
                Some(cell) => cell.push(c),
                None => self.marks.push(c),
            }
            return;
        }
        if self.col > 0 && self.col + width > self.cols {
            self.move_to(self.row + 1, 0);
        }
        let line = &mut self.rows[self.row];
        while line.len() < self.col + width {
            line.push(String::new());
        }
        line[self.col] = format!("{}{c}", std::mem::take(&mut self.marks));
        for cell in line.iter_mut().skip(self.col + 1).take(width - 1) {
            cell.clear();
        }
        self.col += width;
    }

    /// Zero-width characters left alone at the cursor stay there, as a cell of their own.
    fn settle_marks(&mut self) {
        if !self.marks.is_empty() {
            let line = &mut self.rows[self.row];
            let at = self.col.min(line.len());
            line.insert(at, std::mem::take(&mut self.marks));
        }
    }

    fn erase_below(&mut self) {
        self.marks.clear();
        self.rows[self.row].truncate(self.col);
        self.rows.truncate(self.row + 1);
    }

    fn text(&self) -> String {
        let rows: Vec<String> = self.rows.iter().map(|row| row.concat()).collect();
        format!("{}{}", rows.join("\n"), self.marks)
    }
}

/// The text a reader sees: no whitespace (wrapping moves it) and no markup characters.
fn letters(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_whitespace() && !"*`#-+•─".contains(*c))
        .collect()
}

/// Streams `text` cut at `cuts` (byte offsets, rounded down to character boundaries).
fn stream(text: &str, cuts: &[usize], cols: usize, color: bool) -> String {
    let mut md = MarkdownStream::new(cols, color);
    let mut points: Vec<usize> = cuts
        .iter()
        .map(|cut| {
            let mut at = cut % (text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            at
        })
        .collect();
    points.push(text.len());
    points.sort_unstable();
    let mut out = String::new();
    let mut from = 0;
    for to in points {
        out.push_str(&md.push(&text[from..to]));
        from = to;
    }
    out.push_str(&md.finish());
    out
}

/// Model output: Markdown markers and the awkward characters of real text, mixed with anything.
fn model_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => any::<char>().prop_map(String::from),
        2 => Just(" ".to_string()),
        2 => Just("\n".to_string()),
        1 => Just("\t".to_string()),
        3 => prop::sample::select(vec![
            "# ", "## ", "- ", "* ", "+ ", "1. ", "**", "*", "`", "```", "```rust\n", "  ",
            "✅", "Ça", "é", "e\u{301}", "中文字", "🦀", "❤\u{fe0f}", "עברית", "مرحبا",
            "\u{202e}", "\u{200b}", "\x1b[2J", "\r", "\u{7}", "$#", "\"", "'", "//",
        ])
        .prop_map(String::from),
    ];
    prop::collection::vec(piece, 0..120).prop_map(|pieces| pieces.concat())
}

proptest! {
    // 256 cases by default; `PROPTEST_CASES=20000` (read by the default config) for a long run.
    #![proptest_config(ProptestConfig::default())]

    #[test]
    fn the_screen_shows_the_input_text_in_every_chunking(
        text in model_text(),
        cuts in prop::collection::vec(any::<usize>(), 0..12),
        cols in 1usize..130,
        color in any::<bool>(),
    ) {
        let mut screen = Screen::new(cols);
        screen.feed(&stream(&text, &cuts, cols, color));
        prop_assert_eq!(letters(&screen.text()), letters(&sanitize(&text)));
    }

    #[test]
    fn a_half_line_is_erased_exactly_whatever_its_width(
        text in "[^\n]{0,80}",
        cols in 1usize..40,
    ) {
        let mut screen = Screen::new(cols);
        let shown = sanitize(&text).replace('\t', " ");
        screen.feed(&shown);
        prop_assert_eq!(screen.row, rows_below_start(&shown, cols));
    }
}
