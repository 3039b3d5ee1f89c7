//! Completion: legal UCI moves inside `moves`, command names at a line's
//! start, winners and the empty label after `game`.

use std::ops::ControlFlow;

use shakmaty::Position;

use super::replay::{Step, replay_game};
use super::syntax::{Command, KNOWN_COMMANDS, LineKind, is_separator, parse_unit};
use crate::games::chess;
use crate::model::{CompletionItem, CompletionKind, Span};

pub fn complete(text: &str, offset: usize) -> Vec<CompletionItem> {
    let unit = parse_unit(text);
    let Some((line_index, line)) = unit.line_at(offset) else {
        return Vec::new();
    };
    let bytes = text.as_bytes();
    // The word the cursor is in (or right after): what an item replaces.
    let mut start = offset.clamp(line.span.start, line.span.end);
    while start > line.span.start && !is_separator(bytes[start - 1]) {
        start -= 1;
    }
    let mut end = offset.clamp(line.span.start, line.span.end);
    while end < line.span.end && !is_separator(bytes[end]) {
        end += 1;
    }
    let word = start..end;
    let words_before = super::syntax::words(bytes, line.span.start..start).count();
    if words_before == 0 {
        return command_names(word);
    }
    let LineKind::Command { command, .. } = &line.kind else {
        return Vec::new();
    };
    match command {
        Command::Game { .. } if words_before == 1 => [
            ("W", "White wins"),
            ("B", "Black wins"),
            ("D", "draw"),
            ("?", "not finished"),
        ]
        .into_iter()
        .map(|(w, d)| item(w, d, CompletionKind::Value, &word))
        .collect(),
        Command::Game { .. } if words_before == 2 => vec![item("-", "no label", CompletionKind::Value, &word)],
        Command::Moves => legal_moves_at(text, &unit, line_index, word),
        _ => Vec::new(),
    }
}

fn item(label: &str, detail: &str, kind: CompletionKind, word: &Span) -> CompletionItem {
    CompletionItem {
        label: label.to_string(),
        detail: Some(detail.to_string()),
        kind,
        replace: word.clone(),
    }
}

fn command_names(word: Span) -> Vec<CompletionItem> {
    let details = [
        "open a game: game <winner> <label>",
        "set the game's title",
        "add the initial position",
        "add a position: board <FEN>",
        "play UCI moves from the last board",
    ];
    KNOWN_COMMANDS
        .iter()
        .zip(details)
        .map(|(name, detail)| item(name, detail, CompletionKind::Keyword, &word))
        .collect()
}

/// The legal moves of the position just before the word at the cursor.
fn legal_moves_at(text: &str, unit: &super::syntax::Unit, line_index: usize, word: Span) -> Vec<CompletionItem> {
    let mut blocked = false;
    let position = replay_game(text, unit, |step| match step {
        Step::Move { line, token, .. } | Step::BadMove { line, token, .. }
            if line > line_index || token.start >= word.start =>
        {
            ControlFlow::Break(())
        }
        Step::Board { line, .. } if line > line_index => ControlFlow::Break(()),
        Step::NoBoard { line } if line == line_index => {
            blocked = true;
            ControlFlow::Break(())
        }
        _ => ControlFlow::Continue(()),
    });
    let Some(pos) = position.filter(|_| !blocked) else {
        return Vec::new();
    };
    pos.legal_moves()
        .into_iter()
        .map(|mv| CompletionItem {
            label: chess::uci_of(mv),
            detail: Some(chess::san_of(&pos, mv)),
            kind: CompletionKind::Move,
            replace: word.clone(),
        })
        .collect()
}
