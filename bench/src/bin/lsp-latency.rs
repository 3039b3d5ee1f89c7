//! Latency of `kibitz lsp` on a big document, as an editor sees it: real
//! JSON-RPC with Content-Length framing over the child's stdin/stdout.
//!
//! `lsp-latency --kibitz PATH --doc FILE [--edits 200] [--queries 200] [--seed 7]`
//!
//! Opens FILE, then times (each request sent only after the previous answer):
//! - edit → diagnostics: an incremental `didChange` replacing the last move
//!   of a random game with another legal move (so the file stays legal),
//!   until the `publishDiagnostics` carrying that version arrives;
//! - `hover` on a random move token;
//! - `completion` at the end of a random move token (the legal moves there).
//!
//! Prints `key value` lines on stdout (times in ms, sizes in MB) for
//! run.sh; progress goes to stderr.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use kibitz_bench::{Args, SplitMix64, die};
use serde_json::{Value, json};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};

/// No single answer should take anywhere near this; past it the server is
/// considered hung rather than slow.
const TIMEOUT: Duration = Duration::from_secs(120);

fn main() {
    let args = Args::from_env();
    if let Err(e) = run(&args) {
        die(e);
    }
}

fn run(args: &Args) -> Result<(), String> {
    let kibitz = args.path("kibitz")?;
    let doc_path = std::fs::canonicalize(args.path("doc")?).map_err(|e| format!("--doc: {e}"))?;
    let edits: usize = args.number("edits", 200)?;
    let queries: usize = args.number("queries", 200)?;
    let mut rng = SplitMix64::new(args.number("seed", 7)?);
    let text = std::fs::read_to_string(&doc_path).map_err(|e| format!("{}: {e}", doc_path.display()))?;
    let mut games = parse_games(&text);
    if games.is_empty() {
        return Err(format!("{}: no game with moves", doc_path.display()));
    }
    let uri = format!("file://{}", doc_path.display());

    let mut server = Server::start(&kibitz)?;
    let init = server.request(
        "initialize",
        json!({
            "processId": std::process::id(),
            "rootUri": null,
            "capabilities": {
                "general": { "positionEncodings": ["utf-8", "utf-16"] },
                "textDocument": { "publishDiagnostics": { "versionSupport": true } }
            }
        }),
    )?;
    // The columns below are byte offsets, equal to UTF-16 ones only because
    // the generated files are ASCII; either answer works, but say which.
    let encoding = init.1["capabilities"]["positionEncoding"]
        .as_str()
        .unwrap_or("utf-16")
        .to_string();
    server.notify("initialized", json!({}))?;

    let sent = Instant::now();
    let mut version = 1;
    server.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "sofgameset", "version": version, "text": text } }),
    )?;
    drop(text);
    let open_ms = ms(server.diagnostics(version, false)?.duration_since(sent));
    eprintln!("opened in {open_ms:.0} ms (position encoding {encoding})");

    let mut edit_times = Vec::with_capacity(edits);
    while edit_times.len() < edits {
        let pick = rng.below(games.len());
        let game = &mut games[pick];
        let Some((column, old, new)) = replace_last_move(game, &mut rng) else {
            continue;
        };
        version += 1;
        let change = json!({
            "textDocument": { "uri": uri, "version": version },
            "contentChanges": [{
                "range": {
                    "start": { "line": game.line, "character": column },
                    "end": { "line": game.line, "character": column + old.len() }
                },
                "text": new
            }]
        });
        let sent = Instant::now();
        server.notify("textDocument/didChange", change)?;
        edit_times.push(ms(server.diagnostics(version, false)?.duration_since(sent)));
    }

    let mut hover_times = Vec::with_capacity(queries);
    let mut completion_times = Vec::with_capacity(queries);
    for kind in ["hover", "completion"] {
        for _ in 0..queries {
            let game = &games[rng.below(games.len())];
            let i = rng.below(game.moves.len());
            let start = game.column_of(i);
            // Hover in the middle of the token; complete right after it.
            let character = if kind == "hover" {
                start + 2
            } else {
                start + game.moves[i].len()
            };
            let params = json!({
                "textDocument": { "uri": uri },
                "position": { "line": game.line, "character": character }
            });
            let (sent, answer, received) = server.request(&format!("textDocument/{kind}"), params)?;
            let ok = match kind {
                "hover" => answer["contents"]["value"].as_str().is_some_and(|s| !s.is_empty()),
                _ => answer["items"].as_array().is_some_and(|items| !items.is_empty()),
            };
            if !ok {
                return Err(format!(
                    "empty {kind} answer at line {} character {character}: {answer}",
                    game.line
                ));
            }
            let times = if kind == "hover" {
                &mut hover_times
            } else {
                &mut completion_times
            };
            times.push(ms(received.duration_since(sent)));
        }
    }

    // Fast answers prove nothing if the edits were not analysed: an illegal
    // last move must produce an error in that version's diagnostics.
    let game = &games[0];
    let column = game.column_of(game.moves.len() - 1);
    version += 1;
    server.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": uri, "version": version },
            "contentChanges": [{
                "range": {
                    "start": { "line": game.line, "character": column },
                    "end": { "line": game.line, "character": column + game.moves[game.moves.len() - 1].len() }
                },
                "text": "a1a1"
            }]
        }),
    )?;
    server
        .diagnostics(version, true)
        .map_err(|e| format!("an illegal move got no error, are edits analysed at all? {e}"))?;

    let peak_rss = peak_rss_mb(server.child.id())?;
    let exit_ok = server.shutdown()?;

    println!(
        "doc_mb {:.1}",
        std::fs::metadata(&doc_path).map_err(|e| e.to_string())?.len() as f64 / 1e6
    );
    println!("open_ms {open_ms:.0}");
    for (name, times) in [
        ("edit", &mut edit_times),
        ("hover", &mut hover_times),
        ("completion", &mut completion_times),
    ] {
        times.sort_by(f64::total_cmp);
        println!("{name}_p50_ms {:.2}", percentile(times, 0.50));
        println!("{name}_p99_ms {:.2}", percentile(times, 0.99));
        println!("{name}_max_ms {:.2}", percentile(times, 1.0));
    }
    println!("peak_rss_mb {peak_rss:.1}");
    println!("clean_exit {}", if exit_ok { "yes" } else { "no" });
    Ok(())
}

/// One game's `moves` line, as the client tracks it across its own edits.
struct Game {
    line: usize,
    moves: Vec<String>,
}

impl Game {
    /// The column of move `i`: the file is canonical, so `moves` plus one
    /// space, then the moves each followed by one space.
    fn column_of(&self, i: usize) -> usize {
        "moves ".len() + self.moves[..i].iter().map(|m| m.len() + 1).sum::<usize>()
    }
}

fn parse_games(text: &str) -> Vec<Game> {
    text.lines()
        .enumerate()
        .filter_map(|(line, l)| {
            l.strip_prefix("moves ").map(|m| Game {
                line,
                moves: m.split(' ').map(str::to_string).collect(),
            })
        })
        .collect()
}

/// Picks another legal move for the game's last ply and records it; returns
/// (column, old move, new move), or `None` when there is no alternative.
fn replace_last_move(game: &mut Game, rng: &mut SplitMix64) -> Option<(usize, String, String)> {
    let (last, before) = game.moves.split_last()?;
    let mut pos = Chess::default();
    for m in before {
        let mv = UciMove::from_ascii(m.as_bytes()).ok()?.to_move(&pos).ok()?;
        pos.play_unchecked(mv);
    }
    let others: Vec<String> = pos
        .legal_moves()
        .iter()
        .map(|m| m.to_uci(CastlingMode::Standard).to_string())
        .filter(|m| m != last)
        .collect();
    if others.is_empty() {
        return None;
    }
    let new = others[rng.below(others.len())].clone();
    let column = game.column_of(game.moves.len() - 1);
    let old = std::mem::replace(game.moves.last_mut()?, new.clone());
    Some((column, old, new))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Nearest-rank percentile of sorted samples.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// The process's peak resident set (VmHWM), in MB.
fn peak_rss_mb(pid: u32) -> Result<f64, String> {
    let status =
        std::fs::read_to_string(format!("/proc/{pid}/status")).map_err(|e| format!("/proc/{pid}/status: {e}"))?;
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or("no VmHWM in /proc/<pid>/status")?;
    Ok(kb * 1024.0 / 1e6)
}

/// The server child and the messages it sent, each stamped on arrival by a
/// reader thread (so the time does not include our own waiting).
struct Server {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<(Instant, Value)>,
    next_id: i64,
}

impl Server {
    fn start(kibitz: &std::path::Path) -> Result<Server, String> {
        let mut child = Command::new(kibitz)
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start {} lsp: {e}", kibitz.display()))?;
        let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
            (Some(i), Some(o)) => (i, o),
            _ => return Err("the server's stdio pipes are missing".into()),
        };
        let (tx, messages) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::with_capacity(1 << 16, stdout);
            while let Some(body) = read_frame(&mut reader) {
                let Ok(value) = serde_json::from_slice::<Value>(&body) else {
                    eprintln!("warning: the server sent a frame that is not JSON");
                    continue;
                };
                if tx.send((Instant::now(), value)).is_err() {
                    break;
                }
            }
        });
        Ok(Server {
            child,
            stdin,
            messages,
            next_id: 1,
        })
    }

    fn send(&mut self, message: &Value) -> Result<(), String> {
        let body = message.to_string();
        let frame = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        self.stdin
            .write_all(frame.as_bytes())
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("writing to the server: {e}"))
    }

    fn notify(&mut self, method: &str, params: Value) -> Result<(), String> {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }))
    }

    /// Sends a request and waits for its answer: (sent, result, received).
    fn request(&mut self, method: &str, params: Value) -> Result<(Instant, Value, Instant), String> {
        let id = self.next_id;
        self.next_id += 1;
        let sent = Instant::now();
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))?;
        loop {
            let (at, mut msg) = self.next_message()?;
            if msg.get("method").is_none() && msg["id"] == id {
                if let Some(err) = msg.get("error") {
                    return Err(format!("{method} failed: {err}"));
                }
                return Ok((sent, msg["result"].take(), at));
            }
        }
    }

    /// Waits for the diagnostics of `version` and returns when they arrived;
    /// an error if whether there are any is not `expect_some`.
    fn diagnostics(&mut self, version: i64, expect_some: bool) -> Result<Instant, String> {
        loop {
            let (at, msg) = self.next_message()?;
            if msg["method"] == "textDocument/publishDiagnostics" && msg["params"]["version"] == version {
                let diags = &msg["params"]["diagnostics"];
                let some = diags.as_array().is_some_and(|d| !d.is_empty());
                if some != expect_some {
                    return Err(format!("version {version}: unexpected diagnostics `{diags}`"));
                }
                return Ok(at);
            }
        }
    }

    /// The next message; requests from the server (none expected with the
    /// capabilities we announce) get a null answer so it never waits on us.
    fn next_message(&mut self) -> Result<(Instant, Value), String> {
        let (at, msg) = self
            .messages
            .recv_timeout(TIMEOUT)
            .map_err(|_| "no answer from the server (hung or exited)".to_string())?;
        if let (Some(_), Some(id)) = (msg.get("method"), msg.get("id")) {
            self.send(&json!({ "jsonrpc": "2.0", "id": id, "result": null }))?;
        }
        Ok((at, msg))
    }

    /// `shutdown` then `exit`; true if the server then exits with status 0.
    fn shutdown(mut self) -> Result<bool, String> {
        self.request("shutdown", Value::Null)?;
        self.notify("exit", Value::Null)?;
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match self.child.try_wait().map_err(|e| e.to_string())? {
                Some(status) => return Ok(status.success()),
                None if Instant::now() > deadline => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    return Ok(false);
                }
                None => std::thread::sleep(Duration::from_millis(10)),
            }
        }
    }
}

/// Reads one `Content-Length` framed message body; `None` at end of stream.
fn read_frame(reader: &mut impl BufRead) -> Option<Vec<u8>> {
    let mut length = None;
    let mut header = String::new();
    loop {
        header.clear();
        if reader.read_line(&mut header).ok()? == 0 {
            return None;
        }
        let line = header.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    Some(body)
}
