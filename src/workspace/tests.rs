use proptest::prelude::*;

use super::*;
use crate::formats::sofgameset::SofGameSet;

fn open(text: &str) -> AnalyzedDocument {
    AnalyzedDocument::new(&SofGameSet, text)
}

fn boundaries(doc: &AnalyzedDocument) -> Vec<(usize, usize)> {
    doc.units().iter().map(|u| (u.start, u.len)).collect()
}

/// The incremental state must be indistinguishable from a fresh analysis.
fn assert_matches_scratch(doc: &AnalyzedDocument) {
    let text = doc.text();
    let scratch = open(&text);
    assert_eq!(
        boundaries(doc),
        boundaries(&scratch),
        "unit boundaries differ for {text:?}"
    );
    assert_eq!(
        doc.diagnostics(),
        scratch.diagnostics(),
        "diagnostics differ for {text:?}"
    );
    assert_eq!(
        doc.format_edits(None),
        scratch.format_edits(None),
        "format edits differ for {text:?}"
    );
}

const GAME_A: &str = "game W a\nstart\nmoves e2e4 e7e5\n";
const GAME_B: &str = "game D b\nboard 7k/8/8/8/8/8/8/K7 w - - 0 1\nmoves a1a2\n";

#[test]
fn splits_at_game_lines_with_a_preamble_unit() {
    let text = format!("# header\n\n{GAME_A}\n{GAME_B}");
    let doc = open(&text);
    let starts: Vec<usize> = doc.units().iter().map(|u| u.start).collect();
    assert_eq!(starts, vec![0, 10, 10 + GAME_A.len() + 1]);
    assert!(doc.diagnostics().is_empty(), "{:?}", doc.diagnostics());
}

#[test]
fn editing_a_game_keeps_other_units_analyses() {
    let text = format!("{GAME_A}\n{GAME_B}\n{}", GAME_A.replace("W a", "W c"));
    let mut doc = open(&text);
    let before: Vec<_> = doc.units().iter().map(|u| Arc::clone(&u.analysis)).collect();
    let last = doc.units()[2].start;
    // e2e4 -> e2e5 in the last game: only it and its neighbour are redone.
    assert_eq!(&doc.text()[last + 21..last + 25], "e2e4");
    doc.apply_edit(last + 24..last + 25, "5");
    let after: Vec<_> = doc.units().iter().map(|u| Arc::clone(&u.analysis)).collect();
    // Unit 1 was re-split as the edited unit's neighbour, but its text did not change.
    assert!(Arc::ptr_eq(&before[0], &after[0]));
    assert!(Arc::ptr_eq(&before[1], &after[1]));
    assert!(!Arc::ptr_eq(&before[2], &after[2]));
    // An edit in the middle game keeps both neighbours' analyses.
    let middle = doc.units()[1].start;
    doc.apply_edit(middle + 5..middle + 6, "W");
    let again: Vec<_> = doc.units().iter().map(|u| Arc::clone(&u.analysis)).collect();
    assert!(Arc::ptr_eq(&after[0], &again[0]) && Arc::ptr_eq(&after[2], &again[2]));
    assert!(!Arc::ptr_eq(&after[1], &again[1]));
    assert_eq!(doc.diagnostics().len(), 1);
    assert_eq!(doc.diagnostics()[0].rule.code, "sgs/illegal-move");
    assert_matches_scratch(&doc);
}

#[test]
fn edits_that_merge_and_split_units_match_scratch() {
    let text = format!("{GAME_A}{GAME_B}");
    let mut doc = open(&text);
    // "game" -> "gamex": the second game merges into the first.
    doc.apply_edit(GAME_A.len() + 4..GAME_A.len() + 4, "x");
    assert_eq!(doc.units().len(), 1);
    assert_matches_scratch(&doc);
    doc.apply_edit(GAME_A.len() + 4..GAME_A.len() + 5, "");
    assert_eq!(doc.units().len(), 2);
    // Typing a new game line in the middle of a game splits it.
    doc.apply_edit(9..9, "game B c\n");
    assert_eq!(doc.units().len(), 3);
    assert_matches_scratch(&doc);
}

#[test]
fn duplicate_labels_follow_edits() {
    let mut doc = open("game W x\nstart\ngame W y\nstart\n");
    assert!(doc.diagnostics().is_empty());
    doc.apply_edit(22..23, "x");
    let diags = doc.diagnostics();
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].rule.code, "sgs/duplicate-label");
    assert_eq!(diags[0].span, 22..23);
    assert_eq!(diags[0].related[0].span, 7..8);
    assert_eq!(diags[0].fixes[0].edits[0].new_text, "x_2");
    doc.apply_edit(22..23, "z");
    assert!(doc.diagnostics().is_empty());
}

#[test]
fn byte_order_mark_is_skipped_and_edits_around_it_work() {
    let mut doc = open("\u{feff}game W a\nstart\n");
    assert!(doc.diagnostics().is_empty(), "{:?}", doc.diagnostics());
    assert_eq!(doc.units()[0].start, 3);
    doc.apply_edit(0..3, "");
    assert_eq!(doc.units()[0].start, 0);
    doc.apply_edit(0..0, "\u{feff}");
    assert_matches_scratch(&doc);
}

#[test]
fn formatting_is_idempotent_and_keeps_comments() {
    let messy = "  # file header  \n\n\n# about a\ngame   W   a  extra  \n\n start \nmoves  e2e4   e7e5 \n# trailing note\n\n\n\n# about b\r\ngame D b\nboard 7k/8/8/8/8/8/8/K7   w - - 0 1\nfrobnicate   keep  me\n";
    let doc = open(messy);
    let once = doc.formatted_text();
    assert_eq!(
        once,
        "# file header\n\n# about a\ngame W a extra\nstart\nmoves e2e4 e7e5\n# trailing note\n\n# about b\ngame D b\nboard 7k/8/8/8/8/8/8/K7 w - - 0 1\nfrobnicate   keep  me\n"
    );
    assert_eq!(open(&once).formatted_text(), once);
}

#[test]
fn formatting_keeps_the_dominant_line_ending() {
    let doc = open("game W a\r\nstart\r\nmoves  e2e4\r\ngame W b\nstart\r\n");
    assert_eq!(
        doc.formatted_text(),
        "game W a\r\nstart\r\nmoves e2e4\r\n\r\ngame W b\r\nstart\r\n"
    );
}

#[test]
fn formatting_leaves_games_with_broken_syntax_alone() {
    let text = "game X a\nstart\nmoves  e2e4\n\ngame W b\nstart\nmoves  e2e4\n";
    let formatted = open(text).formatted_text();
    assert_eq!(
        formatted,
        "game X a\nstart\nmoves  e2e4\n\ngame W b\nstart\nmoves e2e4\n"
    );
}

#[test]
fn range_formatting_touches_only_overlapping_games() {
    let text = "game W a\nmoves  e2e4\n\ngame W b\nmoves  e2e4\n";
    let doc = open(text);
    let second = doc.units()[1].start;
    let edits = doc.format_edits(Some(second + 10..second + 12));
    assert_eq!(edits.len(), 1);
    assert!(edits[0].span.start >= second);
}

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("game W a\n".to_string()),
        Just("game B a\n".to_string()),
        Just("game ? -\n".to_string()),
        Just("game".to_string()),
        Just("start\n".to_string()),
        Just("moves e2e4 e7e5 g1f3\n".to_string()),
        Just("moves e7e8\n".to_string()),
        Just(" d2d4".to_string()),
        Just("board 8/4P3/8/8/8/8/8/k1K5 w - - 0 1\n".to_string()),
        Just("title Café ♟ 😀\n".to_string()),
        Just("# comment\n".to_string()),
        Just("\n".to_string()),
        Just("\r\n".to_string()),
        Just("\t".to_string()),
        Just("\u{feff}".to_string()),
        Just("startpos\n".to_string()),
        "[a-h1-8 \n]{0,6}",
    ]
}

fn text_strategy() -> impl Strategy<Value = String> {
    prop::collection::vec(fragment(), 0..12).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// Random edit sequences: after every edit the incremental analysis
    /// equals a from-scratch analysis of the same text.
    #[test]
    fn incremental_equals_scratch(
        initial in text_strategy(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0usize..12, fragment()), 1..8),
    ) {
        let mut doc = open(&initial);
        for (at, remove, insert) in edits {
            let len = doc.document().len();
            let start = if len == 0 { 0 } else { at.index(len + 1) };
            doc.apply_edit(start..(start + remove).min(len), &insert);
            let text = doc.text();
            let scratch = open(&text);
            prop_assert_eq!(boundaries(&doc), boundaries(&scratch));
            prop_assert_eq!(doc.diagnostics(), scratch.diagnostics());
        }
    }

    /// Formatting twice changes nothing the second time, and never drops
    /// a comment or a move.
    #[test]
    fn formatting_is_idempotent_and_lossless(text in text_strategy()) {
        let doc = open(&text);
        let once = doc.formatted_text();
        prop_assert_eq!(open(&once).formatted_text(), once.clone());
        let comments = |t: &str| t.strip_prefix('\u{feff}').unwrap_or(t).lines().map(str::trim).filter(|l| l.starts_with('#')).map(str::to_string).collect::<Vec<_>>();
        prop_assert_eq!(comments(&text), comments(&once));
    }
}

/// Inputs the `sgs_check` fuzz target found (`fuzz/regressions/`).
#[test]
fn fuzz_regressions_format_idempotently() {
    for input in ["g\n\n\ngame\r\n\r\n\r\n", "e \r", "game W a\nstart\nmoves e2e4\r\r\n"] {
        let once = open(input).formatted_text();
        assert_eq!(open(&once).formatted_text(), once, "{input:?}");
    }
}

#[test]
fn parallel_split_of_a_large_text_equals_the_sequential_split() {
    let mut text = String::from("# preamble\n");
    let mut i = 0;
    while text.len() < 3 * PARALLEL_SPLIT_BYTES {
        // Vary the game length so chunk bounds land at every kind of place.
        text.push_str(&format!("game W g{i}\nstart\nmoves {}\n\n", "e2e4 ".repeat(i % 37)));
        i += 1;
    }
    let sequential: Vec<usize> = std::iter::once(0)
        .chain(
            crate::text::line_ranges(&text)
                .filter(|l| l.start > 0 && text[l.clone()].starts_with("game"))
                .map(|l| l.start),
        )
        .collect();
    let parallel: Vec<usize> = split_units(&SofGameSet, &text, 0).iter().map(|r| r.start).collect();
    assert_eq!(parallel, sequential);
    assert_eq!(
        split_units(&SofGameSet, &text, 0).last().map(|r| r.end),
        Some(text.len())
    );
}

/// An offset between the CR and LF of a line break belongs to the next
/// line; a completion there must not swallow the break.
#[test]
fn completion_between_cr_and_lf_stays_on_its_line() {
    let doc = open("game W a\r\nstart\r\nmoves e2e4\r\n");
    for item in doc.complete(16) {
        assert!(!doc.text()[item.replace.clone()].contains('\n'), "{:?}", item.replace);
        assert!(
            item.replace.start <= 16 || item.replace.start == 17,
            "{:?}",
            item.replace
        );
    }
}
