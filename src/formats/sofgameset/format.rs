//! Canonical layout: one command per line with single spaces, no blank
//! lines inside a game, exactly one blank line before each game (and before
//! the comments directly above it), comments and unknown commands kept in
//! place, every line ended with the file's dominant line ending.

use super::syntax::{Command, Line, LineKind, is_control, parse_unit, words};
use crate::formats::{UnitAnalysis, UnitLayout};

pub fn format_unit(text: &str, analysis: &UnitAnalysis, layout: UnitLayout) -> Option<String> {
    if analysis.syntax_broken {
        return None;
    }
    let unit = parse_unit(text);
    let lines = &unit.lines;
    // A kept line ending in a stray CR would turn into a CRLF line break
    // once a line ending follows it: no certain canonical form exists.
    if lines
        .iter()
        .any(|l| kept_verbatim(text, l) && text.as_bytes()[..l.span.end].ends_with(b"\r"))
    {
        return None;
    }
    let is_game = lines.first().is_some_and(Line::is_game);
    // Comments at the very end with no blank line after them introduce the
    // next game: they move with it, behind the blank separator.
    let mut header_start = lines.len();
    if !layout.is_last {
        while header_start > 0 && matches!(lines[header_start - 1].kind, LineKind::Comment) {
            header_start -= 1;
        }
    }
    let eol = layout.line_ending;
    let mut out = String::with_capacity(text.len() + 16);
    let mut wrote_line = false;
    let mut pending_blank = false;
    for line in &lines[..header_start] {
        if matches!(line.kind, LineKind::Blank) {
            // Blank runs survive only between the free lines before the first game.
            pending_blank = !is_game && wrote_line;
            continue;
        }
        if pending_blank {
            out.push_str(eol);
            pending_blank = false;
        }
        out.push_str(&canonical_line(text, line));
        out.push_str(eol);
        wrote_line = true;
    }
    if layout.is_last {
        return Some(out);
    }
    if wrote_line {
        out.push_str(eol);
    }
    for line in &lines[header_start..] {
        out.push_str(&canonical_line(text, line));
        out.push_str(eol);
    }
    Some(out)
}

/// Control characters may be separators or not depending on the reader:
/// a line holding one is kept exactly as written.
fn kept_verbatim(text: &str, line: &Line) -> bool {
    text.as_bytes()[line.span.clone()].iter().any(|&b| is_control(b))
}

fn canonical_line(text: &str, line: &Line) -> String {
    let bytes = text.as_bytes();
    if kept_verbatim(text, line) {
        return text[line.span.clone()].to_string();
    }
    let content = &text[line.content.clone()];
    let LineKind::Command { name, body, command } = &line.kind else {
        return content.to_string();
    };
    let name = &text[name.clone()];
    let joined = |span: &std::ops::Range<usize>| {
        words(bytes, span.clone())
            .map(|w| &text[w])
            .collect::<Vec<_>>()
            .join(" ")
    };
    let body_text = match command {
        Command::Game { winner, label, rest } => {
            let mut parts: Vec<&str> = [winner, label]
                .iter()
                .filter_map(|s| s.as_ref().map(|s| &text[s.clone()]))
                .collect();
            if let Some(rest) = rest {
                parts.push(&text[rest.clone()]);
            }
            parts.join(" ")
        }
        Command::Board | Command::Moves => joined(body),
        Command::Title | Command::Start => text[body.clone()].to_string(),
        Command::Unknown => return content.to_string(),
    };
    if body_text.is_empty() {
        name.to_string()
    } else {
        format!("{name} {body_text}")
    }
}
