"""The project layer (msacclint/project): multi-file examples run through the front ends.

Each case is a small repository written to tmp_path; an expected finding is marked by a
trailing ``# MSA201`` comment on its line (as in the rules' own examples, which hold the
same cases and are run through every front end by tests/test_multifile_frontends.py).
"""

import json
import re
import subprocess
import sys
import textwrap

from msacclint.rules.examples import fill
from msacclint.rules.fixtures.api import TRAIN_SCRIPT
from msacclint.rules.fixtures.dp import EVAL_SPLIT_BUILDER

MARK = re.compile(r"#\s*((?:MSA\d{3}\s*)+)\s*$")

NET_WITH_DROPOUT = """\
    import mindspore.nn as nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 2)
            self.drop = nn.Dropout(p=0.1)

        def construct(self, x):
            return self.drop(self.fc(x))
    """
NET_WITHOUT_MODE_LAYERS = """\
    import mindspore.nn as nn

    class Net(nn.Cell):
        def __init__(self, rate=0.0):
            super().__init__()
            self.fc = nn.Dense(4, 2)
            self.drop = nn.Dropout(p=rate)

        def construct(self, x):
            return self.drop(self.fc(x))
    """
#: the training script of the multi-file examples (MSA201), written once in the rules' fixtures
TRAIN = TRAIN_SCRIPT.lstrip("\n").replace("{mark}", "  {mark}")

#: a dataset builder whose train/eval parameter defaults to {default}, and an eval script
#: calling it (MSA303)
_BUILDER = EVAL_SPLIT_BUILDER.lstrip("\n")
_EVAL = """\
    import mindspore as ms
    from src.dataset import create_dataset

    def evaluate(net):
        data = create_dataset("/data/val", 32{args}){mark}
        return ms.Model(net).eval(data)
    """

#: MSA101 across files: src/head.py builds a Dropout from its parameter (``layers``),
#: src/net.py passes ``rate`` for it
_HEAD = """\
    import mindspore.nn as nn

    class Head(nn.Cell):
        def __init__(self, c, drop_rate):
            super().__init__()
            {layers}
    """
_NET = """\
    import mindspore.nn as nn
    from src.head import Head

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.head = Head(4, {rate})
    """


def _call_site(layers, rate):
    return {"src/__init__.py": "", "src/head.py": fill(_HEAD, layers=layers), "src/net.py": fill(_NET, rate=rate)}


#: MSA101 from a model-zoo config: default_config.yaml holds ``ratio``, read by
#: src/model_utils/config.py, passed to Dropout's keep_prob in src/model.py
_CONFIG_PY = """\
    import os
    import yaml

    def get_config():
        here = os.path.dirname(os.path.abspath(__file__))
        with open(os.path.join(here, "../../default_config.yaml")) as f:
            return yaml.safe_load(f)

    config = get_config()
    """
_CONFIGURED_MODEL = """\
    import mindspore.nn as nn
    from src.model_utils.config import config

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(keep_prob=config.ratio){mark}
    """


def _yaml_config(ratio, mark):
    return {"default_config.yaml": f"batch_size: 32\nratio: {ratio}\n", "src/__init__.py": "",
            "src/model_utils/__init__.py": "", "src/model_utils/config.py": _CONFIG_PY,
            "src/model.py": fill(_CONFIGURED_MODEL, mark=mark)}


CASES = {
    # MSA201: the trained Cell's class is in src/, resolved through the import
    "msa201-bug": {"src/__init__.py": "", "src/model.py": NET_WITH_DROPOUT,
                   "train.py": TRAIN.format(set_train="", mark="# MSA201")},
    "msa201-correct": {"src/__init__.py": "", "src/model.py": NET_WITH_DROPOUT,
                       "train.py": TRAIN.format(set_train="net.set_train()", mark="")},
    "msa201-lookalike-no-mode-layers": {"src/__init__.py": "", "src/model.py": NET_WITHOUT_MODE_LAYERS,
                                        "train.py": TRAIN.format(set_train="", mark="")},
    "msa201-bn-in-a-block-of-a-third-file": {
        "src/__init__.py": "",
        "src/blocks.py": """\
            import mindspore.nn as nn

            class ConvBn(nn.Cell):
                def __init__(self, c):
                    super().__init__()
                    self.conv = nn.Conv2d(c, c, 3)
                    self.bn = nn.BatchNorm2d(c)
            """,
        "src/model.py": """\
            import mindspore.nn as nn
            from .blocks import ConvBn

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.body = ConvBn(8)
            """,
        "train.py": TRAIN.format(set_train="", mark="# MSA201")},
    "msa201-batch-statistics-only": {
        "src/__init__.py": "",
        "src/model.py": """\
            import mindspore.nn as nn

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.bn = nn.BatchNorm2d(8, use_batch_statistics=True)
            """,
        "train.py": TRAIN.format(set_train="", mark="")},
    # MSA101: the value of a parameter is what the callers in another file bind
    "msa101-bug-call-site": _call_site("""
        self.fc = nn.Dense(c, 2)
        self.drop = nn.Dropout(keep_prob=drop_rate)  # MSA101
    """, "0.2"),
    "msa101-correct-call-site": _call_site("self.drop = nn.Dropout(p=drop_rate)", "0.2"),
    "msa101-lookalike-keep-value": _call_site("self.drop = nn.Dropout(keep_prob=drop_rate)", "0.9"),
    # MSA101: the value is a key of the model-zoo default_config.yaml, read by model_utils/config.py
    "msa101-bug-yaml": _yaml_config("0.1", "  # MSA101"),
    "msa101-lookalike-yaml-keep": _yaml_config("0.9", ""),
    "msa101-bug-constant-module": {
        "src/__init__.py": "",
        "src/config.py": "RATE = 0.1\n",
        "src/model.py": """\
            import mindspore.nn as nn
            from src import config

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.drop = nn.Dropout(keep_prob=config.RATE)  # MSA101
            """},
    # MSA303: eval script calls a builder whose train/eval parameter defaults to training
    "msa303-bug": {"src/__init__.py": "", "src/dataset.py": _BUILDER.format(default="True"),
                   "eval.py": _EVAL.format(args="", mark="  # MSA303")},
    "msa303-correct": {"src/__init__.py": "", "src/dataset.py": _BUILDER.format(default="True"),
                       "eval.py": _EVAL.format(args=", do_train=False", mark="")},
    "msa303-lookalike-eval-default": {"src/__init__.py": "", "src/dataset.py": _BUILDER.format(default="False"),
                                      "eval.py": _EVAL.format(args="", mark="")},
}
_DATASET = """\
    import mindspore.dataset as ds

    def create_dataset(path, batch_size=32):
        data = ds.ImageFolderDataset(path, shuffle=True{shard})
        return data.batch(batch_size)
    """
_ENTRY = """\
    import mindspore as ms
    from mindspore import nn
    from mindspore.communication import init, get_rank, get_group_size
    from src.dataset import create_dataset

    init()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    data = create_dataset("/data/train", 32{args})  {mark}
    model = ms.Model(net, nn.CrossEntropyLoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9))
    model.train(90, data)
    """
CASES.update({
    # MSA307: init()/DATA_PARALLEL in the entry script, the dataset built in src/
    "msa307-bug": {"src/__init__.py": "", "src/dataset.py": _DATASET.format(shard=""),
                   "train.py": _ENTRY.format(args="", mark="# MSA307")},
    "msa307-correct": {"src/__init__.py": "",
                       "src/dataset.py": _DATASET.format(shard=", num_shards=get_group_size(), shard_id=get_rank()")
                       .replace("import mindspore.dataset as ds",
                                "import mindspore.dataset as ds\n    from mindspore.communication import get_rank, "
                                "get_group_size"),
                       "train.py": _ENTRY.format(args="", mark="")},
    "msa307-lookalike-builder-told-the-rank": {
        "src/__init__.py": "",
        "src/dataset.py": _DATASET.format(shard="").replace("batch_size=32)", "batch_size=32, rank_size=1)"),
        "train.py": _ENTRY.format(args=", rank_size=get_group_size()", mark="")},
})
CODES = "MSA101,MSA201,MSA303,MSA307"


def _write(tmp_path, files):
    (tmp_path / "pyproject.toml").write_text("")
    expected = set()
    for relative, text in files.items():
        text = textwrap.dedent(text)
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if relative.endswith(".py"):
            for number, line in enumerate(text.splitlines(), 1):
                found = MARK.search(line)
                if found:
                    expected.update((relative, number, code) for code in found.group(1).split())
    return expected


def _found(result):
    return {(d["path"], d["line"], d["code"]) for d in json.loads(result.stdout)}


# The cases above are also the rules' own multi-file examples (VALID/INVALID with files=...),
# which tests/test_multifile_frontends.py runs through the CLI (folder and single file),
# flake8 and the editor server; the tests below use them for what the examples cannot say.


def test_evidence_in_another_file_is_named_and_is_a_sarif_related_location(tmp_path, msacclint):
    _write(tmp_path, CASES["msa101-bug-yaml"])
    text = msacclint("check", "--no-cache", "--select", "MSA101", "src/model.py")
    assert "the value is 0.1 at default_config.yaml:2" in text.stdout, text.stdout
    sarif = json.loads(msacclint("check", "--no-cache", "--select", "MSA101", "--format", "sarif", ".").stdout)
    (result,) = sarif["runs"][0]["results"]
    (related,) = result["relatedLocations"]
    assert related["physicalLocation"]["artifactLocation"]["uri"] == "default_config.yaml"
    assert related["physicalLocation"]["region"]["startLine"] == 2


def test_json_carries_the_related_locations(tmp_path, msacclint):
    _write(tmp_path, CASES["msa101-bug-yaml"])
    (finding,) = json.loads(msacclint("check", "--no-cache", "--select", "MSA101", "--format", "json", ".").stdout)
    assert list(finding)[-1] == "related"
    (related,) = finding["related"]
    assert (related["path"], related["line"]) == ("default_config.yaml", 2)
    assert isinstance(related["message"], str) and related["message"]
    # a finding without evidence elsewhere has no related key
    _write(tmp_path, {"alone.py": "import mindspore.nn as nn\nd = nn.Dropout(0.1)\n"})
    plain = json.loads(msacclint("check", "--no-cache", "--select", "MSA101", "--format", "json", "alone.py").stdout)
    assert plain and all("related" not in f for f in plain)


def test_no_project_checks_each_file_on_its_own(tmp_path, msacclint):
    expected = _write(tmp_path, CASES["msa201-bug"])
    assert any(code == "MSA201" for _, _, code in expected)
    with_project = msacclint("check", "--select", CODES, "--format", "json", ".")
    assert _found(with_project) == expected
    assert any(r["path"] == "src/model.py" for d in json.loads(with_project.stdout) for r in d.get("related", ()))
    # the cache of the project run is not used: no evidence from src/model.py any more
    alone = json.loads(msacclint("check", "--no-project", "--select", CODES, "--format", "json", ".").stdout)
    assert all("related" not in d and "src/model.py" not in d["message"] for d in alone)
    assert _found(msacclint("check", "--select", CODES, "--format", "json", ".")) == expected


def test_sarif_with_related_locations_is_valid(tmp_path, msacclint, root):
    import jsonschema

    _write(tmp_path, CASES["msa201-bug"])
    sarif = json.loads(msacclint("check", "--no-cache", "--format", "sarif", ".").stdout)
    (result,) = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "MSA201"]
    assert result["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "src/model.py"
    schema_file = next(root.glob("tests/**/sarif*.json"), None)
    if schema_file is not None:
        jsonschema.validate(sarif, json.loads(schema_file.read_text()))


def test_unresolved_network_is_info_not_error(tmp_path, msacclint):
    _write(tmp_path, {"train.py": TRAIN.format(set_train="", mark="").replace(
        "from src.model import Net", "from mindcv.models import create_model as Net")})
    out = json.loads(msacclint("check", "--no-cache", "--select", "MSA201", "--format", "json", ".").stdout)
    assert [(d["code"], d["severity"]) for d in out] == [("MSA201", "info")]
    assert "could not resolve" in out[0]["message"]


def test_a_change_in_another_file_invalidates_the_cached_result(tmp_path, msacclint):
    _write(tmp_path, CASES["msa201-lookalike-no-mode-layers"])
    first = msacclint("check", "--select", "MSA201", "--format", "json", "train.py")
    assert _found(first) == set()
    model = tmp_path / "src" / "model.py"
    model.write_text(model.read_text().replace("rate=0.0", "rate=0.3"))
    second = msacclint("check", "--select", "MSA201", "--format", "json", "train.py")
    assert _found(second) == {("train.py", 12, "MSA201")}


def test_flake8_reads_the_project_index(tmp_path):
    _write(tmp_path, CASES["msa201-bug"])
    _write(tmp_path, {"src/head.py": CASES["msa101-bug-call-site"]["src/head.py"],
                      "src/net.py": CASES["msa101-bug-call-site"]["src/net.py"]})
    run = subprocess.run([sys.executable, "-m", "flake8", "--select", "MSA", "train.py", "src/head.py"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    codes = sorted(line.split(" ")[1] for line in run.stdout.splitlines())
    assert codes == ["MSA101", "MSA201"], run.stdout + run.stderr
    assert "src/head.py:7:" in run.stdout and "train.py:12:" in run.stdout


def test_a_model_folder_without_a_repository_is_one_project(tmp_path, msacclint):
    """No pyproject.toml, setup.py or .git anywhere above (a model folder downloaded on its
    own): src/model.py still sees default_config.yaml beside train.py, both when the run
    is pointed at the folder and in flake8 started there."""
    expected = _write(tmp_path, CASES["msa101-bug-yaml"])
    (tmp_path / "pyproject.toml").unlink()
    assert not any((parent / marker).exists() for parent in tmp_path.parents
                   for marker in ("pyproject.toml", "setup.py", "setup.cfg", ".git"))
    assert _found(msacclint("check", "--no-cache", "--select", "MSA101", "--format", "json", ".")) == expected
    run = subprocess.run([sys.executable, "-m", "flake8", "--select", "MSA", "src/model.py"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert "src/model.py:7:" in run.stdout and "default_config.yaml:2" in run.stdout, run.stdout + run.stderr


def test_a_model_folder_without_a_repository_is_indexed_whole(tmp_path, msacclint, monkeypatch):
    """No repository marker above a model folder whose rate is set four folders down
    (model/src/nets/heads/config/rates.py): the whole tree is indexed, so the file checked
    alone, from the model folder, resolves the rate; no note is given (nothing was cut)."""
    model = tmp_path / "downloads" / "model"
    model.mkdir(parents=True)
    _write(model, {
        "src/__init__.py": "", "src/nets/__init__.py": "", "src/nets/heads/__init__.py": "",
        "src/nets/heads/config/__init__.py": "",
        "src/nets/heads/config/rates.py": "DROP = 0.1\n",
        "src/nets/heads/head.py": "import mindspore.nn as nn\nfrom src.nets.heads.config import rates\n\n\n"
                                  "class Head(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
                                  "        self.drop = nn.Dropout(keep_prob=rates.DROP)\n",
        "train.py": "from src.nets.heads.head import Head\n\nhead = Head()\n"})
    (model / "pyproject.toml").unlink()
    assert not any((parent / marker).exists() for parent in model.parents
                   for marker in ("pyproject.toml", "setup.py", "setup.cfg", ".git"))
    from msacclint.project.listing import listing

    py, _other, cut = listing(str(model))
    assert cut is None and str(model / "src/nets/heads/config/rates.py") in py
    monkeypatch.chdir(model)
    found = json.loads(msacclint("check", "--no-cache", "--format", "json", "src/nets/heads/head.py").stdout)
    assert [(d["path"], d["line"], d["code"], d["severity"]) for d in found] == \
        [("src/nets/heads/head.py", 8, "MSA101", "error")]
    assert "rates.py:1" in found[0]["message"]


def test_a_listing_cut_short_says_so(tmp_path, msacclint, monkeypatch):
    """A folder without a marker holding more Python files than the cap: the files nearest its
    top are indexed, and the run says the listing was cut short (an MSA001 note on the folder,
    info: a limit of the tool, not a problem of the code)."""
    from msacclint.project import listing as listing_mod

    monkeypatch.setattr(listing_mod, "UNMARKED_MAX_FILES", 12)
    _write(tmp_path, {"train.py": "import mindspore.nn as nn\n\ndrop = nn.Dropout(p=0.1)\n"})
    (tmp_path / "pyproject.toml").unlink()
    for i in range(20):
        (tmp_path / "deep" / "er").mkdir(parents=True, exist_ok=True)
        (tmp_path / "deep" / "er" / f"m{i}.py").write_text(f"VALUE_{i} = {i}\n")
    py, _other, cut = listing_mod.listing(str(tmp_path))
    assert len(py) == 12 and str(tmp_path / "train.py") in py  # the nearest the top first
    assert "more than 12 Python files" in cut
    monkeypatch.chdir(tmp_path)
    found = json.loads(msacclint("check", "--no-cache", "--format", "json", "train.py").stdout)
    (note,) = [d for d in found if d["code"] == "MSA001"]
    assert note["severity"] == "info" and note["path"] == "." and "no repository marker" in note["message"]
    monkeypatch.setattr(listing_mod, "UNMARKED_MAX_FILES", 5_000)
    again = json.loads(msacclint("check", "--no-cache", "--format", "json", "train.py").stdout)
    assert again == []


# -- bad input for the project layer: a clear message, and the run goes on ---------------
def _yaml_case(tmp_path, yaml_text=None, yaml_bytes=None, name="default_config.yaml"):
    files = dict(CASES["msa101-bug-yaml"])
    files.pop("default_config.yaml")
    files["src/model.py"] = files["src/model.py"].replace("  # MSA101", "")
    _write(tmp_path, files)
    if yaml_bytes is not None:
        (tmp_path / name).write_bytes(yaml_bytes)
    elif yaml_text is not None:
        (tmp_path / name).write_text(yaml_text)


def _run(msacclint):
    result = msacclint("check", "--no-cache", "--format", "json", ".")
    return result, json.loads(result.stdout)


def test_malformed_yaml(tmp_path, msacclint):
    _yaml_case(tmp_path, "ratio: [0.1\nbatch_size: 32\n")
    result, found = _run(msacclint)
    (problem,) = [d for d in found if d["code"] == "MSA001"]
    assert problem["path"] == "default_config.yaml" and "not valid YAML" in problem["message"]
    assert not [d for d in found if d["code"] == "MSA101"]


def test_huge_yaml_is_not_read(tmp_path, msacclint):
    _yaml_case(tmp_path, yaml_bytes=b"ratio: 0.1\n" + b"# padding\n" * 5_300_000)  # about 50 MB
    result, found = _run(msacclint)
    (problem,) = [d for d in found if d["code"] == "MSA001"]
    assert problem["path"] == "default_config.yaml" and "MB" in problem["message"]


def test_yaml_alias_bomb_is_refused(tmp_path, msacclint):
    lines = ["a0: &a0 [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1]"]
    for i in range(1, 20):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    lines.append("ratio: 0.1")
    _yaml_case(tmp_path, "\n".join(lines) + "\n")
    result, found = _run(msacclint)
    (problem,) = [d for d in found if d["code"] == "MSA001"]
    assert "alias" in problem["message"]


def test_config_naming_a_missing_file(tmp_path, msacclint):
    _yaml_case(tmp_path)  # default_config.yaml is never written
    result, found = _run(msacclint)
    (problem,) = [d for d in found if d["code"] == "MSA001"]
    assert problem["path"] == "src/model_utils/config.py"
    # a missing input is a note (an earlier step may make it), naming the file and where it is read
    assert (problem["severity"], problem["line"]) == ("info", 6)
    assert problem["message"].startswith("the config file '../../default_config.yaml' that line 6 reads is not in "
                                         "the project")
    text = msacclint("check", "--no-cache", ".")
    assert (text.returncode, text.stdout) == (0, "") and "1 note not shown (--show-info)" in text.stderr


def test_a_config_file_the_code_writes_is_not_looked_up(tmp_path, msacclint):
    """A training script that saves its settings (``open(os.path.join(d, "hyp.yaml"), "w")``,
    ``yaml.dump``, a path held in a name and opened for writing) names files that do not exist
    yet: outputs, never reported; the file it reads still gives the values."""
    files = dict(CASES["msa101-bug-yaml"])
    files["src/model_utils/config.py"] = _CONFIG_PY.replace("    config = get_config()\n", """\
    def save(cfg, save_dir):
        with open(os.path.join(save_dir, "hyp.yaml"), "w") as out:
            yaml.safe_dump(cfg, out)
        yaml.dump(cfg, open(os.path.join(save_dir, "opt.yaml"), "w"))
        results = os.path.join(save_dir, "results.json")
        with open(results, "w") as out:
            out.write("{}")

    config = get_config()
    """)
    _write(tmp_path, files)
    result, found = _run(msacclint)
    assert [d["code"] for d in found if d["code"] == "MSA001"] == [], found
    assert [(d["path"], d["code"]) for d in found] == [("src/model.py", "MSA101")]
    assert "default_config.yaml:2" in found[0]["message"]


def test_circular_imports(tmp_path, msacclint):
    _write(tmp_path, {
        "src/__init__.py": "",
        "src/a.py": "from src.b import Net\n",
        "src/b.py": "from src.a import Net\n",
        "train.py": TRAIN.format(set_train="", mark="").replace("src.model", "src.a")})
    result, found = _run(msacclint)
    assert result.returncode in (0, 1)
    assert [(d["code"], d["severity"]) for d in found if d["code"] == "MSA201"] == [("MSA201", "info")]
    # valid Python (Net is simply not there: Python's ImportError), not an uncheckable file
    # (issue 38; tests/test_import_cycles.py)
    assert [d for d in found if d["code"] == "MSA001"] == [], found


def test_module_shadowed_by_a_package(tmp_path, msacclint):
    _write(tmp_path, {
        "nets.py": NET_WITHOUT_MODE_LAYERS,
        "nets/__init__.py": "from .model import Net\n",
        "nets/model.py": NET_WITH_DROPOUT,
        "train.py": TRAIN.format(set_train="", mark="").replace("src.model", "nets")})
    result, found = _run(msacclint)
    # Python imports the package: its Net has a Dropout, so the missing set_train is an error
    assert [(d["path"], d["severity"]) for d in found if d["code"] == "MSA201"] == [("train.py", "error")]
    assert any(d["code"] == "MSA001" and d["path"] == "nets.py" and "package" in d["message"] for d in found)


def test_two_files_claiming_one_module(tmp_path, msacclint):
    _write(tmp_path, {
        "scripts/train.py": TRAIN.format(set_train="", mark="").replace("src.model", "model"),
        "model.py": NET_WITH_DROPOUT,
        "src/model.py": NET_WITHOUT_MODE_LAYERS})
    result, found = _run(msacclint)
    assert [(d["path"], d["severity"]) for d in found if d["code"] == "MSA201"] == [("scripts/train.py", "error")]
    assert any(d["code"] == "MSA001" and "claimed by" in d["message"] for d in found), found


def test_repository_of_7000_files(tmp_path, msacclint):
    _write(tmp_path, CASES["msa201-bug"])
    for i in range(7_050):
        folder = tmp_path / "generated" / f"pkg{i // 100}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"m{i}.py").write_text(f"VALUE_{i} = {i}\n")
    result = msacclint("check", "--no-cache", "--select", CODES, "--format", "json", ".")
    assert _found(result) == {("train.py", 12, "MSA201")}
    alone = msacclint("check", "--select", CODES, "--format", "json", "train.py")
    assert _found(alone) == {("train.py", 12, "MSA201")}


def test_summary_lines_match_libcst_positions():
    """The summary takes its lines from Python's parser in the order LibCST visits the
    nodes; they must be the lines LibCST's PositionProvider gives (decorators, nesting,
    calls on one line, calls spanning lines)."""
    import libcst as cst
    from libcst.metadata import PositionProvider

    from msacclint.project.collect import SummaryCollector, summarize

    text = textwrap.dedent('''\
        import mindspore.nn as nn
        RATE = 0.1
        cfg = dict(drop=0.2,
                   mom=0.9)

        def deco(f):
            return f

        @deco
        @deco
        class Net(nn.Cell):
            def __init__(self, c=3):
                super().__init__()
                self.a = nn.SequentialCell([nn.Dense(c, c), nn.Dropout(p=RATE),
                                            nn.Dense(c, c)])
                self.b = nn.Dense(
                    c,
                    nn.Dense(c, c).out_channels)

            @deco
            def construct(self, x):
                return self.b(self.a(x))

        net = Net(c=deco(4)); other = Net()
        ''')

    class WithPositions(SummaryCollector):
        METADATA_DEPENDENCIES = (PositionProvider,)

        def _line(self, node):
            return self.get_metadata(PositionProvider, node).start.line

    module = cst.parse_module(text)
    fast = summarize(module, "m.py", "m", False, text)
    exact = WithPositions("m.py", "m")
    cst.MetadataWrapper(module, unsafe_skip_copy=True).visit_batched([exact])
    exact = exact.finish()
    assert fast == exact
    assert [c.line for c in fast.classes["Net"].calls if c.callee == "nn.Dense"] == [14, 15, 16, 18]
    assert fast.constants["RATE"][0][1] == 2 and fast.functions["Net.construct"].line == 21


def test_checked_file_bindings_are_memoised_per_index(tmp_path):
    """The memo of a file's bindings is keyed by the index: a second index (another root,
    so another module name for the file) gets its own answer, not the first one's."""
    import libcst as cst

    from msacclint.analysis.context import FileContext
    from msacclint.analysis.imports import ImportTable
    from msacclint.project.index import checked_file_bindings, load_index
    from msacclint.settings import Settings

    (tmp_path / "repo" / "pkg").mkdir(parents=True)
    (tmp_path / "repo" / ".git").mkdir()
    (tmp_path / "repo" / "pkg" / "__init__.py").write_text("")
    (tmp_path / "repo" / "pkg" / "helpers.py").write_text("def f():\n    pass\n")
    source = "from .helpers import f\n"
    path = tmp_path / "repo" / "pkg" / "mod.py"
    path.write_text(source)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / ".git").mkdir()
    module = cst.parse_module(source)
    ctx = FileContext(str(path), source, module, ImportTable.from_module(module), Settings())
    in_repo, elsewhere = load_index(str(tmp_path / "repo")), load_index(str(tmp_path / "elsewhere"))
    assert checked_file_bindings(in_repo, ctx).get("f") == "pkg.helpers.f"
    # the other index does not see pkg/__init__.py: the file is the top-level module "mod"
    # there, and its relative import names the top-level "helpers"
    assert checked_file_bindings(elsewhere, ctx).get("f") == "helpers.f"
    assert checked_file_bindings(in_repo, ctx) is checked_file_bindings(in_repo, ctx)  # memoised


def _parse_counter(monkeypatch):
    """Count LibCST parses per file text (the real parser still runs)."""
    import collections

    import libcst

    from msacclint.analysis import source
    from msacclint.project import index as project_index

    counts = collections.Counter()
    real = libcst.parse_module

    def counting(text, *args, **kwargs):
        counts[text if isinstance(text, str) else text.decode()] += 1
        return real(text, *args, **kwargs)

    monkeypatch.setattr(libcst, "parse_module", counting)
    monkeypatch.setattr(source.cst, "parse_module", counting, raising=False)
    assert project_index.parse is source.parse
    return counts


def test_each_checked_file_is_parsed_once_with_the_project_layer(tmp_path, monkeypatch):
    """A whole-repository run parses each checked file once, whether another file's check
    needs its summary before its own check (the parse is kept for it) or after (the summary
    was collected in the engine's traversal); the findings are those of the cross-file case."""
    from msacclint.engine.batch import analyse_files
    from msacclint.engine.registry import default_codes
    from msacclint.settings import Settings

    case = CASES["msa201-bn-in-a-block-of-a-third-file"]
    _write(tmp_path, case)
    counts = _parse_counter(monkeypatch)
    settings = Settings(enabled=default_codes())
    for order in (["train.py", "src/model.py", "src/blocks.py"], ["src/blocks.py", "src/model.py", "train.py"]):
        counts.clear()
        paths = [str(tmp_path / p) for p in order]
        results = analyse_files(paths, settings, jobs=1, use_cache=False)
        texts = {(tmp_path / p).read_text() for p in order}
        assert {t: counts[t] for t in texts} == {t: 1 for t in texts}, order
        found = {(p, d.line, d.code) for p, r in results.items() for d in r.diagnostics}
        train = str(tmp_path / "train.py")
        assert any(p == train and code == "MSA201" for p, _, code in found), found


def test_summary_collected_in_the_traversal_equals_the_standalone_one(tmp_path):
    """The summary the engine's traversal collects (lines filled in afterwards) is the one
    ``summarize`` builds on its own, for every file of the multi-file cases."""
    import os

    import libcst as cst

    from msacclint.engine.registry import default_codes
    from msacclint.engine.runner import check_source
    from msacclint.project.collect import summarize
    from msacclint.project.index import load_index
    from msacclint.settings import Settings

    compared = 0
    for name, case in CASES.items():
        root = tmp_path / name
        root.mkdir()
        _write(root, case)
        for rel in case:
            path = str(root / rel)
            text = (root / rel).read_text()
            index = load_index(str(root))
            check_source(text, path, Settings(enabled=default_codes()), index)
            if os.path.normpath(path) not in index._drafts:
                continue  # not checked by any rule (no traversal): summarised on its own
            collected = index.summary(path)
            module, is_package = index.module_name(path)
            alone = summarize(cst.parse_module(text), path, module, is_package, text)
            alone.path = collected.path
            assert collected == alone, (name, rel)
            compared += 1
    assert compared >= 10
