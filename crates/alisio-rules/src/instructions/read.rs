//! Reading one instruction file (spec/instructions.md §2.5): BOM, the bounded per-file read, lossy
//! decoding with a count of invalid sequences, the empty test, and a per-run cache so a file is
//! read once however many directories share it.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::PER_FILE_LIMIT;
use alisio_base::text::{TextRange, floor_boundary};
use alisio_base::workspace::Fs;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// How a host reads a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReadMode {
    /// Host `alisio`: BOM removed, bounded read, cut at [`PER_FILE_LIMIT`] on a boundary.
    Alisio,
    /// Host `codex`: raw bytes (BOM kept, no per-file limit); at most `limit` bytes are read,
    /// enough for any budget.
    Raw { limit: u64 },
    /// Host `claude-code`: BOM removed, whole file, skipped (not read) above 4 MiB.
    Claude,
}

/// The decoded contents of one file and the facts explain and diagnostics report about it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileText {
    /// Decoded text (spec/instructions.md §2.5 steps 1–4); for [`ReadMode::Raw`] the lossy decoding of [`Self::raw`].
    pub text: String,
    /// Raw bytes read ([`ReadMode::Raw`] only).
    pub raw: Vec<u8>,
    /// Size on disk (`fileBytes`).
    pub file_bytes: u64,
    /// A BOM was removed.
    pub bom: bool,
    /// spec/instructions.md §2.5 step 2 cut the file (`fileCut`).
    pub cut: bool,
    /// Number of invalid UTF-8 sequences replaced by U+FFFD.
    pub invalid: usize,
    /// The first U+FFFD produced by decoding, as a byte range of [`Self::text`].
    pub first_invalid: Option<TextRange>,
    /// Empty or only `White_Space` (spec/instructions.md §2.5 step 5).
    pub empty: bool,
    /// The file could not be read (`error`).
    pub error: Option<String>,
    /// claude-code: the file is over 4 MiB and was not read.
    pub too_large: bool,
}

impl FileText {
    /// Size (spec/instructions.md §2.5 step 6): the decoded length, 0 when empty.
    #[must_use]
    pub fn size(&self) -> usize {
        if self.empty || self.error.is_some() || self.too_large {
            0
        } else {
            self.text.len()
        }
    }

    /// 1-based line of the first invalid sequence.
    #[must_use]
    pub fn first_invalid_line(&self) -> Option<usize> {
        let r = self.first_invalid?;
        Some(
            self.text
                .as_bytes()
                .get(..r.start)?
                .iter()
                .filter(|b| **b == b'\n')
                .count()
                + 1,
        )
    }
}

/// A short message for an I/O error (`"permission denied"`).
#[must_use]
pub fn io_message(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        io::ErrorKind::NotFound => "not found".to_string(),
        io::ErrorKind::IsADirectory => "is a directory".to_string(),
        _ => e.to_string(),
    }
}

/// Lossy UTF-8 decoding (the rule of `String::from_utf8_lossy`), counting the replaced
/// sequences and locating the first one in the output.
#[must_use]
pub fn decode(bytes: &[u8]) -> (String, usize, Option<TextRange>) {
    let mut out = String::with_capacity(bytes.len());
    let mut count = 0;
    let mut first = None;
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        if !chunk.invalid().is_empty() {
            if first.is_none() {
                first = Some(TextRange::new(out.len(), out.len() + '\u{FFFD}'.len_utf8()));
            }
            count += 1;
            out.push('\u{FFFD}');
        }
    }
    (out, count, first)
}

/// `true` for an empty or whitespace-only text.
#[must_use]
pub fn is_blank(text: &str) -> bool {
    text.chars().all(char::is_whitespace)
}

/// Reads one file in `mode` (no cache).
#[must_use]
pub fn read_file(fs: &dyn Fs, path: &Path, mode: ReadMode) -> FileText {
    let mut ft = FileText::default();
    match fs.metadata(path) {
        Ok(m) => ft.file_bytes = m.len,
        Err(e) => {
            ft.error = Some(io_message(&e));
            return ft;
        }
    }
    let limit = match mode {
        ReadMode::Alisio => (PER_FILE_LIMIT + 3 + BOM.len()) as u64,
        ReadMode::Raw { limit } => limit,
        ReadMode::Claude => {
            if ft.file_bytes > super::CLAUDE_SKIP_LIMIT {
                ft.too_large = true;
                return ft;
            }
            super::CLAUDE_SKIP_LIMIT + 1
        }
    };
    let bytes = match fs.read_prefix(path, limit) {
        Ok(b) => b,
        Err(e) => {
            ft.error = Some(io_message(&e));
            return ft;
        }
    };
    // The file may have grown since its metadata was read: never report fewer bytes than were
    // read (a cut range would end before it starts), and judge a Claude file by what was read.
    ft.file_bytes = ft.file_bytes.max(bytes.len() as u64);
    if mode == ReadMode::Claude && ft.file_bytes > super::CLAUDE_SKIP_LIMIT {
        ft.too_large = true;
        return ft;
    }
    let mut body: &[u8] = &bytes;
    if !matches!(mode, ReadMode::Raw { .. })
        && let Some(rest) = body.strip_prefix(BOM)
    {
        body = rest;
        ft.bom = true;
    }
    if mode == ReadMode::Alisio && body.len() > PER_FILE_LIMIT {
        let at = floor_boundary(body, PER_FILE_LIMIT);
        body = body.get(..at).unwrap_or(body);
        ft.cut = true;
    }
    let (text, invalid, first) = decode(body);
    ft.empty = is_blank(&text);
    ft.text = text;
    ft.invalid = invalid;
    ft.first_invalid = first;
    if matches!(mode, ReadMode::Raw { .. }) {
        ft.raw = bytes;
    }
    ft
}

/// A per-run cache of [`read_file`]: every file is read once per mode.
pub struct Reader<'a> {
    pub fs: &'a dyn Fs,
    cache: RefCell<HashMap<(PathBuf, ReadMode), Arc<FileText>>>,
}

impl<'a> Reader<'a> {
    #[must_use]
    pub fn new(fs: &'a dyn Fs) -> Self {
        Self {
            fs,
            cache: RefCell::new(HashMap::new()),
        }
    }

    pub fn read(&self, path: &Path, mode: ReadMode) -> Arc<FileText> {
        let key = (path.to_path_buf(), mode);
        if let Some(ft) = self.cache.borrow().get(&key) {
            return ft.clone();
        }
        let ft = Arc::new(read_file(self.fs, path, mode));
        self.cache.borrow_mut().insert(key, ft.clone());
        ft
    }
}

/// The end position of a whole file without holding it in memory twice: `(line, utf16, utf8)`
/// of its last byte, for ranges that run "to the end of the file" past the bytes read.
#[must_use]
pub fn end_position(bytes: &[u8]) -> (u32, u32, u32) {
    let line = bytes.iter().filter(|b| **b == b'\n').count();
    let start = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let last = String::from_utf8_lossy(bytes.get(start..).unwrap_or_default());
    let to32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    (
        to32(line),
        to32(last.encode_utf16().count()),
        to32(last.len()),
    )
}

/// [`end_position`] of a whole file on `fs`, streamed in chunks so a file of any size costs a
/// fixed amount of memory. `strip_bom` removes a leading BOM first (the text the rules judge).
///
/// # Errors
/// The file cannot be read.
pub fn end_position_of(fs: &dyn Fs, path: &Path, strip_bom: bool) -> io::Result<(u32, u32, u32)> {
    let mut c = EndCounter {
        at_start: strip_bom,
        ..EndCounter::default()
    };
    fs.scan(path, &mut |chunk| c.feed(chunk))?;
    Ok(c.finish())
}

/// Running state of [`end_position_of`]: lines seen, and the lossy-decoded length of the line
/// after the last `\n` in both units, with an incomplete UTF-8 sequence carried between chunks.
#[derive(Default)]
struct EndCounter {
    line: usize,
    utf16: usize,
    utf8: usize,
    carry: Vec<u8>,
    /// Still at the start of the file (a BOM may follow).
    at_start: bool,
    head: Vec<u8>,
}

impl EndCounter {
    fn feed(&mut self, chunk: &[u8]) {
        let mut chunk = chunk;
        let held;
        if self.at_start {
            // Hold the first bytes until it is known whether they are a BOM.
            self.head.extend_from_slice(chunk);
            if self.head.len() < BOM.len() && BOM.starts_with(&self.head) {
                return;
            }
            self.at_start = false;
            held = std::mem::take(&mut self.head);
            chunk = held.strip_prefix(BOM).unwrap_or(&held);
        }
        let mut data = std::mem::take(&mut self.carry);
        data.extend_from_slice(chunk);
        let seg = match data.iter().rposition(|b| *b == b'\n') {
            Some(k) => {
                self.line += data.iter().filter(|b| **b == b'\n').count();
                self.utf16 = 0;
                self.utf8 = 0;
                data.get(k + 1..).unwrap_or_default()
            }
            None => &data[..],
        };
        let mut chunks = seg.utf8_chunks().peekable();
        while let Some(c) = chunks.next() {
            let v = c.valid();
            self.utf16 += if v.is_ascii() {
                v.len()
            } else {
                v.encode_utf16().count()
            };
            self.utf8 += c.valid().len();
            let bad = c.invalid();
            if bad.is_empty() {
                continue;
            }
            let incomplete = chunks.peek().is_none()
                && std::str::from_utf8(bad)
                    .err()
                    .is_some_and(|e| e.error_len().is_none());
            if incomplete {
                self.carry = bad.to_vec();
            } else {
                self.utf16 += 1;
                self.utf8 += '\u{FFFD}'.len_utf8();
            }
        }
    }

    fn finish(mut self) -> (u32, u32, u32) {
        if self.at_start {
            // Shorter than a BOM: the held bytes are text.
            let head = std::mem::take(&mut self.head);
            let mut rest = EndCounter::default();
            rest.feed(&head);
            return rest.finish();
        }
        if !self.carry.is_empty() {
            self.utf16 += 1;
            self.utf8 += '\u{FFFD}'.len_utf8();
        }
        let to32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        (to32(self.line), to32(self.utf16), to32(self.utf8))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alisio_base::workspace::DiskFs;

    fn tmp(content: &[u8]) -> (tempfile::TempDir, PathBuf) {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("AGENTS.md");
        std::fs::write(&p, content).unwrap();
        (d, p)
    }

    #[test]
    fn bom_is_removed_and_not_counted() {
        let (_d, p) = tmp(b"\xEF\xBB\xBFhello");
        let ft = read_file(&DiskFs, &p, ReadMode::Alisio);
        assert_eq!(
            (ft.text.as_str(), ft.size(), ft.file_bytes, ft.bom),
            ("hello", 5, 8, true)
        );
    }

    #[test]
    fn raw_mode_keeps_the_bom() {
        let (_d, p) = tmp(b"\xEF\xBB\xBFhi");
        let ft = read_file(&DiskFs, &p, ReadMode::Raw { limit: 100 });
        assert_eq!(ft.raw, b"\xEF\xBB\xBFhi");
        assert_eq!(ft.text, "\u{feff}hi");
    }

    #[test]
    fn invalid_sequences_become_one_replacement_each() {
        let (text, n, first) = decode(b"ab\xFFcd\n\xC3");
        assert_eq!(text, "ab\u{FFFD}cd\n\u{FFFD}");
        assert_eq!(n, 2);
        assert_eq!(first, Some(TextRange::new(2, 5)));
    }

    #[test]
    fn per_file_cut_lands_on_a_character_boundary() {
        let mut content = vec![b'a'; PER_FILE_LIMIT - 2];
        content.extend("😀😀".as_bytes());
        let (_d, p) = tmp(&content);
        let ft = read_file(&DiskFs, &p, ReadMode::Alisio);
        assert!(ft.cut);
        assert_eq!(ft.size(), PER_FILE_LIMIT - 2);
        assert_eq!(ft.invalid, 0);
    }

    #[test]
    fn whitespace_only_is_empty_with_size_zero() {
        let (_d, p) = tmp(b"  \n\n\t\xE2\x80\x83");
        let ft = read_file(&DiskFs, &p, ReadMode::Alisio);
        assert!(ft.empty);
        assert_eq!(ft.size(), 0);
    }

    /// A fixed in-memory file whose `scan` delivers chunks of a chosen size.
    struct Chunked(Vec<u8>, usize);

    impl Fs for Chunked {
        fn read_dir(&self, _: &Path) -> io::Result<Vec<alisio_base::workspace::DirEntry>> {
            Ok(Vec::new())
        }
        fn symlink_metadata(&self, p: &Path) -> io::Result<alisio_base::workspace::Metadata> {
            self.metadata(p)
        }
        fn metadata(&self, _: &Path) -> io::Result<alisio_base::workspace::Metadata> {
            Ok(alisio_base::workspace::Metadata {
                file_type: alisio_base::workspace::FileType::File,
                len: self.0.len() as u64,
                mtime_ns: None,
            })
        }
        fn read_prefix(&self, _: &Path, limit: u64) -> io::Result<Vec<u8>> {
            Ok(self.0[..self
                .0
                .len()
                .min(usize::try_from(limit).unwrap_or(usize::MAX))]
                .to_vec())
        }
        fn scan(&self, _: &Path, f: &mut dyn FnMut(&[u8])) -> io::Result<()> {
            self.0.chunks(self.1).for_each(f);
            Ok(())
        }
        fn canonicalize(&self, p: &Path) -> io::Result<PathBuf> {
            Ok(p.to_path_buf())
        }
        fn read_link(&self, p: &Path) -> io::Result<PathBuf> {
            Ok(p.to_path_buf())
        }
    }

    #[test]
    fn streamed_end_position_equals_the_whole_file_one_for_every_chunking() {
        let pieces: &[&[u8]] = &[
            b"a",
            b"\n",
            b"\xEF\xBB\xBF",
            "😀".as_bytes(),
            b"\xF0\x9F",
            b"\xFF",
            b"\r\n",
            "é".as_bytes(),
            b"\xC3",
            b"z",
        ];
        let mut rng = alisio_base::testing::Rng(0x9E37_79B9_7F4A_7C15);
        for _ in 0..400 {
            let mut content = Vec::new();
            for _ in 0..rng.below(12) {
                content.extend_from_slice(pieces[rng.below(pieces.len())]);
            }
            let stripped: &[u8] = content.strip_prefix(BOM).unwrap_or(&content);
            for chunk in 1..6 {
                let fs = Chunked(content.clone(), chunk);
                assert_eq!(
                    end_position_of(&fs, Path::new("f"), false).unwrap(),
                    end_position(&content),
                    "{content:?} / {chunk}"
                );
                assert_eq!(
                    end_position_of(&fs, Path::new("f"), true).unwrap(),
                    end_position(stripped),
                    "bom {content:?} / {chunk}"
                );
            }
        }
    }

    #[test]
    fn end_position_counts_lines_and_units() {
        assert_eq!(end_position(b"ab\ncd\xF0\x9F\x98\x80"), (1, 4, 6));
        assert_eq!(end_position(b"a\n"), (1, 0, 0));
    }
}
