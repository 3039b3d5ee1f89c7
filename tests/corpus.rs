//! Diagnostics and formatting over `tests/corpus/**`, compared with reviewed
//! snapshots (`tests/snapshots/`). Review changes with `cargo insta review`
//! or `INSTA_UPDATE=always cargo test --test corpus` and `git diff`.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use kibitz::formats;
use kibitz::workspace::AnalyzedDocument;

fn corpus_files(format_dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(format_dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("readable corpus entry").path())
        .collect();
    files.sort();
    files
}

fn analyse(path: &Path) -> AnalyzedDocument {
    let bytes = std::fs::read(path).expect("corpus file is readable");
    let format = formats::detect(Some(path), &String::from_utf8_lossy(&bytes)).expect("corpus file has a known format");
    AnalyzedDocument::from_bytes(format, bytes)
}

/// One line per diagnostic: `line:col-line:col severity code message`, 1-based, columns in characters.
fn render(doc: &AnalyzedDocument) -> String {
    let text = doc.document();
    let mut out = String::new();
    for d in doc.diagnostics() {
        let (s, e) = (text.char_position_of(d.span.start), text.char_position_of(d.span.end));
        let message: String = d.message.chars().take(300).collect();
        let _ = writeln!(
            out,
            "{}:{}-{}:{} {} {} {}",
            s.line + 1,
            s.column + 1,
            e.line + 1,
            e.column + 1,
            d.rule.severity.name(),
            d.rule.code,
            message
        );
        for r in &d.related {
            let p = text.char_position_of(r.span.start);
            let _ = writeln!(out, "    related {}:{} {}", p.line + 1, p.column + 1, r.message);
        }
        for f in &d.fixes {
            let _ = writeln!(out, "    fix: {}", f.title);
        }
    }
    let edits = doc.format_edits(None);
    let _ = writeln!(out, "format: {} edits", edits.len());
    out
}

#[test]
fn sofgameset_corpus_diagnostics_match_snapshots() {
    for path in corpus_files("sofgameset") {
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("utf-8 name")
            .to_string();
        let doc = analyse(&path);
        insta::assert_snapshot!(format!("sofgameset__{name}"), render(&doc));
    }
}

#[test]
fn sofgameset_corpus_formatting_is_idempotent_and_keeps_every_move() {
    for path in corpus_files("sofgameset") {
        let bytes = std::fs::read(&path).expect("readable");
        let Ok(text) = String::from_utf8(bytes) else { continue };
        let doc = AnalyzedDocument::new(&kibitz::formats::sofgameset::SofGameSet, &text);
        let once = doc.formatted_text();
        let twice = AnalyzedDocument::new(&kibitz::formats::sofgameset::SofGameSet, &once).formatted_text();
        assert_eq!(once, twice, "{} is not formatted idempotently", path.display());
        let words = |t: &str| t.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        assert_eq!(
            words(&text),
            words(&once),
            "{}: formatting changed more than spacing",
            path.display()
        );
    }
}

#[test]
fn the_spec_example_is_clean() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/sofgameset/spec-example.sgs");
    let doc = analyse(&path);
    assert_eq!(doc.diagnostics(), vec![]);
    assert!(doc.format_edits(None).is_empty());
}

#[test]
fn every_rule_is_documented() {
    let docs = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rules.md"))
        .expect("docs/rules.md exists");
    for rule in formats::all_rules() {
        let heading = format!("### `{}`", rule.code);
        assert!(docs.contains(&heading), "docs/rules.md has no `{heading}` section");
        let section = docs
            .split(&heading)
            .nth(1)
            .and_then(|s| s.split("\n### ").next())
            .unwrap_or("");
        assert!(
            section.contains(rule.severity.name()),
            "docs/rules.md: `{}` does not state its severity `{}`",
            rule.code,
            rule.severity.name()
        );
    }
}
