//! Helpers shared by the end-to-end tests: a JSON-RPC client for the real
//! `kibitz lsp` process, LSP text edits applied like an editor would, and
//! temporary folders for the CLI tests.
//!
//! Each test binary uses only part of this module.
#![allow(dead_code)]

pub mod lsp;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The binary under test, built by cargo for the integration tests.
pub const KIBITZ: &str = env!("CARGO_BIN_EXE_kibitz");

/// A fresh folder under the system temp folder, removed on drop.
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("kibitz-test-{}-{name}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create temp folder");
        TempDir { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `bytes` to `relative` (creating folders) and returns the full path.
    pub fn write(&self, relative: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create parent folder");
        }
        std::fs::write(&path, bytes).expect("write temp file");
        path
    }

    pub fn read(&self, relative: &str) -> Vec<u8> {
        std::fs::read(self.path.join(relative)).expect("read temp file")
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// How LSP columns are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

impl Encoding {
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 => "utf-8",
            Encoding::Utf16 => "utf-16",
        }
    }
}

/// The byte offset of each line start; lines end at `\n`, `\r\n` or a lone `\r`, as LSP says.
fn line_starts(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut starts = vec![0];
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                starts.push(i + 2);
                i += 2;
                continue;
            }
            b'\r' | b'\n' => starts.push(i + 1),
            _ => {}
        }
        i += 1;
    }
    starts
}

/// The byte offset of an LSP position (line, character) in `text`.
/// Panics on positions outside the text or inside a character, which a
/// correct server never sends.
pub fn offset_of(text: &str, line: u64, character: u64, enc: Encoding) -> usize {
    let starts = line_starts(text);
    let line = line as usize;
    assert!(
        line < starts.len(),
        "line {line} is past the end of the text ({} lines)",
        starts.len()
    );
    let start = starts[line];
    let mut end = starts.get(line + 1).copied().unwrap_or(text.len());
    let line_text = &text[start..end];
    end = start + line_text.trim_end_matches(['\r', '\n']).len();
    let mut units = 0u64;
    for (i, c) in text[start..end].char_indices() {
        if units == character {
            return start + i;
        }
        assert!(
            units < character,
            "column {character} splits a character on line {line}"
        );
        units += match enc {
            Encoding::Utf8 => c.len_utf8() as u64,
            Encoding::Utf16 => c.len_utf16() as u64,
        };
    }
    assert_eq!(units, character, "column {character} is past the end of line {line}");
    end
}

/// The LSP position (line, character) of a byte offset.
pub fn position_of(text: &str, offset: usize, enc: Encoding) -> (u64, u64) {
    let starts = line_starts(text);
    let line = starts.partition_point(|&s| s <= offset) - 1;
    let column = match enc {
        Encoding::Utf8 => offset - starts[line],
        Encoding::Utf16 => text[starts[line]..offset].encode_utf16().count(),
    };
    (line as u64, column as u64)
}

/// Applies LSP `TextEdit`s (all relative to the original text, as LSP says)
/// the way an editor would.
pub fn apply_edits(text: &str, edits: &[serde_json::Value], enc: Encoding) -> String {
    let mut spans: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            let (start, end) = range_offsets(text, &e["range"], enc);
            (start, end, e["newText"].as_str().expect("newText").to_string())
        })
        .collect();
    spans.sort_by_key(|s| (s.0, s.1));
    for pair in spans.windows(2) {
        assert!(pair[0].1 <= pair[1].0, "overlapping edits: {edits:?}");
    }
    let mut out = text.to_string();
    for (start, end, new_text) in spans.into_iter().rev() {
        out.replace_range(start..end, &new_text);
    }
    out
}

/// The byte range of an LSP `Range` value.
pub fn range_offsets(text: &str, range: &serde_json::Value, enc: Encoding) -> (usize, usize) {
    let pos = |p: &serde_json::Value| {
        offset_of(
            text,
            p["line"].as_u64().expect("line"),
            p["character"].as_u64().expect("character"),
            enc,
        )
    };
    (pos(&range["start"]), pos(&range["end"]))
}

/// An LSP `Range` as `[start_line, start_character, end_line, end_character]`, for compact asserts.
pub fn range_tuple(range: &serde_json::Value) -> [u64; 4] {
    let n = |v: &serde_json::Value| v.as_u64().unwrap_or_else(|| panic!("not a number in range {range}"));
    [
        n(&range["start"]["line"]),
        n(&range["start"]["character"]),
        n(&range["end"]["line"]),
        n(&range["end"]["character"]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_round_trip_in_both_encodings() {
        let text = "title Café 😀x\r\nmoves e2e4\rnext\n";
        let x = text.find('x').unwrap();
        assert_eq!(position_of(text, x, Encoding::Utf16), (0, 13));
        assert_eq!(position_of(text, x, Encoding::Utf8), (0, 16));
        assert_eq!(offset_of(text, 0, 13, Encoding::Utf16), x);
        assert_eq!(offset_of(text, 1, 10, Encoding::Utf8), text.find("\rnext").unwrap());
        assert_eq!(offset_of(text, 2, 0, Encoding::Utf8), text.find("next").unwrap());
    }
}
