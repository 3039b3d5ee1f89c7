//! Writes a canonical SoFGameSet file of random legal chess games.
//!
//! `gen --seed S --out PATH (--games N | --max-bytes B)`
//!
//! Each game picks a target length uniformly in 40..=120 plies and plays
//! uniformly random legal moves from the start position, stopping early at
//! mate or stalemate. Same seed and options, byte-identical file. With
//! `--max-bytes`, games are written until the next one would push the file
//! past B bytes. The file is written beside PATH and renamed into place, so
//! an interrupted run never leaves a truncated file that looks cached.

use std::fmt::Write as _;
use std::io::Write as _;

use kibitz_bench::{Args, SplitMix64, die};
use shakmaty::{CastlingMode, Chess, Color, KnownOutcome, Position};

const MIN_PLIES: usize = 40;
const MAX_PLIES: usize = 120;

fn main() {
    let args = Args::from_env();
    let run = || -> Result<(), String> {
        let seed: u64 = args.number("seed", 1)?;
        let games: usize = args.number("games", usize::MAX)?;
        let max_bytes: usize = args.number("max-bytes", usize::MAX)?;
        if games == usize::MAX && max_bytes == usize::MAX {
            return Err("give --games N or --max-bytes B".into());
        }
        let out = args.path("out")?;
        let tmp = out.with_extension("sgs.tmp");
        let file = std::fs::File::create(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
        let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
        let mut rng = SplitMix64::new(seed);
        let (mut written, mut plies, mut count) = (0usize, 0usize, 0usize);
        let mut game = String::new();
        while count < games {
            let n = random_game(&mut rng, count + 1, seed, &mut game);
            let separator = usize::from(count > 0); // the blank line before every game but the first
            if written + separator + game.len() > max_bytes {
                break;
            }
            if separator == 1 {
                w.write_all(b"\n").map_err(|e| e.to_string())?;
            }
            w.write_all(game.as_bytes())
                .map_err(|e| format!("{}: {e}", tmp.display()))?;
            written += separator + game.len();
            plies += n;
            count += 1;
        }
        w.flush().map_err(|e| format!("{}: {e}", tmp.display()))?;
        drop(w);
        std::fs::rename(&tmp, &out).map_err(|e| format!("{}: {e}", out.display()))?;
        eprintln!("wrote {}: {count} games, {plies} plies, {written} bytes", out.display());
        Ok(())
    };
    if let Err(e) = run() {
        die(e);
    }
}

/// Fills `out` with one game (ending in a newline) and returns its plies.
fn random_game(rng: &mut SplitMix64, number: usize, seed: u64, out: &mut String) -> usize {
    out.clear();
    let target = MIN_PLIES + rng.below(MAX_PLIES - MIN_PLIES + 1);
    let mut pos = Chess::default();
    let mut moves = String::with_capacity(target * 5);
    let mut plies = 0;
    while plies < target {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break; // mate or stalemate
        }
        let mv = legal[rng.below(legal.len())];
        moves.push(' ');
        let _ = write!(moves, "{}", mv.to_uci(CastlingMode::Standard));
        pos.play_unchecked(mv);
        plies += 1;
    }
    // Decided games get their real result; the rest a random one, so every
    // winner value appears.
    let winner = match pos.outcome().known() {
        Some(KnownOutcome::Decisive { winner: Color::White }) => 'W',
        Some(KnownOutcome::Decisive { winner: Color::Black }) => 'B',
        Some(KnownOutcome::Draw) => 'D',
        None => ['W', 'B', 'D', '?'][rng.below(4)],
    };
    let _ = writeln!(out, "game {winner} g{number:06}");
    if rng.below(5) == 0 {
        let _ = writeln!(out, "title Random game {number} (seed {seed})");
    }
    out.push_str("start\n");
    if plies > 0 {
        let _ = writeln!(out, "moves{moves}");
    }
    plies
}
