"""The server as Neovim 0.11 and VS Code drive it: same capabilities, same order of messages."""

import pathlib
import shutil
import tempfile

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from conftest import BIN, CLIENTS, server_env

WS_TMP = pathlib.Path(tempfile.mkdtemp(prefix="alisio-pytest-")).resolve()
WS = WS_TMP / "ws"
(WS / ".git").mkdir(parents=True)
(WS_TMP / "config-home").mkdir()
(WS_TMP / "home").mkdir()
(WS / ".alisio").mkdir()
CONFIG = WS / ".alisio" / "config.json"
CONFIG.write_text('{\n  "context": {"maxBytes": 1023}\n}\n')
SKILL = WS / ".agents" / "skills" / "Bad--Name" / "SKILL.md"
SKILL.parent.mkdir(parents=True)
SKILL.write_text("---\nname: Bad--Name\ndescription: Does things.\n---\nBody\n")
(WS / "AGENTS.md").write_text("a" * 30000)
(WS / "src").mkdir()
(WS / "src" / "AGENTS.md").write_text("b" * 5000)
(WS / "src" / "main.rs").write_text("fn main() {}\n")


@pytest_lsp.fixture(
    params=CLIENTS,
    config=ClientServerConfig(server_command=[BIN, "serve", "--stdio"], server_env=server_env(WS_TMP)),
)
async def client(request, lsp_client: LanguageClient):
    # Editors answer registrations; pytest-lsp's client needs to be told to.
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def _register(params):
        lsp_client.registrations = getattr(lsp_client, "registrations", []) + list(params.registrations)
        return None

    # VS Code's capabilities offer `workspace.codeLens.refreshSupport`, so the server asks it to
    # refresh lenses after a pass; count the requests as the editor would answer them.
    @lsp_client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def _refresh(params):
        lsp_client.lens_refreshes = getattr(lsp_client, "lens_refreshes", 0) + 1
        return None

    params = types.InitializeParams(
        capabilities=client_capabilities(request.param),
        root_uri=WS.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=WS.as_uri(), name="ws")],
        initialization_options={"trusted": True},
    )
    result = await lsp_client.initialize_session(params)
    lsp_client.init_result = result
    lsp_client.spec = request.param
    yield
    await lsp_client.shutdown_session()


async def test_server_identifies_itself_and_negotiates_the_encoding(client: LanguageClient):
    result = client.init_result
    assert result.server_info.name == "alisio-ls"
    # Neovim 0.11 offers utf-8 first, so the server takes it; VS Code offers nothing (utf-16).
    expected = types.PositionEncodingKind.Utf8 if client.spec.startswith("neovim") else types.PositionEncodingKind.Utf16
    assert result.capabilities.position_encoding == expected
    assert result.capabilities.text_document_sync.change == types.TextDocumentSyncKind.Incremental


async def test_invalid_project_config_value_is_reported_on_its_span(client: LanguageClient):
    uri = CONFIG.as_uri()
    while uri not in client.diagnostics:
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    (d,) = client.diagnostics[uri]
    assert d.code == "config-invalid"
    assert d.severity == types.DiagnosticSeverity.Error
    assert d.message == "context.maxBytes must be an integer from 1024 to 1048576; got 1023"
    assert (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character) == (1, 26, 1, 30)


async def wait_for(client: LanguageClient, uri: str):
    while uri not in client.diagnostics:
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return client.diagnostics[uri]


async def test_skill_name_format_is_reported(client: LanguageClient):
    diags = await wait_for(client, SKILL.as_uri())
    d = next(d for d in diags if d.code == "skill-name-format")
    assert d.severity == types.DiagnosticSeverity.Error
    assert (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character) == (1, 6, 1, 15)


async def test_truncated_root_file_has_diagnostic_and_code_lens(client: LanguageClient):
    root = (WS / "AGENTS.md").as_uri()
    diags = await wait_for(client, root)
    (d,) = [d for d in diags if d.code == "instructions-truncated"]
    assert d.message == (
        "only the last 27768 of 30000 bytes are loaded for 1 directory (e.g. src): "
        "the closer files use the rest of context.maxBytes (32768)"
    )
    # D: ., .agents, .agents/skills, .agents/skills/Bad--Name, .alisio, src; the root is cut only for src.
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=root))
    )
    assert [l.command.title for l in lenses] == ["agents · 6 directories · beginning cut in 1 of 6 · ~7500 tokens"]
    assert lenses[0].command.command == "alisio.explainContext"


async def test_hover_on_an_ordinary_file_lists_the_instructions(client: LanguageClient):
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=(WS / "src" / "main.rs").as_uri()),
            position=types.Position(line=0, character=0),
        )
    )
    assert hover.contents.value.startswith("**Instructions for src/main.rs** (host alisio)")


async def test_context_explain_request(client: LanguageClient):
    result = await client.protocol.send_request_async(
        "alisio/contextExplain", {"uri": (WS / "src" / "main.rs").as_uri()}
    )
    files = [(f.path, f.keptBytes, f.truncation) for f in result.files]
    assert files == [("AGENTS.md", 27768, "beginning"), ("src/AGENTS.md", 5000, "none")]
    assert result.omittedBytes == 2232
