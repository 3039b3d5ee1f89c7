//! The floor for `kibitz check`: the least work any SoFGameSet validator
//! must do. Splits the file into lines and replays every `moves` line with
//! shakmaty (parse UCI, check legality, play), single-threaded, with no
//! diagnostics machinery at all.
//!
//! `floor FILE` prints `games N`, `plies N` and `bytes N`; it exits with
//! status 1 at the first move it cannot play.

use kibitz_bench::die;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        die("usage: floor FILE")
    };
    let bytes = std::fs::read(&path).unwrap_or_else(|e| die(format!("{path}: {e}")));
    let (mut games, mut plies) = (0usize, 0usize);
    let mut pos: Option<Chess> = None;
    for (number, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = line.trim_ascii();
        let (name, body) = match line.iter().position(|&b| b == b' ') {
            Some(i) => (&line[..i], line[i + 1..].trim_ascii_start()),
            None => (line, &line[line.len()..]),
        };
        match name {
            b"game" => {
                games += 1;
                pos = None;
            }
            b"start" => pos = Some(Chess::default()),
            b"board" => {
                let fen = Fen::from_ascii(body).unwrap_or_else(|e| die(format!("line {}: {e}", number + 1)));
                pos = Some(
                    fen.into_position(CastlingMode::Standard)
                        .unwrap_or_else(|e| die(format!("line {}: {e}", number + 1))),
                );
            }
            b"moves" => {
                let Some(p) = pos.as_mut() else {
                    die(format!("line {}: moves without a board", number + 1))
                };
                for token in body.split(|&b| b == b' ').filter(|t| !t.is_empty()) {
                    let mv = UciMove::from_ascii(token).ok().and_then(|uci| uci.to_move(p).ok());
                    let Some(mv) = mv else {
                        eprintln!("line {}: cannot play `{}`", number + 1, String::from_utf8_lossy(token));
                        std::process::exit(1);
                    };
                    p.play_unchecked(mv);
                    plies += 1;
                }
            }
            _ => {}
        }
    }
    println!("games {games}");
    println!("plies {plies}");
    println!("bytes {}", bytes.len());
}
