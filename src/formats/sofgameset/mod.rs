//! SoFGameSet (`*.sgs`): chess engine game sets, one command per line.
//! Spec: `../shared/specs/sofgameset.md`; rules: `check.rs`.

pub mod check;
pub mod complete;
pub mod format;
pub mod hover;
pub mod replay;
pub mod syntax;

use crate::formats::{Format, UnitAnalysis, UnitLayout};
use crate::model::{CompletionItem, Diagnostic, HoverInfo, InlayHint, Rule, Settings, Span, Symbol, Token};

pub struct SofGameSet;

impl Format for SofGameSet {
    fn language_id(&self) -> &'static str {
        "sofgameset"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["sgs"]
    }

    /// The first command (skipping blank and `#` lines) is `game`.
    fn detect_content(&self, text: &str) -> bool {
        let text = text.strip_prefix(crate::text::BOM).unwrap_or(text);
        text.lines()
            .map(|l| l.trim_matches(|c| c == ' ' || c == '\t' || c == '\r'))
            .find(|l| !l.is_empty() && !l.starts_with('#'))
            .is_some_and(syntax::is_game_line)
    }

    fn rules(&self) -> &'static [Rule] {
        check::RULES
    }

    fn starts_unit(&self, line: &str) -> bool {
        syntax::is_game_line(line)
    }

    fn analyze_unit(&self, text: &str) -> UnitAnalysis {
        check::check_unit(text)
    }

    fn duplicate_key(&self, key: &str, span: Span, first: Span, is_taken: &dyn Fn(&str) -> bool) -> Diagnostic {
        check::duplicate_label(key, span, first, is_taken)
    }

    fn invalid_utf8(&self, span: Span) -> Diagnostic {
        check::invalid_utf8(span)
    }

    fn hover(&self, text: &str, offset: usize, settings: &Settings) -> Option<HoverInfo> {
        hover::hover(text, offset, settings)
    }

    fn complete(&self, text: &str, offset: usize) -> Vec<CompletionItem> {
        complete::complete(text, offset)
    }

    fn format_unit(&self, text: &str, analysis: &UnitAnalysis, layout: UnitLayout) -> Option<String> {
        format::format_unit(text, analysis, layout)
    }

    fn symbols(&self, text: &str) -> Vec<Symbol> {
        syntax::symbols(text)
    }

    fn folds(&self, text: &str) -> Vec<Span> {
        syntax::folds(text)
    }

    fn tokens(&self, text: &str) -> Vec<Token> {
        syntax::tokens(text)
    }

    fn inlay_hints(&self, text: &str) -> Vec<InlayHint> {
        hover::inlay_hints(text)
    }
}
