//! One folder per format, each implementing [`Format`]. Adding a format is
//! a new folder plus one line in [`ALL`].

use crate::model::{CompletionItem, Diagnostic, HoverInfo, InlayHint, Rule, Settings, Span, Symbol, Token};

pub mod sofgameset;

/// Every format kibitz knows, in detection order.
pub static ALL: &[&dyn Format] = &[&sofgameset::SofGameSet];

/// What the workspace keeps of one analysed unit (a game, or the lines
/// before the first game). Spans are relative to the unit's start.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UnitAnalysis {
    pub diagnostics: Vec<Diagnostic>,
    /// A name that must be unique across the file (a game label), and where it stands.
    pub key: Option<(std::sync::Arc<str>, Span)>,
    /// A rule that marks broken syntax fired: formatting leaves the unit alone.
    pub syntax_broken: bool,
    pub crlf_lines: u32,
    pub lf_lines: u32,
}

/// Where a unit sits in its file, which decides the blank lines around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnitLayout {
    /// No unit follows: no blank separator after it.
    pub is_last: bool,
    pub line_ending: &'static str,
}

/// A file format: how to cut a file into independent units and what each
/// feature answers inside one unit. Implementations are stateless; every
/// method takes the unit's text and returns unit-relative spans.
pub trait Format: Sync + Send {
    /// The LSP language id.
    fn language_id(&self) -> &'static str;
    /// File extensions, without the dot.
    fn extensions(&self) -> &'static [&'static str];
    /// Whether a file with an unknown extension is in this format, judging by its text.
    fn detect_content(&self, text: &str) -> bool;
    /// Every rule this format can raise.
    fn rules(&self) -> &'static [Rule];
    /// Whether this line (without its line break) starts a new unit.
    fn starts_unit(&self, line: &str) -> bool;
    fn analyze_unit(&self, text: &str) -> UnitAnalysis;
    /// The diagnostic for a unit key already used earlier in the file.
    /// `is_taken` answers whether a key is used anywhere in the file.
    fn duplicate_key(&self, key: &str, span: Span, first: Span, is_taken: &dyn Fn(&str) -> bool) -> Diagnostic;
    /// The diagnostic for bytes that were not valid UTF-8 on disk.
    fn invalid_utf8(&self, span: Span) -> Diagnostic;
    fn hover(&self, text: &str, offset: usize, settings: &Settings) -> Option<HoverInfo>;
    fn complete(&self, text: &str, offset: usize) -> Vec<CompletionItem>;
    /// The unit in canonical form, or `None` when it must not be touched.
    fn format_unit(&self, text: &str, analysis: &UnitAnalysis, layout: UnitLayout) -> Option<String>;
    fn symbols(&self, text: &str) -> Vec<Symbol>;
    fn folds(&self, text: &str) -> Vec<Span>;
    fn tokens(&self, text: &str) -> Vec<Token>;
    fn inlay_hints(&self, text: &str) -> Vec<InlayHint>;
}

pub fn by_language_id(id: &str) -> Option<&'static dyn Format> {
    ALL.iter().copied().find(|f| f.language_id() == id)
}

pub fn by_extension(ext: &str) -> Option<&'static dyn Format> {
    ALL.iter()
        .copied()
        .find(|f| f.extensions().iter().any(|e| e.eq_ignore_ascii_case(ext)))
}

/// The format of a file: by extension first, then by content.
pub fn detect(path: Option<&std::path::Path>, text: &str) -> Option<&'static dyn Format> {
    path.and_then(|p| p.extension())
        .and_then(|e| e.to_str())
        .and_then(by_extension)
        .or_else(|| ALL.iter().copied().find(|f| f.detect_content(text)))
}

/// Every rule of every format.
pub fn all_rules() -> impl Iterator<Item = Rule> {
    ALL.iter().flat_map(|f| f.rules().iter().copied())
}
