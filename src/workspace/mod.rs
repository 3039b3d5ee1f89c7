//! An analysed document: the text cut into units, each unit's analysis
//! kept until an edit touches it, and the file-level checks across units.
//!
//! Invariant (tested by random edit sequences): after any edits, the
//! units and diagnostics equal those of a from-scratch analysis of the text.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::formats::{Format, UnitAnalysis, UnitLayout};
use crate::model::{CompletionItem, Diagnostic, HoverInfo, InlayHint, Settings, Span, Symbol, TextEdit, Token, shift};
use crate::text::{BOM, Document};

#[derive(Clone, Debug)]
pub struct Unit {
    pub start: usize,
    pub len: usize,
    pub analysis: Arc<UnitAnalysis>,
}

impl Unit {
    pub fn range(&self) -> Range<usize> {
        self.start..self.start + self.len
    }
}

pub struct AnalyzedDocument {
    format: &'static dyn Format,
    doc: Document,
    bom: usize,
    units: Vec<Unit>,
    keys: KeyCounts,
    /// Where invalid UTF-8 was replaced when reading from disk.
    invalid_utf8: Vec<Span>,
}

/// Units smaller than this many per rayon task are not worth a thread hop.
const UNITS_PER_TASK: usize = 64;

impl AnalyzedDocument {
    /// A document for editing (its text is kept in a rope).
    pub fn new(format: &'static dyn Format, text: &str) -> Self {
        let mut doc = Self::empty(format);
        doc.reanalyze_all(text);
        doc.doc = Document::new(text);
        doc
    }

    /// A document read from disk: invalid UTF-8 is replaced and reported.
    /// Valid text is neither copied nor put in a rope unless something edits it.
    pub fn from_bytes(format: &'static dyn Format, bytes: Vec<u8>) -> Self {
        let (text, invalid) = match String::from_utf8(bytes) {
            Ok(text) => (text, Vec::new()),
            Err(e) => crate::text::decode_lossy(e.as_bytes()),
        };
        let mut doc = Self::empty(format);
        doc.reanalyze_all(&text);
        doc.doc = Document::flat(text);
        doc.invalid_utf8 = invalid;
        doc
    }

    fn empty(format: &'static dyn Format) -> Self {
        AnalyzedDocument {
            format,
            doc: Document::default(),
            bom: 0,
            units: Vec::new(),
            keys: KeyCounts::default(),
            invalid_utf8: Vec::new(),
        }
    }

    pub fn document(&self) -> &Document {
        &self.doc
    }

    pub fn text(&self) -> String {
        self.doc.slice(0..self.doc.len())
    }

    pub fn units(&self) -> &[Unit] {
        &self.units
    }

    fn reanalyze_all(&mut self, text: &str) {
        self.bom = if text.starts_with(BOM) { BOM.len() } else { 0 };
        let ranges = split_units(self.format, &text[self.bom..], self.bom);
        self.units = self.analyze_ranges(text, 0, ranges, |_| None);
        self.keys = KeyCounts::default();
        for unit in &self.units {
            self.keys.change(&unit.analysis, 1);
        }
    }

    /// Analyses each unit range (document offsets; `text` starts at `base`),
    /// in parallel when there are many, except those for which `reuse`
    /// already has an analysis.
    fn analyze_ranges(
        &self,
        text: &str,
        base: usize,
        ranges: Vec<Range<usize>>,
        reuse: impl Fn(&Range<usize>) -> Option<Arc<UnitAnalysis>> + Sync,
    ) -> Vec<Unit> {
        let format = self.format;
        let analyse = |r: &Range<usize>| Unit {
            start: r.start,
            len: r.len(),
            analysis: reuse(r).unwrap_or_else(|| Arc::new(format.analyze_unit(&text[r.start - base..r.end - base]))),
        };
        if ranges.len() > UNITS_PER_TASK {
            ranges.par_iter().with_min_len(UNITS_PER_TASK).map(analyse).collect()
        } else {
            ranges.iter().map(analyse).collect()
        }
    }

    /// Replaces `range` (bytes, in the current text) with `new_text` and
    /// re-analyses only the units whose text the edit changed. The region
    /// re-split is widened by one unit on each side, since an edit can merge
    /// or split units at their boundaries; a neighbour that comes out of the
    /// re-split with the same extent has the same text and keeps its analysis.
    pub fn apply_edit(&mut self, range: Range<usize>, new_text: &str) {
        let start = self.doc.floor_boundary(range.start);
        let end = self.doc.floor_boundary(range.end.max(start));
        self.doc.replace(start..end, new_text);
        self.invalid_utf8.clear();
        let new_bom = if self.doc.starts_with(BOM) { BOM.len() } else { 0 };
        if start < self.bom || new_bom != self.bom {
            let text = self.text();
            self.reanalyze_all(&text);
            return;
        }
        let first_touched = self.units.partition_point(|u| u.start + u.len < start);
        let last_touched = self
            .units
            .partition_point(|u| u.start <= end)
            .saturating_sub(1)
            .max(first_touched);
        let lo = first_touched.saturating_sub(1);
        let hi = (last_touched + 1).min(self.units.len() - 1);
        // Where an offset at or after the edit's end lands in the new text.
        let moved = |old: usize| old + new_text.len() - (end - start);
        let region_start = self.units[lo].start;
        let region_text = self.doc.slice(region_start..moved(self.units[hi].range().end));
        let unchanged = [
            (lo < first_touched).then(|| (self.units[lo].start, &self.units[lo])),
            (hi > last_touched).then(|| (moved(self.units[hi].start), &self.units[hi])),
        ];
        let ranges = split_units(self.format, &region_text, region_start);
        let fresh = self.analyze_ranges(&region_text, region_start, ranges, |range| {
            unchanged
                .iter()
                .flatten()
                .find(|(new_start, old)| range.start == *new_start && range.len() == old.len)
                .map(|(_, old)| Arc::clone(&old.analysis))
        });
        for unit in &self.units[lo..=hi] {
            self.keys.change(&unit.analysis, -1);
        }
        for unit in &fresh {
            self.keys.change(&unit.analysis, 1);
        }
        let inserted = fresh.len();
        self.units.splice(lo..=hi, fresh);
        for unit in &mut self.units[lo + inserted..] {
            unit.start = moved(unit.start);
        }
    }

    /// Every diagnostic, document-absolute, in text order: each unit's own,
    /// its duplicate-key warning, and invalid UTF-8 from disk.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        let mut first_use: HashMap<&str, Span> = HashMap::new();
        let is_taken = |k: &str| self.keys.counts.contains_key(k);
        for unit in &self.units {
            out.extend(unit.analysis.diagnostics.iter().map(|d| d.clone().shifted(unit.start)));
            if self.keys.duplicated == 0 {
                continue;
            }
            let Some((key, span)) = &unit.analysis.key else {
                continue;
            };
            if self.keys.counts.get(key).is_some_and(|&n| n > 1) {
                let span = shift(span, unit.start);
                match first_use.get(&**key) {
                    Some(first) => out.push(self.format.duplicate_key(key, span, first.clone(), &is_taken)),
                    None => {
                        first_use.insert(key, span);
                    }
                }
            }
        }
        if !self.invalid_utf8.is_empty() {
            out.extend(self.invalid_utf8.iter().map(|s| self.format.invalid_utf8(s.clone())));
            out.sort_by_key(|d| d.span.start);
        }
        out
    }

    /// Diagnostics with the user's severities applied; rules turned off are dropped.
    pub fn diagnostics_with(&self, settings: &Settings) -> Vec<(Diagnostic, crate::model::Severity)> {
        self.diagnostics()
            .into_iter()
            .filter_map(|d| crate::model::effective_severity(d.rule, &settings.severity).map(|s| (d, s)))
            .collect()
    }

    /// The index of the unit holding `offset` (the last unit for the end of the text).
    pub fn unit_index_at(&self, offset: usize) -> usize {
        self.units
            .partition_point(|u| u.start + u.len <= offset)
            .min(self.units.len() - 1)
    }

    fn unit_text(&self, index: usize) -> String {
        self.doc.slice(self.units[index].range())
    }

    pub fn hover(&self, offset: usize, settings: &Settings) -> Option<HoverInfo> {
        let i = self.unit_index_at(offset);
        let start = self.units[i].start;
        let mut hover = self
            .format
            .hover(&self.unit_text(i), offset.checked_sub(start)?, settings)?;
        hover.span = shift(&hover.span, start);
        Some(hover)
    }

    pub fn complete(&self, offset: usize) -> Vec<CompletionItem> {
        let i = self.unit_index_at(offset);
        let start = self.units[i].start;
        let Some(relative) = offset.checked_sub(start) else {
            return Vec::new();
        };
        let mut items = self.format.complete(&self.unit_text(i), relative);
        for item in &mut items {
            item.replace = shift(&item.replace, start);
        }
        items
    }

    fn units_overlapping(&self, range: &Range<usize>) -> Range<usize> {
        let first = self.unit_index_at(range.start);
        let last = self.unit_index_at(range.end.saturating_sub(1).max(range.start));
        first..last + 1
    }

    /// Edits that bring the units overlapping `range` (all, if `None`) into
    /// canonical form; units with broken syntax are left alone.
    pub fn format_edits(&self, range: Option<Range<usize>>) -> Vec<TextEdit> {
        let (crlf, lf) = self
            .units
            .iter()
            .fold((0, 0), |(c, l), u| (c + u.analysis.crlf_lines, l + u.analysis.lf_lines));
        let line_ending = if crlf > lf { "\r\n" } else { "\n" };
        let indices = match &range {
            Some(r) => self.units_overlapping(r),
            None => 0..self.units.len(),
        };
        let last = self.units.len() - 1;
        let mut edits = Vec::new();
        for i in indices {
            let unit = &self.units[i];
            let old = self.unit_text(i);
            let layout = UnitLayout {
                is_last: i == last,
                line_ending,
            };
            let Some(new) = self.format.format_unit(&old, &unit.analysis, layout) else {
                continue;
            };
            if unit.start == 0 && new.starts_with(BOM) {
                // A U+FEFF moved to the very start would turn into a byte order mark.
                continue;
            }
            if let Some(edit) = minimal_edit(&old, &new) {
                edits.push(TextEdit {
                    span: shift(&edit.span, unit.start),
                    new_text: edit.new_text,
                });
            }
        }
        edits
    }

    /// The whole text formatted (what `kibitz fmt` writes).
    pub fn formatted_text(&self) -> String {
        let mut text = self.text();
        for edit in self.format_edits(None).into_iter().rev() {
            text.replace_range(edit.span, &edit.new_text);
        }
        text
    }

    pub fn symbols(&self) -> Vec<Symbol> {
        self.per_unit(
            0..self.units.len(),
            |f, t| f.symbols(t),
            |s, by| {
                s.span = shift(&s.span, by);
                s.selection = shift(&s.selection, by);
            },
        )
    }

    pub fn folds(&self) -> Vec<Span> {
        self.per_unit(0..self.units.len(), |f, t| f.folds(t), |s, by| *s = shift(s, by))
    }

    pub fn tokens(&self, range: Option<Range<usize>>) -> Vec<Token> {
        let units = range.map_or(0..self.units.len(), |r| self.units_overlapping(&r));
        self.per_unit(units, |f, t| f.tokens(t), |tok, by| tok.span = shift(&tok.span, by))
    }

    pub fn inlay_hints(&self, range: Range<usize>) -> Vec<InlayHint> {
        let units = self.units_overlapping(&range);
        let mut hints = self.per_unit(units, |f, t| f.inlay_hints(t), |h, by| h.offset += by);
        hints.retain(|h| range.contains(&h.offset) || h.offset == range.end);
        hints
    }

    fn per_unit<T>(
        &self,
        units: Range<usize>,
        produce: impl Fn(&dyn Format, &str) -> Vec<T>,
        shift: impl Fn(&mut T, usize),
    ) -> Vec<T> {
        let mut out = Vec::new();
        for i in units {
            let mut items = produce(self.format, &self.unit_text(i));
            items.iter_mut().for_each(|item| shift(item, self.units[i].start));
            out.extend(items);
        }
        out
    }
}

/// How many units use each key (game label), kept up to date by every
/// splice so the duplicate check costs the edit, not the file.
#[derive(Default)]
struct KeyCounts {
    /// FxHash: a whole-file check counts every label once, on one thread,
    /// and SipHash made that a visible part of the run.
    counts: FxHashMap<Arc<str>, u32>,
    /// How many keys are used more than once.
    duplicated: usize,
}

impl KeyCounts {
    fn change(&mut self, analysis: &UnitAnalysis, by: i32) {
        let Some((key, _)) = &analysis.key else { return };
        let count = self.counts.entry(Arc::clone(key)).or_insert(0);
        let before = *count;
        *count = count.saturating_add_signed(by);
        let after = *count;
        if before <= 1 && after > 1 {
            self.duplicated += 1;
        } else if before > 1 && after <= 1 {
            self.duplicated -= 1;
        }
        if after == 0 {
            self.counts.remove(key);
        }
    }
}

/// Cuts `text` (which starts at document offset `base`) into unit ranges:
/// a new unit at every line the format says starts one. The first unit
/// starts at the beginning even when its first line is not a unit start
/// (the lines before the first game).
pub fn split_units(format: &dyn Format, text: &str, base: usize) -> Vec<Range<usize>> {
    let mut starts = vec![0];
    if text.len() < PARALLEL_SPLIT_BYTES {
        starts.extend(unit_starts(format, text, 0..text.len()));
    } else {
        // Large files (a whole file being opened or checked): cut the text
        // into line-aligned chunks and look for unit starts in each in parallel.
        let chunks = rayon::current_num_threads() * 8;
        let mut bounds: Vec<usize> = (0..=chunks)
            .map(|i| line_start_at_or_after(text, text.len() * i / chunks))
            .collect();
        bounds.dedup();
        let found: Vec<Vec<usize>> = bounds
            .par_windows(2)
            .map(|w| unit_starts(format, text, w[0]..w[1]).collect())
            .collect();
        starts.extend(found.into_iter().flatten());
    }
    let mut ranges: Vec<Range<usize>> = starts.windows(2).map(|w| base + w[0]..base + w[1]).collect();
    let last = *starts.last().unwrap_or(&0);
    ranges.push(base + last..base + text.len());
    ranges
}

/// Texts at least this long are split into units in parallel.
const PARALLEL_SPLIT_BYTES: usize = 1 << 20;

/// The starts (after 0) of unit-starting lines among the lines that begin
/// in `lines` (which starts at a line start).
fn unit_starts<'a>(format: &'a dyn Format, text: &'a str, lines: Range<usize>) -> impl Iterator<Item = usize> + 'a {
    crate::text::line_ranges(&text[lines.clone()])
        .map(move |l| shift(&l, lines.start))
        .filter(move |l| l.start > 0 && l.start < lines.end && format.starts_unit(&text[l.clone()]))
        .map(|l| l.start)
}

fn line_start_at_or_after(text: &str, offset: usize) -> usize {
    if offset == 0 || offset >= text.len() {
        return offset.min(text.len());
    }
    memchr::memchr(b'\n', &text.as_bytes()[offset - 1..]).map_or(text.len(), |i| offset + i)
}

/// One edit turning `old` into `new`, trimmed to the part that differs.
fn minimal_edit(old: &str, new: &str) -> Option<TextEdit> {
    if old == new {
        return None;
    }
    let mut prefix = old.bytes().zip(new.bytes()).take_while(|(a, b)| a == b).count();
    while !old.is_char_boundary(prefix) || !new.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let max_suffix = old.len().min(new.len()) - prefix;
    let mut suffix = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(old.len() - suffix) || !new.is_char_boundary(new.len() - suffix) {
        suffix -= 1;
    }
    Some(TextEdit {
        span: prefix..old.len() - suffix,
        new_text: new[prefix..new.len() - suffix].to_string(),
    })
}

#[cfg(test)]
mod tests;
