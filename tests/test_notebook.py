"""Jupyter notebooks on disk: discovery, ``check`` with cell positions, ``--fix`` rewriting
code cells in place (outputs untouched, atomic write), IPython magics and shell lines
skipped, broken notebooks reported (msacclint/engine/notebook.py)."""

import json
import os

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
    result = msacclint("check", "--fix", "--no-cache", "tutorial.ipynb")
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
    assert [(d.code, d.cell, d.line) for d in found] == [
        ("MSA104", 1, 2), ("MSA001", 3, 1), ("MSA001", 4, 1), ("MSA102", 5, 1)], found
    assert "cell not checked" in found[1].message and "invalid syntax" in found[2].message
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
