//! Arbitrary bytes read as a SoFGameSet file, then every request a client
//! can make, with properties checked on the answers.
#![no_main]

use std::ops::Range;

use kibitz::formats::sofgameset::SofGameSet;
use kibitz::model::{Settings, TokenKind};
use kibitz::workspace::AnalyzedDocument;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let doc = AnalyzedDocument::from_bytes(&SofGameSet, bytes.to_vec());
    let text = doc.text();
    let len = text.len();
    // A span a client can use: inside the text, on character boundaries.
    let check = |what: &str, span: &Range<usize>| {
        assert!(
            span.start <= span.end && span.end <= len && text.is_char_boundary(span.start) && text.is_char_boundary(span.end),
            "{what} span {span:?} is not a valid span of a {len}-byte text"
        );
    };

    for d in doc.diagnostics() {
        check(d.rule.code, &d.span);
        d.related.iter().for_each(|r| check("related", &r.span));
        d.fixes.iter().flat_map(|f| &f.edits).for_each(|e| check("fix edit", &e.span));
    }
    let edits = doc.format_edits(None);
    edits.iter().for_each(|e| check("format edit", &e.span));
    assert!(edits.windows(2).all(|w| w[0].span.end <= w[1].span.start), "format edits overlap or are unsorted");
    let formatted = doc.formatted_text();
    for s in doc.symbols() {
        check("symbol", &s.span);
        check("symbol selection", &s.selection);
    }
    doc.folds().iter().for_each(|f| check("fold", f));
    let tokens = doc.tokens(None);
    tokens.iter().for_each(|t| check("token", &t.span));
    for hint in doc.inlay_hints(0..len) {
        check("inlay hint", &(hint.offset..hint.offset));
    }

    // Hover and completion at offsets taken from the input: the ends, past
    // the end, inside multi-byte characters, and a few picked by input bytes.
    let mut offsets = vec![0, len, len + 1, len + 1000];
    offsets.extend((1..len).filter(|&i| !text.is_char_boundary(i)).take(3));
    offsets.extend(bytes.iter().rev().take(4).map(|&b| b as usize * (len + 2) / 255));
    let settings = Settings::default();
    for offset in offsets {
        if let Some(hover) = doc.hover(offset, &settings) {
            check("hover", &hover.span);
        }
        doc.complete(offset).iter().for_each(|c| check("completion", &c.replace));
    }

    // Formatting: idempotent, keeps every comment and every move.
    let reformatted = AnalyzedDocument::new(&SofGameSet, &formatted);
    if std::str::from_utf8(bytes).is_ok() {
        assert_eq!(reformatted.formatted_text(), formatted, "formatting is not idempotent");
    }
    assert_eq!(comment_chars(&formatted), comment_chars(&text), "formatting changed a comment");
    assert_eq!(moves(&reformatted), moves(&doc), "formatting changed the number of moves");
});

/// The non-whitespace characters of every comment line, in order.
fn comment_chars(text: &str) -> String {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.split('\n')
        .map(str::trim)
        .filter(|l| l.starts_with('#'))
        .flat_map(|l| l.chars().filter(|c| !c.is_whitespace()))
        .collect()
}

/// The number of `moves` tokens (UCI moves) in the units without syntax errors.
fn moves(doc: &AnalyzedDocument) -> usize {
    let units = doc.units();
    (0..units.len())
        .filter(|&i| !units[i].analysis.syntax_broken)
        .flat_map(|i| doc.tokens(Some(units[i].range())))
        .filter(|t| t.kind == TokenKind::Function)
        .count()
}
