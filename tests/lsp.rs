//! End-to-end tests of `kibitz lsp`: the real binary, spoken to over stdio
//! with Content-Length framed JSON-RPC (client in `support/lsp.rs`).

mod support;

use serde_json::{Value, json};
use shakmaty::{CastlingMode, Chess, Position};
use support::lsp::{LspClient, initialize_params};
use support::{Encoding, TempDir, apply_edits, range_offsets, range_tuple};

const ERROR: u64 = 1;
const WARNING: u64 = 2;
const INFORMATION: u64 = 3;

/// The 20 legal moves of the initial position, with their SAN.
const START_MOVES: [(&str, &str); 20] = [
    ("a2a3", "a3"),
    ("a2a4", "a4"),
    ("b2b3", "b3"),
    ("b2b4", "b4"),
    ("c2c3", "c3"),
    ("c2c4", "c4"),
    ("d2d3", "d3"),
    ("d2d4", "d4"),
    ("e2e3", "e3"),
    ("e2e4", "e4"),
    ("f2f3", "f3"),
    ("f2f4", "f4"),
    ("g2g3", "g3"),
    ("g2g4", "g4"),
    ("h2h3", "h3"),
    ("h2h4", "h4"),
    ("b1a3", "Na3"),
    ("b1c3", "Nc3"),
    ("g1f3", "Nf3"),
    ("g1h3", "Nh3"),
];

fn code(d: &Value) -> &str {
    d["code"]
        .as_str()
        .unwrap_or_else(|| panic!("diagnostic without a string code: {d}"))
}

/// `(code, range)` of each diagnostic, sorted, for whole-set comparisons.
fn summary(diags: &[Value]) -> Vec<(String, [u64; 4])> {
    let mut out: Vec<_> = diags
        .iter()
        .map(|d| (code(d).to_string(), range_tuple(&d["range"])))
        .collect();
    out.sort();
    out
}

fn find<'a>(diags: &'a [Value], wanted: &str) -> &'a Value {
    diags
        .iter()
        .find(|d| code(d) == wanted)
        .unwrap_or_else(|| panic!("no {wanted} diagnostic in {diags:#?}"))
}

/// Sorted `(label, detail)` of completion items, checking each replaces `replace`.
fn completion_moves(result: &Value, replace: [u64; 4]) -> Vec<(String, String)> {
    assert_eq!(result["isIncomplete"], false, "{result}");
    let items = result["items"]
        .as_array()
        .unwrap_or_else(|| panic!("completion is not a list: {result}"));
    let mut out: Vec<(String, String)> = items
        .iter()
        .map(|item| {
            assert_eq!(item["kind"], 12, "moves complete as values: {item}");
            assert_eq!(range_tuple(&item["textEdit"]["range"]), replace, "{item}");
            assert_eq!(item["textEdit"]["newText"], item["label"], "{item}");
            (
                item["label"].as_str().unwrap().to_string(),
                item["detail"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

fn sorted(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut out: Vec<_> = pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    out.sort();
    out
}

fn formatting(client: &mut LspClient, uri: &str) -> Vec<Value> {
    let result = client.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": uri}, "options": {"tabSize": 4, "insertSpaces": true}}),
    );
    result
        .as_array()
        .cloned()
        .unwrap_or_else(|| panic!("formatting returned {result}"))
}

fn code_actions(client: &mut LspClient, uri: &str, range: [u64; 4], diagnostics: &[Value]) -> Vec<Value> {
    let [l1, c1, l2, c2] = range;
    let result = client.request(
        "textDocument/codeAction",
        json!({
            "textDocument": {"uri": uri},
            "range": {"start": {"line": l1, "character": c1}, "end": {"line": l2, "character": c2}},
            "context": {"diagnostics": diagnostics},
        }),
    );
    result
        .as_array()
        .cloned()
        .unwrap_or_else(|| panic!("codeAction returned {result}"))
}

/// The edits of a code action for `uri` (the server uses `changes`).
fn action_edits<'a>(action: &'a Value, uri: &str) -> &'a [Value] {
    assert_eq!(action["kind"], "quickfix", "{action}");
    action["edit"]["changes"][uri]
        .as_array()
        .unwrap_or_else(|| panic!("no edits for {uri} in {action}"))
}

#[test]
fn full_session_from_initialize_to_exit() {
    let (mut client, init) = LspClient::start(&[]);
    assert_eq!(init["serverInfo"]["name"], "kibitz");
    let caps = &init["capabilities"];
    assert_eq!(caps["textDocumentSync"], 2, "incremental sync");
    assert_eq!(caps["hoverProvider"], true);
    assert_eq!(caps["documentFormattingProvider"], true);
    assert_eq!(caps["completionProvider"]["triggerCharacters"], json!([" "]));

    let uri = "file:///session/game.sgs";
    let text = "game W g1\nstart\nmoves e2e4 e7e5 g1e5\n";
    let diags = client.open(uri, text);
    assert_eq!(diags.len(), 1, "{diags:#?}");
    let d = &diags[0];
    assert_eq!(code(d), "sgs/illegal-move");
    assert_eq!(d["severity"], ERROR);
    assert_eq!(d["source"], "kibitz");
    assert_eq!(range_tuple(&d["range"]), [2, 16, 2, 20], "the range covers `g1e5`");
    let message = d["message"].as_str().unwrap();
    assert!(
        message.contains("g1e5") && message.contains("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"),
        "{message}"
    );

    // Fix the knight move: the diagnostics for version 2 are empty.
    client.change(uri, 2, [2, 16, 2, 20], "g1f3");
    assert_eq!(client.diagnostics(uri, 2), Vec::<Value>::new());
    let text = "game W g1\nstart\nmoves e2e4 e7e5 g1f3\n";

    // Hover on the fixed move: the board after it, its SAN and the FEN.
    let hover = client.at("textDocument/hover", uri, 2, 18);
    assert_eq!(hover["contents"]["kind"], "markdown");
    assert_eq!(range_tuple(&hover["range"]), [2, 16, 2, 20]);
    let md = hover["contents"]["value"].as_str().unwrap();
    assert!(md.contains("2. Nf3"), "move number and SAN: {md}");
    assert!(md.contains("`g1f3`"), "{md}");
    assert!(
        md.contains("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"),
        "FEN after the move: {md}"
    );
    assert!(md.contains("   a  b  c  d  e  f  g  h"), "file coordinates: {md}");
    assert!(
        md.contains("\n3  ·  ·  ·  ·  · [♘] ·  · \n"),
        "rank 3 with the knight marked: {md}"
    );
    assert!(
        md.contains("\n1  ♖  ♘  ♗  ♕  ♔  ♗ [·] ♖ \n"),
        "rank 1 with g1 marked empty: {md}"
    );
    assert!(md.contains("Black to move"), "{md}");

    // Completion at the start of a new `moves` line: the 20 opening moves.
    client.change(uri, 3, [3, 0, 3, 0], "game W g2\nstart\nmoves ");
    client.diagnostics(uri, 3);
    let result = client.at("textDocument/completion", uri, 5, 6);
    assert_eq!(completion_moves(&result, [5, 6, 5, 6]), sorted(&START_MOVES));

    // Formatting a messy copy gives the canonical text.
    let messy = format!("{text}game W g2\n\n   start   \nmoves    e2e4     e7e5  \n");
    client.change_full(uri, 4, &messy);
    client.diagnostics(uri, 4);
    let edits = formatting(&mut client, uri);
    assert!(!edits.is_empty());
    assert_eq!(
        apply_edits(&messy, &edits, client.encoding),
        "game W g1\nstart\nmoves e2e4 e7e5 g1f3\n\ngame W g2\nstart\nmoves e2e4 e7e5\n"
    );

    let status = client.shutdown_and_exit();
    assert!(status.success(), "exit status after shutdown + exit: {status}");
}

#[test]
fn position_encoding_is_negotiated() {
    let (mut client, init) = LspClient::start(&["utf-8", "utf-16"]);
    assert_eq!(init["capabilities"]["positionEncoding"], "utf-8");
    assert_eq!(client.encoding, Encoding::Utf8);
    client.shutdown_and_exit();

    let (mut client, init) = LspClient::start(&["utf-16"]);
    assert_eq!(init["capabilities"]["positionEncoding"], "utf-16");
    client.shutdown_and_exit();

    // A client that offers nothing gets the LSP default.
    let (mut client, init) = LspClient::start(&[]);
    let chosen = &init["capabilities"]["positionEncoding"];
    assert!(chosen == "utf-16" || chosen.is_null(), "got {chosen}");
    assert_eq!(client.encoding, Encoding::Utf16);
    client.shutdown_and_exit();
}

/// A title with non-ASCII text and an astral emoji, a tab after the emoji,
/// an illegal move, and a non-ASCII label: every column in `enc` units.
fn columns_after_non_ascii(offered: &[&str], enc: Encoding) {
    let (mut client, _) = LspClient::start(offered);
    assert_eq!(client.encoding, enc);
    let uri = "file:///columns/emoji.sgs";
    let text = "game W emoji\ntitle Café ♟ 😀\tend\nstart\nmoves e2e4 e7e5 g1e5\ngame W é_x\nstart\n";
    let diags = client.open(uri, text);
    let (tab_start, tab_end, label_end) = match enc {
        // "title " 6 + "Café" 5 + " " + "♟" 3 + " " + "😀" 4 bytes.
        Encoding::Utf8 => (20, 21, 11),
        // "title " 6 + "Café" 4 + " " + "♟" 1 + " " + "😀" 2 code units.
        Encoding::Utf16 => (15, 16, 10),
    };
    assert_eq!(
        summary(&diags),
        vec![
            ("sgs/control-character".to_string(), [1, tab_start, 1, tab_end]),
            ("sgs/illegal-move".to_string(), [3, 16, 3, 20]),
            ("sgs/label-charset".to_string(), [4, 7, 4, label_end]),
        ],
        "{diags:#?}"
    );
    let tab = find(&diags, "sgs/control-character");
    assert_eq!(tab["severity"], WARNING);
    let (start, end) = range_offsets(text, &tab["range"], enc);
    assert_eq!(&text[start..end], "\t");

    // Positions sent by the client are read in the same units: a code action
    // at the label renames exactly the label.
    let label = find(&diags, "sgs/label-charset").clone();
    let actions = code_actions(&mut client, uri, range_tuple(&label["range"]), &[label]);
    assert_eq!(actions.len(), 1, "{actions:#?}");
    let fixed = apply_edits(text, action_edits(&actions[0], uri), enc);
    assert_eq!(fixed, text.replace("é_x", "__x"));

    // Hover on the word right after the emoji-bearing line still works.
    let hover = client.at("textDocument/hover", uri, 3, 7);
    assert_eq!(range_tuple(&hover["range"]), [3, 6, 3, 10]);
    client.shutdown_and_exit();
}

#[test]
fn columns_after_non_ascii_in_utf8() {
    columns_after_non_ascii(&["utf-8", "utf-16"], Encoding::Utf8);
}

#[test]
fn columns_after_non_ascii_in_utf16() {
    columns_after_non_ascii(&[], Encoding::Utf16);
}

#[test]
fn completion_mid_line_and_mid_token() {
    let (mut client, _) = LspClient::start(&[]);
    let uri = "file:///completion/mid.sgs";
    let text = "game W mid\nstart\nmoves e2e4  e7e5 g1f3\n";
    assert_eq!(client.open(uri, text), Vec::<Value>::new());

    // In the gap between `e2e4` and `e7e5`: Black's replies to 1. e4.
    let result = client.at("textDocument/completion", uri, 2, 11);
    let moves = completion_moves(&result, [2, 11, 2, 11]);
    let after_e4 = play(&Chess::default(), "e2e4");
    assert_eq!(moves.len(), 20);
    let labels: Vec<String> = moves.iter().map(|(l, _)| l.clone()).collect();
    assert_eq!(labels, sorted_uci(&after_e4));
    assert!(moves.contains(&("g8f6".to_string(), "Nf6".to_string())));
    assert!(moves.contains(&("e7e5".to_string(), "e5".to_string())));

    // Inside `g1f3` (after `g1`): White's moves after 1. e4 e5, replacing the whole token.
    let result = client.at("textDocument/completion", uri, 2, 19);
    let moves = completion_moves(&result, [2, 17, 2, 21]);
    let after_e5 = play(&after_e4, "e7e5");
    let labels: Vec<String> = moves.iter().map(|(l, _)| l.clone()).collect();
    assert_eq!(labels, sorted_uci(&after_e5));
    assert_eq!(labels.len(), 29);
    assert!(moves.contains(&("g1f3".to_string(), "Nf3".to_string())));
    assert!(moves.contains(&("f1b5".to_string(), "Bb5".to_string())));

    // At the end of the line, after a space: Black's moves after 2. Nf3.
    client.change(uri, 2, [2, 21, 2, 21], " ");
    client.diagnostics(uri, 2);
    let result = client.at("textDocument/completion", uri, 2, 22);
    let moves = completion_moves(&result, [2, 22, 2, 22]);
    assert!(moves.contains(&("b8c6".to_string(), "Nc6".to_string())), "{moves:?}");
    assert!(
        !moves.iter().any(|(l, _)| l == "g1f3"),
        "White's moves offered on Black's turn: {moves:?}"
    );
    client.shutdown_and_exit();
}

/// The legal moves of `pos` in UCI, sorted: computed by shakmaty directly, not through kibitz.
fn sorted_uci(pos: &Chess) -> Vec<String> {
    let mut out: Vec<String> = pos
        .legal_moves()
        .iter()
        .map(|m| m.to_uci(CastlingMode::Standard).to_string())
        .collect();
    out.sort();
    out
}

fn play(pos: &Chess, uci: &str) -> Chess {
    let mv = shakmaty::uci::UciMove::from_ascii(uci.as_bytes())
        .unwrap()
        .to_move(pos)
        .unwrap();
    pos.clone().play(mv).unwrap()
}

#[test]
fn completion_of_commands_winners_and_labels() {
    let (mut client, _) = LspClient::start(&[]);
    let uri = "file:///completion/commands.sgs";
    assert_eq!(client.open(uri, "game W a\nstart\n\nmoves e2e4\n"), Vec::<Value>::new());
    let labels = |result: &Value| -> Vec<(String, [u64; 4])> {
        result["items"]
            .as_array()
            .expect("a completion list")
            .iter()
            .map(|i| {
                (
                    i["label"].as_str().unwrap().to_string(),
                    range_tuple(&i["textEdit"]["range"]),
                )
            })
            .collect()
    };
    let on_empty_line = labels(&client.at("textDocument/completion", uri, 2, 0));
    let names: Vec<&str> = on_empty_line.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(names, ["game", "title", "start", "board", "moves"]);
    assert!(on_empty_line.iter().all(|(_, r)| *r == [2, 0, 2, 0]));
    // Inside a command name, the whole name is replaced.
    let in_name = labels(&client.at("textDocument/completion", uri, 3, 2));
    assert!(in_name.iter().all(|(_, r)| *r == [3, 0, 3, 5]), "{in_name:?}");
    let winners = labels(&client.at("textDocument/completion", uri, 0, 5));
    assert_eq!(
        winners.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>(),
        ["W", "B", "D", "?"]
    );
    assert!(winners.iter().all(|(_, r)| *r == [0, 5, 0, 6]), "{winners:?}");
    let label = labels(&client.at("textDocument/completion", uri, 0, 7));
    assert_eq!(label, vec![("-".to_string(), [0, 7, 0, 8])]);
    client.shutdown_and_exit();
}

#[test]
fn hover_on_boards_and_game_lines() {
    let (mut client, _) = LspClient::start(&[]);
    let uri = "file:///hover/lines.sgs";
    let text = "game W a\n  start\nmoves e2e4 e7e5\ngame D c\nboard 8/8/8/8/8/8/8/8 w - - 0 1\nmoves e2e4\n";
    let diags = client.open(uri, text);
    assert_eq!(summary(&diags), vec![("sgs/invalid-fen".to_string(), [4, 6, 4, 31])]);

    let start = client.at("textDocument/hover", uri, 1, 3);
    assert_eq!(range_tuple(&start["range"]), [1, 2, 1, 7]);
    let md = start["contents"]["value"].as_str().unwrap();
    assert!(
        md.contains("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1") && md.contains("White to move"),
        "{md}"
    );

    let game = client.at("textDocument/hover", uri, 0, 1);
    let md = game["contents"]["value"].as_str().unwrap();
    assert!(md.contains("White wins, 2 plies"), "{md}");
    assert!(
        md.contains("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"),
        "final position: {md}"
    );

    let board = client.at("textDocument/hover", uri, 4, 8);
    let md = board["contents"]["value"].as_str().unwrap();
    assert!(md.starts_with("Invalid FEN") && md.contains("empty"), "{md}");
    // No position to play from: nothing to hover on the move, nothing to complete.
    assert_eq!(client.at("textDocument/hover", uri, 5, 7), Value::Null);
    assert_eq!(client.at("textDocument/completion", uri, 5, 10)["items"], json!([]));
    client.shutdown_and_exit();
}

#[test]
fn several_changes_in_one_notification_apply_in_order() {
    let (mut client, _) = LspClient::start(&[]);
    let uri = "file:///changes/multi.sgs";
    assert_eq!(
        client.open(uri, "game W a\nstart\nmoves e2e4 e7e5\n"),
        Vec::<Value>::new()
    );
    let change = |range: [u64; 4], text: &str| json!({"range": {"start": {"line": range[0], "character": range[1]}, "end": {"line": range[2], "character": range[3]}}, "text": text});
    // Each change's range is in the text left by the changes before it.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            change([0, 0, 0, 0], "# added\n"),
            change([3, 11, 3, 15], "e7e6"),
            change([3, 15, 3, 15], " e1e3"),
        ]}),
    );
    let diags = client.diagnostics(uri, 2);
    assert_eq!(
        summary(&diags),
        vec![("sgs/illegal-move".to_string(), [3, 16, 3, 20])],
        "{diags:#?}"
    );
    let md = client.at("textDocument/hover", uri, 3, 12)["contents"]["value"].clone();
    assert!(md.as_str().unwrap().contains("1... e6"), "{md}");
    client.shutdown_and_exit();
}

#[test]
fn range_formatting_touches_only_the_games_in_range() {
    let (mut client, _) = LspClient::start(&[]);
    let enc = client.encoding;
    let uri = "file:///fmt/range.sgs";
    let text = "game   W a\n   start  \ngame B   b\nstart\nmoves   d2d4\ngame  D c\nstart\n";
    client.open(uri, text);
    let edits = client.request(
        "textDocument/rangeFormatting",
        json!({
            "textDocument": {"uri": uri},
            "range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 2}},
            "options": {"tabSize": 4, "insertSpaces": true},
        }),
    );
    let edits = edits.as_array().expect("edits");
    assert_eq!(
        apply_edits(text, edits, enc),
        "game   W a\n   start  \ngame B b\nstart\nmoves d2d4\n\ngame  D c\nstart\n"
    );
    client.shutdown_and_exit();
}

#[test]
fn rapid_changes_end_in_the_final_version_only() {
    let (mut client, _) = LspClient::start(&[]);
    let uri = "file:///rapid/typing.sgs";
    assert_eq!(client.open(uri, "game W typing\nstart\nmoves \n"), Vec::<Value>::new());
    // Ten moves of a Ruy Lopez, the last one illegal (the f8 bishop cannot go to f6).
    let typed = "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8f6 ";
    assert_eq!(typed.len(), 50);
    for (i, c) in typed.chars().enumerate() {
        let column = 6 + i as u64;
        client.change(uri, 2 + i as i64, [2, column, 2, column], &c.to_string());
    }
    let last = 1 + typed.len() as i64;
    let diags = client.diagnostics(uri, last);
    assert_eq!(
        summary(&diags),
        vec![("sgs/illegal-move".to_string(), [2, 51, 2, 55])],
        "{diags:#?}"
    );
    // The server saw every keystroke: its text is the typed one.
    let hover = client.at("textDocument/hover", uri, 2, 47);
    assert!(
        hover["contents"]["value"].as_str().unwrap().contains("O-O"),
        "e1g1 castles: {hover}"
    );

    // Let anything still in flight arrive, then check the order of what was published.
    client.drain(std::time::Duration::from_millis(300));
    let versions: Vec<i64> = client
        .history
        .iter()
        .filter(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri)
        .map(|m| m["params"]["version"].as_i64().expect("diagnostics carry the version"))
        .collect();
    assert!(
        versions.windows(2).all(|w| w[0] <= w[1]),
        "a stale version was published after a newer one: {versions:?}"
    );
    assert_eq!(versions.last(), Some(&last), "{versions:?}");
    assert!(client.shutdown_and_exit().success());
}

#[test]
fn document_symbols_folding_and_semantic_tokens() {
    let (mut client, init) = LspClient::start(&[]);
    let legend: Vec<String> = init["capabilities"]["semanticTokensProvider"]["legend"]["tokenTypes"]
        .as_array()
        .expect("a token legend")
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect();
    let uri = "file:///outline/set.sgs";
    let text = "# comment\ngame W fools_mate\nstart\nmoves g2g4 e7e5 f2f3 d8h4\n\n\
                game D -\ntitle A draw\nboard 7k/4Q1p1/8/8/8/8/rrp5/2K5 w - - 0 1\nmoves e7e8 h8h7\n\ngame ? -\n";
    let diags = client.open(uri, text);
    assert_eq!(
        summary(&diags),
        vec![("sgs/non-canonical-game".to_string(), [10, 0, 10, 8])]
    );
    assert_eq!(diags[0]["severity"], INFORMATION);

    let symbols = client.request("textDocument/documentSymbol", json!({"textDocument": {"uri": uri}}));
    let symbols = symbols.as_array().expect("nested symbols");
    let got: Vec<(&str, &str, [u64; 4], [u64; 4])> = symbols
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap(),
                s["detail"].as_str().unwrap(),
                range_tuple(&s["range"]),
                range_tuple(&s["selectionRange"]),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("fools_mate", "White wins · 4 plies", [1, 0, 3, 25], [1, 0, 1, 17]),
            ("A draw", "draw · 2 plies", [5, 0, 8, 15], [5, 0, 5, 8]),
            ("game", "unfinished · 0 plies", [10, 0, 10, 8], [10, 0, 10, 8]),
        ]
    );

    let folds = client.request("textDocument/foldingRange", json!({"textDocument": {"uri": uri}}));
    let folds: Vec<(u64, u64)> = folds
        .as_array()
        .expect("folding ranges")
        .iter()
        .map(|f| (f["startLine"].as_u64().unwrap(), f["endLine"].as_u64().unwrap()))
        .collect();
    assert_eq!(folds, vec![(1, 3), (5, 8)], "one fold per multi-line game");

    let tokens = client.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": uri}}),
    );
    let data: Vec<u64> = tokens["data"]
        .as_array()
        .expect("token data")
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect();
    assert!(!data.is_empty());
    assert_eq!(data.len() % 5, 0);
    // Decode the relative quintuples into (line, column, length, type).
    let (mut line, mut col) = (0, 0);
    let mut decoded = Vec::new();
    for t in data.chunks(5) {
        if t[0] > 0 {
            col = 0;
        }
        line += t[0];
        col += t[1];
        decoded.push((line, col, t[2], legend[t[3] as usize].as_str()));
    }
    for expected in [
        (0, 0, 9, "comment"),
        (1, 0, 4, "keyword"),
        (1, 5, 1, "enumMember"),
        (1, 7, 10, "variable"),
        (3, 0, 5, "keyword"),
        (3, 21, 4, "function"),
        (6, 6, 6, "string"),
    ] {
        assert!(decoded.contains(&expected), "missing token {expected:?} in {decoded:?}");
    }
    client.shutdown_and_exit();
}

#[test]
fn code_actions_fix_promotion_startpos_and_duplicate_labels() {
    let (mut client, _) = LspClient::start(&[]);
    let enc = client.encoding;

    let uri = "file:///actions/promotion.sgs";
    let text = "game W promo\nboard 8/4P3/8/8/8/8/8/k1K5 w - - 0 1\nmoves e7e8\n";
    let diags = client.open(uri, text);
    let promo = find(&diags, "sgs/missing-promotion").clone();
    assert_eq!(range_tuple(&promo["range"]), [2, 6, 2, 10]);
    let actions = code_actions(&mut client, uri, [2, 7, 2, 7], std::slice::from_ref(&promo));
    assert_eq!(actions.len(), 4, "{actions:#?}");
    let mut results = Vec::new();
    for action in &actions {
        assert_eq!(action["diagnostics"][0]["code"], "sgs/missing-promotion");
        assert_ne!(action["isPreferred"], true, "no single promotion is preferred");
        let edits = action_edits(action, uri);
        assert_eq!(edits.len(), 1);
        assert_eq!(range_tuple(&edits[0]["range"]), [2, 10, 2, 10]);
        let fixed = apply_edits(text, edits, enc);
        let line = fixed.lines().nth(2).unwrap().to_string();
        assert!(
            action["title"].as_str().unwrap().contains(&line[6..]),
            "title names the move: {action}"
        );
        results.push(line);
    }
    results.sort();
    assert_eq!(results, ["moves e7e8b", "moves e7e8n", "moves e7e8q", "moves e7e8r"]);

    let uri = "file:///actions/startpos.sgs";
    let text = "game W s\nstartpos\nmoves e2e4\n";
    let diags = client.open(uri, text);
    assert_eq!(
        summary(&diags),
        vec![
            ("sgs/moves-without-board".to_string(), [2, 0, 2, 10]),
            ("sgs/non-canonical-game".to_string(), [0, 0, 0, 8]),
            ("sgs/spec-slip-command".to_string(), [1, 0, 1, 8]),
        ]
    );
    assert_eq!(find(&diags, "sgs/spec-slip-command")["severity"], WARNING);
    assert_eq!(find(&diags, "sgs/moves-without-board")["severity"], ERROR);
    let actions = code_actions(&mut client, uri, [1, 0, 1, 8], &diags);
    assert_eq!(actions.len(), 1, "{actions:#?}");
    assert_eq!(actions[0]["isPreferred"], true);
    let fixed = apply_edits(text, action_edits(&actions[0], uri), enc);
    assert_eq!(fixed, "game W s\nstart\nmoves e2e4\n");
    // Applying the fix clears every diagnostic of the game.
    client.change_full(uri, 2, &fixed);
    assert_eq!(client.diagnostics(uri, 2), Vec::<Value>::new());

    let uri = "file:///actions/labels.sgs";
    let text = "game W dup\nstart\ngame D dup_2\nstart\ngame B dup\nstart\n";
    let diags = client.open(uri, text);
    assert_eq!(
        summary(&diags),
        vec![("sgs/duplicate-label".to_string(), [4, 7, 4, 10])]
    );
    let related = &diags[0]["relatedInformation"][0];
    assert_eq!(related["location"]["uri"], uri);
    assert_eq!(
        range_tuple(&related["location"]["range"]),
        [0, 7, 0, 10],
        "points at the first use"
    );
    let actions = code_actions(&mut client, uri, [4, 8, 4, 8], &diags);
    assert_eq!(actions.len(), 1, "{actions:#?}");
    assert!(
        actions[0]["title"].as_str().unwrap().contains("dup_3"),
        "dup_2 is taken: {}",
        actions[0]
    );
    let fixed = apply_edits(text, action_edits(&actions[0], uri), enc);
    assert_eq!(fixed, text.replace("game B dup\n", "game B dup_3\n"));

    // A range away from any fixable diagnostic offers nothing.
    assert_eq!(code_actions(&mut client, uri, [1, 0, 1, 0], &[]), Vec::<Value>::new());
    client.shutdown_and_exit();
}

#[test]
fn inlay_hints_follow_the_configuration() {
    // `start` returns once the server read its settings (`{}`) after `initialized`.
    let (mut client, _) = LspClient::start(&[]);
    let uri = "file:///hints/game.sgs";
    assert_eq!(
        client.open(uri, "game W h\nstart\nmoves e2e4 e7e5 g1f3\n"),
        Vec::<Value>::new()
    );
    let range = json!({"start": {"line": 0, "character": 0}, "end": {"line": 3, "character": 0}});
    let params = json!({"textDocument": {"uri": uri}, "range": range});
    assert_eq!(
        client.request("textDocument/inlayHint", params.clone()),
        json!([]),
        "off by default"
    );

    client.set_settings(json!({"inlayHints": {"enable": true}}));
    client.notify("workspace/didChangeConfiguration", json!({"settings": null}));
    let asked = client.wait_request("workspace/configuration");
    assert_eq!(asked["params"]["items"][0]["section"], "kibitz");
    // The refresh comes once the new settings are in place.
    client.wait_request("workspace/inlayHint/refresh");

    let hints = client.request("textDocument/inlayHint", params);
    let position = |h: &Value| {
        [
            h["position"]["line"].as_u64().unwrap(),
            h["position"]["character"].as_u64().unwrap(),
        ]
    };
    let got: Vec<(&str, [u64; 2])> = hints
        .as_array()
        .expect("a list of hints")
        .iter()
        .map(|h| (h["label"].as_str().unwrap(), position(h)))
        .collect();
    assert_eq!(got, vec![("e4", [2, 10]), ("e5", [2, 15]), ("Nf3", [2, 20])]);
    client.shutdown_and_exit();
}

#[test]
fn configuration_changes_severities_and_republishes() {
    let (mut client, _) = LspClient::start(&[]);
    let uri = "file:///config/severity.sgs";
    let diags = client.open(uri, "game W s\nstart\nmoves e2e5\n");
    assert_eq!(summary(&diags), vec![("sgs/illegal-move".to_string(), [2, 6, 2, 10])]);
    assert_eq!(diags[0]["severity"], ERROR);

    client.set_settings(json!({"severity": {"sgs/illegal-move": "warning"}}));
    client.notify("workspace/didChangeConfiguration", json!({"settings": null}));
    let diags = client.diagnostics(uri, 1);
    assert_eq!(summary(&diags), vec![("sgs/illegal-move".to_string(), [2, 6, 2, 10])]);
    assert_eq!(diags[0]["severity"], WARNING);
    client.wait_request("workspace/inlayHint/refresh");

    client.set_settings(json!({"severity": {"sgs/illegal-move": "off"}}));
    client.notify("workspace/didChangeConfiguration", json!({"settings": null}));
    assert_eq!(client.diagnostics(uri, 1), Vec::<Value>::new());
    client.wait_request("workspace/inlayHint/refresh");
    client.shutdown_and_exit();
}

/// The server's read loop stops at `exit`, so an answer the client sends
/// after it never arrives: a handler still waiting for one must not keep
/// the process alive. Here the client answers the server's settings
/// request (sent after `initialized`) only after `shutdown` and `exit`.
#[test]
fn exit_does_not_wait_for_unanswered_server_requests() {
    let mut client = LspClient::spawn();
    client.set_auto_answer(false);
    client.initialize(initialize_params(&[]));
    let asked = client.wait_request("workspace/configuration");
    assert_eq!(client.request("shutdown", Value::Null), Value::Null);
    client.notify("exit", Value::Null);
    client.respond(&asked["id"], json!([{}]));
    let status = client.wait_exit();
    assert!(status.success(), "{status}");
}

#[test]
fn crlf_documents_keep_positions_and_line_endings() {
    let (mut client, _) = LspClient::start(&[]);
    let enc = client.encoding;
    let uri = "file:///crlf/game.sgs";
    let text = "game W crlf\r\n  start\r\nmoves e2e4  e7e5 g1e5\r\n\r\n\r\ngame B next\r\nstart\r\nmoves \r\n";
    let diags = client.open(uri, text);
    assert_eq!(
        summary(&diags),
        vec![("sgs/illegal-move".to_string(), [2, 17, 2, 21])],
        "{diags:#?}"
    );

    let hover = client.at("textDocument/hover", uri, 2, 13);
    assert_eq!(range_tuple(&hover["range"]), [2, 12, 2, 16]);
    assert!(hover["contents"]["value"].as_str().unwrap().contains("1... e5"));

    // The cursor at the end of a CRLF line: the `\r` is not part of the word.
    let result = client.at("textDocument/completion", uri, 7, 6);
    assert_eq!(completion_moves(&result, [7, 6, 7, 6]), sorted(&START_MOVES));

    let edits = formatting(&mut client, uri);
    let formatted = apply_edits(text, &edits, enc);
    assert_eq!(
        formatted,
        "game W crlf\r\nstart\r\nmoves e2e4 e7e5 g1e5\r\n\r\ngame B next\r\nstart\r\nmoves\r\n"
    );

    // An edit using CRLF positions lands where expected.
    client.change(uri, 2, [2, 17, 2, 21], "g1f3");
    assert_eq!(client.diagnostics(uri, 2), Vec::<Value>::new());
    client.shutdown_and_exit();
}

#[test]
fn formatting_applies_to_the_canonical_text() {
    let (mut client, _) = LspClient::start(&["utf-8"]);
    let enc = client.encoding;
    assert_eq!(enc, Encoding::Utf8);
    let uri = "file:///fmt/messy.sgs";
    let messy = "# header comment\n\n\n  game   W   fools_mate  \n\n title   Fool's   mate — ♟  \nstart\n  moves  g2g4   e7e5 f2f3    d8h4   \n\
                 # next\ngame D -\nboard   7k/4Q1p1/8/8/8/8/rrp5/2K5   w - - 0 1\n\n\nmoves e7e8 h8h7";
    let canonical = "# header comment\n\ngame W fools_mate\ntitle Fool's   mate — ♟\nstart\nmoves g2g4 e7e5 f2f3 d8h4\n\n\
                     # next\ngame D -\nboard 7k/4Q1p1/8/8/8/8/rrp5/2K5 w - - 0 1\nmoves e7e8 h8h7\n";
    client.open(uri, messy);
    let edits = formatting(&mut client, uri);
    assert_eq!(apply_edits(messy, &edits, enc), canonical);

    // Once canonical, formatting has nothing left to do.
    client.change_full(uri, 2, canonical);
    client.diagnostics(uri, 2);
    assert_eq!(formatting(&mut client, uri), Vec::<Value>::new());

    // A game with broken syntax is left alone.
    let broken = "game X lbl\nstart\nmoves   e2e4    e7e5\n";
    client.change_full(uri, 3, &format!("{canonical}\n{broken}"));
    client.diagnostics(uri, 3);
    let edits = formatting(&mut client, uri);
    assert_eq!(
        apply_edits(&format!("{canonical}\n{broken}"), &edits, enc),
        format!("{canonical}\n{broken}")
    );
    client.shutdown_and_exit();
}

#[test]
fn large_documents_and_full_text_changes() {
    let (mut client, _) = LspClient::start(&[]);
    let uri = "file:///large/set.sgs";
    let game = |i: usize| format!("game W g{i}\nstart\nmoves e2e4 e7e5 g1f3 b8c6\n\n");
    let mut text: String = (0..3000).map(game).collect();
    assert!(
        text.len() > 64 * 1024,
        "large enough to take the server's blocking path"
    );
    text.push_str("game B last\nstart\nmoves e2e4 e2e4\n");
    let diags = client.open(uri, &text);
    assert_eq!(
        summary(&diags),
        vec![("sgs/illegal-move".to_string(), [12002, 11, 12002, 15])]
    );

    // A change without a range replaces the whole text.
    let fixed = text.replace("moves e2e4 e2e4", "moves e2e4 e7e5");
    client.change_full(uri, 2, &fixed);
    assert_eq!(client.diagnostics(uri, 2), Vec::<Value>::new());
    let symbols = client.request("textDocument/documentSymbol", json!({"textDocument": {"uri": uri}}));
    assert_eq!(symbols.as_array().map(Vec::len), Some(3001));

    // Closing the document clears its diagnostics.
    client.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}}));
    let cleared = client.wait_for("cleared diagnostics", |m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == uri
            && m["params"]["version"].is_null()
    });
    assert_eq!(cleared["params"]["diagnostics"], json!([]));
    client.shutdown_and_exit();
}

/// Closing a document clears its diagnostics for good: diagnostics of edits
/// still in flight when `didClose` arrives must not be published after the
/// clearing (empty, unversioned) ones.
#[test]
fn closing_right_after_a_burst_of_edits_leaves_no_diagnostics() {
    let (mut client, _) = LspClient::start(&[]);
    let typed = "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8f6 ";
    let uris: Vec<String> = (0..5).map(|i| format!("file:///close/burst{i}.sgs")).collect();
    for uri in &uris {
        client.open(uri, "game W typing\nstart\nmoves \n");
        for (i, c) in typed.chars().enumerate() {
            let column = 6 + i as u64;
            client.change(uri, 2 + i as i64, [2, column, 2, column], &c.to_string());
        }
        client.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}}));
    }
    client.request("shutdown", Value::Null);
    client.drain(std::time::Duration::from_millis(300));
    for uri in &uris {
        let published: Vec<(Value, usize)> = client
            .history
            .iter()
            .filter(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri.as_str())
            .map(|m| {
                (
                    m["params"]["version"].clone(),
                    m["params"]["diagnostics"].as_array().map_or(0, Vec::len),
                )
            })
            .collect();
        assert_eq!(
            published.last(),
            Some(&(Value::Null, 0)),
            "{uri}: (version, diagnostic count) published: {published:?}"
        );
    }
    client.notify("exit", Value::Null);
    assert!(client.wait_exit().success());
}

/// Editors send `didOpen` right after `initialized`, often before they
/// answer the server's `workspace/configuration` request: once the editor
/// settings arrive, diagnostics already published must be redone with them.
#[test]
fn diagnostics_are_republished_once_the_first_settings_arrive() {
    let mut client = LspClient::spawn();
    client.set_auto_answer(false);
    client.initialize(initialize_params(&[]));
    let asked = client.wait_request("workspace/configuration");
    let uri = "file:///early/open.sgs";
    let diags = client.open(uri, "game W s\nstart\nmoves e2e5\n");
    assert_eq!(
        summary(&diags),
        vec![("sgs/illegal-move".to_string(), [2, 6, 2, 10])],
        "defaults before the settings"
    );

    client.set_auto_answer(true);
    client.respond(&asked["id"], json!([{"severity": {"sgs/illegal-move": "off"}}]));
    let republished = client.wait_for_within(
        std::time::Duration::from_secs(5),
        "diagnostics redone with the settings",
        |m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri && m["params"]["version"] == 1
        },
    );
    assert_eq!(republished["params"]["diagnostics"], json!([]));
    client.shutdown_and_exit();
}

/// `kibitz.toml` in the first workspace folder applies; editor settings
/// override it key by key.
#[test]
fn workspace_kibitz_toml_merges_with_editor_settings() {
    let dir = TempDir::new("lsp-toml");
    dir.write(
        "kibitz.toml",
        "[severity]\n\"sgs/illegal-move\" = \"off\"\n\"sgs/label-charset\" = \"error\"\n",
    );
    let root = format!("file://{}", dir.path().display());
    let mut client = LspClient::spawn();
    client.set_settings(json!({"severity": {"sgs/label-charset": "hint"}}));
    let mut params = initialize_params(&[]);
    params["workspaceFolders"] = json!([{"uri": root, "name": "games"}]);
    client.initialize(params);
    client.wait_request("workspace/configuration");

    let uri = format!("{root}/set.sgs");
    let text = "game W bad-label\nstart\nmoves e2e5\n";
    let diags = client.open(&uri, text);
    assert!(
        diags.iter().all(|d| code(d) != "sgs/illegal-move"),
        "turned off in kibitz.toml: {diags:#?}"
    );
    // By the next edit the editor settings have certainly been read.
    client.change(&uri, 2, [2, 6, 2, 10], "e2e5");
    let diags = client.diagnostics(&uri, 2);
    assert_eq!(summary(&diags), vec![("sgs/label-charset".to_string(), [0, 7, 0, 16])]);
    assert_eq!(
        diags[0]["severity"], 4,
        "the editor's `hint` wins over the file's `error`"
    );
    client.shutdown_and_exit();
}
