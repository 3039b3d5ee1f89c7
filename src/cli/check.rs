//! `kibitz check`: validate files and report their diagnostics.

use std::io::Write;
use std::path::PathBuf;

use rayon::prelude::*;

use super::report::{self, OutputFormat};
use super::{EXIT_FAILURE, EXIT_FINDINGS, EXIT_OK, Input};
use crate::model::Severity;
use crate::workspace::AnalyzedDocument;

pub struct CheckOptions {
    pub paths: Vec<PathBuf>,
    pub language: Option<String>,
    pub format: OutputFormat,
    pub deny_warnings: bool,
}

struct FileReport {
    output: Vec<u8>,
    errors: usize,
    warnings: usize,
    failure: Option<String>,
}

pub fn run(options: &CheckOptions) -> i32 {
    let settings = match super::load_settings() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_FAILURE;
        }
    };
    let inputs = match super::collect_inputs(&options.paths) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_FAILURE;
        }
    };
    let reports: Vec<FileReport> = inputs
        .par_iter()
        .map(|input| check_input(input, options, &settings))
        .collect();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let (mut errors, mut warnings, mut failed) = (0, 0, false);
    for r in &reports {
        let _ = out.write_all(&r.output);
        errors += r.errors;
        warnings += r.warnings;
        if let Some(f) = &r.failure {
            eprintln!("error: {f}");
            failed = true;
        }
    }
    if options.format == OutputFormat::Human {
        let files = reports.len();
        let s = |n: usize| if n == 1 { "" } else { "s" };
        let _ = writeln!(
            out,
            "{errors} error{}, {warnings} warning{} in {files} file{}",
            s(errors),
            s(warnings),
            s(files)
        );
    }
    let _ = out.flush();
    if failed {
        EXIT_FAILURE
    } else if errors > 0 || (options.deny_warnings && warnings > 0) {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    }
}

fn check_input(input: &Input, options: &CheckOptions, settings: &crate::model::Settings) -> FileReport {
    let mut report = FileReport {
        output: Vec::new(),
        errors: 0,
        warnings: 0,
        failure: None,
    };
    let loaded = super::read_input(input).and_then(|bytes| {
        let format = super::format_of(input, options.language.as_deref(), &bytes)?;
        Ok(AnalyzedDocument::from_bytes(format, bytes))
    });
    let analysis = match loaded {
        Ok(a) => a,
        Err(e) => {
            report.failure = Some(e);
            return report;
        }
    };
    let path = input.display();
    let doc = analysis.document();
    for (d, severity) in analysis.diagnostics_with(settings) {
        match severity {
            Severity::Error => report.errors += 1,
            Severity::Warning => report.warnings += 1,
            _ => {}
        }
        let located = report::locate(&path, doc, &d, severity);
        let _ = report::write(&mut report.output, options.format, doc, &located);
    }
    drop_off_the_critical_path(analysis);
    report
}

/// Freeing a big file's analysis (a String and an allocation per game)
/// takes a visible share of a check's time; nothing waits for it, so it
/// happens on a thread of its own (cut short if the process exits first).
fn drop_off_the_critical_path(analysis: AnalyzedDocument) {
    const BIG_BYTES: usize = 1 << 20;
    if analysis.document().len() >= BIG_BYTES {
        let _ = std::thread::Builder::new().spawn(move || drop(analysis));
    }
}
