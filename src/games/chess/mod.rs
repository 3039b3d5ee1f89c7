//! Chess through shakmaty: FEN with readable errors, UCI and SAN, and text
//! boards for hovers.

use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{
    CastlingMode, Chess, Color, EnPassantMode, File, Move, Position, PositionErrorKinds, Rank, Role, Square,
};

use crate::model::BoardStyle;

pub use shakmaty;

/// Parses a FEN into a legal position, or says in plain words what is wrong.
pub fn parse_fen(text: &str) -> Result<Chess, String> {
    let fen = Fen::from_ascii(text.as_bytes()).map_err(|e| describe_fen_error(text, &e))?;
    fen.into_position::<Chess>(CastlingMode::Standard)
        .map_err(|e| describe_position_error(e.kinds()))
}

fn describe_fen_error(text: &str, err: &shakmaty::fen::ParseFenError) -> String {
    use shakmaty::fen::ParseFenError as E;
    let fields: Vec<&str> = text.split(' ').filter(|f| !f.is_empty()).collect();
    let field = |i: usize| fields.get(i).copied().unwrap_or("");
    match err {
        E::InvalidBoard => format!(
            "the piece placement `{}` is not 8 ranks of 8 squares separated by `/` (pieces: KQRBNPkqrbnp, digits 1-8 for empty squares)",
            field(0)
        ),
        E::InvalidTurn => format!("the side to move `{}` must be `w` or `b`", field(1)),
        E::InvalidCastling => format!("the castling field `{}` must be `-` or letters from KQkq", field(2)),
        E::InvalidEpSquare => format!(
            "the en passant field `{}` must be `-` or a square on rank 3 or 6",
            field(3)
        ),
        E::InvalidHalfmoveClock => format!("the halfmove clock `{}` must be a number", field(4)),
        E::InvalidFullmoves => format!("the fullmove number `{}` must be a positive number", field(5)),
        E::InvalidPocket | E::InvalidRemainingChecks | E::InvalidFen => {
            if fields.len() > 6 {
                format!("a FEN has at most 6 fields, this one has {}", fields.len())
            } else {
                "this is not a FEN (expected `<pieces> <side> <castling> <en passant> <halfmoves> <fullmoves>`)"
                    .to_string()
            }
        }
    }
}

fn describe_position_error(kinds: PositionErrorKinds) -> String {
    const REASONS: [(PositionErrorKinds, &str); 9] = [
        (PositionErrorKinds::EMPTY_BOARD, "the board is empty"),
        (PositionErrorKinds::MISSING_KING, "a king is missing"),
        (PositionErrorKinds::TOO_MANY_KINGS, "a side has more than one king"),
        (
            PositionErrorKinds::PAWNS_ON_BACKRANK,
            "there are pawns on the first or last rank",
        ),
        (
            PositionErrorKinds::INVALID_CASTLING_RIGHTS,
            "the castling rights do not match the kings and rooks",
        ),
        (
            PositionErrorKinds::INVALID_EP_SQUARE,
            "the en passant square is not behind a pawn that just moved two squares",
        ),
        (PositionErrorKinds::OPPOSITE_CHECK, "the side not to move is in check"),
        (
            PositionErrorKinds::IMPOSSIBLE_CHECK,
            "the checkers could not have given this check",
        ),
        (
            PositionErrorKinds::TOO_MUCH_MATERIAL,
            "there is more material than a game can have",
        ),
    ];
    let reasons: Vec<&str> = REASONS
        .iter()
        .filter(|(k, _)| kinds.contains(*k))
        .map(|(_, r)| *r)
        .collect();
    if reasons.is_empty() {
        "the position is not legal".to_string()
    } else {
        format!("illegal position: {}", reasons.join("; "))
    }
}

pub fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

pub fn uci_of(m: Move) -> String {
    m.to_uci(CastlingMode::Standard).to_string()
}

/// SAN with check/mate suffix.
pub fn san_of(pos: &Chess, m: Move) -> String {
    SanPlus::from_move(pos.clone(), m).to_string()
}

/// Why a well-formed UCI move cannot be played here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UciProblem {
    /// Not UCI syntax at all.
    Malformed,
    /// A pawn reaches the last rank but the promotion piece is missing.
    MissingPromotion,
    Illegal,
}

/// Parses and validates a UCI move in `pos`. `0000` (the null move) is
/// illegal in a game record.
pub fn legal_uci(pos: &Chess, text: &str) -> Result<Move, UciProblem> {
    let uci = UciMove::from_ascii(text.as_bytes()).map_err(|_| UciProblem::Malformed)?;
    if matches!(uci, UciMove::Put { .. }) {
        return Err(UciProblem::Illegal);
    }
    match uci.to_move(pos) {
        Ok(m) => Ok(m),
        Err(_) => {
            if let UciMove::Normal {
                from,
                to,
                promotion: None,
            } = uci
            {
                let promoted = UciMove::Normal {
                    from,
                    to,
                    promotion: Some(Role::Queen),
                };
                if promoted.to_move(pos).is_ok() {
                    return Err(UciProblem::MissingPromotion);
                }
            }
            Err(UciProblem::Illegal)
        }
    }
}

pub fn side_name(color: Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// A text board with rank and file coordinates, White at the bottom. The
/// squares of `highlight` (the last move) are bracketed so it reads in any
/// client, including terminal ones without colour.
pub fn board_picture(pos: &Chess, style: BoardStyle, highlight: Option<Move>) -> String {
    let marked = |sq: Square| highlight.is_some_and(|m| m.from() == Some(sq) || m.to() == sq);
    let mut out = String::new();
    for rank in Rank::ALL.iter().rev() {
        out.push_str(&format!("{} ", rank.char()));
        for file in File::ALL {
            let sq = Square::from_coords(file, *rank);
            let glyph = match pos.board().piece_at(sq) {
                Some(piece) => match style {
                    BoardStyle::Letters => piece.char(),
                    BoardStyle::Unicode => unicode_piece(piece.color, piece.role),
                },
                None => match style {
                    BoardStyle::Letters => '.',
                    BoardStyle::Unicode => '·',
                },
            };
            if marked(sq) {
                out.push('[');
                out.push(glyph);
                out.push(']');
            } else {
                out.push(' ');
                out.push(glyph);
                out.push(' ');
            }
        }
        out.push('\n');
    }
    out.push_str("   a  b  c  d  e  f  g  h\n");
    out
}

fn unicode_piece(color: Color, role: Role) -> char {
    let white = ['♙', '♘', '♗', '♖', '♕', '♔'];
    let black = ['♟', '♞', '♝', '♜', '♛', '♚'];
    let i = role as usize - 1;
    match color {
        Color::White => white[i],
        Color::Black => black[i],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::perft;

    #[test]
    fn perft_matches_published_numbers() {
        // Start position and "Kiwipete", from the Chess Programming Wiki's perft results.
        assert_eq!(perft(&Chess::default(), 4), 197_281);
        let kiwipete = parse_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1").unwrap();
        assert_eq!(perft(&kiwipete, 3), 97_862);
    }

    #[test]
    fn fen_errors_name_the_field() {
        let err = parse_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1").unwrap_err();
        assert!(err.contains("side to move `x`"), "{err}");
        let err = parse_fen("8/8/8/8/8/8/8/8 w - - 0 1").unwrap_err();
        assert!(err.contains("empty"), "{err}");
        let err = parse_fen("rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").unwrap_err();
        assert!(err.contains("piece placement"), "{err}");
    }

    #[test]
    fn uci_problems_are_told_apart() {
        let pos = Chess::default();
        assert_eq!(legal_uci(&pos, "e2e5"), Err(UciProblem::Illegal));
        assert_eq!(legal_uci(&pos, "e2x4"), Err(UciProblem::Malformed));
        assert_eq!(legal_uci(&pos, "0000"), Err(UciProblem::Illegal));
        let m = legal_uci(&pos, "g1f3").unwrap();
        assert_eq!(san_of(&pos, m), "Nf3");
        let promo = parse_fen("8/4P3/8/8/8/8/8/k1K5 w - - 0 1").unwrap();
        assert_eq!(legal_uci(&promo, "e7e8"), Err(UciProblem::MissingPromotion));
        assert_eq!(san_of(&promo, legal_uci(&promo, "e7e8q").unwrap()), "e8=Q");
    }

    #[test]
    fn board_picture_has_coordinates_and_marks_last_move() {
        let pos = Chess::default();
        let m = legal_uci(&pos, "e2e4").unwrap();
        let after = pos.play(m).unwrap();
        let pic = board_picture(&after, BoardStyle::Letters, Some(m));
        let lines: Vec<&str> = pic.lines().collect();
        assert_eq!(lines[0], "8  r  n  b  q  k  b  n  r ");
        assert_eq!(lines[4], "4  .  .  .  . [P] .  .  . ");
        assert_eq!(lines[6], "2  P  P  P  P [.] P  P  P ");
        assert_eq!(lines[8], "   a  b  c  d  e  f  g  h");
    }
}
