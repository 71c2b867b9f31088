"""Small helpers the tests share."""

import re

from msacclint.engine import registry
from msacclint.engine.fixes import fix_source
from msacclint.engine.runner import check_source
from msacclint.settings import Settings


def settings(codes=None, **kw):
    enabled = frozenset(codes) if codes is not None else frozenset(registry.all_codes())
    return Settings(enabled=enabled, **kw)


def check(code_text, codes=None, path="train.py", **kw):
    return check_source(code_text, path, settings(codes, **kw))


def check_tree(root, files, codes=None, **kw):
    """Write ``files`` (relative path -> text) under ``root`` and check them together, as
    ``msacclint check root`` does; diagnostics carry paths relative to ``root``."""
    import dataclasses
    from pathlib import Path

    from msacclint.engine.batch import check_files

    paths = []
    marker = Path(root, "pyproject.toml")  # one project root for every file, as a repository has
    if not marker.exists() and "pyproject.toml" not in files:
        marker.write_text("", encoding="utf-8")
    for rel, text in files.items():
        target = Path(root, rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        paths.append(str(target))
    found = check_files(sorted(paths), settings(codes, **kw), jobs=1, use_cache=False)
    prefix = str(root).rstrip("/") + "/"
    return [dataclasses.replace(d, path=d.path[len(prefix):] if d.path.startswith(prefix) else d.path)
            for d in found]


def fixed(code_text, codes, unsafe=False, explicit=False, **kw):
    s = settings(codes, **kw)
    text, _ = fix_source(code_text, lambda t: check_source(t, "train.py", s), unsafe=unsafe, explicit=explicit)
    return text


#: a MindSpore script with three default findings on known lines (see FAULTY_FINDINGS)
FAULTY = '''\
import mindspore.nn as nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(2)
        self.bn = nn.BatchNorm2d(8, momentum=0.1)
        self.ln = nn.LayerNorm((8,))
        self.drop = nn.Dropout(keep_prob=0.9)
        self.drop2 = nn.Dropout(0.1)


net = Net()
'''
#: (line, column, code) of FAULTY's findings with the default selection; the
#: LayerNorm (MSA111) and keep_prob= (MSA103) findings are off by default
FAULTY_FINDINGS = [(7, 21, "MSA104"), (8, 19, "MSA107"), (11, 22, "MSA101")]
FAULTY_OPT_IN = [(9, 19, "MSA111"), (10, 21, "MSA103")]

#: idiomatic MindSpore code: nothing to report
CLEAN = '''\
import mindspore.nn as nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.bn = nn.BatchNorm2d(8, momentum=0.9)
        self.drop = nn.Dropout(p=0.1)
'''


#: a line of text output: ``path:line:col: grade: CODE [item] message`` (msacclint check), or
#: ``path:line:col: CODE [grade] [item] message`` (flake8)
FINDING_LINE = re.compile(r"^(?P<path>.+?):(?:cell (?P<cell>\d+):)?(?P<line>\d+):(?P<col>\d+): (?:(?P<grade>error|warning|info): )?"
                          r"(?P<code>MSA\d{3}) (?:\[(?P<flake8_grade>error|warning|info)\] )?\[(?P<item>[\w.]+)\] "
                          r"(?P<message>.*)$")


def finding_lines(text_output):
    """The match of every line of text-format output (an AssertionError names a line that
    is not a finding)."""
    found = []
    for line in text_output.splitlines():
        match = FINDING_LINE.match(line)
        assert match, f"not a finding line: {line!r}"
        found.append(match)
    return found


def triples(text_output):
    """(path, line, column, code) of each line of text-format output."""
    return [(m["path"], int(m["line"]), int(m["col"]), m["code"]) for m in finding_lines(text_output)]


def graded(text_output):
    """(path, line, grade, code) of each line of text-format output, the grade as printed."""
    return [(m["path"], int(m["line"]), m["grade"] or m["flake8_grade"], m["code"]) for m in finding_lines(text_output)]


#: the project layer's objects the cache keeps beside the results (engine/cache.py store_object)
OBJECT_KINDS = frozenset({"summary", "outline", "raising"})


def result_entries(folder):
    """The result entries under a cache folder (``.msacclint_cache``), not the project
    layer's cached objects (file summaries, outlines)."""
    from pathlib import Path

    return sorted(p for p in Path(folder).rglob("*")
                  if p.is_file() and p.name != ".gitignore" and p.parent.parent.name not in OBJECT_KINDS
                  and not p.name.startswith(".tmp-"))


#: a training script with one finding of each grade: MSA104 in main() an error, MSA301 in
#: main() a warning, MSA101 in build_head() (nothing calls it) an error lowered to a warning,
#: MSA301 in build_loader() (nothing calls it) a warning lowered to info. ``graded_script``
#: leaves out parts: ``head=False`` drops build_head, ``pool_stride`` writes the pool's stride.
def graded_script(head: bool = True, pool_stride: bool = False) -> str:
    parts = ["import mindspore.dataset as ds\nimport mindspore.nn as nn\n\n\n"]
    if head:
        parts.append("def build_head():\n    return nn.Dropout(0.2)\n\n\n")
    parts.append("def build_loader(path):\n    return ds.ImageFolderDataset(path, shuffle=False)\n\n\n")
    pool = "nn.MaxPool2d(2, stride=2)" if pool_stride else "nn.MaxPool2d(2)"
    parts.append(f"def main():\n    pool = {pool}\n    data = ds.ImageFolderDataset(\"data\", shuffle=False)\n"
                 "    return pool, data\n\n\n")
    parts.append("if __name__ == \"__main__\":\n    main()\n")
    return "".join(parts)


def trained_net_script(module: str) -> str:
    """An entry script that trains ``Net`` imported from ``module`` with a hand-written loop
    (a gradient function, no ``set_train``): what a multi-file test needs to make a model file
    matter to a training run."""
    return (f"import mindspore as ms\nfrom mindspore import nn\nfrom {module} import Net\n\n"
            "net = Net()\nopt = nn.Adam(net.trainable_params())\n\n\n"
            "def forward(x, y):\n    return nn.MSELoss()(net(x), y)\n\n\n"
            "grad_fn = ms.value_and_grad(forward, None, opt.parameters)\nfor x, y in ds:\n    grad_fn(x, y)\n")


def git(repo, *args: str) -> str:
    """``git -C repo args`` with a fixed author (tests that build a repository's history)."""
    import subprocess

    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True,
                          env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                               "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin"})
    return done.stdout.strip()
