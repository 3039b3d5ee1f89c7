//! Diagnostic reporters: rustc-like text, JSON Lines, GitHub annotations.

use std::io::Write;

use crate::model::{Diagnostic, Severity};
use crate::text::Document;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    Human,
    Json,
    Github,
}

/// A diagnostic located in a file: 1-based lines and columns, columns in characters.
pub struct Located<'a> {
    pub path: &'a str,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub severity: Severity,
    pub diagnostic: &'a Diagnostic,
}

pub fn locate<'a>(path: &'a str, doc: &Document, d: &'a Diagnostic, severity: Severity) -> Located<'a> {
    // A byte order mark is invisible: it is not a column.
    let bom = usize::from(doc.starts_with(crate::text::BOM));
    let column = |p: crate::text::Position| {
        if p.line == 0 {
            p.column.saturating_sub(bom)
        } else {
            p.column
        }
    };
    let start = doc.char_position_of(d.span.start);
    let end = doc.char_position_of(d.span.end);
    Located {
        path,
        line: start.line + 1,
        column: column(start) + 1,
        end_line: end.line + 1,
        end_column: column(end) + 1,
        severity,
        diagnostic: d,
    }
}

pub fn write(out: &mut impl Write, format: OutputFormat, doc: &Document, l: &Located<'_>) -> std::io::Result<()> {
    match format {
        OutputFormat::Json => {
            let obj = serde_json::json!({
                "path": l.path,
                "line": l.line,
                "column": l.column,
                "end_line": l.end_line,
                "end_column": l.end_column,
                "severity": l.severity.name(),
                "code": l.diagnostic.rule.code,
                "message": l.diagnostic.message,
            });
            writeln!(out, "{obj}")
        }
        OutputFormat::Github => {
            let level = match l.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Information | Severity::Hint => "notice",
            };
            writeln!(
                out,
                "::{level} file={},line={},col={},endLine={},endColumn={},title={}::{}",
                escape_property(l.path),
                l.line,
                l.column,
                l.end_line,
                l.end_column,
                escape_property(l.diagnostic.rule.code),
                escape_data(&l.diagnostic.message)
            )
        }
        OutputFormat::Human => write_human(out, doc, l),
    }
}

fn escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// The line with a caret under the span, like rustc.
fn write_human(out: &mut impl Write, doc: &Document, l: &Located<'_>) -> std::io::Result<()> {
    let d = l.diagnostic;
    writeln!(out, "{}[{}]: {}", l.severity.name(), d.rule.code, d.message)?;
    let gutter = l.line.to_string().len();
    writeln!(out, "{:gutter$}--> {}:{}:{}", "", l.path, l.line, l.column)?;
    let text = line_text(doc, d.span.start);
    let text = if l.line == 1 {
        text.trim_start_matches(crate::text::BOM)
    } else {
        &text
    };
    let shown: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let width = if l.end_line == l.line {
        (l.end_column - l.column).max(1)
    } else {
        shown.chars().count().saturating_sub(l.column - 1).max(1)
    };
    const MAX_SHOWN: usize = 200;
    let (shown, caret_col) = if shown.chars().count() > MAX_SHOWN {
        // Huge lines (thousands of moves) are cut around the span.
        let from = (l.column - 1).saturating_sub(40);
        let cut: String = shown.chars().skip(from).take(MAX_SHOWN).collect();
        let (before, after) = (
            if from > 0 { "…" } else { "" },
            if from + MAX_SHOWN < shown.chars().count() {
                "…"
            } else {
                ""
            },
        );
        (
            format!("{before}{cut}{after}"),
            l.column - 1 - from + before.chars().count(),
        )
    } else {
        (shown, l.column - 1)
    };
    writeln!(out, "{:gutter$} |", "")?;
    writeln!(out, "{} | {}", l.line, shown)?;
    writeln!(
        out,
        "{:gutter$} | {:caret_col$}{}",
        "",
        "",
        "^".repeat(width.min(MAX_SHOWN))
    )?;
    for r in &d.related {
        let p = doc.char_position_of(r.span.start);
        writeln!(
            out,
            "{:gutter$} = note: {} ({}:{}:{})",
            "",
            r.message,
            l.path,
            p.line + 1,
            p.column + 1
        )?;
    }
    writeln!(out)
}

fn line_text(doc: &Document, offset: usize) -> String {
    let pos = doc.position_of(offset, crate::text::PositionEncoding::Utf8);
    let start = offset - pos.column;
    let end = doc.offset_of(
        crate::text::Position {
            line: pos.line,
            column: usize::MAX / 2,
        },
        crate::text::PositionEncoding::Utf8,
    );
    doc.slice(start..end)
}
