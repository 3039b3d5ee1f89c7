//! `kibitz check` and `kibitz fmt`: the same engine as the language server,
//! over files, for terminals and CI.

pub mod check;
pub mod fmt;
pub mod report;

use std::path::{Path, PathBuf};

use crate::formats::{self, Format};
use crate::model::Settings;

/// Exit codes shared by the commands.
pub const EXIT_OK: i32 = 0;
pub const EXIT_FINDINGS: i32 = 1;
pub const EXIT_FAILURE: i32 = 2;

/// One input: a file on disk or standard input.
#[derive(Clone, Debug)]
pub enum Input {
    File(PathBuf),
    Stdin,
}

impl Input {
    pub fn display(&self) -> String {
        match self {
            Input::File(p) => p.display().to_string(),
            Input::Stdin => "<stdin>".to_string(),
        }
    }
}

/// Expands the command-line paths: folders are walked for files with a
/// known extension (sorted, hidden entries skipped); files are taken as
/// given; `-` is standard input.
pub fn collect_inputs(paths: &[PathBuf]) -> Result<Vec<Input>, String> {
    let mut out = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            out.push(Input::Stdin);
        } else if path.is_dir() {
            walk(path, &mut out).map_err(|e| format!("{}: {e}", path.display()))?;
        } else if path.exists() {
            out.push(Input::File(path.clone()));
        } else {
            return Err(format!("{}: no such file or folder", path.display()));
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<Input>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        if entry.file_type()?.is_dir() {
            walk(&path, out)?;
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .and_then(formats::by_extension)
            .is_some()
        {
            out.push(Input::File(path));
        }
    }
    Ok(())
}

/// Reads an input's bytes.
pub fn read_input(input: &Input) -> Result<Vec<u8>, String> {
    match input {
        Input::File(p) => std::fs::read(p).map_err(|e| format!("{}: {e}", p.display())),
        Input::Stdin => {
            let mut buf = Vec::new();
            std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf).map_err(|e| format!("<stdin>: {e}"))?;
            Ok(buf)
        }
    }
}

/// The format of an input: `--language` for stdin (or to force one), else
/// by extension, else by content.
pub fn format_of(input: &Input, language: Option<&str>, bytes: &[u8]) -> Result<&'static dyn Format, String> {
    if let Some(id) = language {
        return formats::by_language_id(id).ok_or_else(|| {
            let known: Vec<_> = formats::ALL.iter().map(|f| f.language_id()).collect();
            format!("unknown language `{id}` (known: {})", known.join(", "))
        });
    }
    let path = match input {
        Input::File(p) => Some(p.as_path()),
        Input::Stdin => None,
    };
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(64 * 1024)]);
    formats::detect(path, &head)
        .ok_or_else(|| format!("{}: cannot tell the file's format (use --language)", input.display()))
}

/// `kibitz.toml` from the current folder or the nearest one above it.
pub fn load_settings() -> Result<Settings, String> {
    let Ok(mut dir) = std::env::current_dir() else {
        return Ok(Settings::default());
    };
    loop {
        let candidate = dir.join("kibitz.toml");
        if candidate.is_file() {
            let text = std::fs::read_to_string(&candidate).map_err(|e| format!("{}: {e}", candidate.display()))?;
            let (settings, problems) =
                Settings::from_toml(&text).map_err(|e| format!("{}: {e}", candidate.display()))?;
            for p in problems {
                eprintln!("warning: {}: {p}", candidate.display());
            }
            return Ok(settings);
        }
        if !dir.pop() {
            return Ok(Settings::default());
        }
    }
}

/// Sizes rayon's pool; `None` means all cores.
pub fn set_jobs(jobs: Option<usize>) {
    if let Some(n) = jobs {
        // Fails only if the pool already exists, in which case it keeps its size.
        let _ = rayon::ThreadPoolBuilder::new().num_threads(n.max(1)).build_global();
    }
}
