//! Conversions between kibitz's model and LSP types: the only place that
//! knows both.

use ls_types as lsp;
use tower_lsp_server::ls_types;

use crate::model::{self, CompletionKind, Severity, TokenKind};
use crate::text::{Document, Position, PositionEncoding};

pub fn position(doc: &Document, offset: usize, enc: PositionEncoding) -> lsp::Position {
    let p = doc.position_of(offset, enc);
    lsp::Position::new(p.line as u32, p.column as u32)
}

pub fn range(doc: &Document, span: &model::Span, enc: PositionEncoding) -> lsp::Range {
    lsp::Range::new(position(doc, span.start, enc), position(doc, span.end, enc))
}

pub fn offset(doc: &Document, pos: lsp::Position, enc: PositionEncoding) -> usize {
    doc.offset_of(
        Position {
            line: pos.line as usize,
            column: pos.character as usize,
        },
        enc,
    )
}

pub fn span(doc: &Document, range: lsp::Range, enc: PositionEncoding) -> model::Span {
    let start = offset(doc, range.start, enc);
    let end = offset(doc, range.end, enc);
    start..end.max(start)
}

fn severity(s: Severity) -> lsp::DiagnosticSeverity {
    match s {
        Severity::Error => lsp::DiagnosticSeverity::ERROR,
        Severity::Warning => lsp::DiagnosticSeverity::WARNING,
        Severity::Information => lsp::DiagnosticSeverity::INFORMATION,
        Severity::Hint => lsp::DiagnosticSeverity::HINT,
    }
}

pub fn diagnostic(
    doc: &Document,
    uri: &lsp::Uri,
    d: &model::Diagnostic,
    sev: Severity,
    enc: PositionEncoding,
) -> lsp::Diagnostic {
    let related = (!d.related.is_empty()).then(|| {
        d.related
            .iter()
            .map(|r| lsp::DiagnosticRelatedInformation {
                location: lsp::Location::new(uri.clone(), range(doc, &r.span, enc)),
                message: r.message.clone(),
            })
            .collect()
    });
    lsp::Diagnostic {
        range: range(doc, &d.span, enc),
        severity: Some(severity(sev)),
        code: Some(lsp::NumberOrString::String(d.rule.code.to_string())),
        source: Some("kibitz".to_string()),
        message: d.message.clone(),
        related_information: related,
        ..Default::default()
    }
}

pub fn text_edit(doc: &Document, e: &model::TextEdit, enc: PositionEncoding) -> lsp::TextEdit {
    lsp::TextEdit::new(range(doc, &e.span, enc), e.new_text.clone())
}

pub fn completion(
    doc: &Document,
    item: &model::CompletionItem,
    index: usize,
    enc: PositionEncoding,
) -> lsp::CompletionItem {
    let kind = match item.kind {
        CompletionKind::Move => lsp::CompletionItemKind::VALUE,
        CompletionKind::Keyword => lsp::CompletionItemKind::KEYWORD,
        CompletionKind::Value => lsp::CompletionItemKind::ENUM_MEMBER,
    };
    lsp::CompletionItem {
        label: item.label.clone(),
        kind: Some(kind),
        detail: item.detail.clone(),
        sort_text: Some(format!("{index:05}")),
        filter_text: Some(item.label.clone()),
        text_edit: Some(lsp::CompletionTextEdit::Edit(lsp::TextEdit::new(
            range(doc, &item.replace, enc),
            item.label.clone(),
        ))),
        ..Default::default()
    }
}

pub fn token_legend() -> lsp::SemanticTokensLegend {
    let types = TokenKind::ALL
        .iter()
        .map(|k| match k {
            TokenKind::Keyword => lsp::SemanticTokenType::KEYWORD,
            TokenKind::Comment => lsp::SemanticTokenType::COMMENT,
            TokenKind::String => lsp::SemanticTokenType::STRING,
            TokenKind::EnumMember => lsp::SemanticTokenType::ENUM_MEMBER,
            TokenKind::Variable => lsp::SemanticTokenType::VARIABLE,
            TokenKind::Function => lsp::SemanticTokenType::FUNCTION,
            TokenKind::Number => lsp::SemanticTokenType::NUMBER,
        })
        .collect();
    lsp::SemanticTokensLegend {
        token_types: types,
        token_modifiers: Vec::new(),
    }
}

/// Encodes tokens (sorted, each on one line) as LSP's relative quintuples.
pub fn semantic_tokens(doc: &Document, tokens: &[model::Token], enc: PositionEncoding) -> Vec<lsp::SemanticToken> {
    let mut out = Vec::with_capacity(tokens.len());
    let (mut prev_line, mut prev_col) = (0u32, 0u32);
    for t in tokens {
        let start = doc.position_of(t.span.start, enc);
        let end = doc.position_of(t.span.end, enc);
        if end.line != start.line || end.column <= start.column {
            continue;
        }
        let (line, col) = (start.line as u32, start.column as u32);
        let delta_line = line - prev_line;
        let delta_start = if delta_line == 0 { col - prev_col } else { col };
        out.push(lsp::SemanticToken {
            delta_line,
            delta_start,
            length: (end.column - start.column) as u32,
            token_type: TokenKind::ALL.iter().position(|k| *k == t.kind).unwrap_or(0) as u32,
            token_modifiers_bitset: 0,
        });
        (prev_line, prev_col) = (line, col);
    }
    out
}
