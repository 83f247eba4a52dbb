//! The shell command classifier for foreign transcripts (spec/governor.md §11.7): a POSIX-subset
//! lexer, then which paths a command writes, and whether it is one file read or one search.
//! Alisio's own `shell` and `run_process` are never classified.

/// A base directory (spec/governor.md §11.3): known, empty or unknown.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Base {
    Known(String),
    Empty,
    Unknown,
}

impl Base {
    /// A stable text form for signatures.
    #[must_use]
    pub fn signature(&self) -> String {
        match self {
            Self::Known(b) => format!("K{b}"),
            Self::Empty => "E".into(),
            Self::Unknown => "U".into(),
        }
    }
}

/// Whether `p` is absolute (`/…`, or a drive letter followed by `:\` or `:/`).
#[must_use]
pub fn is_absolute(p: &str) -> bool {
    let b = p.as_bytes();
    p.starts_with('/')
        || (b.len() >= 3
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && (b[2] == b'\\' || b[2] == b'/'))
}

/// The path key of `p` under `base` (spec/governor.md §11.3); `None`: no key, matches nothing.
#[must_use]
pub fn key(base: &Base, p: &str) -> Option<String> {
    if p.is_empty() {
        return None;
    }
    if is_absolute(p) {
        return Some(p.to_owned());
    }
    match base {
        Base::Known(b) => Some(if b.ends_with('/') {
            format!("{b}{p}")
        } else {
            format!("{b}/{p}")
        }),
        Base::Empty => Some(p.to_owned()),
        Base::Unknown => None,
    }
}

mod classify;
mod ephemeral;
mod lex;

pub use classify::{classify, search_output_paths};
pub use ephemeral::{EPHEMERAL_TOOLS, check as ephemeral_check, ephemeral};

/// What the classifier found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandKind {
    /// A plain process.
    Process,
    /// A read of one file: `(key, path as written)`.
    Read { key: Option<String>, path: String },
    /// A search; `files` when every output line is a path.
    Search { files: bool },
}

/// The classification of one shell command (spec/governor.md §11.7).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shell {
    pub kind: CommandKind,
    /// Keyed written paths (an edit of each when the command succeeds).
    pub written: Vec<String>,
    /// Written paths as written (segment origin).
    pub written_raw: Vec<String>,
    /// The base in effect for the classified element (signature and usage keys).
    pub base: Base,
    /// The trimmed command text.
    pub text: String,
}

#[cfg(test)]
pub(crate) mod glance_tests;
#[cfg(test)]
mod tests;
