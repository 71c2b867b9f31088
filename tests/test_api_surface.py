"""The shipped MindSpore API surface and the questions msacclint.analysis.api_surface answers
from it (no MindSpore needed; tests/test_probe_api_surface.py compares the data with a real
install)."""

from __future__ import annotations

import json

import pytest

from msacclint.analysis import api_surface as api
from msacclint.analysis.snapshot import snapshots_dir
from msacclint.data import data_dir, load_toml
from msacclint.probe import surface as probe_surface

S = api.surface()
ALL = S.versions if S is not None else ()


def test_the_surface_ships_and_covers_every_release_a_snapshot_ships_for():
    assert S is not None
    shipped = {p.name[len("mindspore-"):-len("-cpu.json")] for p in snapshots_dir().glob("mindspore-*-cpu.json")}
    assert set(S.versions) == shipped
    assert list(S.versions) == sorted(S.versions, key=lambda v: api.parse(v) + (v,))


def test_the_shipped_file_is_what_merging_its_releases_writes(tmp_path):
    """Each release's view, merged again, gives the same file: the format is stable and the
    views are complete (what the probe test compares a fresh probe with)."""
    path = data_dir() / api.SURFACE_FILE
    merged = json.loads(path.read_text(encoding="utf-8"))
    views = []
    for version in merged["versions"]:
        view = probe_surface.release_view(merged, version)
        view["mindspore"] = version
        view["rejected"] = {c: {a: o for a, o in apis.items()} for c, apis in view["rejected"].items()}
        view.update(merged["made_with"][version])
        views.append(view)
    again = probe_surface.merge(views)
    for key in ("versions", "walked", "modules", "members", "rejected", "made_with"):
        assert again[key] == merged[key], key
    probe_surface.write(again, str(tmp_path / "again.json"))
    assert (tmp_path / "again.json").read_text(encoding="utf-8") == path.read_text(encoding="utf-8")


def test_every_rejected_combination_was_seen_to_raise_on_every_release():
    for combination in load_toml(api.REJECTED_FILE)["combination"]:
        for name in combination["apis"]:
            assert S.rejected_on(combination["id"], name) == S.versions, (combination["id"], name)
            for version in S.versions:
                assert S.find(name, version).state == api.PRESENT, (name, version)


def test_every_spelling_the_table_suggests_exists_on_some_release():
    for item in load_toml(api.SPELLINGS_FILE).get("name", ()):
        for module in item["modules"]:
            for candidate in item["mindspore"]:
                full = candidate if candidate.startswith("mindspore") else f"{module}.{candidate}"
                assert any(S.find(full, v).state == api.PRESENT for v in S.versions), full


# -- signatures ---------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["", "a,b=", "a,/,b,c=", "*args,**kwargs", "a,*,b,c=", "x,*size,dtype=,**kw",
                                  "a,/", "a,b=,/,*,c"])
def test_a_signature_reads_back_as_it_was_written(text):
    assert api.Signature.parse(text).encode() == text


def test_what_a_signature_accepts():
    conv = api.Signature.parse("in_channels,out_channels,kernel_size,stride=,pad_mode=,padding=,has_bias=")
    assert conv.accepts_keyword("has_bias") and not conv.accepts_keyword("bias")
    assert conv.max_positional == 7 and conv.accepts_positional(7) and not conv.accepts_positional(8)
    positional_only = api.Signature.parse("x,/,y")
    assert not positional_only.accepts_keyword("x") and positional_only.accepts_keyword("y")
    starred = api.Signature.parse("*args,**kwargs")
    assert starred.max_positional is None and starred.accepts_keyword("anything")
    keyword_only = api.Signature.parse("a,*,b=")
    assert keyword_only.max_positional == 1 and keyword_only.positional_names() == ("a",)


def test_the_probe_flags_are_read_from_the_entry():
    leaky = S.find("mindspore.nn.LeakyReLU", "2.10.0").entry
    assert leaky.rejects_unknown_keywords and leaky.rejects_extra_positionals
    assert leaky.signature.max_positional == 1
    cell = S.find("mindspore.nn.Cell", "2.10.0").entry
    assert cell.kind == "c" and not cell.rejects_unknown_keywords and cell.signature.takes_any_keyword
    model = S.find("mindspore.Model", "2.10.0").entry  # **kwargs: any keyword binds
    assert not model.rejects_unknown_keywords and model.signature.accepts_keyword("keep_batchnorm_fp32")
    assert S.find("mindspore.float32", "2.10.0").entry.kind == "v"


# -- names and modules ----------------------------------------------------------------------
def test_presence_over_the_releases():
    assert api.presence(S, "mindspore.nn.Module", ALL).nowhere
    assert api.presence(S, "mindspore.nn.Module", ALL).missing == "mindspore.nn.Module"
    assert api.presence(S, "mindspore.nn.Cell", ALL).present == ALL
    later = api.presence(S, "mindspore.mint.nn.CosineEmbeddingLoss", ALL)
    assert later.present == ("2.8.0", "2.9.0", "2.10.0") and later.absent == ("2.7.0", "2.7.1", "2.7.1.post1", "2.7.2")
    assert not later.nowhere
    # the first missing part is named, whatever follows it
    assert api.presence(S, "mindspore.nn.functional.relu", ALL).missing == "mindspore.nn.functional"


def test_a_name_is_found_where_mindspore_re_exports_it():
    for name in ("mindspore.Tensor", "mindspore.common.Tensor", "mindspore.Model", "mindspore.train.Model",
                 "mindspore.ops.operations.ReLU", "mindspore.ops.ReLU", "mindspore.dataset.vision.Resize"):
        assert api.presence(S, name, ALL).present == ALL, name


def test_what_the_surface_does_not_know_is_unknown_not_absent():
    for name in ("mindspore.nn.layer.basic.Dense",      # a module the probe did not walk
                 "mindspore.nn.Dense.construct",        # an attribute of a class
                 "mindspore.nn._private_name",          # a private name
                 "torch.nn.Module"):
        found = api.presence(S, name, ALL)
        assert not found.absent and found.unknown == ALL, name


def test_module_existence():
    assert S.module_exists("mindspore.dataset.vision.c_transforms", "2.7.2") is True
    assert S.module_exists("mindspore.dataset.vision.c_transforms", "2.8.0") is False
    assert S.module_exists("mindspore.nn.layer.basic", "2.10.0") is True
    assert S.module_exists("mindspore.no_such_module", "2.10.0") is False
    assert S.module_exists("mindspore._c_expression", "2.10.0") is True  # an extension module
    assert S.module_exists("mindspore.ops._primitive_cache", "2.10.0") is True
    assert S.module_exists("mindspore._extends.parse", "2.10.0") is None  # below a private module
    assert S.module_exists("mindspore._no_such_private", "2.10.0") is False  # mindspore was walked
    assert S.module_exists("numpy.linalg", "2.10.0") is None


@pytest.mark.parametrize("configured,release", [("2.10.0", "2.10.0"), ("2.10", "2.10.0"), ("2.7.1.post1", "2.7.1.post1"),
                                                ("2.7.3", "2.7.2"), ("2.8.1", "2.8.0"), ("2.6.0", None),
                                                ("2.11.0", None), ("1.10.1", None), (None, None)])
def test_a_configured_version_is_decided_by_its_release_line(configured, release):
    assert S.release_for(configured) == release
    assert api.considered(S, configured) == ((release,) if release else () if configured else ALL)


def test_how_messages_name_releases():
    assert api.describe_releases(S, ALL) == "2.7–2.10"
    assert api.describe_releases(S, ("2.7.0", "2.7.1")) == "2.7.0–2.7.1"
    assert api.describe_releases(S, ("2.8.0", "2.9.0", "2.10.0")) == "2.8–2.10"
    assert api.describe_releases(S, ("2.7.0", "2.9.0")) == "2.7.0, 2.9"
    assert api.releases_text(S, ALL, ALL) == "every supported release (2.7–2.10)"
    assert api.releases_text(S, ALL[:4], ALL) == "2.7 (present in 2.8–2.10)"
    assert api.releases_text(S, ("2.10.0",), ("2.10.0",)) == "MindSpore 2.10.0"


# -- spellings -------------------------------------------------------------------------------
@pytest.mark.parametrize("missing,suggested", [
    ("mindspore.nn.Module", "mindspore.nn.Cell"),
    ("mindspore.nn.Sequential", "mindspore.nn.SequentialCell"),
    ("mindspore.nn.ModuleList", "mindspore.nn.CellList"),
    ("mindspore.nn.ConvTranspose2d", "mindspore.nn.Conv2dTranspose"),
    ("mindspore.ms_function", "mindspore.jit"),
    ("mindspore.nn.functional", "mindspore.mint.nn.functional"),
    ("mindspore.ops.Relu", "mindspore.ops.ReLU"),               # another case, same module
    ("mindspore.nn.PixelShuffel", "mindspore.nn.PixelShuffle"),  # a close name
    ("mindspore.nn.NoSuchThingAtAll", None),
])
def test_suggested_names(missing, suggested):
    assert api.suggest_name(S, missing, ALL) == suggested


def test_a_suggestion_must_exist_on_the_releases_decided_for():
    # nn.Linear exists on every supported release; the table's Dense is only its fallback
    assert api.suggest_name(S, "mindspore.nn.Linear", ALL) is None or \
        api.presence(S, "mindspore.nn.Linear", ALL).present == ALL


def test_suggested_keywords():
    conv = S.find("mindspore.nn.Conv1d", "2.10.0").entry.signature
    assert api.suggest_keyword("bias", conv, "mindspore.nn.Conv1d") == "has_bias"
    assert api.suggest_keyword("groups", conv, "mindspore.nn.Conv1d") == "group"
    assert api.suggest_keyword("inplace", conv, "mindspore.nn.Conv1d") is None
    assert api.keyword_note("inplace", "mindspore.nn.ReLU") == "MindSpore's layers have no in-place mode: drop inplace="
    dense = S.find("mindspore.nn.Dense", "2.10.0").entry.signature
    assert api.suggest_keyword("in_features", dense, "mindspore.nn.Dense") == "in_channels"


def test_the_questions_in_one_call():
    assert api.exists("mindspore.nn.Cell") == api.EVERY
    assert api.exists("mindspore.nn.Module") == api.NONE
    assert api.exists("mindspore.mint.nn.CosineEmbeddingLoss") == api.SOME
    assert api.exists("mindspore.mint.nn.CosineEmbeddingLoss", version="2.9.0") == api.EVERY
    assert api.exists("mindspore.mint.nn.CosineEmbeddingLoss", version="2.7.1") == api.NONE
    assert api.exists("mindspore.nn.layer.basic.Dense") == api.UNKNOWN
    assert api.exists("mindspore.nn.Module", version="2.11.0") == api.UNKNOWN
    assert api.accepts("mindspore.nn.Conv1d", keyword="has_bias") is True
    assert api.accepts("mindspore.nn.Conv1d", keyword="bias") is False
    assert api.accepts("mindspore.nn.LeakyReLU", positional=1) is True
    assert api.accepts("mindspore.nn.LeakyReLU", positional=2) is False
    assert api.accepts("mindspore.Model", keyword="anything") is True      # **kwargs
    assert api.accepts("mindspore.nn.Cell", positional=5) is True          # *args
    assert api.accepts("mindspore.nn.Module", keyword="x") is None         # no such callable
    assert api.accepts("mindspore.grad", keyword="sens_param") is None     # new in 2.8.0
    assert api.accepts("mindspore.grad", keyword="sens_param", version="2.8.0") is True
