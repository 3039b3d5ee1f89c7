//! `kibitz fmt`: rewrite files in canonical form, or list those that differ.

use std::io::Write;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{EXIT_FAILURE, EXIT_FINDINGS, EXIT_OK, Input};
use crate::workspace::AnalyzedDocument;

pub struct FmtOptions {
    pub paths: Vec<PathBuf>,
    pub language: Option<String>,
    pub check: bool,
}

enum Outcome {
    Unchanged,
    Changed,
    Failed(String),
}

pub fn run(options: &FmtOptions) -> i32 {
    let inputs = match super::collect_inputs(&options.paths) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_FAILURE;
        }
    };
    let outcomes: Vec<Outcome> = inputs.par_iter().map(|input| format_input(input, options)).collect();
    let (mut changed, mut failed) = (0, false);
    for (input, outcome) in inputs.iter().zip(&outcomes) {
        match outcome {
            Outcome::Unchanged => {}
            Outcome::Changed => {
                changed += 1;
                if options.check {
                    println!("would reformat {}", input.display());
                } else if matches!(input, Input::File(_)) {
                    eprintln!("formatted {}", input.display());
                }
            }
            Outcome::Failed(e) => {
                eprintln!("error: {e}");
                failed = true;
            }
        }
    }
    if failed {
        EXIT_FAILURE
    } else if options.check && changed > 0 {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    }
}

fn format_input(input: &Input, options: &FmtOptions) -> Outcome {
    let result = (|| {
        let bytes = super::read_input(input)?;
        let format = super::format_of(input, options.language.as_deref(), &bytes)?;
        let text = std::str::from_utf8(&bytes).map_err(|e| {
            format!(
                "{}: not valid UTF-8 (at byte {}); not formatted, so no byte is lost",
                input.display(),
                e.valid_up_to()
            )
        })?;
        let analysis = AnalyzedDocument::new(format, text);
        let formatted = analysis.formatted_text();
        let changed = formatted != text;
        match input {
            Input::Stdin if options.check => {}
            Input::Stdin => {
                let mut out = std::io::stdout().lock();
                out.write_all(formatted.as_bytes())
                    .map_err(|e| format!("<stdout>: {e}"))?;
            }
            Input::File(path) if changed && !options.check => write_atomically(path, formatted.as_bytes())?,
            Input::File(_) => {}
        }
        Ok(changed)
    })();
    match result {
        Ok(true) => Outcome::Changed,
        Ok(false) => Outcome::Unchanged,
        Err(e) => Outcome::Failed(e),
    }
}

/// Writes beside the target, then renames over it: a crash leaves either
/// the old file or the new one, never half of each.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    // Through a symlink, replace the file it points to, not the link.
    let resolved = std::fs::canonicalize(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let (shown, path) = (path, resolved.as_path());
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.kibitz-{}.tmp", std::process::id()));
    let fail = |e: std::io::Error| format!("{}: {e}", shown.display());
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        if let Ok(meta) = std::fs::metadata(path) {
            std::fs::set_permissions(&tmp, meta.permissions())?;
        }
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(fail)
}
