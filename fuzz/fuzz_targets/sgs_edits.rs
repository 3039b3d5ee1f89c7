//! A text plus a sequence of edits, applied incrementally; after every edit
//! the document must equal a from-scratch analysis of the same text.
#![no_main]

use arbitrary::Arbitrary;
use kibitz::formats::sofgameset::SofGameSet;
use kibitz::workspace::AnalyzedDocument;
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input {
    /// Start from `from_bytes` (a file read from disk) instead of `new`.
    from_disk: bool,
    initial: String,
    edits: Vec<Edit>,
}

/// Replace `at..at + delete` (byte offsets, not necessarily on character
/// boundaries, possibly past the end) with the fragments joined.
#[derive(Arbitrary, Debug)]
struct Edit {
    at: u16,
    delete: u8,
    insert: Vec<Fragment>,
}

#[derive(Arbitrary, Debug)]
enum Fragment {
    Game,
    OtherGame,
    Start,
    Board,
    Moves,
    Title,
    Newline,
    Crlf,
    Cr,
    Space,
    Hash,
    Bom,
    EAcute,
    Emoji,
    Raw(String),
}

impl Fragment {
    fn text(&self) -> &str {
        match self {
            Fragment::Game => "game W a\n",
            Fragment::OtherGame => "game ? b\n",
            Fragment::Start => "start\n",
            Fragment::Board => "board 8/8/8/8/8/8/8/K1k5 w - - 0 1\n",
            Fragment::Moves => "moves e2e4 e7e5",
            Fragment::Title => "title x",
            Fragment::Newline => "\n",
            Fragment::Crlf => "\r\n",
            Fragment::Cr => "\r",
            Fragment::Space => " ",
            Fragment::Hash => "#",
            Fragment::Bom => "\u{feff}",
            Fragment::EAcute => "é",
            Fragment::Emoji => "😀",
            Fragment::Raw(s) => s,
        }
    }
}

fuzz_target!(|input: Input| {
    if input.edits.len() > 64 {
        return;
    }
    let mut doc = if input.from_disk {
        AnalyzedDocument::from_bytes(&SofGameSet, input.initial.clone().into_bytes())
    } else {
        AnalyzedDocument::new(&SofGameSet, &input.initial)
    };
    // What the text must be: the edits applied by hand, clamped the way the
    // engine documents (into the text, down onto a character boundary).
    let mut expected = input.initial.clone();
    check(&doc, &expected, "before any edit");
    for edit in &input.edits {
        let at = edit.at as usize % (expected.len() + 4);
        let range = at..at + edit.delete as usize;
        let new_text: String = edit.insert.iter().map(Fragment::text).collect();
        doc.apply_edit(range.clone(), &new_text);

        let start = floor_boundary(&expected, range.start);
        let end = floor_boundary(&expected, range.end);
        expected.replace_range(start..end, &new_text);
        check(&doc, &expected, &format!("after replacing {range:?} with {new_text:?}"));
    }
});

/// The edited document against a from-scratch analysis of `expected`.
fn check(doc: &AnalyzedDocument, expected: &str, when: &str) {
    assert_eq!(doc.text(), expected, "text {when}");
    let fresh = AnalyzedDocument::new(&SofGameSet, expected);
    let bounds = |d: &AnalyzedDocument| d.units().iter().map(|u| (u.start, u.len)).collect::<Vec<_>>();
    assert_eq!(bounds(doc), bounds(&fresh), "units {when}");
    assert_eq!(doc.diagnostics(), fresh.diagnostics(), "diagnostics {when}");
}

fn floor_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}
