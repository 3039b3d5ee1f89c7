//! A minimal LSP client for the real `kibitz lsp` process: Content-Length
//! framed JSON-RPC over the child's stdin/stdout.
//!
//! A reader thread parses every frame. Responses are routed to the request
//! that waits for them (by id); notifications and server→client requests go
//! to one queue the test reads with [`LspClient::wait_for`]. The reader
//! answers server→client requests itself so the server never blocks on the
//! test: `workspace/configuration` with the settings the test set through
//! [`LspClient::set_settings`], anything else with `null`.
//!
//! Every wait has a timeout, so a hung server fails the test instead of
//! hanging it. Dropping the client kills the child if it is still running.

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Encoding, KIBITZ};

/// How long any single wait may take before the test fails.
pub const TIMEOUT: Duration = Duration::from_secs(15);

/// How long the process may take to end after `exit`.
pub const EXIT_TIMEOUT: Duration = Duration::from_secs(5);

/// Messages from the server that the test did not ask for by id.
pub type Incoming = Value;

pub struct LspClient {
    child: Child,
    stdin: Arc<Mutex<Option<ChildStdin>>>,
    settings: Arc<Mutex<Value>>,
    /// Whether the reader answers server→client requests itself.
    auto_answer: Arc<AtomicBool>,
    responses: Receiver<Value>,
    incoming: Receiver<Incoming>,
    /// Responses that arrived while waiting for another id.
    stashed_responses: HashMap<u64, Value>,
    /// Notifications and requests read from the queue but not yet matched.
    unmatched: VecDeque<Incoming>,
    /// Every notification and server request received, in order.
    pub history: Vec<Incoming>,
    stderr: Arc<Mutex<String>>,
    next_id: u64,
    /// The position encoding the server chose in `initialize`.
    pub encoding: Encoding,
}

fn write_frame(stdin: &Mutex<Option<ChildStdin>>, message: &Value) {
    let body = serde_json::to_vec(message).expect("serialize message");
    let mut guard = stdin.lock().unwrap_or_else(|p| p.into_inner());
    let Some(stdin) = guard.as_mut() else {
        panic!("stdin of the server is already closed")
    };
    let header = format!("Content-Length: {}\r\n\r\n", body.len());
    // A server that died makes these writes fail; the waits then report it.
    let _ = stdin
        .write_all(header.as_bytes())
        .and_then(|_| stdin.write_all(&body))
        .and_then(|_| stdin.flush());
}

/// Reads one frame; `None` at end of stream.
fn read_frame(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            break;
        }
        let (name, value) = line
            .split_once(':')
            .unwrap_or_else(|| panic!("bad header line {line:?}"));
        if name.eq_ignore_ascii_case("content-length") {
            length = Some(value.trim().parse::<usize>().expect("Content-Length is a number"));
        }
    }
    let mut body = vec![0; length.expect("frame without Content-Length")];
    reader.read_exact(&mut body).ok()?;
    Some(
        serde_json::from_slice(&body)
            .unwrap_or_else(|e| panic!("server sent invalid JSON ({e}): {}", String::from_utf8_lossy(&body))),
    )
}

/// `initialize` parameters of a client that pulls its settings through
/// `workspace/configuration` and offers `position_encodings` (none: the field is absent).
pub fn initialize_params(position_encodings: &[&str]) -> Value {
    let general = if position_encodings.is_empty() {
        json!({})
    } else {
        json!({"positionEncodings": position_encodings})
    };
    json!({
        "processId": null,
        "rootUri": null,
        "capabilities": {
            "general": general,
            "workspace": {"configuration": true, "didChangeConfiguration": {"dynamicRegistration": false}},
            "textDocument": {"publishDiagnostics": {"versionSupport": true}},
        },
    })
}

impl LspClient {
    /// Starts `kibitz lsp`; `initialize` is not sent yet.
    pub fn spawn() -> LspClient {
        let mut child = Command::new(KIBITZ)
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start kibitz lsp");
        let stdin = Arc::new(Mutex::new(child.stdin.take()));
        let settings = Arc::new(Mutex::new(json!({})));
        let auto_answer = Arc::new(AtomicBool::new(true));
        let (responses_tx, responses) = mpsc::channel();
        let (incoming_tx, incoming) = mpsc::channel();
        let stdout = child.stdout.take().expect("stdout is piped");
        {
            let stdin = Arc::clone(&stdin);
            let settings = Arc::clone(&settings);
            let auto_answer = Arc::clone(&auto_answer);
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stdout);
                while let Some(message) = read_frame(&mut reader) {
                    let is_request_or_notification = message.get("method").is_some();
                    if !is_request_or_notification {
                        let _ = responses_tx.send(message);
                        continue;
                    }
                    if let Some(id) = message.get("id").filter(|_| auto_answer.load(Ordering::SeqCst)) {
                        let result = match message["method"].as_str() {
                            Some("workspace/configuration") => {
                                let items = message["params"]["items"].as_array().map_or(1, Vec::len);
                                let value = settings.lock().unwrap_or_else(|p| p.into_inner()).clone();
                                Value::Array(vec![value; items])
                            }
                            _ => Value::Null,
                        };
                        write_frame(&stdin, &json!({"jsonrpc": "2.0", "id": id, "result": result}));
                    }
                    if incoming_tx.send(message).is_err() {
                        break;
                    }
                }
            });
        }
        let stderr = Arc::new(Mutex::new(String::new()));
        {
            let stderr = Arc::clone(&stderr);
            let mut pipe = child.stderr.take().expect("stderr is piped");
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = pipe.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    stderr
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            });
        }
        LspClient {
            child,
            stdin,
            settings,
            auto_answer,
            responses,
            incoming,
            stashed_responses: HashMap::new(),
            unmatched: VecDeque::new(),
            history: Vec::new(),
            stderr,
            next_id: 1,
            encoding: Encoding::Utf16,
        }
    }

    /// Spawns the server and runs `initialize` + `initialized` with the
    /// usual capabilities (configuration pull, given position encodings).
    /// Returns once the server asked for its settings (and was answered
    /// `{}`), so no server request is left in flight by the time a test ends.
    pub fn start(position_encodings: &[&str]) -> (LspClient, Value) {
        let mut client = LspClient::spawn();
        let result = client.initialize(initialize_params(position_encodings));
        client.wait_request("workspace/configuration");
        (client, result)
    }

    /// Sends `initialize` with `params`, then `initialized`; remembers the
    /// position encoding the server chose.
    pub fn initialize(&mut self, params: Value) -> Value {
        let result = self.request("initialize", params);
        self.encoding = match result["capabilities"]["positionEncoding"].as_str() {
            Some("utf-8") => Encoding::Utf8,
            None | Some("utf-16") => Encoding::Utf16,
            Some(other) => panic!("server chose an encoding nobody offered: {other}"),
        };
        self.notify("initialized", json!({}));
        result
    }

    /// Whether the reader answers server→client requests itself (the
    /// default); when off, the test answers with [`LspClient::respond`].
    pub fn set_auto_answer(&self, on: bool) {
        self.auto_answer.store(on, Ordering::SeqCst);
    }

    /// Answers the server's request `id`.
    pub fn respond(&mut self, id: &Value, result: Value) {
        write_frame(&self.stdin, &json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }

    /// Waits for a server→client request; returns it (its answer is already sent
    /// unless answering is manual).
    pub fn wait_request(&mut self, method: &str) -> Incoming {
        self.wait_for(&format!("a {method} request"), |m| {
            m["method"] == method && m.get("id").is_some()
        })
    }

    /// The value the reader answers `workspace/configuration` with.
    pub fn set_settings(&self, settings: Value) {
        *self.settings.lock().unwrap_or_else(|p| p.into_inner()) = settings;
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        write_frame(
            &self.stdin,
            &json!({"jsonrpc": "2.0", "method": method, "params": params}),
        );
    }

    /// Sends a request without waiting; returns its id for [`LspClient::response`].
    pub fn send_request(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        write_frame(
            &self.stdin,
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        );
        id
    }

    /// Waits for the response to request `id` and returns its `result`
    /// (panicking on an error response).
    pub fn response(&mut self, id: u64) -> Value {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(message) = self.stashed_responses.remove(&id) {
                if let Some(error) = message.get("error") {
                    panic!("request {id} failed: {error}");
                }
                return message.get("result").cloned().unwrap_or(Value::Null);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.responses.recv_timeout(left) {
                Ok(message) => {
                    let got = message["id"]
                        .as_u64()
                        .unwrap_or_else(|| panic!("response without a numeric id: {message}"));
                    self.stashed_responses.insert(got, message);
                }
                Err(e) => self.fail(&format!("no response to request {id} ({e:?})")),
            }
        }
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.response(id)
    }

    /// Waits for a notification or server request satisfying `matches`;
    /// messages that do not match stay queued for later waits.
    pub fn wait_for(&mut self, what: &str, matches: impl Fn(&Incoming) -> bool) -> Incoming {
        self.wait_for_within(TIMEOUT, what, matches)
    }

    /// [`LspClient::wait_for`] with its own timeout.
    pub fn wait_for_within(&mut self, timeout: Duration, what: &str, matches: impl Fn(&Incoming) -> bool) -> Incoming {
        if let Some(i) = self.unmatched.iter().position(&matches) {
            return self.unmatched.remove(i).expect("index is in range");
        }
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.incoming.recv_timeout(left) {
                Ok(message) => {
                    self.history.push(message.clone());
                    if matches(&message) {
                        return message;
                    }
                    self.unmatched.push_back(message);
                }
                Err(RecvTimeoutError::Timeout) => self.fail(&format!("timed out waiting for {what}")),
                Err(RecvTimeoutError::Disconnected) => {
                    self.fail(&format!("server closed its output while waiting for {what}"))
                }
            }
        }
    }

    /// Collects whatever the server sends during `duration` into
    /// [`LspClient::history`] (still available to later waits).
    pub fn drain(&mut self, duration: Duration) {
        let deadline = Instant::now() + duration;
        while let Ok(message) = self
            .incoming
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            self.history.push(message.clone());
            self.unmatched.push_back(message);
        }
    }

    /// Waits for `publishDiagnostics` of `uri` for document `version`.
    pub fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let message = self.wait_for(&format!("diagnostics of {uri} version {version}"), |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == version
        });
        message["params"]["diagnostics"].as_array().cloned().unwrap_or_default()
    }

    /// Opens a `.sgs` document and returns its first diagnostics.
    pub fn open(&mut self, uri: &str, text: &str) -> Vec<Value> {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "sofgameset", "version": 1, "text": text}}),
        );
        self.diagnostics(uri, 1)
    }

    /// Sends one ranged change (`range` as `[line, character, line, character]`).
    pub fn change(&mut self, uri: &str, version: i64, range: [u64; 4], text: &str) {
        let [l1, c1, l2, c2] = range;
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{
                    "range": {"start": {"line": l1, "character": c1}, "end": {"line": l2, "character": c2}},
                    "text": text,
                }],
            }),
        );
    }

    /// Replaces the whole text (a change without a range).
    pub fn change_full(&mut self, uri: &str, version: i64, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}),
        );
    }

    /// Sends a request about a position in `uri`.
    pub fn at(&mut self, method: &str, uri: &str, line: u64, character: u64) -> Value {
        self.request(
            method,
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
        )
    }

    /// `shutdown`, then `exit`, then waits for the process to end (stdin
    /// stays open: the server must leave on `exit` alone) and checks it
    /// exited with status 0.
    pub fn shutdown_and_exit(&mut self) -> ExitStatus {
        let result = self.request("shutdown", Value::Null);
        assert_eq!(result, Value::Null, "shutdown returns null");
        self.notify("exit", Value::Null);
        let status = self.wait_exit();
        assert!(
            status.success(),
            "exit status after shutdown and exit: {status}\nstderr:\n{}",
            self.stderr()
        );
        status
    }

    /// Waits (at most [`EXIT_TIMEOUT`]) for the child to end on its own.
    pub fn wait_exit(&mut self) -> ExitStatus {
        let deadline = Instant::now() + EXIT_TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().expect("poll the server process") {
                return status;
            }
            if Instant::now() > deadline {
                self.fail("the server did not exit after `exit`");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Closes the server's stdin (end of input).
    pub fn close_stdin(&mut self) {
        self.stdin.lock().unwrap_or_else(|p| p.into_inner()).take();
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn fail(&mut self, why: &str) -> ! {
        let status = self.child.try_wait().ok().flatten();
        panic!(
            "{why}\nserver status: {}\nunmatched messages: {:#?}\nserver stderr:\n{}",
            status.map_or("running".to_string(), |s| s.to_string()),
            self.unmatched,
            self.stderr()
        );
    }
}

impl Drop for LspClient {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
