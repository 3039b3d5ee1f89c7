//! The format-neutral vocabulary every format speaks and every front end
//! (language server, CLI) consumes. Spans are byte ranges; converting them to
//! lines and columns happens only at the edges.

use std::collections::HashMap;
use std::ops::Range;

pub mod settings;

pub use settings::{BoardStyle, Settings};

pub type Span = Range<usize>;

/// `span` moved `by` bytes later: unit-relative to document-absolute.
pub fn shift(span: &Span, by: usize) -> Span {
    span.start + by..span.end + by
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Information,
    Hint,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Information => "information",
            Severity::Hint => "hint",
        }
    }

    pub fn parse(name: &str) -> Option<Severity> {
        Some(match name {
            "error" => Severity::Error,
            "warning" => Severity::Warning,
            "information" | "info" => Severity::Information,
            "hint" => Severity::Hint,
            _ => return None,
        })
    }
}

/// A diagnostic rule: its stable code, default severity, and whether a unit
/// that raises it has broken syntax (which makes formatting keep its hands off).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    pub code: &'static str,
    pub severity: Severity,
    pub breaks_syntax: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    pub span: Span,
    pub new_text: String,
}

/// A quick fix: applying all its edits makes the diagnostic go away.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    pub title: String,
    pub edits: Vec<TextEdit>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Related {
    pub span: Span,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub span: Span,
    pub rule: Rule,
    pub message: String,
    pub related: Vec<Related>,
    pub fixes: Vec<Fix>,
}

impl Diagnostic {
    pub fn new(rule: Rule, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            span,
            rule,
            message: message.into(),
            related: Vec::new(),
            fixes: Vec::new(),
        }
    }

    pub fn with_fix(mut self, title: impl Into<String>, edits: Vec<TextEdit>) -> Self {
        self.fixes.push(Fix {
            title: title.into(),
            edits,
        });
        self
    }

    /// Moves every span by `by` bytes: unit-relative to document-absolute.
    pub fn shifted(mut self, by: usize) -> Self {
        self.span = shift(&self.span, by);
        self.related.iter_mut().for_each(|r| r.span = shift(&r.span, by));
        for fix in &mut self.fixes {
            fix.edits.iter_mut().for_each(|e| e.span = shift(&e.span, by));
        }
        self
    }
}

/// An outline entry (one per game in game-set formats).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub detail: String,
    pub span: Span,
    pub selection: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokenKind {
    Keyword,
    Comment,
    String,
    EnumMember,
    Variable,
    Function,
    Number,
}

impl TokenKind {
    pub const ALL: [TokenKind; 7] = [
        TokenKind::Keyword,
        TokenKind::Comment,
        TokenKind::String,
        TokenKind::EnumMember,
        TokenKind::Variable,
        TokenKind::Function,
        TokenKind::Number,
    ];
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub span: Span,
    pub kind: TokenKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HoverInfo {
    pub span: Span,
    pub markdown: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionKind {
    Move,
    Keyword,
    Value,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompletionItem {
    pub label: String,
    pub detail: Option<String>,
    pub kind: CompletionKind,
    /// The text the item replaces (the partial word at the cursor).
    pub replace: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlayHint {
    pub offset: usize,
    pub label: String,
}

/// The severity a diagnostic is shown with after the user's overrides;
/// `None` means the user turned the rule off.
pub fn effective_severity(rule: Rule, overrides: &HashMap<String, Option<Severity>>) -> Option<Severity> {
    match overrides.get(rule.code) {
        Some(chosen) => *chosen,
        None => Some(rule.severity),
    }
}
