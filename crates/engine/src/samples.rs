//! `--samples FILE`: every record of a run (an object, a call), one line
//! each, written as it is taken through a fixed buffer, so that a run of any
//! length holds a fixed amount while the file holds everything. NDJSON, or
//! CSV when the name ends in `.csv`.

use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A record as the samples file writes it.
pub trait Record: Serialize {
    /// What one record is, for the closing sentence: `object`, `call`.
    const NOUN: &'static str;
    /// The CSV header, ending in a newline.
    const CSV_HEADER: &'static str;
    /// The record as a CSV row, ending in a newline.
    fn csv_row(&self) -> String;
}

/// The open file: what it has written, or why it stopped.
#[derive(Debug)]
pub struct SamplesFile {
    out: std::io::BufWriter<std::fs::File>,
    csv: bool,
    path: PathBuf,
    failed: Option<String>,
    written: u64,
    noun: &'static str,
}

impl SamplesFile {
    /// Creates (or truncates) `path` for records of `R`.
    pub fn create<R: Record>(path: &Path) -> Result<SamplesFile, String> {
        let file = std::fs::File::create(path)
            .map_err(|e| format!("cannot write the samples file {}: {e}", path.display()))?;
        let csv = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv"));
        let mut out = std::io::BufWriter::with_capacity(1 << 16, file);
        let failed = if csv { out.write_all(R::CSV_HEADER.as_bytes()).err().map(|e| e.to_string()) } else { None };
        Ok(SamplesFile { out, csv, path: path.to_path_buf(), failed, written: 0, noun: R::NOUN })
    }

    pub fn write<R: Record>(&mut self, record: &R) {
        if self.failed.is_some() {
            return;
        }
        let line = if self.csv {
            record.csv_row()
        } else {
            serde_json::to_string(record).map(|l| l + "\n").unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}\n"))
        };
        match self.out.write_all(line.as_bytes()) {
            Ok(()) => self.written += 1,
            Err(e) => self.failed = Some(e.to_string()),
        }
    }

    /// Flushes it; says what it holds, or why it stopped short.
    pub fn finish(&mut self) -> String {
        let flushed = self.out.flush().err().map(|e| e.to_string());
        match self.failed.take().or(flushed) {
            None => format!(
                "samples: {} written to {}",
                crate::report::plural(self.written as usize, self.noun),
                self.path.display()
            ),
            Some(e) => format!(
                "samples: writing {} stopped after {}: {e}",
                self.path.display(),
                crate::report::plural(self.written as usize, self.noun)
            ),
        }
    }
}

/// `--samples FILE` checked before anything runs: not a directory, in a
/// directory that exists. `example` names a file for the hint
/// (`objects.ndjson`).
pub fn checked_path(text: &str, example: &str) -> Result<Option<PathBuf>, String> {
    let path = text.trim();
    if path.is_empty() {
        return Ok(None);
    }
    let path = PathBuf::from(path);
    if path.is_dir() {
        return Err(format!("--samples names a directory: give it a file, e.g. --samples {example}"));
    }
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !parent.is_dir() {
        return Err(format!("--samples: the directory {} does not exist", parent.display()));
    }
    Ok(Some(path))
}
