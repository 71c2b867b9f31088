"""Jupyter notebooks on disk: discovery, ``check`` with cell positions, ``--fix`` rewriting
code cells in place (outputs untouched, atomic write), IPython magics and shell lines
skipped, broken notebooks reported (msacclint/engine/notebook.py)."""

import json
import os
import re

from helpers import settings

from msacclint.engine import notebook
from msacclint.engine.batch import check_files
from msacclint.engine.discovery import discover
from msacclint.engine.notebook import fix_path as fix_file

OUTPUT = {"name": "stdout", "output_type": "stream", "text": ["pooled\n"]}


def _notebook(cells, indent=1):
    nb = {"cells": cells, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                      "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(nb, indent=indent, ensure_ascii=False) + "\n"


def _code(source, outputs=(), count=None):
    return {"cell_type": "code", "execution_count": count, "id": f"c{len(source)}", "metadata": {},
            "outputs": list(outputs), "source": source}


def _markdown(text):
    return {"cell_type": "markdown", "id": "md", "metadata": {}, "source": text}


CELLS = [
    _markdown(["# A port of the PyTorch tutorial é\n"]),
    _code(["%matplotlib inline\n", "!pip install mindspore\n", "import mindspore.nn as nn"], count=1),
    _markdown("Pooling:"),
    _code(["files = !ls\n", "pool = nn.MaxPool2d(2)  # from the reference\n", "nn.Dropout?\n",
           "drop = nn.Dropout(0.8)\n", "if True:\n", "    %time pool\n", "print('pooled')"],
          outputs=[OUTPUT], count=2),
    _code(["%%bash\n", "echo nn.MaxPool2d(2)\n"]),
]


def _write(tmp_path, cells=CELLS, name="tutorial.ipynb"):
    path = tmp_path / name
    path.write_text(_notebook(cells), encoding="utf-8")
    return path


def test_folders_are_walked_for_notebooks(tmp_path):
    _write(tmp_path)
    (tmp_path / "train.py").write_text("x = 1\n")
    (tmp_path / ".ipynb_checkpoints").mkdir()
    _write(tmp_path / ".ipynb_checkpoints", name="tutorial-checkpoint.ipynb")
    assert sorted(os.path.basename(p) for p in discover([str(tmp_path)])) == ["train.py", "tutorial.ipynb"]
    assert discover([str(tmp_path)], exclude=["*.ipynb"], root=str(tmp_path)) == [str(tmp_path / "train.py")]


def test_findings_carry_cell_and_line_in_cell(tmp_path):
    path = _write(tmp_path)
    found = check_files([str(path)], settings(), jobs=1, use_cache=False)
    got = [(d.code, d.cell, d.line, d.column) for d in found]
    # cell 4 (the second code cell; markdown cells count), lines 2 and 4 of that cell;
    # the %%bash cell is not Python and is not read
    assert got == [("MSA104", 4, 2, 8), ("MSA102", 4, 4, 8)], got
    assert found[0].to_json()["cell"] == 4 and found[0].to_json()["line"] == 2


def test_fix_rewrites_only_the_changed_cell_and_keeps_outputs(tmp_path):
    path = _write(tmp_path)
    before = json.loads(path.read_text(encoding="utf-8"))
    os.chmod(path, 0o640)
    result = fix_file(str(path), settings(), unsafe=True)
    assert result is not None and result.changed and result.applied == 2
    with open(path, "wb") as handle:  # what the CLI does: fixing.write_atomically
        handle.write(result.fixed.encode("utf-8"))
    after = json.loads(path.read_text(encoding="utf-8"))
    assert after["cells"][3]["source"] == [
        "files = !ls\n", "pool = nn.MaxPool2d(2, stride=2)  # from the reference\n", "nn.Dropout?\n",
        "drop = nn.Dropout(p=0.2)\n", "if True:\n", "    %time pool\n", "print('pooled')"]
    assert after["cells"][3]["outputs"] == [OUTPUT] and after["cells"][3]["execution_count"] == 2
    for i in (0, 1, 2, 4):
        assert after["cells"][i] == before["cells"][i]
    assert after["metadata"] == before["metadata"]
    # the JSON layout of the file is kept: only the two fixed lines differ
    old_lines, new_lines = _notebook(CELLS).splitlines(), path.read_text(encoding="utf-8").splitlines()
    assert len(old_lines) == len(new_lines)
    assert [n for o, n in zip(old_lines, new_lines) if o != n] == [
        '    "pool = nn.MaxPool2d(2, stride=2)  # from the reference\\n",', '    "drop = nn.Dropout(p=0.2)\\n",']
    assert result.remaining == []


def test_cli_fix_writes_the_notebook_atomically(tmp_path, msacclint):
    path = _write(tmp_path)
    path.chmod(0o640)
    # MSA102's is the notebook's safe fix: the keep_prob deprecation, in the upgrade group
    result = msacclint("check", "--fix", "--no-cache", "--extend-select", "upgrade", "tutorial.ipynb")
    assert result.returncode == 1  # MSA104 has no safe fix (stride=1 is not a fix)
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    assert "drop = nn.Dropout(p=0.2)\n" in cells[3]["source"]
    assert "pool = nn.MaxPool2d(2)  # from the reference\n" in cells[3]["source"]
    assert oct(path.stat().st_mode & 0o777) == oct(0o640)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != ".msacclint_cache") == ["tutorial.ipynb"]


def test_a_cell_that_does_not_parse_is_reported_the_others_checked_and_never_written(tmp_path):
    """Jupyter runs the other cells of a notebook whose cell does not parse: they are checked."""
    cells = [_code(["import mindspore.nn as nn\n", "pool = nn.MaxPool2d(2)\n"]), _markdown("x"),
             _code(["def broken(:\n", "    pass\n"]),
             _code(["git clone https://example.org/repo.git\n", "pip install -e .\n"]),
             _code(["drop = nn.Dropout(0.8)\n"])]
    path = _write(tmp_path, cells)
    before = path.read_bytes()
    found = check_files([str(path)], settings(), jobs=1, use_cache=False)
    assert [(d.code, d.cell, d.line, d.severity.value) for d in found] == [
        ("MSA104", 1, 2, "error"), ("MSA001", 3, 1, "warning"), ("MSA102", 5, 1, "warning")], found
    assert "cell not checked" in found[1].message and "so is cell 4" in found[1].message, found[1].message
    assert fix_file(str(path), settings(), unsafe=True) is None
    assert path.read_bytes() == before


def test_a_file_that_is_no_notebook_is_reported_not_crashed_on(tmp_path):
    bad = tmp_path / "bad.ipynb"
    bad.write_text("{not json")
    odd = tmp_path / "odd.ipynb"
    odd.write_text('{"cells": [{"cell_type": "code", "source": 3}]}')
    found = check_files([str(bad), str(odd)], settings(), jobs=1, use_cache=False)
    assert [(os.path.basename(d.path), d.code) for d in found] == [("bad.ipynb", "MSA001"), ("odd.ipynb", "MSA001")]
    assert "not valid JSON" in found[0].message and "source is not text" in found[1].message


def test_string_sources_and_a_compact_layout_are_kept(tmp_path):
    cells = [_code("import mindspore.nn as nn\ndrop = nn.Dropout(0.8)")]
    path = tmp_path / "compact.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    result = fix_file(str(path), settings(), unsafe=False)
    data = json.loads(result.fixed)
    assert data["cells"][0]["source"] == "import mindspore.nn as nn\ndrop = nn.Dropout(p=0.2)"
    assert "\n" not in result.fixed  # written back as compact as it was


def test_magic_lines_are_masked_for_the_analysis():
    nb = notebook.load(_notebook(CELLS).encode())
    assert nb.skipped == ["%matplotlib inline", "!pip install mindspore", "files = !ls", "nn.Dropout?",
                          "    %time pool"]
    compile(nb.python, "<notebook>", "exec")  # what the engine parses is plain Python
    assert nb.position(nb.cells[1].start + 1) == (4, 2)


# -- a notebook gets what a module gets --------------------------------------------------------------
MODEL = """import mindspore.nn as nn


class Net(nn.Cell):
    def __init__(self, rate=0.2):
        super().__init__()
        self.fc = nn.Dense(4, 2)
        self.drop = nn.Dropout(p=rate)

    def construct(self, x):
        return self.drop(self.fc(x))
"""
TRAINER = """import mindspore as ms
from mindspore import nn


class Trainer:
    def __init__(self, network, optimizer):
        self.network = network
        self.optimizer = optimizer

    def run(self, dataset):
        net = self.network

        def forward_fn(x, y):
            return nn.MSELoss()(net(x), y)

        grad_fn = ms.value_and_grad(forward_fn, None, self.optimizer.parameters)
        for x, y in dataset.create_tuple_iterator():
            loss, grads = grad_fn(x, y)
            self.optimizer(grads)
"""
#: the notebook's code cells as a module writes them (IPython lines left out)
SCRIPT_CELLS = [
    "import mindspore as ms\nfrom mindspore import nn\nfrom src.model import Net\nfrom src.trainer import Trainer\n",
    "net = Net()\nopt = nn.Adam(net.trainable_params())\npool = nn.MaxPool2d(2)\n",
    "def forward(x, y):\n    return nn.MSELoss()(net(x), y)\n\n\ngrad_fn = ms.value_and_grad(forward, None, opt.parameters)\n",
    "for x, y in ds:\n    grad_fn(x, y)\n",
    "Trainer(net, nn.SGD(net.trainable_params(), learning_rate=0.01)).run(ds)\n",
]


def _mixed_notebook():
    """Markdown and raw cells, an empty code cell, magics and shell lines, a cell magic, a cell
    that is not Python: around the code of SCRIPT_CELLS. Returns the cells and, for each line
    of the module, its (cell, line) in the notebook."""
    cells = [_markdown("# Training a network of the repository\n"),
             {"cell_type": "raw", "metadata": {}, "source": "raw text: net = nn.MaxPool2d(2)\n"},
             _code(["%matplotlib inline\n", "!pip install mindspore\n"] + SCRIPT_CELLS[0].splitlines(keepends=True)),
             _code([]),
             _code(SCRIPT_CELLS[1].splitlines(keepends=True) + ["files = !ls\n", "nn.Dropout?"]),
             _markdown("The step:"),
             _code(["%%time\n", "pool2 = nn.MaxPool2d(3)\n"]),
             _code(SCRIPT_CELLS[2].splitlines(keepends=True)),
             _code(["if True:\n", "    %time pass\n"] + SCRIPT_CELLS[3].splitlines(keepends=True)),
             _code(["pip install -e .\n"]),
             _code(SCRIPT_CELLS[4].splitlines(keepends=True))]
    where = {}
    line = 0
    for number, (text, skipped) in zip((3, 5, 8, 9, 11), zip(SCRIPT_CELLS, (2, 0, 0, 2, 0))):
        for offset in range(len(text.splitlines())):
            line += 1
            where[line] = (number, offset + 1 + skipped)
    return cells, where


def test_a_notebook_gets_what_its_module_gets(tmp_path):
    """The same code as a module and as a notebook with magics, empty, markdown and raw cells,
    in a repository whose modules it imports: the same findings, severities and messages
    (the project layer's: the Dropout of src/model.py, the network a Trainer of src/trainer.py
    is handed), at the cells and lines that hold the code."""
    files = {"pyproject.toml": "", "src/__init__.py": "", "src/model.py": MODEL, "src/trainer.py": TRAINER}
    module_root, notebook_root = tmp_path / "module", tmp_path / "notebook"
    for root in (module_root, notebook_root):
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
    (module_root / "train.py").write_text("".join(SCRIPT_CELLS), encoding="utf-8")
    cells, where = _mixed_notebook()
    (notebook_root / "train.ipynb").write_text(_notebook(cells), encoding="utf-8")

    related = {}

    def findings(root, name):
        found = check_files([str(root / name), str(root / "src/trainer.py")], settings(), jobs=1, use_cache=False)
        related[name] = [(os.path.basename(r.path), r.cell, r.line) for d in found for r in d.related]
        return [(os.path.basename(d.path), d.cell, d.line, d.code, d.severity.value,
                 d.message.replace(str(root) + os.sep, "")) for d in found]

    as_module = findings(module_root, "train.py")
    as_notebook = findings(notebook_root, "train.ipynb")
    assert sorted((f[0], f[3], f[4]) for f in as_module) == [
        ("train.py", "MSA104", "error"), ("train.py", "MSA201", "error"), ("trainer.py", "MSA201", "error")], as_module
    # the project layer's evidence: the Dropout of src/model.py; the network the notebook hands
    assert all("Dropout with drop rate 0.2" in f[5] for f in as_module if f[3] == "MSA201"), as_module
    expected = []
    for name, cell, line, code, severity, message in as_module:
        if name == "train.py":
            cell, line = where[line]
            name = "train.ipynb"
        # a place the message names in the script is named by its cell in the notebook
        message = re.sub(r"train\.py:(\d+)", lambda m: "train.ipynb:cell {}:{}".format(*where[int(m.group(1))]),
                         message)
        expected.append((name, cell, line, code, severity, message))
    # (a cell magic's body and a cell that is not Python are not read; the latter is MSA001)
    extra = [f for f in as_notebook if f[3] == "MSA001"]
    assert [(f[1], f[2], f[4]) for f in extra] == [(10, 1, "warning")]
    assert sorted(f for f in as_notebook if f[3] != "MSA001") == sorted(expected)
    # the related locations too: the place in the notebook where the Trainer is handed the network
    assert ("train.py", None, 15) in related["train.py"]
    assert ("train.ipynb", 11, 1) in related["train.ipynb"], related


def test_a_notebook_result_is_cached_with_what_it_depends_on(tmp_path):
    """The cache records the files a notebook's answers read, as for a module: a change in
    the repository's model drops the cached result."""
    files = {"pyproject.toml": "", "src/__init__.py": "", "src/model.py": MODEL}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    cells, _ = _mixed_notebook()
    path = tmp_path / "train.ipynb"
    path.write_text(_notebook(cells[:9]), encoding="utf-8")
    s = settings(["MSA201"], root=str(tmp_path))

    def codes():
        return [d.code for d in check_files([str(path)], s, jobs=1, use_cache=True)]

    assert codes() == ["MSA201"]
    assert codes() == ["MSA201"]  # from the cache
    (tmp_path / "src/model.py").write_text(MODEL.replace("rate=0.2", "rate=0.0"), encoding="utf-8")
    assert codes() == []


def test_the_report_reads_a_notebook_as_it_reads_a_module(tmp_path, monkeypatch):
    """The checklist report learns from a notebook what it learns from a module: the names it
    uses (a dataset pipeline makes the data-order item apply) and its findings, shown at their
    cell."""
    from msacclint import api
    from msacclint.frontends.report.renderers import markdown
    from msacclint.report import NOT_APPLICABLE

    (tmp_path / "pyproject.toml").write_text("")
    cells = [_code(["import mindspore.dataset as ds\n", "import mindspore.nn as nn\n"]),
             _markdown("data"),
             _code(["data = ds.ImageFolderDataset('/data/train', shuffle=True)\n", "pool = nn.MaxPool2d(2)\n"])]
    (tmp_path / "demo.ipynb").write_text(_notebook(cells), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    report = api.build_report(["demo.ipynb"], api.ReportOptions(use_cache=False))
    (dp,) = [i for i in report.items if i.id == "dp.03"]
    assert dp.conclusion != NOT_APPLICABLE
    (api01,) = [i for i in report.items if i.id == "api.01"]
    assert [(d.code, d.cell, d.line) for d in api01.findings] == [("MSA104", 3, 2)]
    assert "demo.ipynb:cell 3:2" in markdown(report)


def test_a_related_location_in_a_notebook_carries_its_cell_in_json_and_sarif():
    from msacclint.diagnostics import Diagnostic, Related, Severity
    from msacclint.frontends import output

    d = Diagnostic("MSA201", "api.02", Severity.ERROR, "src/trainer.py", 18, 21, 18, 30, "trained in inference mode",
                   related=(Related("train.ipynb", 1, "Net(...) handed to Trainer", cell=11),
                            Related("src/model.py", 8, "Dropout")))
    [finding] = json.loads(output.json_format([d]))
    assert finding["related"] == [
        {"path": "train.ipynb", "line": 1, "message": "Net(...) handed to Trainer", "cell": 11},
        {"path": "src/model.py", "line": 8, "message": "Dropout"}]
    [result] = json.loads(output.sarif([d]))["runs"][0]["results"]
    first, second = result["relatedLocations"]
    assert first["properties"] == {"cell": 11} and first["physicalLocation"]["region"] == {"startLine": 1}
    assert "properties" not in second
