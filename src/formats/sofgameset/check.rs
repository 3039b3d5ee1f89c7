//! Every must/should rule of the SoFGameSet spec. Each rule's code is a
//! constant here; `docs/rules.md` quotes the spec sentence behind it.

use std::ops::ControlFlow;

use super::replay::{Step, replay_game};
use super::syntax::{Command, Line, LineKind, Unit, is_control, parse_unit};
use crate::formats::UnitAnalysis;
use crate::games::chess::{self, UciProblem};
use crate::model::{Diagnostic, Rule, Severity, Span, TextEdit};

const fn rule(code: &'static str, severity: Severity, breaks_syntax: bool) -> Rule {
    Rule {
        code,
        severity,
        breaks_syntax,
    }
}

pub const INVALID_WINNER: Rule = rule("sgs/invalid-winner", Severity::Error, true);
pub const MISSING_LABEL: Rule = rule("sgs/missing-label", Severity::Error, true);
pub const LABEL_CHARSET: Rule = rule("sgs/label-charset", Severity::Warning, false);
pub const LABEL_TOO_LONG: Rule = rule("sgs/label-too-long", Severity::Warning, false);
pub const DUPLICATE_LABEL: Rule = rule("sgs/duplicate-label", Severity::Warning, false);
pub const TITLE_TOO_LONG: Rule = rule("sgs/title-too-long", Severity::Warning, false);
pub const COMMAND_OUTSIDE_GAME: Rule = rule("sgs/command-outside-game", Severity::Error, false);
pub const MOVES_WITHOUT_BOARD: Rule = rule("sgs/moves-without-board", Severity::Error, false);
pub const INVALID_FEN: Rule = rule("sgs/invalid-fen", Severity::Error, true);
pub const MALFORMED_MOVE: Rule = rule("sgs/malformed-move", Severity::Error, true);
pub const ILLEGAL_MOVE: Rule = rule("sgs/illegal-move", Severity::Error, false);
pub const MISSING_PROMOTION: Rule = rule("sgs/missing-promotion", Severity::Error, false);
pub const START_WITH_TEXT: Rule = rule("sgs/start-with-text", Severity::Warning, false);
pub const NUL_CHARACTER: Rule = rule("sgs/nul-character", Severity::Warning, false);
pub const CONTROL_CHARACTER: Rule = rule("sgs/control-character", Severity::Warning, false);
pub const NON_ASCII: Rule = rule("sgs/non-ascii", Severity::Warning, false);
pub const INVALID_UTF8: Rule = rule("sgs/invalid-utf8", Severity::Warning, false);
pub const COMMAND_CASE: Rule = rule("sgs/command-case", Severity::Warning, false);
pub const SPEC_SLIP_COMMAND: Rule = rule("sgs/spec-slip-command", Severity::Warning, false);
pub const NON_CANONICAL_GAME: Rule = rule("sgs/non-canonical-game", Severity::Information, false);

pub const RULES: &[Rule] = &[
    INVALID_WINNER,
    MISSING_LABEL,
    LABEL_CHARSET,
    LABEL_TOO_LONG,
    DUPLICATE_LABEL,
    TITLE_TOO_LONG,
    COMMAND_OUTSIDE_GAME,
    MOVES_WITHOUT_BOARD,
    INVALID_FEN,
    MALFORMED_MOVE,
    ILLEGAL_MOVE,
    MISSING_PROMOTION,
    START_WITH_TEXT,
    NUL_CHARACTER,
    CONTROL_CHARACTER,
    NON_ASCII,
    INVALID_UTF8,
    COMMAND_CASE,
    SPEC_SLIP_COMMAND,
    NON_CANONICAL_GAME,
];

const MAX_LABEL_CHARS: usize = 64;
const MAX_TITLE_CHARS: usize = 4096;

pub fn check_unit(text: &str) -> UnitAnalysis {
    let unit = parse_unit(text);
    let mut out = UnitAnalysis::default();
    let mut diags = Vec::new();
    let mut in_game = false;
    let mut boards = 0usize;
    let mut game_line: Option<&Line> = None;
    for line in &unit.lines {
        // Only non-blank lines vote for the file's line ending: formatting
        // adds and removes blank lines, and must not flip the majority.
        if !matches!(line.kind, LineKind::Blank) {
            if line.crlf {
                out.crlf_lines += 1;
            } else if line.newline {
                out.lf_lines += 1;
            }
        }
        check_characters(text, line, &mut diags);
        let LineKind::Command { name, body, command } = &line.kind else {
            continue;
        };
        let name_text = &text[name.clone()];
        match command {
            Command::Game { winner, label, .. } => {
                in_game = true;
                game_line = Some(line);
                check_game_line(text, line, winner, label, &mut out.key, &mut diags);
            }
            Command::Unknown => check_unknown_command(text, name, &mut diags),
            _ if !in_game => diags.push(Diagnostic::new(
                COMMAND_OUTSIDE_GAME,
                line.content.clone(),
                format!("`{name_text}` before any `game` line: it belongs to no game"),
            )),
            Command::Title => {
                let chars = text[body.clone()].chars().count();
                if chars > MAX_TITLE_CHARS {
                    diags.push(Diagnostic::new(
                        TITLE_TOO_LONG,
                        body.clone(),
                        format!("title is {chars} characters long; it should be at most {MAX_TITLE_CHARS}"),
                    ));
                }
            }
            Command::Start => {
                boards += 1;
                if !body.is_empty() {
                    diags.push(
                        Diagnostic::new(START_WITH_TEXT, body.clone(), "text after `start` is ignored")
                            .with_fix("Remove the text after `start`", vec![edit(name.end..body.end, "")]),
                    );
                }
            }
            Command::Board => boards += 1,
            Command::Moves => {}
        }
    }
    if in_game {
        check_moves(text, &unit, &mut diags);
        if boards != 1
            && let Some(game) = game_line
        {
            let why = if boards == 0 {
                "has no board"
            } else {
                "has more than one board"
            };
            diags.push(Diagnostic::new(
                NON_CANONICAL_GAME,
                game.content.clone(),
                format!("non-canonical game: it {why} (`start` or `board`), so it need not be a valid chess game"),
            ));
        }
    }
    diags.sort_by_key(|d| d.span.start);
    out.syntax_broken = diags.iter().any(|d| d.rule.breaks_syntax);
    out.diagnostics = diags;
    out
}

fn edit(span: Span, new_text: &str) -> TextEdit {
    TextEdit {
        span,
        new_text: new_text.to_string(),
    }
}

fn check_game_line(
    text: &str,
    line: &Line,
    winner: &Option<Span>,
    label: &Option<Span>,
    key: &mut Option<(std::sync::Arc<str>, Span)>,
    diags: &mut Vec<Diagnostic>,
) {
    let Some(winner) = winner else {
        diags.push(Diagnostic::new(
            INVALID_WINNER,
            line.content.clone(),
            "`game` needs a winner (`W`, `B`, `D` or `?`) and a label (`-` for none)",
        ));
        return;
    };
    let winner_text = &text[winner.clone()];
    if !matches!(winner_text, "W" | "B" | "D" | "?") {
        let mut d = Diagnostic::new(
            INVALID_WINNER,
            winner.clone(),
            format!(
                "winner `{winner_text}` must be `W` (White wins), `B` (Black wins), `D` (draw) or `?` (not finished)"
            ),
        );
        if let Some(fixed) = match winner_text {
            "w" | "1-0" => Some("W"),
            "b" | "0-1" => Some("B"),
            "d" | "1/2-1/2" | "=" => Some("D"),
            "*" => Some("?"),
            _ => None,
        } {
            d = d.with_fix(
                format!("Change the winner to `{fixed}`"),
                vec![edit(winner.clone(), fixed)],
            );
        }
        diags.push(d);
    }
    let Some(label) = label else {
        diags.push(
            Diagnostic::new(
                MISSING_LABEL,
                winner.clone(),
                "`game` needs a label after the winner; write `-` for none",
            )
            .with_fix("Add `-` as the label", vec![edit(winner.end..winner.end, " -")]),
        );
        return;
    };
    let label_text = &text[label.clone()];
    if label_text == "-" {
        return;
    }
    let chars = label_text.chars().count();
    if chars > MAX_LABEL_CHARS {
        diags.push(Diagnostic::new(
            LABEL_TOO_LONG,
            label.clone(),
            format!("label is {chars} characters long; it should be at most {MAX_LABEL_CHARS}"),
        ));
    }
    if !label_text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        let fixed: String = label_text
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        diags.push(
            Diagnostic::new(
                LABEL_CHARSET,
                label.clone(),
                format!("label `{label_text}` should use only letters, digits and `_`"),
            )
            .with_fix(
                format!("Rename the label to `{fixed}`"),
                vec![edit(label.clone(), &fixed)],
            ),
        );
    }
    *key = Some((label_text.into(), label.clone()));
}

fn check_unknown_command(text: &str, name: &Span, diags: &mut Vec<Diagnostic>) {
    let name_text = &text[name.clone()];
    let lower = name_text.to_ascii_lowercase();
    if super::syntax::KNOWN_COMMANDS.contains(&lower.as_str()) {
        diags.push(
            Diagnostic::new(
                COMMAND_CASE,
                name.clone(),
                format!("`{name_text}` is not a command (names are case-sensitive), so this line is ignored; did you mean `{lower}`?"),
            )
            .with_fix(format!("Change to `{lower}`"), vec![edit(name.clone(), &lower)]),
        );
        return;
    }
    let (replacement, message) = match name_text {
        "startpos" => (
            "start",
            "`startpos` is not a SoFGameSet command and is ignored: the start position is `start`",
        ),
        "fen" => (
            "board",
            "`fen` is not a SoFGameSet command and is ignored: a FEN board is `board <FEN>`",
        ),
        _ => return,
    };
    diags.push(Diagnostic::new(SPEC_SLIP_COMMAND, name.clone(), message).with_fix(
        format!("Change `{name_text}` to `{replacement}`"),
        vec![edit(name.clone(), replacement)],
    ));
}

/// NUL, other control characters (tab included) and non-ASCII outside titles,
/// labels (their own rule), comments and ignored lines.
fn check_characters(text: &str, line: &Line, diags: &mut Vec<Diagnostic>) {
    let bytes = &text.as_bytes()[line.span.clone()];
    // Branch-free so it vectorises: this runs over every byte of the file.
    let outside_printable_ascii = bytes
        .iter()
        .fold(0u8, |acc, &b| acc | u8::from(b.wrapping_sub(32) > 94));
    if outside_printable_ascii == 0 {
        return;
    }
    // Where non-ASCII text may stand without this rule firing: `None` for
    // the whole line (titles, comments, ignored lines); for a `game` line
    // its label, which `sgs/label-charset` already covers; else nowhere.
    let non_ascii_allowed: Option<Span> = match &line.kind {
        LineKind::Command { command, .. } => match command {
            Command::Title | Command::Unknown => None,
            Command::Game { label, .. } => Some(label.clone().unwrap_or(0..0)),
            _ => Some(0..0),
        },
        _ => None,
    };
    let mut i = line.span.start;
    while i < line.span.end {
        let b = text.as_bytes()[i];
        if is_control(b) {
            let mut end = i + 1;
            while end < line.span.end && text.as_bytes()[end] == b {
                end += 1;
            }
            let (rule, what) = match b {
                0 => (NUL_CHARACTER, "NUL character".to_string()),
                b'\t' => (CONTROL_CHARACTER, "tab character; use spaces".to_string()),
                b'\r' => (CONTROL_CHARACTER, "carriage return inside a line".to_string()),
                _ => (CONTROL_CHARACTER, format!("control character U+{b:04X}")),
            };
            diags.push(Diagnostic::new(
                rule,
                i..end,
                format!("{what} (should not appear in a SoFGameSet file)"),
            ));
            i = end;
        } else if b >= 128 {
            let start = i;
            while i < line.span.end && text.as_bytes()[i] >= 128 {
                i += 1;
            }
            if let Some(allowed) = &non_ascii_allowed
                && !(allowed.start <= start && i <= allowed.end)
            {
                diags.push(Diagnostic::new(
                    NON_ASCII,
                    start..i,
                    format!(
                        "non-ASCII text `{}`: only titles may hold non-ASCII characters",
                        &text[start..i]
                    ),
                ));
            }
        } else {
            i += 1;
        }
    }
}

fn check_moves(text: &str, unit: &Unit, diags: &mut Vec<Diagnostic>) {
    replay_game(text, unit, |step| {
        match step {
            Step::Board {
                line,
                position: Err(why),
            } => {
                let l = &unit.lines[line];
                let span = match &l.kind {
                    LineKind::Command { body, .. } if !body.is_empty() => body.clone(),
                    _ => l.content.clone(),
                };
                diags.push(Diagnostic::new(INVALID_FEN, span, format!("invalid FEN: {why}")));
            }
            Step::Board { .. } | Step::Move { .. } => {}
            Step::NoBoard { line } => diags.push(Diagnostic::new(
                MOVES_WITHOUT_BOARD,
                unit.lines[line].content.clone(),
                "`moves` needs a board before it in its game (`start` or `board <FEN>`)",
            )),
            Step::BadMove {
                token, before, problem, ..
            } => {
                diags.push(bad_move(text, token, before, problem));
            }
        }
        ControlFlow::Continue(())
    });
}

fn bad_move(text: &str, token: Span, before: &shakmaty::Chess, problem: UciProblem) -> Diagnostic {
    // Control characters inside the token would be invisible in the message.
    let mv: String = text[token.clone()]
        .chars()
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect();
    let fen = chess::fen_of(before);
    match problem {
        UciProblem::Malformed => Diagnostic::new(
            MALFORMED_MOVE,
            token,
            format!(
                "`{mv}` is not a UCI move (like `e2e4` or `e7e8q`), in {fen}; the rest of this game is not checked"
            ),
        ),
        UciProblem::MissingPromotion => {
            let mut d = Diagnostic::new(
                MISSING_PROMOTION,
                token.clone(),
                format!("`{mv}` promotes a pawn but names no piece, in {fen}; the rest of this game is not checked"),
            );
            for (piece, name) in [('q', "queen"), ('r', "rook"), ('b', "bishop"), ('n', "knight")] {
                d = d.with_fix(
                    format!("Promote to a {name} ({mv}{piece})"),
                    vec![edit(token.end..token.end, &piece.to_string())],
                );
            }
            d
        }
        UciProblem::Illegal => Diagnostic::new(
            ILLEGAL_MOVE,
            token,
            format!("illegal move `{mv}` in {fen}; the rest of this game is not checked"),
        ),
    }
}

/// The duplicate-label warning, with a fix that renames to the first free `<label>_<n>`.
pub fn duplicate_label(label: &str, span: Span, first: Span, is_taken: &dyn Fn(&str) -> bool) -> Diagnostic {
    let fresh = (2..)
        .map(|n| format!("{label}_{n}"))
        .find(|l| !is_taken(l))
        .unwrap_or_default();
    let mut d = Diagnostic::new(
        DUPLICATE_LABEL,
        span.clone(),
        format!("label `{label}` is already used by an earlier game; labels should identify games uniquely"),
    )
    .with_fix(format!("Rename to `{fresh}`"), vec![edit(span, &fresh)]);
    d.related.push(crate::model::Related {
        span: first,
        message: format!("`{label}` first used here"),
    });
    d
}

pub fn invalid_utf8(span: Span) -> Diagnostic {
    Diagnostic::new(
        INVALID_UTF8,
        span,
        "bytes that are not valid UTF-8 (shown as �); the file should be UTF-8",
    )
}
