"""``msacclint check --fix / --unsafe-fixes / --diff`` through the real command line, and
the fix machinery on every rule's own examples."""

import os
import stat

import libcst as cst
import pytest
from helpers import check, fixed, settings, triples

from msacclint.analysis.edits import append_keywords
from msacclint.engine import registry
from msacclint.engine.fixes import apply_once, fix_text

#: the file every command-line fix test starts from, with one slot per place a fix writes
NET = """\
import mindspore.nn as nn
from mindspore import ops


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        # the pooling of the reference model
        self.pool = nn.MaxPool2d(2{pool})  # halves H and W in PyTorch
        self.keep = nn.Dropout({keep})  # ported from keep_prob code
        self.drop = nn.Dropout({drop})
        self.bn = nn.BatchNorm2d(
            64,
            momentum={momentum},  # PyTorch's value
        )
        self.down = nn.AvgPool2d(  # blur?
            kernel_size=3,  # odd kernel
{down}        )

    def construct(self, x):
        return ops.avg_pool2d(self.pool(self.bn(x)), 2{functional})
"""


def _net(**written):
    """NET as it is before fixing, with the slots in ``written`` filled in."""
    slots = dict(pool="", keep="0.8", drop="0.1", momentum="0.1", down="", functional="")
    slots.update(written)
    return NET.format(**slots)


BEFORE = _net()
#: --fix: only MSA102 has a safe fix (p=0.2 drops the same 20 % and removes the problem);
#: writing stride=1 would only spell out the reported bug (a KEEP edit, not a fix)
AFTER_SAFE = _net(keep="p=0.2")
#: --add-explicit: the KEEP edits (current behaviour written out), and nothing else
AFTER_EXPLICIT = _net(pool=", stride=1", down="            stride=1,\n", functional=", stride=1")
AFTER_UNSAFE = _net(pool=", stride=2", keep="p=0.2", drop="p=0.1", momentum="0.9", down="            stride=3,\n",
                    functional=", stride=2")


def _write(folder, name, text, mode="w"):
    # MSA102 (the keep_prob deprecation, in the upgrade group) has the one safe fix of NET
    config = folder / "pyproject.toml"
    if not config.exists():
        config.write_text('[tool.msacclint]\nextend-select = ["upgrade"]\n', encoding="utf-8")
    path = folder / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_bytes(text.encode("utf-8"))
    return path


def test_fix_applies_safe_fixes_and_reports_what_remains(tmp_path, run_cli):
    path = _write(tmp_path, "net.py", BEFORE)
    result = run_cli("check", "--fix", "--no-cache", "net.py")
    assert path.read_text(encoding="utf-8") == AFTER_SAFE
    assert result.returncode == 1, result.stderr
    # what remains is shown as a check shows it: errors and warnings, the notes counted
    assert sorted(code for *_, code in triples(result.stdout)) == ["MSA104", "MSA106", "MSA107"], result.stdout
    assert "(1 fixed in 1 file; 3 errors remaining)" in result.stderr
    assert "3 more fixes available with --unsafe-fixes. 2 notes not shown (--show-info)." in result.stderr
    path.write_bytes(BEFORE.encode("utf-8"))
    shown = run_cli("check", "--fix", "--show-info", "--no-cache", "net.py")
    assert sorted(code for *_, code in triples(shown.stdout)) == ["MSA101", "MSA104", "MSA105", "MSA106", "MSA107"]
    assert "(1 fixed in 1 file; 3 errors, 2 notes remaining)" in shown.stderr
    assert "5 more fixes available with --unsafe-fixes" in shown.stderr


def test_keep_edits_are_never_fixes():
    """stride=1 on nn.MaxPool2d(2) writes out the reported bug: offered as a KEEP edit,
    never applied by --fix or --unsafe-fixes, never the fix JSON/SARIF show."""
    from msacclint.diagnostics import Applicability

    [d] = check("import mindspore.nn as nn\npool = nn.MaxPool2d(2)\n", ["MSA104"])
    assert [f.applicability for f in d.fixes] == [Applicability.UNSAFE, Applicability.KEEP]
    assert d.fix_for(False) is None
    assert d.fix_for(True).applicability is Applicability.UNSAFE
    assert d.fix_for(False, explicit=True).applicability is Applicability.KEEP
    assert d.fix.applicability is Applicability.UNSAFE and d.to_json()["fix"]["applicability"] == "unsafe"


def test_add_explicit_applies_only_keep_edits(tmp_path):
    from msacclint.engine.fixes import fix_file

    path = _write(tmp_path, "net.py", BEFORE)
    result = fix_file(str(path), settings(), unsafe=False, explicit=True)
    assert result.fixed == AFTER_EXPLICIT
    assert result.applied == 3
    assert sorted(d.code for d in result.remaining) == ["MSA101", "MSA102", "MSA107"]


def test_unsafe_fixes_prefer_the_unsafe_alternative(tmp_path, msacclint):
    path = _write(tmp_path, "net.py", BEFORE)
    result = msacclint("check", "--fix", "--unsafe-fixes", "--no-cache", "net.py")
    assert path.read_text(encoding="utf-8") == AFTER_UNSAFE
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert "(6 fixed in 1 file; none remaining)" in result.stderr


@pytest.mark.parametrize("unsafe", [False, True])
def test_a_second_run_changes_nothing(tmp_path, msacclint, unsafe):
    path = _write(tmp_path, "net.py", BEFORE)
    flags = ["--unsafe-fixes"] if unsafe else []
    msacclint("check", "--fix", *flags, "net.py")
    first = path.read_bytes()
    os.utime(path, (1_000_000, 1_000_000))
    again = msacclint("check", "--fix", *flags, "net.py")
    assert path.read_bytes() == first
    assert path.stat().st_mtime == 1_000_000  # not even rewritten
    assert "fixed" not in again.stderr or "0 fixed" in again.stderr
    diff = msacclint("check", "--diff", *flags, "net.py")
    assert diff.stdout == "" and diff.returncode == 0


def test_diff_shows_the_change_and_writes_nothing(tmp_path, msacclint):
    text = "import mindspore.nn as nn\n\ndrop = nn.Dropout(0.8)  # keep\npool = nn.MaxPool2d(2)\n"
    path = _write(tmp_path, "net.py", text)
    result = msacclint("check", "--diff", "--no-cache", "net.py")
    assert path.read_text() == text
    assert result.returncode == 1
    assert result.stdout == (
        "--- a/net.py\n"
        "+++ b/net.py\n"
        "@@ -1,4 +1,4 @@\n"
        " import mindspore.nn as nn\n"
        " \n"
        "-drop = nn.Dropout(0.8)  # keep\n"
        "+drop = nn.Dropout(p=0.2)  # keep\n"
        " pool = nn.MaxPool2d(2)\n"
    )
    assert "Would fix 1 problem in 1 file." in result.stderr
    unsafe = msacclint("check", "--diff", "--unsafe-fixes", "--no-cache", "net.py")
    assert "+pool = nn.MaxPool2d(2, stride=2)\n" in unsafe.stdout


def test_diff_on_clean_code_exits_zero(tmp_path, msacclint):
    _write(tmp_path, "net.py", "import mindspore.nn as nn\npool = nn.MaxPool2d(2, stride=2)\n")
    result = msacclint("check", "--diff", "net.py")
    assert (result.returncode, result.stdout) == (0, "")


def test_crlf_line_endings_are_kept(tmp_path, msacclint):
    text = BEFORE.replace("\n", "\r\n")
    path = _write(tmp_path, "net.py", text)
    msacclint("check", "--fix", "--unsafe-fixes", "--no-cache", "net.py")
    data = path.read_bytes()
    assert data == AFTER_UNSAFE.replace("\n", "\r\n").encode()
    assert data.count(b"\n") == data.count(b"\r\n")


def test_utf8_bom_is_kept(tmp_path, msacclint):
    bom = b"\xef\xbb\xbf"
    path = _write(tmp_path, "net.py", bom + "# é\nimport mindspore.nn as nn\ndrop = nn.Dropout(0.8)\n".encode())
    result = msacclint("check", "--fix", "--no-cache", "net.py")
    assert result.returncode == 0, result.stderr
    assert path.read_bytes() == bom + "# é\nimport mindspore.nn as nn\ndrop = nn.Dropout(p=0.2)\n".encode()


def test_a_declared_encoding_is_kept(tmp_path, msacclint):
    head = "# -*- coding: latin-1 -*-\n# caf\u00e9\nimport mindspore.nn as nn\n"
    path = _write(tmp_path, "net.py", (head + "drop = nn.Dropout(0.8)\n").encode("latin-1"))
    result = msacclint("check", "--fix", "--no-cache", "net.py")
    assert result.returncode == 0, result.stderr
    assert path.read_bytes() == (head + "drop = nn.Dropout(p=0.2)\n").encode("latin-1")


def test_a_file_that_does_not_parse_is_left_untouched(tmp_path, msacclint):
    broken = _write(tmp_path, "broken.py", "import mindspore.nn as nn\npool = nn.MaxPool2d(2\n")
    good = _write(tmp_path, "good.py", "import mindspore.nn as nn\ndrop = nn.Dropout(0.8)\n")
    os.utime(broken, (1_000_000, 1_000_000))
    result = msacclint("check", "--fix", "--no-cache", ".")
    assert broken.read_text() == "import mindspore.nn as nn\npool = nn.MaxPool2d(2\n"
    assert broken.stat().st_mtime == 1_000_000
    assert good.read_text() == "import mindspore.nn as nn\ndrop = nn.Dropout(p=0.2)\n"
    assert "broken.py:" in result.stdout and "MSA001" in result.stdout
    assert result.returncode == 1


def test_mode_is_kept_and_no_temporary_file_is_left(tmp_path, msacclint):
    path = _write(tmp_path, "net.py", BEFORE)
    path.chmod(0o640)
    msacclint("check", "--fix", "--no-cache", "net.py")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != ".msacclint_cache") == ["net.py", "pyproject.toml"]


def test_a_symbolic_link_stays_a_link(tmp_path, msacclint):
    target = _write(tmp_path, "real.txt", "import mindspore.nn as nn\ndrop = nn.Dropout(0.8)\n")
    link = tmp_path / "net.py"
    link.symlink_to(target.name)
    msacclint("check", "--fix", "--no-cache", "net.py")
    assert link.is_symlink()
    assert target.read_text() == "import mindspore.nn as nn\ndrop = nn.Dropout(p=0.2)\n"


def test_noqa_lines_are_not_fixed(tmp_path, msacclint):
    text = "import mindspore.nn as nn\npool = nn.MaxPool2d(2)  # noqa: MSA104\n"
    path = _write(tmp_path, "net.py", text)
    result = msacclint("check", "--fix", "--no-cache", "net.py")
    assert path.read_text() == text and result.returncode == 0


def test_fixes_respect_the_selection(tmp_path, msacclint):
    path = _write(tmp_path, "net.py", BEFORE)
    msacclint("check", "--fix", "--unsafe-fixes", "--select", "MSA104", "--no-cache", "net.py")
    after = path.read_text()
    assert "nn.MaxPool2d(2, stride=2)" in after
    assert "nn.Dropout(0.8)" in after and "ops.avg_pool2d(self.pool(self.bn(x)), 2)" in after


def test_fixed_text_is_only_returned_when_it_parses():
    from msacclint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity

    text = "import mindspore\nx = 1\n"
    bad = Fix("break it", Applicability.SAFE, (Edit(2, 1, 2, 2, "x = ("),))
    diag = Diagnostic("MSA104", "api.01", Severity.ERROR, "t.py", 2, 1, 2, 2, "m", (bad,))
    from msacclint.engine.fixes import fix_source

    assert fix_source(text, lambda t: [diag], unsafe=False) == (text, 0)


# -- every rule's fixes, on its own INVALID examples ------------------------------------------
FIXABLE = [(rule.code, i, ex) for rule in registry.all_rules() for i, ex in enumerate(rule.INVALID)]


@pytest.mark.parametrize("code,index,example", FIXABLE, ids=[f"{c}-{i}" for c, i, _ in FIXABLE])
@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
def test_every_fix_parses_and_is_stable(code, index, example, unsafe):
    """Whatever fix a rule offers (now or later): the result parses, keeps every comment,
    and leaves nothing more for the same kind of run to fix."""
    s = settings([code], mindspore_version=example.mindspore_version)
    source = example.code + "# a comment the fix must keep\n"
    after, applied, remaining = fix_text(source, example.path, s, unsafe)
    cst.parse_module(after)
    assert after.count("#") >= source.count("#")
    again, more = apply_once(after, remaining, unsafe)
    assert more == 0 and again == after, f"{code} fix is not stable:\n{after}"
    if applied:
        assert fixed(after, [code], unsafe=unsafe, mindspore_version=example.mindspore_version) == after


def _call_in(module):
    return module.body[0].body[0].value


@pytest.mark.parametrize("before,after", [
    ("f(2)", "f(2, stride=1)"),
    ("f()", "f(stride=1)"),
    ("f(2,)", "f(2, stride=1,)"),
    ("f(\n    2,  # k\n)", "f(\n    2,  # k\n    stride=1,\n)"),
    ("f(\n    2  # k\n)", "f(\n    2,  # k\n    stride=1\n)"),
    ("f(\n    a,\n    b\n)", "f(\n    a,\n    b,\n    stride=1\n)"),
    ("f(a,  # c\n  b,  # d\n)", "f(a,  # c\n  b,  # d\n  stride=1,\n)"),
    ("f(a,\n  b)", "f(a,\n  b, stride=1)"),
])
def test_append_keywords_follows_the_call_layout(before, after):
    module = cst.parse_module(before + "\n")
    call = _call_in(module)
    assert module.deep_replace(call, append_keywords(call, [("stride", "1")])).code == after + "\n"


# -- statement-level replacements, as a flow rule's fix may make them ----------------------------
NESTED = """\
class Net:
    def step(self):
        # scale first
        a = 1  # trailing
        if a:
            b = nn.MaxPool2d(
                2,  # kernel
            )
        c = 3

    def other(self):
        pass
"""


def _replace(source, old_of, new_of):
    from libcst.metadata import MetadataWrapper, PositionProvider

    from msacclint.analysis.edits import replacement
    from msacclint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity

    module = cst.parse_module(source)
    old = old_of(module)
    where = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)[old]
    span, text = replacement(module, source, old, new_of(old), (
        where.start.line, where.start.column + 1, where.end.line, where.end.column + 1))
    fix = Fix("f", Applicability.SAFE, (Edit(*span, text),))
    out, applied = apply_once(source, [Diagnostic("MSA104", "api.01", Severity.ERROR, "t.py", 1, 1, 1, 1, "m", (fix,))],
                              unsafe=False)
    assert applied == 1
    cst.parse_module(out)
    return out


def _step(module):
    return module.body[0].body.body[0]


def test_replacing_a_statement_keeps_its_comments_and_indentation():
    out = _replace(NESTED, lambda m: _step(m).body.body[0], lambda old: cst.parse_statement("a = 5\n"))
    assert out == NESTED.replace("a = 1  # trailing", "a = 5  # trailing")


def test_replacing_a_nested_compound_statement():
    out = _replace(NESTED, lambda m: _step(m).body.body[1],
                   lambda old: old.with_changes(test=cst.Name("ready")))
    assert out == NESTED.replace("if a:", "if ready:")


def test_reordering_a_block_moves_comments_with_their_statements():
    def reorder(block):
        first, second, third = block.body
        return block.with_changes(body=[third, first, second])

    out = _replace(NESTED, lambda m: _step(m).body, reorder)
    assert out == NESTED.replace(
        "        # scale first\n        a = 1  # trailing\n", "").replace(
        "        c = 3\n", "") .replace(
        "    def step(self):\n",
        "    def step(self):\n        c = 3\n        # scale first\n        a = 1  # trailing\n")
