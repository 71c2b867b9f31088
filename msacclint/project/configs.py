"""YAML and JSON configuration files whose keys a project's own loader turns into values.

Model-zoo code reads ``default_config.yaml`` through ``model_utils/config.py`` into a
``config`` object; mindcv/mindocr/mindyolo read ``configs/*.yaml`` into ``args.*``. A file
is read with PyYAML's safe loader (JSON is YAML), never over ``MAX_BYTES``, and refused
when it uses more than ``MAX_ALIASES`` aliases (a "billion laughs" file expands to
gigabytes when its values are walked). Every value keeps its line, so a message can say
where a rate came from.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from msacclint.project.listing import CONFIG_SUFFIXES

#: larger config files are data, not configuration
MAX_BYTES = 2_000_000
#: aliases (``*name``) a config may use; real configs use a handful
MAX_ALIASES = 1_000
#: nodes walked per file (a guard against deep or generated files)
MAX_NODES = 200_000
SUFFIXES = CONFIG_SUFFIXES


@dataclass
class ConfigFile:
    path: str
    #: key -> [(value, line)]: a nested key is kept under its dotted path and its last part
    values: Dict[str, List[Tuple[Any, int]]] = field(default_factory=dict)
    #: mappings that name a class to build by ``type`` (a registry config: ``data_loader:
    #: {type: MultiImgCapDataLoader, stage: train}``): (the type, its other scalar keys with
    #: their lines, the line of ``type``)
    builds: List[Tuple[str, Dict[str, Tuple[Any, int]], int]] = field(default_factory=list)
    problem: Optional[str] = None
    problem_line: int = 1


class ConfigError(Exception):
    pass


def load(path: str) -> ConfigFile:
    """A config file's scalar values with their lines; a file that cannot be read gets a
    ``problem`` and no values, and the run goes on."""
    out = ConfigFile(path=path)
    try:
        size = os.path.getsize(path)
        if size > MAX_BYTES:
            out.problem = (f"config file is {size / 1e6:.1f} MB, over the {MAX_BYTES // 1_000_000} MB msacclint "
                           "reads; its values are not used")
            return out
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        out.problem = f"config file cannot be read ({exc.strerror or exc}); its values are not used"
        return out
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        out.problem = "config file is not UTF-8; its values are not used"
        return out
    try:
        node = _compose(text)
    except ConfigError as exc:
        out.problem = f"{exc}; its values are not used"
        return out
    except Exception as exc:  # yaml.YAMLError and anything odd a malformed file triggers
        mark = getattr(exc, "problem_mark", None)
        reason = getattr(exc, "problem", None) or type(exc).__name__
        out.problem = f"config file is not valid YAML/JSON: {reason}; its values are not used"
        out.problem_line = mark.line + 1 if mark is not None else 1
        return out
    if node is not None:
        _flatten(node, "", out.values, [0], out.builds)
    return out


def _compose(text: str):
    import yaml
    from yaml.events import AliasEvent

    loader_base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    loader = loader_base(text)
    try:
        # count aliases from the event stream before composing: a bomb never gets built
        count = 0
        for event in yaml.parse(text, Loader=loader_base):
            if isinstance(event, AliasEvent):
                count += 1
                if count > MAX_ALIASES:
                    raise ConfigError(f"config file uses more than {MAX_ALIASES} YAML aliases (an alias bomb?)")
        # the first document holds the values: model-zoo configs (model_utils/config.py's
        # parse_yaml) add a second and third document with each key's help text and choices
        node = loader.get_node() if loader.check_node() else None
    finally:
        loader.dispose()
    if node is not None and _expanded_size(node, {}) > MAX_NODES:
        raise ConfigError(f"config file expands to more than {MAX_NODES} values through its YAML aliases "
                          "(an alias bomb?)")
    return node


def _expanded_size(node, memo: Dict[int, int]) -> int:
    """How many nodes the document holds once every alias is expanded (counted, not built)."""
    import yaml

    key = id(node)
    if key in memo:
        return memo[key]
    memo[key] = 1  # a recursive alias counts once
    total = 1
    if isinstance(node, yaml.SequenceNode):
        for child in node.value:
            total += _expanded_size(child, memo)
            if total > MAX_NODES:
                break
    elif isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            total += _expanded_size(k, memo) + _expanded_size(v, memo)
            if total > MAX_NODES:
                break
    memo[key] = total
    return total


def _flatten(node, prefix: str, out: Dict[str, List[Tuple[Any, int]]], budget: List[int],
             builds: Optional[List[Tuple[str, Dict[str, Tuple[Any, int]], int]]] = None) -> None:
    import yaml

    budget[0] += 1
    if budget[0] > MAX_NODES:
        raise ConfigError("config file is too large to read")
    if isinstance(node, yaml.SequenceNode) and builds is not None:
        for item in node.value:  # a list of mappings (``transforms: [{type: ...}, ...]``)
            if isinstance(item, yaml.MappingNode):
                _flatten(item, prefix, {}, budget, builds)
    if isinstance(node, yaml.MappingNode):
        if builds is not None:
            scalars = {str(k.value): (_scalar(v), v.start_mark.line + 1) for k, v in node.value
                       if isinstance(k, yaml.ScalarNode) and isinstance(v, yaml.ScalarNode)}
            kind = scalars.pop("type", None)
            if kind is not None and isinstance(kind[0], str):
                builds.append((kind[0], scalars, kind[1]))
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                continue
            key = str(key_node.value)
            path = f"{prefix}.{key}" if prefix else key
            if isinstance(value_node, yaml.ScalarNode):
                value = _scalar(value_node)
                line = value_node.start_mark.line + 1
                out.setdefault(path, []).append((value, line))
                if prefix:
                    out.setdefault(key, []).append((value, line))
            elif isinstance(value_node, (yaml.MappingNode, yaml.SequenceNode)):
                _flatten(value_node, path, out if isinstance(value_node, yaml.MappingNode) else {}, budget,
                         builds)


def _scalar(node) -> Any:
    import yaml

    try:
        return yaml.SafeLoader("").construct_object(node)
    except Exception:
        return node.value


class ConfigStore:
    """The config files of one project, read on first use."""

    def __init__(self, paths: List[str]) -> None:
        self.paths = sorted(paths)
        self._loaded: Dict[str, ConfigFile] = {}
        self.problems: Dict[str, str] = {}

    def get(self, path: str) -> ConfigFile:
        path = os.path.normpath(path)
        if path not in self._loaded:
            self._loaded[path] = load(path)
            if self._loaded[path].problem:
                self.problems[path] = self._loaded[path].problem
        return self._loaded[path]

    def exists(self, path: str) -> bool:
        return os.path.normpath(path) in self._set

    @property
    def _set(self):
        if not hasattr(self, "_paths_set"):
            self._paths_set = {os.path.normpath(p) for p in self.paths}
        return self._paths_set

    def near(self, folder: str, root: str) -> List[str]:
        """The ``default_config*.yaml``-style files a model-zoo loader reads by default:
        the ``*config*.yaml`` files in ``folder`` and its ancestors up to the root, nearest first."""
        found: List[str] = []
        folder = os.path.normpath(folder)
        root = os.path.normpath(root)
        by_dir: Dict[str, List[str]] = {}
        for p in self.paths:
            by_dir.setdefault(os.path.dirname(p), []).append(p)
        while True:
            for p in sorted(by_dir.get(folder, ())):
                name = os.path.basename(p)
                if "config" in name and name.endswith((".yaml", ".yml")):
                    found.append(p)
            if found or folder == root or len(folder) <= len(root):
                break
            folder = os.path.dirname(folder)
        return found
