"""The checklist report's model: every item of rules/checklist.toml concluded from a run.

- "Problem found": findings with that checklist id;
- "N/A": nothing in the files read that the item applies to (no mixed precision, no
  distributed setup, no MindSpore dataset, ...), decided from the names the files use
  (msacclint.analysis.uses, gathered in the engine's traversal and cached with the
  findings);
- "No problem": the item is one the rules decide (``decidable = "yes"``), they ran and
  found nothing (they are named);
- "Partly checked": the rules decide only some forms of the item (``decidable =
  "partial"``): they ran and found nothing, and the report says what they do not check
  and how a person checks the rest. Such an item never reads "No problem" alone;
- "Check by hand": code cannot decide it (the dataset itself, the epoch count) or its
  rules are switched off; the item's ``manual`` text says what to do.

Each item's wording comes from ``msacclint.coverage.verdict`` (the same text as
docs/coverage.md), handed in by ``msacclint.api.build_report`` as ``verdicts``.

``port_files(results, enabled)``: the files that load PyTorch weights (as each file's
check recorded them, msacclint.analysis.port.torch_weights), for the ``port`` profile suggestion that the
report and ``msacclint check`` make once per run.

``msacclint.api.build_report`` fills it in; the renderers (Markdown, JSON, HTML) live with
the ``report`` front end in msacclint.frontends.report.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Callable, Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Tuple

from msacclint.config import installed_mindspore
from msacclint.diagnostics import Diagnostic, FileResult, Severity, grade_counts
from msacclint.rules.profiles import PORT
from msacclint.settings import Settings
from msacclint.upgrade import Upgrade

PROBLEM, NO_PROBLEM, NOT_APPLICABLE, BY_HAND = "Problem found", "No problem", "N/A", "Check by hand"
PARTLY_CHECKED = "Partly checked"
CONCLUSIONS = (PROBLEM, NO_PROBLEM, PARTLY_CHECKED, NOT_APPLICABLE, BY_HAND)
#: what a report needs of msacclint.coverage for one item: (decidable, not_covered, verdict)
Verdict = Tuple[str, str, str]


# -- what the code uses decides whether an item applies ---------------------------------------
def _has(names: Iterable[str], *needles: str) -> bool:
    return any(needle in name for name in names for needle in needles)


def _mindspore(names: Iterable[str], *parts: str) -> bool:
    return any(name.startswith("mindspore") and any(p in name for p in parts) for name in names)


def uses_mixed_precision(n: FrozenSet[str]) -> bool:
    return (_mindspore(n, ".amp", "float16", "bfloat16", "LossScale", "loss_scale", "auto_mixed_precision",
                       "build_train_network")
            or _has(n, "kw:amp_level", "kw:loss_scale_manager", "kw:keep_batchnorm_fp32", "method:to_float"))


def uses_loss_scale(n: FrozenSet[str]) -> bool:
    return _mindspore(n, "LossScale", "loss_scale", "LossScaler", "all_finite") or \
        _has(n, "kw:loss_scale_manager", "kw:scale_sense", "kw:loss_scale")


def uses_distribution(n: FrozenSet[str]) -> bool:
    return _mindspore(n, "communication", "set_auto_parallel_context", "ParallelMode", "DistributedGradReducer",
                      "get_group_size", "get_rank") or _has(n, "kw:parallel_mode", "kw:device_num")


def uses_dataset(n: FrozenSet[str]) -> bool:
    return any(name.startswith("mindspore.dataset") for name in n)


def uses_networks(n: FrozenSet[str]) -> bool:
    return any(name.startswith(("mindspore.nn", "mindspore.ops", "mindspore.mint")) for name in n)


def uses_training(n: FrozenSet[str]) -> bool:
    return _mindspore(n, "value_and_grad", "mindspore.grad", "GradOperation", "TrainOneStep", "Model",
                      "optim", "Optimizer", "SGD", "Adam", "Momentum", "RMSProp", "Lamb", "LARS")


def loads_checkpoint(n: FrozenSet[str]) -> bool:
    return _mindspore(n, "load_checkpoint", "load_param_into_net")


_NO_DISTRIBUTION = ("nothing in the files read sets up distributed training "
                    "(mindspore.communication, parallel context)")

#: item prefix or id -> (does the item apply?, why not when it does not)
APPLIES: Dict[str, Tuple[Callable[[FrozenSet[str]], bool], str]] = {
    "dp.05": (uses_distribution, _NO_DISTRIBUTION),
    "dp": (uses_dataset, "nothing in the files read builds a mindspore.dataset pipeline"),
    "hp.01": (uses_training, "nothing in the files read builds an optimizer or a training step"),
    "hp.03": (uses_training, "nothing in the files read builds an optimizer or a training step"),
    "api": (uses_networks, "nothing in the files read calls mindspore.nn, ops or mint"),
    "cg": (uses_networks, "nothing in the files read builds a network from mindspore.nn, ops or mint"),
    "wi.01": (uses_networks, "nothing in the files read builds a network from mindspore.nn, ops or mint"),
    "wi.02": (loads_checkpoint, "nothing in the files read loads a checkpoint (load_checkpoint, load_param_into_net)"),
    "mp.03": (uses_loss_scale, "nothing in the files read scales the loss (loss scale manager, scaler, scale_sense)"),
    "mp.04": (uses_loss_scale, "nothing in the files read scales the loss (loss scale manager, scaler, scale_sense)"),
    "mp": (uses_mixed_precision, "nothing in the files read uses mixed precision (amp, float16, loss scale, to_float)"),
    "dist": (uses_distribution, _NO_DISTRIBUTION),
}


def applicability(item_id: str) -> Optional[Tuple[Callable[[FrozenSet[str]], bool], str]]:
    return APPLIES.get(item_id) or APPLIES.get(item_id.split(".")[0])


# -- the report ---------------------------------------------------------------------------------
@dataclass
class ItemResult:
    id: str
    area: str
    title: str
    conclusion: str
    #: why: the rules that ran, what the code does not use, or what to check by hand
    detail: str = ""
    rules: List[str] = field(default_factory=list)
    findings: List[Diagnostic] = field(default_factory=list)
    #: for an item the rules only partly decide: what else to look at by hand
    also_check: str = ""
    #: how many findings of the item are not shown, by grade (the run's ``show``)
    hidden: Dict[Severity, int] = field(default_factory=dict)

    def grades(self) -> Dict[Severity, int]:
        """How many findings of each grade the item shows (every grade, most severe first)."""
        return {g: sum(1 for d in self.findings if d.severity is g) for g in Severity}

    def to_json(self) -> dict:
        return {"id": self.id, "area": self.area, "title": self.title, "conclusion": self.conclusion,
                "detail": self.detail, "rules": self.rules, "also_check": self.also_check,
                "findings": [d.to_json() for d in self.findings],
                "grades": {g.value: n for g, n in self.grades().items()},
                "not_shown": {g.value: self.hidden.get(g, 0) for g in Severity}}


@dataclass
class Report:
    msacclint_version: str
    mindspore_version: str
    files: List[str]
    items: List[ItemResult]
    areas: Dict[str, str]
    generated: str = ""
    #: files that load PyTorch weights while the port group is off (the suggestion)
    port_files: List[PortFile] = field(default_factory=list)
    #: what the upgrade group found, by cause (None when the group did not run)
    upgrade: Optional[Upgrade] = None

    @property
    def suggestion(self) -> str:
        return port_suggestion(self.port_files)

    def counts(self) -> Dict[str, int]:
        return {c: sum(1 for i in self.items if i.conclusion == c) for c in CONCLUSIONS}

    def grades(self) -> Dict[Severity, int]:
        """How many findings of each grade the report shows, over every item."""
        return {g: sum(i.grades()[g] for i in self.items) for g in Severity}

    def hidden(self) -> Dict[Severity, int]:
        """How many findings of each grade the run's ``show`` leaves out, over every item."""
        return {g: sum(i.hidden.get(g, 0) for i in self.items) for g in Severity}

    def grade_line(self) -> str:
        """"3 errors, 1 warning (2 notes not shown)": the findings of the report by grade."""
        shown, hidden = grade_counts(self.grades()) or "no finding", grade_counts(self.hidden())
        return shown + (f" ({hidden} not shown)" if hidden else "")

    def to_json(self) -> dict:
        return {"msacclint_version": self.msacclint_version, "mindspore_version": self.mindspore_version,
                "generated": self.generated, "files": self.files, "summary": self.counts(),
                "grades": {g.value: n for g, n in self.grades().items()},
                "not_shown": {g.value: n for g, n in self.hidden().items()},
                "port_profile": {"suggested": bool(self.port_files), "message": self.suggestion,
                                 "files": [{"path": f.path, "line": f.line, "what": f.what} for f in self.port_files]},
                "upgrade": self.upgrade.to_json() if self.upgrade is not None else None,
                "items": [i.to_json() for i in self.items]}


def conclude(items: Sequence[dict], diagnostics: Sequence[Diagnostic], uses: FrozenSet[str],
             enabled: FrozenSet[str], rules_by_item: Dict[str, List[str]],
             verdicts: Optional[Mapping[str, Verdict]] = None,
             hidden: Sequence[Diagnostic] = ()) -> List[ItemResult]:
    """One ItemResult per checklist item. ``diagnostics``: the findings shown; ``hidden``:
    the ones the run's ``show`` leaves out (counted by grade, never listed). ``verdicts``:
    item id -> (decidable, not_covered, the coverage verdict for this run); without it,
    ``decidable`` is read from the items."""
    by_item: Dict[str, List[Diagnostic]] = {}
    for d in diagnostics:
        by_item.setdefault(d.checklist, []).append(d)
    hidden_by_item: Dict[str, Dict[Severity, int]] = {}
    for d in hidden:
        counts = hidden_by_item.setdefault(d.checklist, {})
        counts[d.severity] = counts.get(d.severity, 0) + 1
    results = []
    for item in items:
        item_id = item["id"]
        area = item_id.split(".")[0]
        manual = item.get("manual", "").strip()
        covering = sorted(rules_by_item.get(item_id, []))
        ran = [c for c in covering if c in enabled]
        decidable, not_covered, said = (verdicts or {}).get(
            item_id, (item.get("decidable", "no"), item.get("not_covered", ""), ""))
        result = ItemResult(item_id, area, item["title"], BY_HAND, rules=ran)
        applies = applicability(item_id)
        result.hidden = hidden_by_item.get(item_id, {})
        if by_item.get(item_id):
            result.conclusion = PROBLEM
            result.findings = sorted(by_item[item_id], key=Diagnostic.sort_key)
            result.detail = grade_counts(result.grades())
            if decidable == "partial":
                result.also_check = f"not checked by the rules: {not_covered}. {manual}".strip()
        elif not uses or (applies is not None and not applies[0](uses)):
            result.conclusion = NOT_APPLICABLE
            result.detail = applies[1] if applies and uses else "none of the files read uses MindSpore"
        elif ran and decidable == "yes":
            result.conclusion = NO_PROBLEM
            result.detail = said or "checked by " + ", ".join(ran) + "; nothing found"
        elif ran and decidable == "partial":
            result.conclusion = PARTLY_CHECKED
            if said:  # the verdict names what is not checked and how to check it by hand
                result.detail = said
            else:
                result.detail = f"{', '.join(ran)} ran and found nothing; not checked: {not_covered}"
                result.also_check = manual
        else:
            result.detail = said or manual or "no rule covers this item"
            off = [c for c in covering if c not in enabled]
            if not said and off and decidable != "no":
                result.detail += f" (the rules {', '.join(off)} are switched off in this run)"
        if result.hidden:
            result.detail = f"{result.detail.rstrip('.')} ({grade_counts(result.hidden)} not shown)"
        results.append(result)
    return results


# -- the port group suggestion ---------------------------------------------------------------
@dataclass(frozen=True)
class PortFile:
    path: str
    line: int
    #: what the file does: "reads a PyTorch checkpoint (torch.load)"
    what: str


def port_profile_selected(enabled: Iterable[str]) -> bool:
    return set(PORT) - {"MSA003"} <= set(enabled)


def port_files(results: Mapping[str, FileResult], enabled: Iterable[str]) -> List[PortFile]:
    """The checked files that load PyTorch weights, in the order of ``results``, when the
    ``port`` profile is not selected ([] when it is). Each file's check recorded it
    (``FileResult.torch_weights``, from msacclint.analysis.port.torch_weights): nothing is
    parsed again."""
    if port_profile_selected(enabled):
        return []
    return [PortFile(path, result.torch_weights[0], result.torch_weights[1])
            for path, result in results.items() if result.torch_weights is not None]


def port_suggestion(files: Sequence[PortFile]) -> str:
    """The one sentence a run prints when files load PyTorch weights ("" when none)."""
    if not files:
        return ""
    first = files[0]
    more = f" and {len(files) - 1} more" if len(files) > 1 else ""
    return (f"{len(files)} file{'s' if len(files) != 1 else ''} load{'' if len(files) != 1 else 's'} PyTorch "
            f"weights ({first.path}:{first.line} {first.what}{more}): the `port` group checks the MindSpore "
            "defaults that differ from PyTorch there - run with `--extend-select port` (or "
            "extend-select = [\"port\"] in [tool.msacclint])")


def mindspore_description(given_version: Optional[str], settings: Settings) -> str:
    """The MindSpore version the findings assume, and where that number comes from
    (``given_version``: the one the caller passed, e.g. with --mindspore-version)."""
    snapshot = snapshot_version(settings.defaults) if settings.defaults else None
    if given_version:
        text = f"{given_version} (given with --mindspore-version)"
    elif settings.mindspore_version and settings.mindspore_source == "installed":
        text = f"{settings.mindspore_version} (installed; from package metadata)"
    elif settings.mindspore_version and settings.mindspore_source:
        where = settings.mindspore_source
        declared = ":" in where and "mindspore-version" not in where
        text = f"{settings.mindspore_version} ({'declared in ' if declared else ''}{where})"
    elif settings.mindspore_version and settings.mindspore_version != installed_mindspore():
        text = f"{settings.mindspore_version} (configured in pyproject.toml)"
    elif settings.mindspore_version:
        text = f"{settings.mindspore_version} (installed; from package metadata)"
    elif snapshot:
        text = f"{snapshot} (from the probe snapshot {settings.defaults})"
        snapshot = None
    else:
        text = "unknown (not installed here and not configured; findings assume MindSpore 2.10)"
    if snapshot:
        text += f"; probe snapshot {settings.defaults} was taken on {snapshot}"
    return text


def snapshot_version(path: str) -> Optional[str]:
    """The MindSpore version a probe snapshot (JSON) records, when it can be found."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    for key in ("mindspore_version", "mindspore"):
        value = data.get(key)
        if isinstance(value, str):
            return value
        if isinstance(value, dict) and isinstance(value.get("version"), str):
            return value["version"]
    for key in ("environment", "meta", "metadata"):
        value = data.get(key)
        if isinstance(value, dict):
            for inner in ("mindspore_version", "mindspore"):
                if isinstance(value.get(inner), str):
                    return value[inner]
    return data.get("version") if isinstance(data.get("version"), str) else None
