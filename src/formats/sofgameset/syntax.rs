//! Lossless line parse of one SoFGameSet unit. Every line becomes a
//! [`Line`]; nothing is rejected here, the checks judge what they see.

use crate::model::{Span, Symbol, Token, TokenKind};

/// Separators between words. The spec's space is ASCII 32; SoFCheck also
/// splits on tab and CR, and so do we (the characters still get a warning).
pub fn is_separator(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\r'
}

/// ASCII 0–31 and DEL: the characters the spec says should not appear in a line.
pub fn is_control(b: u8) -> bool {
    b < 32 || b == 127
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Game {
        winner: Option<Span>,
        label: Option<Span>,
        rest: Option<Span>,
    },
    Title,
    Start,
    Board,
    /// The moves are the words of the body: see [`words`]. They are not
    /// collected here because the checker walks millions of them once.
    Moves,
    Unknown,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineKind {
    Blank,
    Comment,
    Command { name: Span, body: Span, command: Command },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The line without `\n` and without the `\r` of a CRLF.
    pub span: Span,
    /// The line minus leading and trailing separators.
    pub content: Span,
    pub crlf: bool,
    pub newline: bool,
    pub kind: LineKind,
}

impl Line {
    pub fn is_game(&self) -> bool {
        matches!(
            self.kind,
            LineKind::Command {
                command: Command::Game { .. },
                ..
            }
        )
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    pub lines: Vec<Line>,
}

impl Unit {
    /// The line holding `offset`; an offset just past a line's end (the
    /// cursor at the end of the line) belongs to that line.
    pub fn line_at(&self, offset: usize) -> Option<(usize, &Line)> {
        let i = self.lines.partition_point(|l| l.span.end < offset);
        self.lines.get(i).map(|l| (i, l))
    }
}

pub const KNOWN_COMMANDS: [&str; 5] = ["game", "title", "start", "board", "moves"];

pub fn parse_unit(text: &str) -> Unit {
    let lines = crate::text::line_ranges(text)
        .map(|range| parse_line(text, range))
        .collect();
    Unit { lines }
}

/// Whether a line opens a game (and so a new unit).
pub fn is_game_line(line: &str) -> bool {
    let bytes = line.as_bytes();
    let start = bytes.iter().position(|&b| !is_separator(b)).unwrap_or(bytes.len());
    let rest = &bytes[start..];
    rest.starts_with(b"game") && rest.get(4).is_none_or(|&b| is_separator(b))
}

fn parse_line(text: &str, range: Span) -> Line {
    let bytes = text.as_bytes();
    let newline = range.end < bytes.len();
    let crlf = newline && range.end > range.start && bytes[range.end - 1] == b'\r';
    let span = range.start..range.end - usize::from(crlf);
    let content = trim(bytes, span.clone());
    let kind = if content.is_empty() {
        LineKind::Blank
    } else if bytes[content.start] == b'#' {
        LineKind::Comment
    } else {
        let name_end = (content.start..content.end)
            .find(|&i| is_separator(bytes[i]))
            .unwrap_or(content.end);
        let name = content.start..name_end;
        let body = trim(bytes, name_end..content.end);
        let command = match &text[name.clone()] {
            "game" => {
                let mut words = words(bytes, body.clone());
                let winner = words.next();
                let label = words.next();
                let rest = label
                    .as_ref()
                    .map(|l| trim(bytes, l.end..body.end))
                    .filter(|r| !r.is_empty());
                Command::Game { winner, label, rest }
            }
            "title" => Command::Title,
            "start" => Command::Start,
            "board" => Command::Board,
            "moves" => Command::Moves,
            _ => Command::Unknown,
        };
        LineKind::Command { name, body, command }
    };
    Line {
        span,
        content,
        crlf,
        newline,
        kind,
    }
}

fn trim(bytes: &[u8], mut span: Span) -> Span {
    while span.start < span.end && is_separator(bytes[span.start]) {
        span.start += 1;
    }
    while span.end > span.start && is_separator(bytes[span.end - 1]) {
        span.end -= 1;
    }
    span
}

/// The separator-delimited words of `span`.
pub fn words(bytes: &[u8], span: Span) -> impl Iterator<Item = Span> + '_ {
    let mut i = span.start;
    let end = span.end;
    std::iter::from_fn(move || {
        while i < end && is_separator(bytes[i]) {
            i += 1;
        }
        if i >= end {
            return None;
        }
        let start = i;
        while i < end && !is_separator(bytes[i]) {
            i += 1;
        }
        Some(start..i)
    })
}

/// Semantic tokens: command names, winners, labels, titles, FENs, moves, comments.
pub fn tokens(text: &str) -> Vec<Token> {
    let unit = parse_unit(text);
    let mut out = Vec::new();
    let mut push = |span: Span, kind| {
        if !span.is_empty() {
            out.push(Token { span, kind })
        }
    };
    for line in &unit.lines {
        match &line.kind {
            LineKind::Blank => {}
            LineKind::Comment => push(line.content.clone(), TokenKind::Comment),
            LineKind::Command { name, body, command } => {
                if !matches!(command, Command::Unknown) {
                    push(name.clone(), TokenKind::Keyword);
                }
                match command {
                    Command::Game { winner, label, .. } => {
                        if let Some(w) = winner {
                            push(w.clone(), TokenKind::EnumMember);
                        }
                        if let Some(l) = label {
                            push(l.clone(), TokenKind::Variable);
                        }
                    }
                    Command::Title => push(body.clone(), TokenKind::String),
                    Command::Board => push(body.clone(), TokenKind::String),
                    Command::Moves => words(text.as_bytes(), body.clone()).for_each(|m| push(m, TokenKind::Function)),
                    Command::Start | Command::Unknown => {}
                }
            }
        }
    }
    out
}

/// One outline entry per game: its label (or title), with the winner and
/// number of plies as detail.
pub fn symbols(text: &str) -> Vec<Symbol> {
    let unit = parse_unit(text);
    let Some(game) = unit.lines.iter().find(|l| l.is_game()) else {
        return Vec::new();
    };
    let LineKind::Command {
        command: Command::Game { winner, label, .. },
        ..
    } = &game.kind
    else {
        return Vec::new();
    };
    let slice = |s: &Option<Span>| s.as_ref().map_or("", |s| &text[s.clone()]);
    let mut title = None;
    let mut plies = 0;
    for line in &unit.lines {
        if let LineKind::Command { body, command, .. } = &line.kind {
            match command {
                Command::Title => title = Some(&text[body.clone()]),
                Command::Moves => plies += words(text.as_bytes(), body.clone()).count(),
                _ => {}
            }
        }
    }
    let label = slice(label);
    let name = match (label, title) {
        ("" | "-", Some(t)) if !t.is_empty() => t.chars().take(80).collect(),
        ("" | "-", _) => "game".to_string(),
        (l, _) => l.to_string(),
    };
    let detail = format!("{} · {} plies", winner_name(slice(winner)), plies);
    let end = unit
        .lines
        .iter()
        .rev()
        .find(|l| !matches!(l.kind, LineKind::Blank | LineKind::Comment))
        .map_or(game.span.end, |l| l.span.end);
    vec![Symbol {
        name,
        detail,
        span: game.span.start..end,
        selection: game.content.clone(),
    }]
}

/// A game folds from its `game` line to its last command.
pub fn folds(text: &str) -> Vec<Span> {
    symbols(text).into_iter().map(|s| s.span).collect()
}

pub fn winner_name(winner: &str) -> &'static str {
    match winner {
        "W" => "White wins",
        "B" => "Black wins",
        "D" => "draw",
        "?" => "unfinished",
        _ => "unknown result",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_commands_losslessly() {
        let text = "game W fools_mate extra words\r\n  moves  g2g4 e7e5\t f2f3 \n# c\n\nFoo bar\ntitle  Héllo  ";
        let unit = parse_unit(text);
        assert_eq!(unit.lines.len(), 6);
        let game = &unit.lines[0];
        assert!(game.crlf && game.newline);
        let LineKind::Command {
            command: Command::Game { winner, label, rest },
            ..
        } = &game.kind
        else {
            panic!()
        };
        assert_eq!(&text[winner.clone().unwrap()], "W");
        assert_eq!(&text[label.clone().unwrap()], "fools_mate");
        assert_eq!(&text[rest.clone().unwrap()], "extra words");
        let LineKind::Command {
            command: Command::Moves,
            body,
            ..
        } = &unit.lines[1].kind
        else {
            panic!()
        };
        let moves: Vec<&str> = words(text.as_bytes(), body.clone()).map(|m| &text[m]).collect();
        assert_eq!(moves, ["g2g4", "e7e5", "f2f3"]);
        assert_eq!(unit.lines[2].kind, LineKind::Comment);
        assert_eq!(unit.lines[3].kind, LineKind::Blank);
        assert!(matches!(
            unit.lines[4].kind,
            LineKind::Command {
                command: Command::Unknown,
                ..
            }
        ));
        let LineKind::Command { body, .. } = &unit.lines[5].kind else {
            panic!()
        };
        assert_eq!(&text[body.clone()], "Héllo");
        assert!(!unit.lines[5].newline);
    }

    #[test]
    fn game_lines_are_case_sensitive_whole_words() {
        assert!(is_game_line("game W x"));
        assert!(is_game_line("  game"));
        assert!(!is_game_line("Game W x"));
        assert!(!is_game_line("gamer W x"));
        assert!(!is_game_line("# game"));
    }
}
