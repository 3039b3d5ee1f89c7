//! The text of one document: a rope with byte-offset editing, and conversion
//! between byte offsets and editor positions in either position encoding.

use std::ops::Range;
use std::sync::OnceLock;

use ropey::Rope;

/// How an editor counts columns. LSP clients offer UTF-8 (preferred, free for
/// us) or fall back to UTF-16.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PositionEncoding {
    Utf8,
    #[default]
    Utf16,
}

/// A zero-based line and column, the column counted in the chosen encoding's
/// code units (or in characters, for `Position::from_offset_chars`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

pub const BOM: &str = "\u{feff}";

/// The text of a document. Starts as a plain string (what the CLI needs:
/// no copy, no rope) or as a rope (what an editor's document needs); a
/// plain document becomes a rope on its first edit.
#[derive(Clone, Debug)]
pub struct Document {
    repr: Repr,
}

#[derive(Clone, Debug)]
enum Repr {
    Flat {
        text: String,
        line_starts: OnceLock<Vec<usize>>,
    },
    Rope(Rope),
}

impl Default for Document {
    fn default() -> Self {
        Document::new("")
    }
}

impl Document {
    /// A document meant for editing.
    pub fn new(text: &str) -> Self {
        Document {
            repr: Repr::Rope(Rope::from_str(text)),
        }
    }

    /// A document meant for reading; it turns into a rope if edited.
    pub fn flat(text: String) -> Self {
        Document {
            repr: Repr::Flat {
                text,
                line_starts: OnceLock::new(),
            },
        }
    }

    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Flat { text, .. } => text.len(),
            Repr::Rope(rope) => rope.len_bytes(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Clamps `offset` into the text and down onto a character boundary, so
    /// offsets from clients or stale analyses can never split a character.
    pub fn floor_boundary(&self, offset: usize) -> usize {
        let offset = offset.min(self.len());
        match &self.repr {
            Repr::Flat { text, .. } => (0..=offset).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0),
            Repr::Rope(rope) => rope.char_to_byte(rope.byte_to_char(offset)),
        }
    }

    /// Replaces the bytes in `range` (clamped to character boundaries).
    pub fn replace(&mut self, range: Range<usize>, text: &str) {
        let start = self.floor_boundary(range.start);
        let end = self.floor_boundary(range.end.max(start));
        let rope = self.rope_mut();
        let start_char = rope.byte_to_char(start);
        let end_char = rope.byte_to_char(end);
        if end_char > start_char {
            rope.remove(start_char..end_char);
        }
        if !text.is_empty() {
            rope.insert(start_char, text);
        }
    }

    fn rope_mut(&mut self) -> &mut Rope {
        if let Repr::Flat { text, .. } = &self.repr {
            self.repr = Repr::Rope(Rope::from_str(text));
        }
        match &mut self.repr {
            Repr::Rope(rope) => rope,
            Repr::Flat { .. } => unreachable!("converted to a rope just above"),
        }
    }

    pub fn slice(&self, range: Range<usize>) -> String {
        let start = self.floor_boundary(range.start);
        let end = self.floor_boundary(range.end.max(start));
        match &self.repr {
            Repr::Flat { text, .. } => text[start..end].to_string(),
            Repr::Rope(rope) => rope.byte_slice(start..end).to_string(),
        }
    }

    pub fn starts_with(&self, prefix: &str) -> bool {
        match &self.repr {
            Repr::Flat { text, .. } => text.starts_with(prefix),
            Repr::Rope(rope) => rope.len_bytes() >= prefix.len() && rope.bytes().take(prefix.len()).eq(prefix.bytes()),
        }
    }

    pub fn line_count(&self) -> usize {
        match &self.repr {
            Repr::Flat { text, line_starts } => line_starts.get_or_init(|| find_line_starts(text)).len(),
            Repr::Rope(rope) => rope.len_lines(),
        }
    }

    /// The line holding `offset` (a character boundary) and that line's start.
    fn line_of(&self, offset: usize) -> (usize, usize) {
        match &self.repr {
            Repr::Flat { text, line_starts } => {
                let starts = line_starts.get_or_init(|| find_line_starts(text));
                let line = starts.partition_point(|&s| s <= offset) - 1;
                (line, starts[line])
            }
            Repr::Rope(rope) => {
                let line = rope.byte_to_line(offset);
                (line, rope.line_to_byte(line))
            }
        }
    }

    /// The byte range of a line, without its line break.
    fn line_range(&self, line: usize) -> Range<usize> {
        match &self.repr {
            Repr::Flat { text, line_starts } => {
                let starts = line_starts.get_or_init(|| find_line_starts(text));
                let start = starts[line];
                let mut end = starts.get(line + 1).copied().unwrap_or(text.len());
                let bytes = text.as_bytes();
                if end > start && bytes[end - 1] == b'\n' {
                    end -= 1;
                }
                if end > start && bytes[end - 1] == b'\r' {
                    end -= 1;
                }
                start..end
            }
            Repr::Rope(rope) => {
                let start = rope.line_to_byte(line);
                let slice = rope.line(line);
                let mut len = slice.len_bytes();
                let mut trailing = slice.bytes_at(len).reversed().take(2);
                match (trailing.next(), trailing.next()) {
                    (Some(b'\n'), Some(b'\r')) => len -= 2,
                    (Some(b'\n' | b'\r'), _) => len -= 1,
                    _ => {}
                }
                start..start + len
            }
        }
    }

    /// How many `encoding` units (or characters, for `None`) the text between
    /// two character boundaries of one line has.
    fn units_between(&self, range: Range<usize>, encoding: Option<PositionEncoding>) -> usize {
        match (&self.repr, encoding) {
            (_, Some(PositionEncoding::Utf8)) => range.len(),
            (Repr::Flat { text, .. }, Some(PositionEncoding::Utf16)) => text[range].encode_utf16().count(),
            (Repr::Flat { text, .. }, None) => text[range].chars().count(),
            (Repr::Rope(rope), enc) => {
                let (a, b) = (rope.byte_to_char(range.start), rope.byte_to_char(range.end));
                match enc {
                    Some(_) => rope.char_to_utf16_cu(b) - rope.char_to_utf16_cu(a),
                    None => b - a,
                }
            }
        }
    }

    /// The editor position of a byte offset, the column in `encoding` units.
    pub fn position_of(&self, offset: usize, encoding: PositionEncoding) -> Position {
        let offset = self.floor_boundary(offset);
        let (line, line_start) = self.line_of(offset);
        Position {
            line,
            column: self.units_between(line_start..offset, Some(encoding)),
        }
    }

    /// The position of a byte offset with the column counted in characters,
    /// as terminal tools (and `kibitz check`) report it.
    pub fn char_position_of(&self, offset: usize) -> Position {
        let offset = self.floor_boundary(offset);
        let (line, line_start) = self.line_of(offset);
        Position {
            line,
            column: self.units_between(line_start..offset, None),
        }
    }

    /// The byte offset of an editor position. Total: a line past the end
    /// means the end of the text, a column past the line's end means the end
    /// of the line (before its line break), as LSP asks.
    pub fn offset_of(&self, position: Position, encoding: PositionEncoding) -> usize {
        if position.line >= self.line_count() {
            return self.len();
        }
        let line = self.line_range(position.line);
        match (&self.repr, encoding) {
            (_, PositionEncoding::Utf8) => self.floor_boundary((line.start + position.column).min(line.end)),
            (Repr::Flat { text, .. }, PositionEncoding::Utf16) => {
                let mut units = 0;
                for (i, c) in text[line.clone()].char_indices() {
                    units += c.len_utf16();
                    if units > position.column {
                        return line.start + i;
                    }
                }
                line.end
            }
            (Repr::Rope(rope), PositionEncoding::Utf16) => {
                let start_cu = rope.char_to_utf16_cu(rope.byte_to_char(line.start));
                let end_cu = rope.char_to_utf16_cu(rope.byte_to_char(line.end));
                let target = (start_cu + position.column).min(end_cu);
                rope.char_to_byte(rope.utf16_cu_to_char(target))
            }
        }
    }
}

/// Line starts for LF, CRLF and lone-CR line breaks, as LSP counts lines.
fn find_line_starts(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut starts = vec![0];
    for i in memchr::memchr2_iter(b'\n', b'\r', bytes) {
        if bytes[i] == b'\n' || bytes.get(i + 1) != Some(&b'\n') {
            starts.push(i + 1);
        }
    }
    starts
}

/// Decodes bytes read from disk, replacing invalid UTF-8 with U+FFFD and
/// returning where each replacement landed in the decoded text.
pub fn decode_lossy(bytes: &[u8]) -> (String, Vec<Range<usize>>) {
    let mut text = String::with_capacity(bytes.len());
    let mut invalid = Vec::new();
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        if !chunk.invalid().is_empty() {
            let start = text.len();
            text.push(char::REPLACEMENT_CHARACTER);
            invalid.push(start..text.len());
        }
    }
    (text, invalid)
}

/// Iterates the lines of `text` as byte ranges that exclude the `\n` (but
/// include a `\r` before it, which formats treat as they choose). A final
/// `\n` ends the last line rather than starting an empty one; an empty text
/// is one empty line.
pub fn line_ranges(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        match memchr::memchr(b'\n', &bytes[start..]) {
            Some(i) => {
                let line = start..start + i;
                start += i + 1;
                done = start == bytes.len();
                Some(line)
            }
            None => {
                done = true;
                (start < bytes.len() || bytes.is_empty()).then_some(start..bytes.len())
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_positions_count_surrogate_pairs() {
        let doc = Document::new("title é😀x\nmoves e2e4\n");
        let x = "title é😀".len();
        let pos = doc.position_of(x, PositionEncoding::Utf16);
        assert_eq!(pos, Position { line: 0, column: 9 });
        assert_eq!(
            doc.position_of(x, PositionEncoding::Utf8),
            Position { line: 0, column: x }
        );
        assert_eq!(doc.offset_of(pos, PositionEncoding::Utf16), x);
        assert_eq!(doc.char_position_of(x).column, 8);
    }

    #[test]
    fn offsets_clamp_to_line_end_and_document_end() {
        let doc = Document::new("ab\r\ncd");
        let end_of_first = doc.offset_of(Position { line: 0, column: 99 }, PositionEncoding::Utf16);
        assert_eq!(end_of_first, 2);
        assert_eq!(
            doc.offset_of(Position { line: 7, column: 0 }, PositionEncoding::Utf8),
            6
        );
        // A UTF-8 column inside a multi-byte character snaps down to its start.
        let doc = Document::new("é");
        assert_eq!(
            doc.offset_of(Position { line: 0, column: 1 }, PositionEncoding::Utf8),
            0
        );
    }

    /// The plain-string and rope representations agree on every position.
    #[test]
    fn flat_and_rope_documents_agree() {
        let text = "ab\r\ncé😀\rd\n\nx\u{feff}y\r\n";
        let (flat, rope) = (Document::flat(text.to_string()), Document::new(text));
        assert_eq!(flat.line_count(), rope.line_count());
        for offset in 0..=text.len() + 2 {
            assert_eq!(flat.floor_boundary(offset), rope.floor_boundary(offset));
            for enc in [PositionEncoding::Utf8, PositionEncoding::Utf16] {
                assert_eq!(
                    flat.position_of(offset, enc),
                    rope.position_of(offset, enc),
                    "{offset} {enc:?}"
                );
            }
            assert_eq!(flat.char_position_of(offset), rope.char_position_of(offset));
        }
        for line in 0..8 {
            for column in 0..12 {
                for enc in [PositionEncoding::Utf8, PositionEncoding::Utf16] {
                    let p = Position { line, column };
                    assert_eq!(flat.offset_of(p, enc), rope.offset_of(p, enc), "{p:?} {enc:?}");
                }
            }
        }
        let mut edited = flat.clone();
        edited.replace(0..2, "z");
        assert_eq!(edited.slice(0..edited.len()), text.replacen("ab", "z", 1));
    }

    #[test]
    fn replace_edits_by_byte_range() {
        let mut doc = Document::new("game W a\nstart\n");
        doc.replace(5..6, "B");
        doc.replace(9..14, "board 8/8/8/8/8/8/8/K1k5 w - - 0 1");
        assert_eq!(
            doc.slice(0..doc.len()),
            "game B a\nboard 8/8/8/8/8/8/8/K1k5 w - - 0 1\n"
        );
    }

    #[test]
    fn lossy_decoding_reports_each_invalid_sequence() {
        let (text, invalid) = decode_lossy(b"ab\xffc\xfe");
        assert_eq!(text, "ab\u{fffd}c\u{fffd}");
        assert_eq!(invalid, vec![2..5, 6..9]);
    }

    #[test]
    fn line_ranges_split_on_newline_only() {
        let text = "a\r\nb\n\nc";
        let lines: Vec<_> = line_ranges(text).map(|r| &text[r]).collect();
        assert_eq!(lines, vec!["a\r", "b", "", "c"]);
        let lines: Vec<_> = line_ranges("a\n").map(|r| r.len()).collect();
        assert_eq!(lines, vec![1]);
        assert_eq!(line_ranges("").count(), 1);
    }
}
