//! The text of one document: a rope with byte-offset editing, and conversion
//! between byte offsets and editor positions in either position encoding.

use std::ops::Range;

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

#[derive(Clone, Debug, Default)]
pub struct Document {
    rope: Rope,
}

impl Document {
    pub fn new(text: &str) -> Self {
        Document {
            rope: Rope::from_str(text),
        }
    }

    pub fn len(&self) -> usize {
        self.rope.len_bytes()
    }

    pub fn is_empty(&self) -> bool {
        self.rope.len_bytes() == 0
    }

    /// Clamps `offset` into the text and down onto a character boundary, so
    /// offsets from clients or stale analyses can never split a character.
    pub fn floor_boundary(&self, offset: usize) -> usize {
        let offset = offset.min(self.len());
        self.rope.char_to_byte(self.rope.byte_to_char(offset))
    }

    /// Replaces the bytes in `range` (clamped to character boundaries).
    pub fn replace(&mut self, range: Range<usize>, text: &str) {
        let start = self.floor_boundary(range.start);
        let end = self.floor_boundary(range.end.max(start));
        let start_char = self.rope.byte_to_char(start);
        let end_char = self.rope.byte_to_char(end);
        if end_char > start_char {
            self.rope.remove(start_char..end_char);
        }
        if !text.is_empty() {
            self.rope.insert(start_char, text);
        }
    }

    pub fn slice(&self, range: Range<usize>) -> String {
        let start = self.floor_boundary(range.start);
        let end = self.floor_boundary(range.end.max(start));
        self.rope.byte_slice(start..end).to_string()
    }

    pub fn starts_with(&self, prefix: &str) -> bool {
        self.len() >= prefix.len() && self.rope.bytes().take(prefix.len()).eq(prefix.bytes())
    }

    pub fn line_count(&self) -> usize {
        self.rope.len_lines()
    }

    /// The editor position of a byte offset, the column in `encoding` units.
    pub fn position_of(&self, offset: usize, encoding: PositionEncoding) -> Position {
        let offset = self.floor_boundary(offset);
        let line = self.rope.byte_to_line(offset);
        let line_start = self.rope.line_to_byte(line);
        let column = match encoding {
            PositionEncoding::Utf8 => offset - line_start,
            PositionEncoding::Utf16 => {
                let char_idx = self.rope.byte_to_char(offset);
                let line_char = self.rope.byte_to_char(line_start);
                self.rope.char_to_utf16_cu(char_idx) - self.rope.char_to_utf16_cu(line_char)
            }
        };
        Position { line, column }
    }

    /// The position of a byte offset with the column counted in characters,
    /// as terminal tools (and `kibitz check`) report it.
    pub fn char_position_of(&self, offset: usize) -> Position {
        let offset = self.floor_boundary(offset);
        let line = self.rope.byte_to_line(offset);
        let column = self.rope.byte_to_char(offset) - self.rope.line_to_char(line);
        Position { line, column }
    }

    /// The byte offset of an editor position. Total: a line past the end
    /// means the end of the text, a column past the line's end means the end
    /// of the line (before its line break), as LSP asks.
    pub fn offset_of(&self, position: Position, encoding: PositionEncoding) -> usize {
        if position.line >= self.rope.len_lines() {
            return self.len();
        }
        let line_start = self.rope.line_to_byte(position.line);
        let line_end = line_start + self.line_len_without_break(position.line);
        match encoding {
            PositionEncoding::Utf8 => self.floor_boundary((line_start + position.column).min(line_end)),
            PositionEncoding::Utf16 => {
                let start_cu = self.rope.char_to_utf16_cu(self.rope.byte_to_char(line_start));
                let end_cu = self.rope.char_to_utf16_cu(self.rope.byte_to_char(line_end));
                let target = (start_cu + position.column).min(end_cu);
                self.rope.char_to_byte(self.rope.utf16_cu_to_char(target))
            }
        }
    }

    fn line_len_without_break(&self, line: usize) -> usize {
        let slice = self.rope.line(line);
        let mut len = slice.len_bytes();
        let bytes = slice.bytes_at(len).reversed();
        let mut trailing = bytes.take(2);
        match (trailing.next(), trailing.next()) {
            (Some(b'\n'), Some(b'\r')) => len -= 2,
            (Some(b'\n' | b'\r'), _) => len -= 1,
            _ => {}
        }
        len
    }
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
