//! The default [`SessionContext`]: instruction files and skills read from disk. Until the
//! instruction and skill modules are wired in, it offers no instruction text and no skills.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{AttachedFile, Attachment, SessionContext};

/// Instruction files and skills of a workspace, from disk.
#[derive(Clone, Debug)]
pub struct DiskContext {
    pub root: PathBuf,
    pub settings: crate::config::Settings,
    pub trusted: bool,
    pub config_home: Option<PathBuf>,
}

impl SessionContext for DiskContext {
    fn instruction_blocks(&self, _cwd: &Path, _attached: &[AttachedFile]) -> Vec<String> {
        Vec::new()
    }

    fn skills_listed(&self) -> bool {
        false
    }

    fn attach(&self, _cwd: &Path, _attached: &[AttachedFile], _paths: &[PathBuf]) -> Option<Attachment> {
        None
    }

    fn tool(&self, name: &str, _args: &Map<String, Value>, _cwd: &Path) -> Result<String, String> {
        Err(format!("Tool \"{name}\" is not available in this session"))
    }
}
