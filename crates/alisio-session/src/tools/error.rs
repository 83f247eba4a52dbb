//! The errors of the tools (spec/sessions.md §3): each `Display` is exactly the error text the
//! call's result carries (the model reads it; tests compare it), and a caller that must tell
//! one error from another matches a variant, never the text.

use super::confine::{Refusal, WriteRefusal};

/// A tool call's error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// spec/sessions.md §2.5 step 3 (and a typed struct that disagrees with its schema).
    #[error("Invalid arguments: {0}")]
    InvalidArguments(String),
    /// spec/sessions.md §3.2 steps 1–3.
    #[error("{}", .0.message())]
    Confinement(Refusal),
    /// spec/sessions.md §3.2 step 4.
    #[error(transparent)]
    Write(#[from] WriteRefusal),
    #[error("File not found: {0}")]
    FileNotFound(String),
    #[error("Not a file: {0}")]
    NotAFile(String),
    #[error("Not a directory: {0}")]
    NotADirectory(String),
    /// The file could not be read (the path as shown, the system's message).
    #[error("Cannot read {0}: {1}")]
    CannotRead(String, String),
    /// A NUL byte in the bytes read.
    #[error("Binary file; text reader refused")]
    Binary,
    /// `expectedHash` does not match the file.
    #[error("File precondition failed: reread the file and use its current sha256")]
    Precondition,
    /// The file or the text written is over 1 MiB.
    #[error("Write exceeds 1 MiB")]
    WriteTooLarge,
    /// spec/sessions.md §4.4: the file changed while the write was under review (a refusal).
    #[error(
        "Stale approval: {0} changed on disk while the change was under review; nothing was written. Read the file again and propose the change again."
    )]
    StaleApproval(String),
    #[error("Unknown background task: {0}")]
    UnknownTask(String),
    #[error("Working directory not found: {0}")]
    WorkingDirectoryNotFound(String),
    /// The file changed between the precondition and the rename (nothing written).
    #[error("File changed while preparing write")]
    ChangedWhileWriting,
    /// Every other error text, as the tool wrote it (spec/sessions.md §3.4).
    #[error("{0}")]
    Failed(String),
}

impl From<alisio_base::workspace::write::WriteError> for ToolError {
    fn from(e: alisio_base::workspace::write::WriteError) -> Self {
        use alisio_base::workspace::write::WriteError;
        match e {
            WriteError::NotAFile { shown } => Self::NotAFile(shown),
            WriteError::Changed => Self::ChangedWhileWriting,
            e @ (WriteError::CreateDirectories { .. } | WriteError::Write { .. }) => {
                Self::Failed(e.to_string())
            }
        }
    }
}

impl From<String> for ToolError {
    fn from(text: String) -> Self {
        Self::Failed(text)
    }
}

impl From<&str> for ToolError {
    fn from(text: &str) -> Self {
        Self::Failed(text.to_string())
    }
}

impl From<Refusal> for ToolError {
    fn from(r: Refusal) -> Self {
        Self::Confinement(r)
    }
}

/// What a tool function returns: its output (text unless said) or its [`ToolError`].
pub type ToolReturn<T = String> = Result<T, ToolError>;
