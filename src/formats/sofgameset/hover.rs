//! Boards under the cursor, game summaries, and the SAN inlay hints.

use std::ops::ControlFlow;

use shakmaty::{Chess, Move, Position};

use super::replay::{Step, replay_game};
use super::syntax::{Command, LineKind, parse_unit, winner_name};
use crate::games::chess;
use crate::model::{HoverInfo, InlayHint, Settings};

pub fn hover(text: &str, offset: usize, settings: &Settings) -> Option<HoverInfo> {
    let unit = parse_unit(text);
    let (line_index, line) = unit.line_at(offset)?;
    let LineKind::Command { name, body, command } = &line.kind else {
        return None;
    };
    match command {
        Command::Moves => {
            let token =
                super::syntax::words(text.as_bytes(), body.clone()).find(|t| t.start <= offset && offset <= t.end)?;
            let mut found = None;
            replay_game(text, &unit, |step| match step {
                Step::Move {
                    token: t, before, mv, ..
                } if t == token => {
                    found = Some(Ok((before.clone(), mv)));
                    ControlFlow::Break(())
                }
                Step::BadMove { token: t, before, .. } if t == token => {
                    found = Some(Err(before.clone()));
                    ControlFlow::Break(())
                }
                _ => ControlFlow::Continue(()),
            });
            let markdown = match found? {
                Ok((before, mv)) => move_markdown(&before, mv, settings),
                Err(before) => format!(
                    "`{}` cannot be played here. Position before it:\n\n{}",
                    &text[token.clone()],
                    position_markdown(&before, None, settings)
                ),
            };
            Some(HoverInfo { span: token, markdown })
        }
        Command::Start | Command::Board => {
            let mut found = None;
            replay_game(text, &unit, |step| match step {
                Step::Board { line, position } if line == line_index => {
                    found = Some(position.cloned());
                    ControlFlow::Break(())
                }
                _ => ControlFlow::Continue(()),
            });
            let markdown = match found? {
                Ok(pos) => position_markdown(&pos, None, settings),
                Err(why) => format!("Invalid FEN: {why}"),
            };
            Some(HoverInfo {
                span: line.content.clone(),
                markdown,
            })
        }
        Command::Game { winner, label, .. } if name.start <= offset => {
            let mut plies = 0usize;
            let mut last = None;
            let final_pos = replay_game(text, &unit, |step| {
                if let Step::Move { mv, .. } = step {
                    plies += 1;
                    last = Some(mv);
                }
                ControlFlow::Continue(())
            });
            let label = label.as_ref().map_or("-", |l| &text[l.clone()]);
            let result = winner_name(winner.as_ref().map_or("", |w| &text[w.clone()]));
            let mut md = format!("**Game `{label}`** — {result}, {plies} plies replayed\n\n");
            match final_pos {
                Some(pos) => {
                    md.push_str("Final position:\n\n");
                    md.push_str(&position_markdown(&pos, last, settings));
                }
                None => md.push_str("The game cannot be replayed to its end (see its errors)."),
            }
            Some(HoverInfo {
                span: line.content.clone(),
                markdown: md,
            })
        }
        _ => None,
    }
}

fn move_markdown(before: &Chess, mv: Move, settings: &Settings) -> String {
    let san = chess::san_of(before, mv);
    let number = before.fullmoves().get();
    let numbered = match before.turn() {
        shakmaty::Color::White => format!("{number}. {san}"),
        shakmaty::Color::Black => format!("{number}... {san}"),
    };
    let mut after = before.clone();
    after.play_unchecked(mv);
    format!(
        "**{numbered}** (`{}`)\n\n{}",
        chess::uci_of(mv),
        position_markdown(&after, Some(mv), settings)
    )
}

/// The board as a fenced block (readable in terminal clients), then side to
/// move and FEN.
pub fn position_markdown(pos: &Chess, last: Option<Move>, settings: &Settings) -> String {
    format!(
        "```text\n{}```\n{} to move · `{}`",
        chess::board_picture(pos, settings.board_style, last),
        chess::side_name(pos.turn()),
        chess::fen_of(pos)
    )
}

/// The SAN of every playable move, shown after its UCI token.
pub fn inlay_hints(text: &str) -> Vec<InlayHint> {
    let unit = parse_unit(text);
    let mut hints = Vec::new();
    replay_game(text, &unit, |step| {
        if let Step::Move { token, before, mv, .. } = step {
            hints.push(InlayHint {
                offset: token.end,
                label: chess::san_of(before, mv),
            });
        }
        ControlFlow::Continue(())
    });
    hints
}
