"""`graphmend server`: the language server, driven end to end by a real LSP client (pytest-lsp's,
built on pygls) and, for what no client sends (malformed frames, exit codes), by raw frames."""

import json
import mmap
import os
import pathlib
import random
import shutil
import subprocess
import time
from urllib.parse import unquote

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

ROOT = pathlib.Path(__file__).resolve().parents[2]
BINARY = os.environ.get("GRAPHMEND_BIN") or str(ROOT / "build" / "graphmend")
if not pathlib.Path(BINARY).exists():
    BINARY = shutil.which("graphmend") or BINARY

PRINT_MODEL = '''import torch


class Model(torch.nn.Module):
    def forward(self, x):
        print("forward", x.shape)
        return x * 2
'''

UNSAFE_GUARD = (
    "import torch\nfrom torch import nn\n\n\nclass Guard(nn.Module):\n    def forward(self, h):\n"
    "        if torch.isinf(h).any() or torch.isnan(h).any():\n"
    "            clamp_value = torch.finfo(h.dtype).max - 1000\n"
    "            h = torch.clamp(h, min=-clamp_value, max=clamp_value)\n        return h\n")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[BINARY, "server"]))
async def client(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def workspace(tmp_path):
    """A project (pyproject.toml) with a package whose forward prints."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "model.py").write_text(PRINT_MODEL)
    return tmp_path


async def start(client, root, editor="visual-studio-code", options=None):
    result = await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities(editor),
        root_uri=root.as_uri(),
        initialization_options=options,
    ))
    return result


async def open_document(client, path, text=None):
    """Opens `path` (with its text on disk, or `text`); returns its published diagnostics."""
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=path.as_uri(), language_id="python", version=1,
        text=path.read_text() if text is None else text)))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return list(client.diagnostics[path.as_uri()])


async def change_document(client, path, version, changes):
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=version),
        content_changes=changes))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return list(client.diagnostics[path.as_uri()])


def at(line, character):
    return types.Position(line=line, character=character)


def span(start, end):
    return types.Range(start=start, end=end)


def offset(text, position, encoding="utf-16"):
    """The string index of an LSP position in `text` (lines split at LF, CRLF or CR)."""
    lines = text.splitlines(keepends=True)
    index = sum(len(line) for line in lines[:position.line])
    line = lines[position.line] if position.line < len(lines) else ""
    units = 0
    for i, ch in enumerate(line):
        if units >= position.character or ch in "\r\n":
            return index + i
        units += len(ch.encode("utf-16-le")) // 2 if encoding == "utf-16" else len(ch.encode())
    return index + len(line)


def apply_workspace_edit(edit):
    """Applies a WorkspaceEdit to the files on disk, as an editor would; returns the URIs touched."""
    touched = []
    changes = edit.document_changes or [
        types.TextDocumentEdit(text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
                               edits=edits) for uri, edits in (edit.changes or {}).items()]
    for change in changes:
        if isinstance(change, types.CreateFile):
            path = pathlib.Path(types_uri_path(change.uri))
            assert not path.exists()
            path.write_text("")
            continue
        path = pathlib.Path(types_uri_path(change.text_document.uri))
        text = path.read_bytes().decode()  # line breaks and a BOM as they are
        spans = [(offset(text, e.range.start), offset(text, e.range.end), e.new_text) for e in change.edits]
        for start, end, new_text in sorted(spans, reverse=True):
            text = text[:start] + new_text + text[end:]
        path.write_bytes(text.encode())
        touched.append(change.text_document.uri)
    return touched


def types_uri_path(uri):
    assert uri.startswith("file://")
    return unquote(uri[len("file://"):])


def cli_findings(path):
    """`graphmend check`'s findings of a file, as (code, line, column, message), 1-based."""
    run = subprocess.run([BINARY, "check", "--no-cache", "--output-format", "json", path.name],
                         cwd=path.parent, check=False, capture_output=True, text=True, timeout=120)
    return [(d["code"], d["location"]["row"], d["location"]["column"], d["message"])
            for d in json.loads(run.stdout)["diagnostics"]]


@pytest.mark.asyncio
async def test_initialize_declares_what_the_server_does(client: LanguageClient, workspace):
    result = await start(client, workspace)
    caps = result.capabilities
    assert caps.position_encoding == types.PositionEncodingKind.Utf16  # VS Code offers nothing else
    assert caps.text_document_sync.change == types.TextDocumentSyncKind.Incremental
    assert caps.text_document_sync.open_close and caps.text_document_sync.save
    assert caps.hover_provider
    assert set(caps.code_action_provider.code_action_kinds) == {
        "quickfix", "quickfix.unsafe.graphmend", "source.fixAll.graphmend"}
    assert caps.code_action_provider.resolve_provider  # fix-all's edit, when picked
    assert result.server_info.name == "graphmend"


@pytest.mark.asyncio
async def test_diagnostics_on_open_change_and_save_and_cleared_on_close(client: LanguageClient, workspace):
    await start(client, workspace)
    model = workspace / "pkg" / "model.py"
    [d] = await open_document(client, model)
    assert (d.code, d.source, d.severity) == ("GM201", "graphmend", types.DiagnosticSeverity.Warning)
    assert (d.range.start, d.range.end) == (at(5, 8), at(5, 33))
    [(code, row, column, message)] = cli_findings(model)
    assert (code, row - 1, column - 1, message) == (d.code, d.range.start.line, d.range.start.character, d.message)

    # An incremental change: a second print, a line below the first.
    second = '        print("twice")\n'
    found = await change_document(client, model, 2, [types.TextDocumentContentChangePartial(
        range=span(at(6, 0), at(6, 0)), text=second)])
    assert [(x.code, x.range.start.line) for x in found] == [("GM201", 5), ("GM201", 6)]

    # A whole-text change without either print.
    clean = PRINT_MODEL.replace('        print("forward", x.shape)\n', "")
    assert await change_document(client, model, 3, [types.TextDocumentContentChangeWholeDocument(text=clean)]) == []

    found = await change_document(client, model, 4, [types.TextDocumentContentChangeWholeDocument(text=PRINT_MODEL)])
    assert len(found) == 1
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=model.as_uri())))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert not client.diagnostics[model.as_uri()]


@pytest.mark.asyncio
async def test_save_takes_in_what_changed_on_disk(client: LanguageClient, workspace):
    """The forward is compiled code because its class derives, through another file, from
    nn.Module; once that file (not open) changes on disk, the next save analyses anew."""
    await start(client, workspace)
    (workspace / "pkg" / "base.py").write_text("import torch\n\n\nclass Base(torch.nn.Module):\n    pass\n")
    model = workspace / "pkg" / "model.py"
    model.write_text(PRINT_MODEL.replace("import torch\n", "import torch\n\nfrom .base import Base\n").replace(
        "class Model(torch.nn.Module):", "class Model(Base):"))
    [d] = await open_document(client, model)
    assert d.code == "GM201"
    (workspace / "pkg" / "base.py").write_text("class Base:\n    pass\n")
    client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=model.as_uri())))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert not client.diagnostics[model.as_uri()]


@pytest.mark.asyncio
@pytest.mark.parametrize("rewrite", ["size and mtime kept", "through mmap"])
async def test_a_file_rewritten_in_place_is_read_again(client: LanguageClient, workspace, rewrite):
    """The server keeps a context file's parse while the file's bytes are the text it parsed. It
    compares the bytes, not the file's times: a rewrite that keeps the size and sets the mtime
    back, or a write through a memory map to a page already written (which moves no time), is
    seen at the next analysis."""
    await start(client, workspace)
    base = workspace / "pkg" / "base.py"
    module_base = "import torch\n\n\nclass Base(torch.nn.Module):\n    pass\n"
    plain_base = "class Base:\n    pass\n"
    plain_base += "#" * (len(module_base) - len(plain_base) - 1) + "\n"
    assert len(plain_base) == len(module_base)
    base.write_text(module_base)
    model = workspace / "pkg" / "model.py"
    model.write_text(PRINT_MODEL.replace("import torch\n", "import torch\n\nfrom .base import Base\n").replace(
        "class Model(torch.nn.Module):", "class Model(Base):"))
    with open(base, "r+b") as f, mmap.mmap(f.fileno(), 0) as mapped:
        mapped[0:1] = b"i"  # the page is written once: later writes through the map move no time
        [d] = await open_document(client, model)
        assert d.code == "GM201"
        assert await change_document(client, model, 2, [types.TextDocumentContentChangeWholeDocument(
            text=model.read_text())]) == [d]
        before = base.stat()
        if rewrite == "through mmap":
            mapped[:] = plain_base.encode()
        else:
            base.write_text(plain_base)
            os.utime(base, ns=(before.st_atime_ns, before.st_mtime_ns))
        assert base.read_text() == plain_base and base.stat().st_size == before.st_size
        assert await change_document(client, model, 3, [types.TextDocumentContentChangeWholeDocument(
            text=model.read_text())]) == []
        assert cli_findings(model) == []


@pytest.mark.asyncio
async def test_what_the_cli_warns_of_and_what_stops_a_check_are_shown(client: LanguageClient, workspace):
    await start(client, workspace)
    model = workspace / "pkg" / "model.py"
    text = PRINT_MODEL.replace("        return x * 2", "        return x * 2  # noqa: GM999")
    found = await open_document(client, model, text)
    [warning] = [d for d in found if d.severity == types.DiagnosticSeverity.Information]
    assert warning.range == span(at(6, 0), at(6, len(text.splitlines()[6])))
    assert "`GM999`, which is no graphmend rule" in warning.message

    (workspace / "pyproject.toml").write_text("[tool.graphmend]\nselect = 5\n")
    [problem] = await change_document(client, model, 2, [types.TextDocumentContentChangeWholeDocument(text=text)])
    assert problem.severity == types.DiagnosticSeverity.Error and problem.range == span(at(0, 0), at(0, 0))
    assert problem.message.startswith("graphmend could not check this file: ") and "select" in problem.message


@pytest.mark.asyncio
async def test_project_context_comes_from_disk_and_from_open_buffers(client: LanguageClient, workspace):
    """A helper's print is reported because another file's forward calls it; once that file's
    unsaved buffer stops calling it, the helper's analysis sees the buffer, not the disk."""
    await start(client, workspace)
    util = workspace / "pkg" / "util.py"
    util.write_text("def show(x):\n    print(x)\n")
    model = workspace / "pkg" / "model.py"
    model.write_text(PRINT_MODEL.replace('print("forward", x.shape)', "show(x)").replace(
        "import torch\n", "import torch\n\nfrom .util import show\n"))
    [d] = await open_document(client, util)
    assert (d.code, d.range.start.line) == ("GM201", 1)

    await open_document(client, model)
    no_call = model.read_text().replace("        show(x)\n", "")
    await change_document(client, model, 2, [types.TextDocumentContentChangeWholeDocument(text=no_call)])
    # The helper, analysed again (a change of its own), with model.py's unsaved text.
    assert await change_document(client, util, 2, [types.TextDocumentContentChangePartial(
        range=span(at(2, 0), at(2, 0)), text="\n")]) == []


@pytest.mark.asyncio
async def test_evidence_kept_between_changes_is_what_a_fresh_check_finds(client: LanguageClient, workspace,
                                                                          tmp_path_factory):
    """The server keeps what each compiled call passed (the call evidence) from one change to the
    next, and types again only the calls a change reaches. Here the helper's branch breaks the
    graph only while a tensor reaches it: from model.py's forward, through two functions of
    mid.py, which no change touches. Each step's findings are `graphmend check`'s of the same texts on disk."""
    await start(client, workspace)
    pkg = workspace / "pkg"
    helpers = pkg / "helpers.py"
    helpers.write_text("def scale(v):\n    if v > 0:\n        return v\n    return -v\n")
    # relay's calls read nothing of helpers.py: only what model.py passes tells them apart.
    (pkg / "mid.py").write_text("from .helpers import scale\n\n\ndef relay(h):\n    return pass_on(h)\n\n\n"
                                "def pass_on(g):\n    return scale(g)\n")
    passing = {"a tensor": "relay(x)", "an int": "relay(3)"}
    model_text = PRINT_MODEL.replace('        print("forward", x.shape)\n', "        h = {}\n").replace(
        "import torch\n", "import torch\n\nfrom .mid import relay\n").replace("(self, x)", "(self, x: torch.Tensor)")
    (pkg / "model.py").write_text(model_text.format(passing["a tensor"]))
    on_disk = tmp_path_factory.mktemp("cli")
    shutil.copytree(workspace, on_disk, dirs_exist_ok=True)

    def cli(helpers_text, passed):
        (on_disk / "pkg" / "helpers.py").write_text(helpers_text)
        (on_disk / "pkg" / "model.py").write_text(model_text.format(passing[passed]))
        return [(code, row - 1, message) for code, row, _, message in cli_findings(on_disk / "pkg" / "helpers.py")]

    text = helpers.read_text()
    found = await open_document(client, helpers)
    assert [(d.code, d.range.start.line) for d in found] == [("GM101", 1)]
    assert [(d.code, d.range.start.line, d.message) for d in found] == cli(text, "a tensor")
    await open_document(client, pkg / "model.py")
    version = {"helpers": 1, "model": 1}
    for passed in ["an int", "a tensor", "an int", "a tensor"]:
        version["model"] += 1
        await change_document(client, pkg / "model.py", version["model"], [
            types.TextDocumentContentChangeWholeDocument(text=model_text.format(passing[passed]))])
        version["helpers"] += 1
        text += "\n"  # a keystroke in the helper: its findings are analysed again
        found = await change_document(client, helpers, version["helpers"], [
            types.TextDocumentContentChangeWholeDocument(text=text)])
        expected = cli(text, passed)
        assert [(d.code, d.range.start.line, d.message) for d in found] == expected, passed
        assert len(expected) == (1 if passed == "a tensor" else 0), passed


@pytest.mark.asyncio
async def test_quickfix_and_fix_all_write_what_graphmend_fix_writes(client: LanguageClient, workspace, tmp_path_factory):
    expected = tmp_path_factory.mktemp("cli")
    shutil.copytree(workspace, expected, dirs_exist_ok=True)
    subprocess.run([BINARY, "fix", "pkg/model.py"], cwd=expected, check=True, capture_output=True, timeout=120)

    await start(client, workspace)
    model = workspace / "pkg" / "model.py"
    [d] = await open_document(client, model)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=model.as_uri()), range=d.range,
        context=types.CodeActionContext(diagnostics=[d])))
    by_kind = {a.kind: a for a in actions}
    assert set(by_kind) == {"quickfix", "source.fixAll.graphmend"}
    assert by_kind["source.fixAll.graphmend"].edit is None  # VS Code resolves it when picked
    quickfix = by_kind["quickfix"]
    assert quickfix.title.startswith("Fix GM201: ") and quickfix.is_preferred
    assert [x.code for x in quickfix.diagnostics] == ["GM201"]
    # The package has no runtime file yet: the edit creates it, as `graphmend fix` does.
    assert isinstance(quickfix.edit.document_changes[0], types.CreateFile)

    original = model.read_text()
    apply_workspace_edit(quickfix.edit)
    for name in ("model.py", "_graphmend_runtime.py"):
        assert (workspace / "pkg" / name).read_text() == (expected / "pkg" / name).read_text(), name

    # source.fixAll, asked for by kind as editors do on save, on the unfixed text.
    model.write_text(original)
    (workspace / "pkg" / "_graphmend_runtime.py").unlink()
    [fix_all] = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=model.as_uri()), range=span(at(0, 0), at(0, 0)),
        context=types.CodeActionContext(diagnostics=[], only=["source.fixAll"])))
    assert fix_all.kind == "source.fixAll.graphmend"
    fix_all = await client.code_action_resolve_async(fix_all)
    apply_workspace_edit(fix_all.edit)
    for name in ("model.py", "_graphmend_runtime.py"):
        assert (workspace / "pkg" / name).read_text() == (expected / "pkg" / name).read_text(), name


@pytest.mark.asyncio
async def test_a_fix_keeps_crlf_and_a_bom_as_graphmend_fix_does(client: LanguageClient, workspace, tmp_path_factory):
    model = workspace / "pkg" / "model.py"
    model.write_bytes(("\ufeff" + PRINT_MODEL.replace("\n", "\r\n")).encode())
    expected = tmp_path_factory.mktemp("cli")
    shutil.copytree(workspace, expected, dirs_exist_ok=True)
    subprocess.run([BINARY, "fix", "pkg/model.py"], cwd=expected, check=True, capture_output=True, timeout=120)
    await start(client, workspace)
    [d] = await open_document(client, model, model.read_bytes().decode())
    assert (d.range.start, d.range.end) == (at(5, 8), at(5, 33))  # the BOM is on line 0
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=model.as_uri()), range=d.range,
        context=types.CodeActionContext(diagnostics=[d])))
    [quickfix] = [a for a in actions if a.kind == "quickfix"]
    apply_workspace_edit(quickfix.edit)
    assert model.read_bytes() == (expected / "pkg" / "model.py").read_bytes()


@pytest.mark.asyncio
async def test_a_client_that_neither_resolves_nor_creates_files(client: LanguageClient, workspace, tmp_path_factory):
    """Emacs 29's capabilities: fix-all comes with its edit, beside a finding's fix only; a fix
    that needs a package's runtime file, which this client cannot create, is not offered."""
    await start(client, workspace, editor="emacs")
    model = workspace / "pkg" / "model.py"
    [d] = await open_document(client, model)
    assert not await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=model.as_uri()), range=d.range,
        context=types.CodeActionContext(diagnostics=[d])))

    script = workspace / "script.py"  # a loose script: its fix brings the runtime inline
    script.write_text(PRINT_MODEL)
    expected = tmp_path_factory.mktemp("cli")
    (expected / "pyproject.toml").write_text("")
    (expected / "script.py").write_text(PRINT_MODEL)
    subprocess.run([BINARY, "fix", "script.py"], cwd=expected, check=True, capture_output=True, timeout=120)
    [d] = await open_document(client, script)
    elsewhere = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=script.as_uri()), range=span(at(0, 0), at(0, 0)),
        context=types.CodeActionContext(diagnostics=[])))
    assert not elsewhere
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=script.as_uri()), range=d.range,
        context=types.CodeActionContext(diagnostics=[d])))
    assert [a.kind for a in actions] == ["quickfix", "source.fixAll.graphmend"]
    for action in actions:
        script.write_text(PRINT_MODEL)
        apply_workspace_edit(action.edit)
        assert script.read_text() == (expected / "script.py").read_text()


@pytest.mark.asyncio
@pytest.mark.parametrize("offered", [True, False])
async def test_unsafe_fix_is_labelled_and_can_be_turned_off(client: LanguageClient, tmp_path, offered):
    (tmp_path / "pyproject.toml").write_text("")
    guard = tmp_path / "m.py"
    guard.write_text(UNSAFE_GUARD)
    await start(client, tmp_path, options=None if offered else {"unsafeFixes": False})
    [d] = await open_document(client, guard)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=guard.as_uri()), range=d.range,
        context=types.CodeActionContext(diagnostics=[d])))
    if not offered:
        assert not actions  # and no fix-all: there is no safe fix
        return
    [action] = actions
    assert action.kind == "quickfix.unsafe.graphmend" and not action.is_preferred
    assert action.title.endswith("(unsafe)")
    apply_workspace_edit(action.edit)
    expected = tmp_path / "cli"
    expected.mkdir()
    (expected / "pyproject.toml").write_text("")
    (expected / "m.py").write_text(UNSAFE_GUARD)
    subprocess.run([BINARY, "fix", "--unsafe-fixes", "m.py"], cwd=expected, check=True, capture_output=True,
                   timeout=120)
    assert guard.read_text() == (expected / "m.py").read_text() != UNSAFE_GUARD


@pytest.mark.asyncio
async def test_hover_shows_the_rule_document(client: LanguageClient, workspace):
    await start(client, workspace)
    model = workspace / "pkg" / "model.py"
    [d] = await open_document(client, model)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=model.as_uri()), position=at(5, 10)))
    rule = subprocess.run([BINARY, "rule", "GM201"], check=True, capture_output=True, text=True, timeout=60).stdout
    assert hover.contents.kind == types.MarkupKind.Markdown and hover.contents.value == rule
    assert hover.range == d.range
    assert await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=model.as_uri()), position=at(0, 0))) is None


NON_ASCII = PRINT_MODEL.replace('        print("forward", x.shape)',
                                '        s = "é😀"; print(s, x.shape)')


@pytest.mark.asyncio
@pytest.mark.parametrize("editor,encoding", [("visual-studio-code", "utf-16"), ("neovim", "utf-8")])
async def test_positions_count_the_negotiated_code_units(client: LanguageClient, workspace, editor, encoding):
    result = await start(client, workspace, editor=editor)
    assert result.capabilities.position_encoding == encoding
    model = workspace / "pkg" / "model.py"
    model.write_text(NON_ASCII)
    line = NON_ASCII.splitlines()[5]

    def units(s):
        return len(s.encode("utf-16-le")) // 2 if encoding == "utf-16" else len(s.encode())

    start_char = units(line[:line.index("print")])
    [d] = await open_document(client, model)
    assert (d.range.start, d.range.end) == (at(5, start_char), at(5, units(line)))
    # An incremental change placed by the same units: `t = 1; ` just before the print.
    [d] = await change_document(client, model, 2, [types.TextDocumentContentChangePartial(
        range=span(at(5, start_char), at(5, start_char)), text="t = 1; ")])
    assert d.range.start == at(5, start_char + 7)


def frame(message):
    body = json.dumps(message).encode() if not isinstance(message, bytes) else message
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def responses(stdout):
    """The JSON bodies of the server's frames."""
    out = []
    while stdout:
        header, _, rest = stdout.partition(b"\r\n\r\n")
        length = int(header.split(b":")[1])
        out.append(json.loads(rest[:length]))
        stdout = rest[length:]
    return out


def serve(*messages):
    run = subprocess.run([BINARY, "server"], input=b"".join(map(frame, messages)), check=False, capture_output=True, timeout=60)
    return run.returncode, responses(run.stdout)


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
SHUTDOWN = {"jsonrpc": "2.0", "id": 99, "method": "shutdown"}
EXIT = {"jsonrpc": "2.0", "method": "exit"}


def test_malformed_and_unknown_messages_get_errors_and_the_server_goes_on():
    code, answers = serve(
        {"jsonrpc": "2.0", "id": 0, "method": "textDocument/hover", "params": {}},  # before initialize
        INITIALIZE,
        b"{not json",
        b"[1, 2]",
        {"jsonrpc": "2.0", "id": 7, "method": "graphmend/unknown"},
        {"jsonrpc": "2.0", "id": 8, "method": "textDocument/hover", "params": {"position": 3}},
        {"jsonrpc": "2.0", "id": 9, "method": "textDocument/hover", "params": {"position": 3}},
        # All input arrives at once, so the reader has usually queued this cancel before request 9 is
        # taken, and 9 is answered "cancelled" unrun; under load it may not have yet (cancelling is
        # best effort in LSP), and 9 runs and gets its invalid-params error.
        {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 9}},
        {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 42}},  # no such request
        {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": 5}}},
        SHUTDOWN, EXIT)
    assert code == 0
    errors = [(a.get("id"), a["error"]["code"]) for a in answers if "error" in a]
    assert errors[:5] == [(0, -32002), (None, -32700), (None, -32600), (7, -32601), (8, -32602)]
    assert errors[5:] in ([(9, -32800)], [(9, -32602)]), errors
    assert {"id": 99, "jsonrpc": "2.0", "result": None} in answers
    # The notification with bad params is reported in the log, never answered.
    assert any(a.get("method") == "window/logMessage" for a in answers)


def test_no_input_crashes_it(tmp_path):
    """Random bodies, and every method with parameters of the wrong shape, after a real open: each
    request gets an answer, and the server still shuts down cleanly."""
    rng = random.Random(50)
    (tmp_path / "m.py").write_text(PRINT_MODEL)
    uri = (tmp_path / "m.py").as_uri()
    doc = {"uri": uri, "version": 1}
    odd_values = [None, 3, -1, 2**40, "x", [], {}, {"line": "a", "character": -5}, {"line": 2**33, "character": 0}]
    messages = [INITIALIZE, {"jsonrpc": "2.0", "method": "textDocument/didOpen",
                             "params": {"textDocument": {**doc, "languageId": "python", "text": PRINT_MODEL}}}]
    requests = 0
    for i in range(150):
        kind = rng.randrange(3)
        if kind == 0:
            messages.append(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))))
            continue
        method = rng.choice(["textDocument/didChange", "textDocument/didOpen", "textDocument/didSave",
                             "textDocument/codeAction", "textDocument/hover", "codeAction/resolve"])
        position = rng.choice(odd_values)
        params = rng.choice([
            rng.choice(odd_values),
            {"textDocument": doc, "position": position},
            {"textDocument": doc, "range": {"start": position, "end": rng.choice(odd_values)},
             "context": {"only": rng.choice(odd_values)}},
            {"textDocument": doc, "contentChanges": [{"range": {"start": position, "end": position},
                                                      "text": rng.choice(["", "é😀\n", 7])}]},
            {"kind": "source.fixAll.graphmend", "data": rng.choice(odd_values)},
        ])
        message = {"jsonrpc": "2.0", "method": method, "params": params}
        if kind == 1:
            message["id"] = 1000 + i
            requests += 1
        messages.append(message)
    code, answers = serve(*messages, SHUTDOWN, EXIT)
    assert code == 0
    assert len([a for a in answers if isinstance(a.get("id"), int) and a["id"] >= 1000]) == requests
    assert {"id": 99, "jsonrpc": "2.0", "result": None} in answers


def test_a_frame_without_content_length_is_an_error_and_reading_resumes():
    run = subprocess.run([BINARY, "server"], input=b"Bogus: 1\r\n\r\n" + frame(INITIALIZE) + frame(SHUTDOWN)
                         + frame(EXIT), check=False, capture_output=True, timeout=60)
    answers = responses(run.stdout)
    assert answers[0]["error"]["code"] == -32700
    assert answers[-1] == {"id": 99, "jsonrpc": "2.0", "result": None}
    assert run.returncode == 0


@pytest.mark.parametrize("messages", [[INITIALIZE, EXIT], [INITIALIZE]], ids=["exit", "end-of-input"])
def test_exit_code_is_1_without_shutdown(messages):
    code, _ = serve(*messages)
    assert code == 1


def test_requests_after_shutdown_are_refused():
    code, answers = serve(INITIALIZE, SHUTDOWN, {"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover",
                                                 "params": {}}, EXIT)
    assert code == 0
    assert answers[-1]["id"] == 3 and answers[-1]["error"]["code"] == -32600


def test_after_a_bad_length_reading_resumes_at_the_next_frame():
    """The bad frame's body is skipped up to the next `Content-Length:`, even on the same line."""
    run = subprocess.run([BINARY, "server"], input=b"Content-Length: abc\r\n\r\n{}" + frame(INITIALIZE)
                         + frame(SHUTDOWN) + frame(EXIT), check=False, capture_output=True, timeout=60)
    answers = responses(run.stdout)
    assert answers[0]["error"] == {"code": -32700, "message": "invalid Content-Length header"}
    assert answers[1]["id"] == 1 and "capabilities" in answers[1]["result"]
    assert run.returncode == 0


@pytest.mark.skipif(not pathlib.Path("/proc/self/status").exists(), reason="reads peak memory from /proc")
def test_a_claimed_length_takes_no_memory_before_its_bytes_arrive():
    server = subprocess.Popen([BINARY, "server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        server.stdin.write(b"Content-Length: 1073741824\r\n\r\n{")
        server.stdin.flush()
        for _ in range(20):  # 2 s: a body of the length claimed would be filling its 1 GiB meanwhile
            time.sleep(0.1)
            status = pathlib.Path(f"/proc/{server.pid}/status").read_text()
            peak_kib = int(next(line for line in status.splitlines() if line.startswith("VmHWM:")).split()[1])
            assert peak_kib < 128 * 1024
        server.stdin.close()
        assert server.wait(timeout=60) == 1
    finally:
        server.kill()
        server.wait()


def did_open(path, text, version=1):
    return {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": path.as_uri(), "languageId": "python", "version": version, "text": text}}}


def did_change(path, version, *changes):
    document = {"uri": path.as_uri()} if version is None else {"uri": path.as_uri(), "version": version}
    return {"jsonrpc": "2.0", "method": "textDocument/didChange",
            "params": {"textDocument": document, "contentChanges": list(changes)}}


def insertion(line, text):
    return {"range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}}, "text": text}


def test_a_change_that_fails_part_way_leaves_the_document_as_it_was(workspace):
    model = workspace / "pkg" / "model.py"
    backwards = {"range": {"start": {"line": 1, "character": 0}, "end": {"line": 0, "character": 0}}, "text": ""}
    code, answers = serve(
        INITIALIZE, did_open(model, PRINT_MODEL),
        did_change(model, 2, insertion(0, "x = 1\n"), backwards),  # a range that ends before it starts
        did_change(model, None, insertion(0, "y = 2\n")),          # no version
        did_change(model, 3, insertion(0, "")),                    # a change that changes nothing: published
        SHUTDOWN, EXIT)
    assert code == 0
    published = [a["params"] for a in answers if a.get("method") == "textDocument/publishDiagnostics"]
    assert published[-1]["version"] == 3
    # The print still stands on line 6 (0-based 5): neither failed change was applied in part.
    assert [d["range"]["start"]["line"] for d in published[-1]["diagnostics"]] == [5]
    errors = [a["params"]["message"] for a in answers if a.get("method") == "window/logMessage"]
    assert len(errors) == 2 and "ends before it starts" in errors[0]


def test_notebooks_are_left_to_the_command_line(workspace):
    """A notebook's findings and fixes stand in its joined code cells, not in the JSON the editor
    shows: the server offers neither, and says why."""
    notebook = workspace / "nb.ipynb"
    text = json.dumps({"cells": [{"cell_type": "code", "execution_count": None, "id": "c1", "metadata": {},
                                  "outputs": [], "source": PRINT_MODEL.splitlines(keepends=True)}],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    notebook.write_text(text)
    assert cli_findings(notebook)  # the command line finds the print
    whole = {"start": {"line": 0, "character": 0}, "end": {"line": len(text.splitlines()), "character": 0}}
    document = {"uri": notebook.as_uri()}
    code, answers = serve(
        INITIALIZE, did_open(notebook, text),
        {"jsonrpc": "2.0", "id": 2, "method": "textDocument/codeAction",
         "params": {"textDocument": document, "range": whole, "context": {"diagnostics": []}}},
        {"jsonrpc": "2.0", "id": 3, "method": "codeAction/resolve",
         "params": {"title": "Fix all", "kind": "source.fixAll.graphmend", "data": {"uri": notebook.as_uri()}}},
        did_change(notebook, 2, insertion(0, "")),
        {"jsonrpc": "2.0", "id": 4, "method": "textDocument/hover",
         "params": {"textDocument": document, "position": {"line": 10, "character": 10}}},
        {"jsonrpc": "2.0", "method": "textDocument/didSave", "params": {"textDocument": document}},
        SHUTDOWN, EXIT)
    assert code == 0
    assert not [a for a in answers if a.get("method") == "textDocument/publishDiagnostics"]
    results = {a["id"]: a.get("result") for a in answers if a.get("id") in (2, 3, 4)}
    assert results[2] == [] and "edit" not in results[3] and results[4] is None
    [log] = [a["params"] for a in answers if a.get("method") == "window/logMessage"]
    assert log["type"] == 3 and "notebook" in log["message"] and "graphmend check" in log["message"]
