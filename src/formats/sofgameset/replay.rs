//! Replays the boards and moves of one game. Shared by the checks (every
//! move), hover and completion (up to the cursor) and inlay hints.

use std::ops::ControlFlow;

use shakmaty::{Chess, Move, Position};

use super::syntax::{Command, LineKind, Unit, words};
use crate::games::chess::{self, UciProblem};
use crate::model::Span;

pub enum Step<'a> {
    /// A `start` or `board` line was read; `Err` holds why its FEN is invalid.
    Board {
        line: usize,
        position: Result<&'a Chess, String>,
    },
    /// A legal move, about to be played from `before`.
    Move {
        line: usize,
        token: Span,
        before: &'a Chess,
        mv: Move,
    },
    /// A move that cannot be played; the game is not replayed further until
    /// the next board.
    BadMove {
        line: usize,
        token: Span,
        before: &'a Chess,
        problem: UciProblem,
    },
    /// A `moves` line with no board before it in its game.
    NoBoard { line: usize },
}

/// Walks the unit's game in order, calling `visit` for each step, and
/// returns the position reached when the walk ended (`None` if there is no
/// playable position there). Lines before the unit's `game` line are not
/// part of any game and are skipped.
pub fn replay_game(text: &str, unit: &Unit, mut visit: impl FnMut(Step<'_>) -> ControlFlow<()>) -> Option<Chess> {
    let mut in_game = false;
    let mut has_board = false;
    let mut position: Option<Chess> = None;
    for (line_index, line) in unit.lines.iter().enumerate() {
        let LineKind::Command { body, command, .. } = &line.kind else {
            continue;
        };
        match command {
            Command::Game { .. } => in_game = true,
            _ if !in_game => {}
            Command::Start | Command::Board => {
                has_board = true;
                let parsed = if matches!(command, Command::Start) {
                    Ok(Chess::default())
                } else if body.is_empty() {
                    Err("`board` needs a FEN".to_string())
                } else {
                    chess::parse_fen(&text[body.clone()])
                };
                let flow = match &parsed {
                    Ok(pos) => visit(Step::Board {
                        line: line_index,
                        position: Ok(pos),
                    }),
                    Err(why) => visit(Step::Board {
                        line: line_index,
                        position: Err(why.clone()),
                    }),
                };
                if flow.is_break() {
                    return position;
                }
                position = parsed.ok();
            }
            Command::Moves => {
                if !has_board {
                    if visit(Step::NoBoard { line: line_index }).is_break() {
                        return None;
                    }
                    continue;
                }
                for token in words(text.as_bytes(), body.clone()) {
                    let Some(pos) = position.as_mut() else { break };
                    match chess::legal_uci(pos, &text[token.clone()]) {
                        Ok(mv) => {
                            let flow = visit(Step::Move {
                                line: line_index,
                                token: token.clone(),
                                before: pos,
                                mv,
                            });
                            if flow.is_break() {
                                return position;
                            }
                            pos.play_unchecked(mv);
                        }
                        Err(problem) => {
                            let flow = visit(Step::BadMove {
                                line: line_index,
                                token: token.clone(),
                                before: pos,
                                problem,
                            });
                            if flow.is_break() {
                                return position;
                            }
                            position = None;
                        }
                    }
                }
            }
            Command::Title | Command::Unknown => {}
        }
    }
    position
}
