//! spec/hosts.md §5 and H11: the diagnostics of the hosts `copilot`, `gemini` and `cursor`, for every
//! host in use, whatever the active host.

use std::path::PathBuf;

use super::super::Setup;
use super::super::host_files::in_use;
use super::super::read::Reader;
use super::host_common::GlobScan;
use super::{copilot_host, cursor_host, gemini_host};
use alisio_base::config::Host;
use alisio_base::diagnostic::Diagnostic;
use alisio_base::workspace::FileType;
use alisio_base::workspace::walk::DirSet;

/// The regular files of D (absolute paths), listed once for the glob checks.
pub(super) fn files_of(set: &DirSet) -> Vec<PathBuf> {
    set.dirs
        .iter()
        .flat_map(|d| {
            d.entries
                .iter()
                .filter(|e| e.file_type == FileType::File)
                .map(|e| d.path.join(&e.name))
        })
        .collect()
}

/// Every diagnostic of the three hosts that are in use.
pub fn diagnostics(setup: &Setup<'_>, reader: &Reader<'_>, set: &DirSet) -> Vec<Diagnostic> {
    let hosts = in_use(setup);
    let mut files: Option<Vec<PathBuf>> = None;
    let mut out = Vec::new();
    for h in hosts {
        let checks: fn(&GlobScan<'_>) -> Vec<Diagnostic> = match h {
            Host::Copilot => copilot_host::diagnostics,
            Host::Cursor => cursor_host::diagnostics,
            Host::Gemini => {
                out.extend(gemini_host::diagnostics(setup, reader, set));
                continue;
            }
            _ => continue,
        };
        let files = files.get_or_insert_with(|| files_of(set));
        out.extend(checks(&GlobScan {
            setup,
            reader,
            set,
            files,
        }));
    }
    out
}
