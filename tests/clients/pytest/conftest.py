"""pytest-lsp fixtures: the built alisio-ls binary driven with the recorded capabilities of real
editors (Neovim 0.11 and VS Code, as shipped with pytest-lsp)."""

import json
import os
import pathlib
import shutil
import subprocess
import tempfile

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

REPO = pathlib.Path(__file__).resolve().parents[3]
BIN = os.environ.get("ALISIO_LS_BIN", str(REPO / "target" / "debug" / "alisio-ls"))
CLIENTS = ["neovim@v0.11.0", "visual-studio-code"]


def make_workspace() -> pathlib.Path:
    """A temporary workspace with a `.git` directory; the files are written by each test."""
    root = pathlib.Path(tempfile.mkdtemp(prefix="alisio-pytest-")).resolve()
    (root / "ws" / ".git").mkdir(parents=True)
    (root / "config-home").mkdir()
    (root / "home").mkdir()
    return root


@pytest.fixture(scope="module")
def base():
    root = make_workspace()
    yield root
    shutil.rmtree(root, ignore_errors=True)


def server_env(base: pathlib.Path) -> dict:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(base / "home"),
        "ALISIO_CONFIG_HOME": str(base / "config-home"),
        "ALISIO_STATE_HOME": str(base / "state"),
    }
