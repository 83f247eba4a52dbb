//! The pytest-lsp suite (tests/clients/pytest): the server driven with the recorded capabilities
//! of Neovim 0.11 and VS Code. The virtual environment is made by
//! `tests/clients/setup-pytest.sh` (`.ci/run` calls it); when it is absent this test tries to make
//! it and skips, saying why, when PyPI cannot be reached.

use std::path::Path;
use std::process::Command;

#[test]
fn pytest_lsp_suite_passes_with_neovim_and_vscode_capabilities() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let venv = repo.join("target/venv-clients");
    let python = venv.join("bin/python");
    let ready = python.exists()
        && Command::new(&python)
            .args(["-c", "import pytest_lsp"])
            .status()
            .is_ok_and(|s| s.success());
    if !ready {
        let setup = Command::new(repo.join("tests/clients/setup-pytest.sh"))
            .arg(&venv)
            .status();
        if !setup.is_ok_and(|s| s.success()) {
            eprintln!(
                "skipped: cannot create the pytest-lsp environment (no python3 venv or no PyPI access)"
            );
            return;
        }
    }
    let out = Command::new(&python)
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/clients/pytest",
        ])
        .current_dir(&repo)
        .env("ALISIO_LS_BIN", env!("CARGO_BIN_EXE_alisio-ls"))
        .output()
        .expect("run pytest");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "pytest-lsp suite failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(" passed"), "{stdout}");
}
