"""A run the cache answers needs none of the checking machinery (issue 17: warm runs).

``msacclint check`` on unchanged files reads the files and their cached results; LibCST,
the rule modules and the project index are imported only when some file has to be
checked. The rules' codes and default states come from ``rule_index.json``, which must
match the rules it was written from.
"""

import json
import subprocess
import sys
import textwrap

from msacclint.engine import registry

PROGRAM = textwrap.dedent("""
    import json, sys
    from msacclint.frontends.cli import main
    try:
        code = main(["check", "--jobs", "1", "--format", "json", "."])
    except SystemExit as stop:
        code = stop.code
    loaded = sorted(m for m in sys.modules
                    if m == "libcst" or m.startswith(("msacclint.rules.", "msacclint.project.index",
                                                      "msacclint.engine.runner")))
    sys.stderr.write(chr(10) + json.dumps({"exit": code, "loaded": loaded}))
""")

TRAIN = textwrap.dedent("""
    import mindspore.nn as nn

    class Head(nn.Cell):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(0.1)
            self.fc = nn.Dense(8, 2)

        def construct(self, x):
            return self.fc(self.drop(x))
""")


def _run(folder):
    done = subprocess.run([sys.executable, "-c", PROGRAM], cwd=folder, capture_output=True, text=True,
                          timeout=300)
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return report, json.loads(done.stdout)


def test_a_warm_run_loads_neither_libcst_nor_the_rules(tmp_path):
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    (tmp_path / "model.py").write_text(TRAIN, encoding="utf-8")
    (tmp_path / "util.py").write_text("def helper():\n    return 1\n", encoding="utf-8")

    cold, cold_found = _run(tmp_path)
    assert "libcst" in cold["loaded"] and "msacclint.engine.runner" in cold["loaded"]
    assert [d["code"] for d in cold_found] == ["MSA101"]

    warm, warm_found = _run(tmp_path)
    # tables of code names and groups
    assert sorted(warm["loaded"]) == ["msacclint.rules.groups", "msacclint.rules.profiles"], warm
    assert warm_found == cold_found
    assert warm["exit"] == cold["exit"] == 1

    # one changed file is checked again: the machinery comes back for it alone
    (tmp_path / "util.py").write_text("def helper():\n    return 2\n", encoding="utf-8")
    again, again_found = _run(tmp_path)
    assert "libcst" in again["loaded"]
    assert again_found == cold_found


def test_the_rule_index_matches_the_rules():
    """Rewrite with ``python -m msacclint.engine.registry`` after adding or changing a rule."""
    index = registry.read_index()
    assert index is not None, "rules/rule_index.json is stale: run python -m msacclint.engine.registry"
    codes, declared = index
    rules = registry.all_rules()
    assert codes == tuple(r.code for r in rules)
    assert declared == {r.code: (r.group, r.severity.value) for r in rules}


def test_a_stale_or_broken_index_is_not_read(tmp_path):
    good = registry.index_content()
    target = tmp_path / "rule_index.json"
    target.write_text(json.dumps(dict(good, codes=["MSA999"], groups={"MSA999": "correctness"},
                                      severities={"MSA999": "error"})), encoding="utf-8")
    assert registry.read_index(target) == (("MSA999",), {"MSA999": ("correctness", "error")})  # read when current
    target.write_text(json.dumps(dict(good, digest="0" * 64)), encoding="utf-8")
    assert registry.read_index(target) is None
    target.write_text("{not json", encoding="utf-8")
    assert registry.read_index(target) is None
    assert registry.read_index(tmp_path / "missing.json") is None
