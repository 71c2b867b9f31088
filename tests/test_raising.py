"""msacclint.analysis.raising: what raises, where it runs, whether it runs unconditionally, and
what guards it (MSA004's examples cover the rule; these cover the question the reach graph
asks)."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from msacclint.analysis.context import FileContext
from msacclint.analysis.imports import ImportTable
from msacclint.analysis.raising import (
    COMBINATION,
    IMPORT,
    KEYWORD,
    NAME,
    POSITIONAL,
    PROJECT_IMPORT,
    catches,
    holds,
    literal,
    raising_calls,
)
from msacclint.project.index import load_index
from msacclint.settings import Settings


def found(source, version=None, path="train.py", project=None):
    source = textwrap.dedent(source)
    module = cst.parse_module(source)
    ctx = FileContext(path, source, module, ImportTable.from_module(module), Settings(mindspore_version=version))
    ctx.project = project
    return raising_calls(ctx)


def code(node):
    return cst.Module(body=()).code_for_node(node)


def summary(source, **kw):
    return [(r.kind, code(r.node), r.where, r.unconditional) for r in found(source, **kw)]


def test_where_each_runs():
    src = """
        import mindspore as ms
        import mindspore.nn as nn

        layer = nn.Sequential()


        @ms.ms_function
        def step(x, pad=nn.ZeroPad(1)):
            return nn.Module()


        class Net(nn.Module):
            act = nn.LeakyReLU(0.2, True)

            def __init__(self):
                super().__init__()
                self.conv = nn.Conv1d(2, 2, 3, bias=False)

                def inner():
                    return nn.ModuleList()
                self.head = lambda: nn.Identity2()

            class Inner:
                def build(self):
                    return nn.Dropout(p=1)


        def build():
            class Local(nn.Module):
                pass
            return Local
        """
    assert summary(src) == [
        (NAME, "nn.Sequential", "module", True),
        (NAME, "ms.ms_function", "module", True),          # a decorator runs on import
        (NAME, "nn.ZeroPad", "module", True),              # so does a default value
        (NAME, "nn.Module", "step", True),
        (NAME, "nn.Module", "module", True),               # a base class
        (POSITIONAL, "nn.LeakyReLU", "module", True),      # a class body runs on import
        (KEYWORD, "bias", "Net.__init__", True),
        (NAME, "nn.ModuleList", "Net.__init__.<locals>.inner", True),
        (NAME, "nn.Identity2", "Net.__init__.<locals>.<lambda>", True),
        (COMBINATION, "p", "Net.Inner.build", True),
        (NAME, "nn.Module", "build", True),                # a base class where the class statement runs
    ]


def test_what_is_conditional_in_its_body():
    src = """
        import mindspore.nn as nn


        def build(flag, items):
            first = nn.Module()
            if flag:
                a = nn.Sequential()
            elif items:
                b = nn.ModuleList()
            else:
                c = nn.ModuleDict()
            for item in items:
                d = nn.Conv2D(item)
            while flag:
                e = nn.Linear2()
            with open("x") as handle:
                f = nn.Conv3D()
            g = flag and nn.Dense2()
            h = nn.Dense3() if flag else None
            i = [nn.Dense4() for _ in items]
            if not items:
                return None
            last = nn.Dense5()
        """
    assert [(c, u) for _, c, _, u in summary(src)] == [
        ("nn.Module", True), ("nn.Sequential", False), ("nn.ModuleList", False), ("nn.ModuleDict", False),
        ("nn.Conv2D", False), ("nn.Linear2", False), ("nn.Conv3D", True), ("nn.Dense2", False),
        ("nn.Dense3", False), ("nn.Dense4", False), ("nn.Dense5", False),
    ]


def test_a_module_level_main_block_is_conditional_and_an_early_exit_too():
    src = """
        import sys
        import mindspore.nn as nn

        if __name__ == "__main__":
            net = nn.Module()
        if len(sys.argv) < 2:
            sys.exit(1)
        net = nn.Sequential()
        """
    assert [(c, w, u) for _, c, w, u in summary(src)] == [("nn.Module", "module", False),
                                                         ("nn.Sequential", "module", False)]


@pytest.mark.parametrize("guarded", [
    """
    try:
        net = nn.Module()
    except AttributeError:
        net = nn.Cell()
    """,
    """
    try:
        net = nn.Module()
    except Exception:
        net = None
    """,
    """
    try:
        net = nn.Module()
    except:
        net = None
    """,
    """
    try:
        net = nn.Module()
    except (ImportError, AttributeError):
        net = None
    """,
    """
    try:
        net = nn.Module()
    except errors.MindSporeError:
        net = None
    """,
    """
    with contextlib.suppress(AttributeError):
        net = nn.Module()
    """,
    """
    if ms.__version__ < "2.0":
        net = nn.Module()
    """,
    """
    if MS_VERSION >= (2, 11):
        net = nn.Module()
    else:
        net = nn.Cell()
    """,
    """
    if TYPE_CHECKING:
        from mindspore.nn import Module
    """,
    """
    Base = nn.Module if hasattr(nn, "Module") else nn.Cell
    """,
    """
    Base = getattr(nn, "Module", nn.Cell)
    net = nn.Module()
    """,
    """
    nn.Module = nn.Cell
    net = nn.Module()
    """,
    """
    def build(nn):
        return nn.Module()
    """,
    """
    try:
        from mindspore.nn import Module
    except ImportError:
        Module = None
    """,
    """
    try:
        import mindspore.nn as nn
    except ImportError:
        nn = None
    net = nn.Module()
    """,
])
def test_guarded_code_is_not_reported(guarded):
    src = "import contextlib\nimport mindspore as ms\nimport mindspore.nn as nn\n" + textwrap.dedent(guarded)
    assert found(src) == []


def test_a_handler_that_catches_something_else_does_not_guard():
    src = """
        import mindspore.nn as nn
        try:
            net = nn.Module()
        except (ValueError, KeyError):
            net = None
        """
    assert summary(src) == [(NAME, "nn.Module", "module", False)]
    assert catches(frozenset({"ImportError"}), "ModuleNotFoundError")
    assert not catches(frozenset({"ImportError"}), "AttributeError")
    assert catches(frozenset({"*"}), "TypeError")


def test_the_configured_release_alone_is_decided():
    src = """
        import mindspore.dataset.vision.c_transforms as C
        from mindspore import mint
        loss = mint.nn.CosineEmbeddingLoss()
        """
    assert found(src) == []                                  # some releases have both
    on_210 = found(src, version="2.10.0")
    assert [(r.kind, r.versions) for r in on_210] == [(IMPORT, ("2.10.0",))]
    assert "on MindSpore 2.10.0 (present in 2.7)" in on_210[0].message
    on_27 = found(src, version="2.7.2")
    assert [(r.kind, code(r.node)) for r in on_27] == [(NAME, "mint.nn.CosineEmbeddingLoss")]
    assert found(src, version="2.11.0") == []                # a line the surface does not know
    assert found("import mindspore.nn as nn\nnet = nn.Module()\n", version="2.6.0") == []


def test_messages_say_what_raises_where_and_the_spelling():
    src = """
        import mindspore.nn as nn
        from mindspore.nn import ModuleList
        net = nn.Module()
        conv = nn.Conv1d(2, 2, 3, bias=False)
        act = nn.LeakyReLU(0.2, True)
        pad = nn.Conv2d(3, 8, 7, padding=3)
        drop = nn.Dropout(keep_prob=0)
        relu = nn.ReLU(inplace=True)
        """
    messages = [r.message for r in found(src)]
    assert messages == [
        "`from mindspore.nn import ModuleList`: mindspore.nn has no ModuleList: ImportError on every supported "
        "release (2.7–2.10); MindSpore's name is CellList",
        "nn.Module does not exist in MindSpore: AttributeError on every supported release (2.7–2.10); "
        "MindSpore's name is nn.Cell",
        "nn.Conv1d has no parameter bias=: TypeError on every supported release (2.7–2.10); MindSpore spells it "
        "has_bias=",
        "nn.LeakyReLU takes one positional argument (alpha), 2 given: TypeError on every supported release "
        "(2.7–2.10); pass the others by keyword, or drop what MindSpore has no parameter for",
        "nn.Conv2d rejects padding=3 with pad_mode='same': ValueError on every supported release (2.7–2.10); "
        "MindSpore pads only with pad_mode='pad' and rejects a padding otherwise; write pad_mode='pad'",
        "nn.Dropout rejects keep_prob=0: TypeError on every supported release (2.7–2.10); nn.Dropout checks that "
        "keep_prob is a float and rejects an int (it is the probability to KEEP a unit); write 1.0, or p= for a "
        "drop rate",
        "nn.ReLU has no parameter inplace=: TypeError on every supported release (2.7–2.10); MindSpore's layers "
        "have no in-place mode: drop inplace=",
    ]


def test_an_operator_class_called_with_its_inputs():
    [finding] = found("from mindspore import ops\nz = ops.Zeros((2, 2), ms.float32)\n")
    assert finding.kind == POSITIONAL
    assert finding.message.startswith("ops.Zeros takes no positional arguments, 2 given: TypeError")
    assert "ops.Zeros()(...)" in finding.message


def test_calls_that_bind():
    src = """
        import mindspore as ms
        import mindspore.nn as nn
        model = ms.Model(net, loss_fn=loss, keep_batchnorm_fp32=False)   # **kwargs
        cells = nn.SequentialCell(*layers)                               # *args
        conv = nn.Conv2d(3, 8, 3, **options)                             # keywords unknown
        conv = nn.Conv2d(*shape, padding=3)                              # positions unknown
        pad = nn.Conv2d(3, 8, 3, 1, "pad", 1)                            # pad_mode by position
        bn = nn.BatchNorm2d(8, momentum=0.1)
        """
    assert found(src) == []


def test_a_rejected_combination_by_position():
    [finding] = found("import mindspore.nn as nn\nconv = nn.Conv2d(3, 8, 3, 1, 'same', 1)\n")
    assert finding.kind == COMBINATION and code(finding.node) == "nn.Conv2d"
    assert "padding=1 with pad_mode='same'" in finding.message


@pytest.mark.parametrize("condition,value,expected", [
    ({"nonzero": True}, 3, True), ({"nonzero": True}, 0, False), ({"nonzero": True}, (1, 1), False),
    ({"nonzero": True, "tuples": True}, (0, 0, 1, 1), True), ({"nonzero": True, "tuples": True}, (0, 0), False),
    ({"values": ["same", "valid"]}, "same", True), ({"values": ["same", "valid"]}, "pad", False),
    ({"not_values": ["same", "valid", "pad"]}, "zeros", True), ({"not_values": ["same"]}, "SAME", False),
    ({"outside": "(0, 1]"}, 0.0, True), ({"outside": "(0, 1]"}, 1.0, False), ({"outside": "(0, 1]"}, 1.5, True),
    ({"outside": "[0, 1)"}, 1, True), ({"outside": "[0, 1)"}, 0, False), ({"outside": "[0, 1]"}, True, False),
    ({"not_float": True}, 1, True), ({"not_float": True}, True, True), ({"not_float": True}, 1.0, False),
    ({"sequence": True}, (1,), True), ({"sequence": True}, 1, False),
    ({"length_not": 4}, (1, 1), True), ({"length_not": 4}, (1, 1, 1, 1), False), ({"length_not": 4}, 1, False),
])
def test_conditions_of_rejected_combinations(condition, value, expected):
    assert holds(condition, value) is expected


def test_only_literals_are_read():
    def value(text):
        return literal(cst.parse_expression(text))

    assert value("-0.5") == -0.5 and value("(1, 2)") == (1, 2) and value("'same'") == "same"
    assert value("True") is True and value("[0, -1]") == (0, -1)
    for text in ("pad", "cfg.pad", "1 + 1", "(1, pad)", "-x", "f'{x}'"):
        assert value(text) is not None and value(text) == literal(cst.parse_expression("pad")), text


# -- the project's own modules ----------------------------------------------------------------
def project(tmp_path, files):
    for rel, text in files.items():
        target = tmp_path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text), encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    return load_index(str(tmp_path))


def test_a_missing_module_of_the_project(tmp_path):
    index = project(tmp_path, {"src/__init__.py": "", "src/model.py": "", "src/ops/__init__.py": "",
                               "src/ops/fast.cpython-311-x86_64-linux-gnu.so": "", "scripts/run.py": ""})
    src = """
        import mindspore as ms
        import numpy.linalg
        import src.model
        from src.model import Net
        from src.ops.fast import kernel
        from src.missing import helper
        import src.ops.gone
        from mmcv.runner import load_checkpoint
        from scripts import run
        try:
            from src.optional import extra
        except ImportError:
            extra = None
        """
    got = found(src, path=str(tmp_path / "train.py"), project=index)
    assert [(r.kind, code(r.node), r.versions) for r in got] == [
        (PROJECT_IMPORT, "src.missing", None), (PROJECT_IMPORT, "src.ops.gone", None)]
    assert got[0].message == ("`from src.missing import ...`: the project has no module src.missing "
                              "(no src/missing.py or src/missing/): ModuleNotFoundError")


def test_a_relative_import_of_a_missing_module(tmp_path):
    index = project(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": "", "pkg/sub/__init__.py": ""})
    src = """
        import mindspore
        from .a import x
        from . import anything
        from .b import y
        from ..pkg import z
        from .sub.c import w
        """
    got = found(src, path=str(tmp_path / "pkg" / "mod.py"), project=index)
    assert [code(r.node) for r in got] == ["b", "sub.c"]


def test_a_module_the_build_writes_is_not_reported(tmp_path):
    index = project(tmp_path, {"pkg/__init__.py": "", ".gitignore": "pkg/_version.py\n",
                               "other/pkg/__init__.py": "", "other/pkg/extra.py": ""})
    src = "import mindspore\nfrom pkg._version import version\nfrom pkg.extra import x\nfrom pkg.msg_pb2 import M\n"
    assert found(src, path=str(tmp_path / "train.py"), project=index) == []


def test_a_vendored_copy_deeper_in_the_tree_is_not_the_package_imported(tmp_path):
    """mindrlhf's third_party/vllm/ is imported as mindrlhf.third_party.vllm; its own
    ``from vllm.sequence import ...`` means the installed vllm."""
    index = project(tmp_path, {"lib/__init__.py": "",  # third_party/ is a namespace package, as in mindrlhf
                               "lib/third_party/vllm/__init__.py": "", "lib/third_party/vllm/model.py": "",
                               "tools/models/__init__.py": ""})
    src = "import mindspore\nfrom vllm.sequence import SequenceGroup\n"
    assert found(src, path=str(tmp_path / "lib" / "third_party" / "vllm" / "model.py"), project=index) == []
    script = "import mindspore\nfrom models.resnet import Net\n"  # tools/train.py: its own folder is sys.path[0]
    [missing] = found(script, path=str(tmp_path / "tools" / "train.py"), project=index)
    assert "the project has no module models.resnet" in missing.message


def test_a_fallback_for_other_releases_is_not_decided():
    src = """
        import mindspore as ms
        from mindspore import ops
        try:
            from mindspore import manual_seed
        except ImportError:
            from mindspore.nn.generator import manual_seed


        def norm_new(x):
            return ops.norm(x, dim=0)


        def norm_old(x):
            return ops.norm(x, 0, p=2, keep_dims=False)


        if is_version_ge(ms.__version__, "1.11.0"):
            norm = norm_new
        else:
            norm = norm_old


        def used(x):
            return ops.norm(x, p=2)


        value = used(1) if ms_version > "2.0" else norm_old(1)
        other = used(2)
        """
    assert [(c, w) for _, c, w, _ in summary(src)] == [("p", "used")]


def test_a_definition_returned_after_a_version_check_is_for_other_releases():
    src = """
        import mindspore as ms
        from mindspore import ops


        def get_norm():
            def new(x):
                return ops.norm(x, dim=0)

            def old(x):
                return ops.norm(x, 0, p=2, keep_dims=False)

            if is_version_ge(ms.__version__, "1.11.0"):
                return new
            return old
        """
    assert found(src) == []


def test_a_module_created_after_a_run_clears_the_cached_finding(tmp_path, msacclint):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "__init__.py").write_text("")
    (tmp_path / "train.py").write_text("import mindspore\nfrom src.lr import cosine\n")
    first = msacclint("check", "--select", "MSA004", "train.py")
    assert first.returncode == 1 and "the project has no module src.lr" in first.stdout
    assert msacclint("check", "--select", "MSA004", "train.py").returncode == 1  # from the cache
    (tmp_path / "src" / "lr.py").write_text("def cosine():\n    pass\n")
    after = msacclint("check", "--select", "MSA004", "train.py")
    assert after.returncode == 0, after.stdout
