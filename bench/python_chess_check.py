#!/usr/bin/env python3
"""Validate a SoFGameSet file the way a user would without kibitz: python-chess.

Replays every `moves` line from the game's last `start` / `board <FEN>` with
`Board.push_uci`, which parses each UCI move and rejects illegal ones.
Prints `games N` and `plies N`; exits 1 at the first bad move.

Usage: python_chess_check.py FILE
"""

import sys

import chess


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    games = plies = 0
    board = None
    with open(sys.argv[1], encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            name, _, body = line.strip(" \r\n").partition(" ")
            if name == "game":
                games += 1
                board = None
            elif name == "start":
                board = chess.Board()
            elif name == "board":
                board = chess.Board(body.strip())
            elif name == "moves":
                if board is None:
                    print(f"line {number}: moves without a board", file=sys.stderr)
                    return 1
                for uci in body.split():
                    try:
                        board.push_uci(uci)
                    except ValueError as e:
                        print(f"line {number}: {e}", file=sys.stderr)
                        return 1
                    plies += 1
    print(f"games {games}")
    print(f"plies {plies}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
