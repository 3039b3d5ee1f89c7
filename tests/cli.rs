//! End-to-end tests of `kibitz check` and `kibitz fmt`: the real binary on
//! files in a temporary folder (which is also the current folder, so a
//! `kibitz.toml` there is picked up and none from elsewhere is).

mod support;

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use support::{KIBITZ, TempDir};

/// What one run of the binary produced.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn lines(&self) -> Vec<&str> {
        self.stdout.lines().collect()
    }

    /// `--format json` output, one object per line.
    fn json(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}")))
            .collect()
    }
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit code {}\n--- stdout\n{}--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// Runs `kibitz args…` in `dir` with `stdin` as input; fails the test if it
/// takes more than 20 s.
fn run_with_input(dir: &TempDir, args: &[&str], stdin: &[u8]) -> Run {
    let mut child = Command::new(KIBITZ)
        .args(args)
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start kibitz");
    let mut input = child.stdin.take().expect("stdin is piped");
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let read = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = pipe.read_to_end(&mut buf);
            buf
        })
    };
    let stdout = read(Box::new(child.stdout.take().expect("stdout is piped")));
    let stderr = read(Box::new(child.stderr.take().expect("stderr is piped")));
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().expect("poll kibitz") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("kibitz {args:?} did not finish in 20 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    writer.join().expect("stdin writer");
    let text =
        |h: std::thread::JoinHandle<Vec<u8>>| String::from_utf8(h.join().expect("pipe reader")).expect("UTF-8 output");
    Run {
        code: status.code().expect("exited normally"),
        stdout: text(stdout),
        stderr: text(stderr),
    }
}

fn run(dir: &TempDir, args: &[&str]) -> Run {
    run_with_input(dir, args, b"")
}

/// `(code, line, column, end_line, end_column)` of JSON diagnostics, in output order.
fn located(diags: &[Value]) -> Vec<(String, u64, u64, u64, u64)> {
    diags
        .iter()
        .map(|d| {
            let n = |k: &str| d[k].as_u64().unwrap_or_else(|| panic!("`{k}` is not a number in {d}"));
            (
                d["code"].as_str().unwrap().to_string(),
                n("line"),
                n("column"),
                n("end_line"),
                n("end_column"),
            )
        })
        .collect()
}

fn loc(code: &str, line: u64, column: u64, end_line: u64, end_column: u64) -> (String, u64, u64, u64, u64) {
    (code.to_string(), line, column, end_line, end_column)
}

const ILLEGAL_KNIGHT: &str = "game W knight\nstart\nmoves e2e4 e7e5 g1e5\n";
const CLEAN: &str = "game W fools_mate\nstart\nmoves g2g4 e7e5 f2f3 d8h4\n";

// ---------------------------------------------------------------- check

#[test]
fn check_human_output_points_at_the_error() {
    let dir = TempDir::new("human");
    dir.write("broken.sgs", ILLEGAL_KNIGHT);
    let out = run(&dir, &["check", "broken.sgs"]);
    assert_eq!(out.code, 1, "{out:?}");
    let lines = out.lines();
    let at = lines
        .iter()
        .position(|l| l.starts_with("error[sgs/illegal-move]: "))
        .unwrap_or_else(|| panic!("{out:?}"));
    assert!(
        lines[at].contains("`g1e5`")
            && lines[at].contains("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
    );
    assert_eq!(
        lines[at + 1..at + 5],
        [
            " --> broken.sgs:3:17",
            "  |",
            "3 | moves e2e4 e7e5 g1e5",
            "  |                 ^^^^"
        ],
        "{out:?}"
    );
    assert!(out.stdout.contains("1 error"), "{out:?}");
}

#[test]
fn check_human_carets_count_characters() {
    let dir = TempDir::new("caret");
    dir.write("accents.sgs", "game W é_label ü\nstart\n");
    let out = run(&dir, &["check", "accents.sgs"]);
    assert_eq!(out.code, 0, "warnings only: {out:?}");
    assert!(
        out.stdout
            .contains(" --> accents.sgs:1:16\n  |\n1 | game W é_label ü\n  |                ^\n"),
        "{out:?}"
    );
    assert!(
        out.stdout
            .contains(" --> accents.sgs:1:8\n  |\n1 | game W é_label ü\n  |        ^^^^^^^\n"),
        "{out:?}"
    );
}

#[test]
fn check_summary_line_counts_with_plurals() {
    let dir = TempDir::new("summary");
    dir.write("one.sgs", ILLEGAL_KNIGHT);
    let out = run(&dir, &["check", "one.sgs"]);
    assert_eq!(
        out.stdout.lines().last(),
        Some("1 error, 0 warnings in 1 file"),
        "{out:?}"
    );
    dir.write("two.sgs", ILLEGAL_KNIGHT);
    let out = run(&dir, &["check", "."]);
    assert_eq!(
        out.stdout.lines().last(),
        Some("2 errors, 0 warnings in 2 files"),
        "{out:?}"
    );
}

#[test]
fn check_json_lines_have_exactly_the_documented_keys() {
    let dir = TempDir::new("json");
    // `é` and `ü` are one character but two bytes: columns count characters.
    dir.write("set.sgs", "game W é_label ü\nstart\nmoves e2e4 e7e5 g1e5\n");
    let out = run(&dir, &["check", "--format", "json", "set.sgs"]);
    assert_eq!(out.code, 1, "{out:?}");
    let diags = out.json();
    let keys: BTreeSet<&str> = [
        "path",
        "line",
        "column",
        "end_line",
        "end_column",
        "severity",
        "code",
        "message",
    ]
    .into();
    for d in &diags {
        let got: BTreeSet<&str> = d.as_object().expect("an object").keys().map(String::as_str).collect();
        assert_eq!(got, keys, "{d}");
        assert_eq!(d["path"], "set.sgs");
    }
    let mut got = located(&diags);
    got.sort();
    assert_eq!(
        got,
        vec![
            loc("sgs/illegal-move", 3, 17, 3, 21),
            loc("sgs/label-charset", 1, 8, 1, 15),
            loc("sgs/non-ascii", 1, 16, 1, 17),
        ]
    );
    let severity = |code: &str| diags.iter().find(|d| d["code"] == code).map(|d| d["severity"].clone());
    assert_eq!(severity("sgs/illegal-move"), Some("error".into()));
    assert_eq!(severity("sgs/label-charset"), Some("warning".into()));
    assert!(
        !out.stdout.contains(" errors, "),
        "no summary line in JSON output: {out:?}"
    );
}

/// A UTF-8 byte order mark is invisible in editors and terminals: it is
/// not a column.
#[test]
fn check_columns_ignore_a_byte_order_mark() {
    let dir = TempDir::new("bom");
    dir.write("bom.sgs", "\u{feff}game W bad-label\nstart\n");
    let out = run(&dir, &["check", "--format", "json", "bom.sgs"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(located(&out.json()), vec![loc("sgs/label-charset", 1, 8, 1, 17)]);
}

#[test]
fn check_github_annotations() {
    let dir = TempDir::new("github");
    dir.write("a,b.sgs", format!("{ILLEGAL_KNIGHT}game W bad-label\nstart\n"));
    let out = run(&dir, &["check", "--format", "github", "a,b.sgs"]);
    assert_eq!(out.code, 1, "{out:?}");
    let lines = out.lines();
    assert_eq!(lines.len(), 2, "{out:?}");
    assert!(
        lines[0].starts_with(
            "::error file=a%2Cb.sgs,line=3,col=17,endLine=3,endColumn=21,title=sgs/illegal-move::illegal move `g1e5`"
        ),
        "{out:?}"
    );
    assert!(
        lines[1].starts_with("::warning file=a%2Cb.sgs,line=4,col=8,endLine=4,endColumn=17,title=sgs/label-charset::"),
        "{out:?}"
    );
}

#[test]
fn check_exit_codes_follow_severities() {
    let dir = TempDir::new("exit");
    dir.write("clean.sgs", CLEAN);
    dir.write("warn.sgs", "game W bad-label\nstart\n");
    dir.write("info.sgs", "game W no_board\n");

    let out = run(&dir, &["check", "clean.sgs"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "0 errors, 0 warnings in 1 file\n");
    assert_eq!(run(&dir, &["check", "--deny", "warnings", "clean.sgs"]).code, 0);

    let out = run(&dir, &["check", "warn.sgs"]);
    assert_eq!(out.code, 0, "warnings alone pass: {out:?}");
    assert!(out.stdout.contains("warning[sgs/label-charset]"), "{out:?}");
    let out = run(&dir, &["check", "--deny", "warnings", "warn.sgs"]);
    assert_eq!(out.code, 1, "{out:?}");

    // Information is neither an error nor a warning.
    let out = run(&dir, &["check", "--deny", "warnings", "info.sgs"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("information[sgs/non-canonical-game]"), "{out:?}");
}

#[test]
fn check_usage_errors_exit_2() {
    let dir = TempDir::new("usage");
    dir.write("clean.sgs", CLEAN);
    let out = run(&dir, &["check", "missing.sgs"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("missing.sgs"), "{out:?}");

    let out = run(&dir, &["check", "--language", "klingon", "clean.sgs"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("unknown language `klingon`") && out.stderr.contains("sofgameset"),
        "{out:?}"
    );

    let out = run(&dir, &["check", "--format", "xml", "clean.sgs"]);
    assert_eq!(out.code, 2, "{out:?}");
}

#[test]
fn check_reads_stdin() {
    let dir = TempDir::new("stdin");
    let out = run_with_input(
        &dir,
        &["check", "--format", "json", "--language", "sofgameset", "-"],
        ILLEGAL_KNIGHT.as_bytes(),
    );
    assert_eq!(out.code, 1, "{out:?}");
    let diags = out.json();
    assert_eq!(located(&diags), vec![loc("sgs/illegal-move", 3, 17, 3, 21)]);
    assert_eq!(diags[0]["path"], "<stdin>");

    let out = run_with_input(&dir, &["check", "--language", "sofgameset", "-"], CLEAN.as_bytes());
    assert_eq!(out.code, 0, "{out:?}");
}

#[test]
fn check_reports_invalid_utf8_and_keeps_checking() {
    let dir = TempDir::new("utf8");
    let mut bytes = b"game W latin1\ntitle caf\xe9 au lait\nstart\nmoves e2e4 e7e5\n".to_vec();
    bytes.extend_from_slice(ILLEGAL_KNIGHT.as_bytes());
    dir.write("latin1.sgs", &bytes);
    let out = run(&dir, &["check", "--format", "json", "latin1.sgs"]);
    assert_eq!(out.code, 1, "{out:?}");
    let mut got = located(&out.json());
    got.sort();
    assert_eq!(
        got,
        vec![
            loc("sgs/illegal-move", 7, 17, 7, 21),
            loc("sgs/invalid-utf8", 2, 10, 2, 11)
        ],
        "{out:?}"
    );
    let utf8 = out
        .json()
        .into_iter()
        .find(|d| d["code"] == "sgs/invalid-utf8")
        .unwrap();
    assert_eq!(utf8["severity"], "warning");
}

#[test]
fn check_walks_folders_for_known_extensions() {
    let dir = TempDir::new("walk");
    dir.write("set/a.sgs", ILLEGAL_KNIGHT);
    dir.write("set/sub/deeper/b.SGS", ILLEGAL_KNIGHT);
    dir.write("set/sub/c.sgs", ILLEGAL_KNIGHT);
    dir.write("set/notes.txt", ILLEGAL_KNIGHT);
    dir.write("set/.hidden/d.sgs", ILLEGAL_KNIGHT);
    dir.write("set/.e.sgs", ILLEGAL_KNIGHT);
    let out = run(&dir, &["check", "--format", "json", "set"]);
    assert_eq!(out.code, 1, "{out:?}");
    let paths: Vec<String> = out
        .json()
        .iter()
        .map(|d| d["path"].as_str().unwrap().to_string())
        .collect();
    let p = |parts: &[&str]| parts.iter().collect::<std::path::PathBuf>().display().to_string();
    assert_eq!(
        paths,
        vec![
            p(&["set", "a.sgs"]),
            p(&["set", "sub", "c.sgs"]),
            p(&["set", "sub", "deeper", "b.SGS"])
        ]
    );

    // One worker gives the same report, in the same order.
    let single = run(&dir, &["check", "--jobs", "1", "--format", "json", "set"]);
    assert_eq!(single.code, 1, "{single:?}");
    assert_eq!(single.stdout, out.stdout);
}

#[test]
fn check_detects_a_named_file_by_content() {
    let dir = TempDir::new("content");
    dir.write("games.txt", format!("# exported\n\n{ILLEGAL_KNIGHT}"));
    dir.write("prose.txt", "Dear diary, today I played e2e4.\n");
    let out = run(&dir, &["check", "--format", "json", "games.txt"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(located(&out.json()), vec![loc("sgs/illegal-move", 5, 17, 5, 21)]);

    let out = run(&dir, &["check", "prose.txt"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("prose.txt") && out.stderr.contains("--language"),
        "{out:?}"
    );
}

#[test]
fn check_reads_kibitz_toml_from_the_current_folder() {
    let dir = TempDir::new("toml");
    dir.write("broken.sgs", ILLEGAL_KNIGHT);
    assert_eq!(run(&dir, &["check", "broken.sgs"]).code, 1);

    dir.write("kibitz.toml", "[severity]\n\"sgs/illegal-move\" = \"off\"\n");
    let out = run(&dir, &["check", "broken.sgs"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!out.stdout.contains("illegal-move"), "{out:?}");

    dir.write("kibitz.toml", "[severity]\n\"sgs/illegal-move\" = \"warning\"\n");
    let out = run(&dir, &["check", "broken.sgs"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("warning[sgs/illegal-move]"), "{out:?}");
    assert_eq!(run(&dir, &["check", "--deny", "warnings", "broken.sgs"]).code, 1);

    // A broken kibitz.toml is a usage error, not silently ignored.
    dir.write("kibitz.toml", "[severity\n");
    let out = run(&dir, &["check", "broken.sgs"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("kibitz.toml"), "{out:?}");
}

// ---------------------------------------------------------------- fmt

const MESSY: &str = "# header comment\n\n\n  game   W   fools_mate  \n\n title   Fool's   mate — ♟  \nstart\n\
                     \x20 moves  g2g4   e7e5 f2f3    d8h4   \n# next\ngame D -\n\
                     board   7k/4Q1p1/8/8/8/8/rrp5/2K5   w - - 0 1\n\n\nmoves e7e8 h8h7";
const CANONICAL: &str = "# header comment\n\ngame W fools_mate\ntitle Fool's   mate — ♟\nstart\nmoves g2g4 e7e5 f2f3 d8h4\n\n\
                         # next\ngame D -\nboard 7k/4Q1p1/8/8/8/8/rrp5/2K5 w - - 0 1\nmoves e7e8 h8h7\n";

#[test]
fn fmt_rewrites_in_place_and_is_idempotent() {
    let dir = TempDir::new("fmt");
    dir.write("messy.sgs", MESSY);
    let out = run(&dir, &["fmt", "messy.sgs"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("formatted messy.sgs"), "{out:?}");
    assert_eq!(String::from_utf8(dir.read("messy.sgs")).unwrap(), CANONICAL);

    let out = run(&dir, &["fmt", "messy.sgs"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        !out.stderr.contains("formatted"),
        "a second run changes nothing: {out:?}"
    );
    assert_eq!(String::from_utf8(dir.read("messy.sgs")).unwrap(), CANONICAL);

    let out = run(&dir, &["fmt", "--check", "messy.sgs"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "");
    // No temporary file is left beside it.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["messy.sgs"]);
}

#[test]
fn fmt_check_lists_files_without_touching_them() {
    let dir = TempDir::new("fmtcheck");
    dir.write("set/messy.sgs", MESSY);
    dir.write("set/tidy.sgs", CANONICAL);
    let out = run(&dir, &["fmt", "--check", "set"]);
    assert_eq!(out.code, 1, "{out:?}");
    let messy = std::path::Path::new("set").join("messy.sgs");
    assert_eq!(out.stdout, format!("would reformat {}\n", messy.display()));
    assert_eq!(dir.read("set/messy.sgs"), MESSY.as_bytes());
}

#[test]
fn fmt_leaves_games_with_broken_syntax_alone() {
    let dir = TempDir::new("fmtbroken");
    let broken = "game X lbl\n  start\nmoves   e2e4    e7e5\n";
    dir.write("mixed.sgs", format!("game W ok\n   start\n{broken}"));
    let out = run(&dir, &["fmt", "mixed.sgs"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        String::from_utf8(dir.read("mixed.sgs")).unwrap(),
        format!("game W ok\nstart\n\n{broken}")
    );
}

/// Formatting through a symbolic link formats the file it points to and
/// keeps the link.
#[cfg(unix)]
#[test]
fn fmt_through_a_symlink_formats_its_target() {
    let dir = TempDir::new("symlink");
    dir.write("real.sgs", "game  W a\n  start\n");
    std::os::unix::fs::symlink("real.sgs", dir.path().join("link.sgs")).expect("create a symlink");
    let out = run(&dir, &["fmt", "link.sgs"]);
    assert_eq!(out.code, 0, "{out:?}");
    let link = std::fs::symlink_metadata(dir.path().join("link.sgs")).unwrap();
    assert!(link.file_type().is_symlink(), "link.sgs was replaced by a regular file");
    assert_eq!(String::from_utf8(dir.read("real.sgs")).unwrap(), "game W a\nstart\n");
}

#[test]
fn fmt_keeps_crlf_line_endings() {
    let dir = TempDir::new("crlf");
    dir.write(
        "dos.sgs",
        "game W a\r\n\r\n  start \r\nmoves  e2e4   e7e5\r\ngame B b\r\nstart",
    );
    let out = run(&dir, &["fmt", "dos.sgs"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        String::from_utf8(dir.read("dos.sgs")).unwrap(),
        "game W a\r\nstart\r\nmoves e2e4 e7e5\r\n\r\ngame B b\r\nstart\r\n"
    );
    assert_eq!(run(&dir, &["fmt", "--check", "dos.sgs"]).code, 0);
}

#[test]
fn fmt_formats_stdin_to_stdout() {
    let dir = TempDir::new("fmtstdin");
    let out = run_with_input(&dir, &["fmt", "--language", "sofgameset", "-"], MESSY.as_bytes());
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, CANONICAL);
}

/// `--check` reports; it does not print the formatted text, for stdin
/// as for files.
#[test]
fn fmt_check_on_stdin_only_reports() {
    let dir = TempDir::new("fmtcheckstdin");
    let out = run_with_input(
        &dir,
        &["fmt", "--check", "--language", "sofgameset", "-"],
        MESSY.as_bytes(),
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(out.stdout, "would reformat <stdin>\n");
    let out = run_with_input(
        &dir,
        &["fmt", "--check", "--language", "sofgameset", "-"],
        CANONICAL.as_bytes(),
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "");
}

#[test]
fn fmt_refuses_invalid_utf8() {
    let dir = TempDir::new("fmtutf8");
    let bytes = b"game   W   latin1\ntitle caf\xe9\n  start\n".to_vec();
    dir.write("latin1.sgs", &bytes);
    let out = run(&dir, &["fmt", "latin1.sgs"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("latin1.sgs") && out.stderr.contains("UTF-8"),
        "{out:?}"
    );
    assert_eq!(dir.read("latin1.sgs"), bytes, "the file is left byte for byte");
    let out = run(&dir, &["fmt", "--check", "latin1.sgs"]);
    assert_eq!(out.code, 2, "{out:?}");
}
