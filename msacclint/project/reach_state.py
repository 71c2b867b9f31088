"""What one run's reach answers keep (msacclint.project.reach and the mixins it asks:
entries, runs, methods, computed, guards, failures): memoised per index, dropped when a file
changes (``ProjectIndex.forget``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

#: a node of the reach graph: (file, scope) with scope "" (module code), "__main__" or a
#: definition's qualified name
Node = Tuple[str, str]
#: one hop of a trail: (file, line, what happens there)
Hop = Tuple[str, int, str]


@dataclass
class ReachState:
    outlines: Dict[str, Optional[object]] = field(default_factory=dict)
    #: (strict, training) -> node -> its trail (None: nothing reaches it)
    memos: Dict[Tuple[bool, bool], Dict[Node, Optional[Tuple[Hop, ...]]]] = field(default_factory=dict)
    named: Optional[Dict[str, str]] = None
    installable: Optional[List[str]] = None
    any_entry: Optional[bool] = None
    resolved: Dict[Tuple[str, str], Optional[Node]] = field(default_factory=dict)
    dynamic_all: Optional[List[Tuple[str, str]]] = None
    prefixes: Optional[List[Tuple[str, str, str, int]]] = None
    lookups: Optional[Set[str]] = None
    entry_folders: Optional[Set[str]] = None
    #: the files with an ``if __name__ == "__main__":`` block (``_some_entries``)
    main_blocks: Optional[Set[str]] = None
    module_failures: Dict[str, Optional[Hop]] = field(default_factory=dict)
    raising: Dict[str, List[Tuple[str, int, str]]] = field(default_factory=dict)
    #: the run's settings (the MindSpore version decides what raises), from the engine
    settings: object = None
    #: entry point scope -> where its run trains or evaluates (msacclint.project.runs)
    trains: Dict[Node, Optional[Hop]] = field(default_factory=dict)
    any_training: Optional[bool] = None
    #: class -> the project classes it extends (msacclint.project.methods)
    ancestors: Dict[Node, Set[Node]] = field(default_factory=dict)
    #: the computed module names and their bounds (msacclint.project.computed)
    computed: Optional[list] = None
    #: (file, scope, subject) -> the values supplied (msacclint.project.guards)
    supplied: Dict[Tuple[str, str, str], Optional[list]] = field(default_factory=dict)
    #: config key -> (value, where, the script run) of each command line passing it (entries)
    cli: Dict[str, List[Tuple[Optional[str], str, str]]] = field(default_factory=dict)
    #: node -> hops a supplied value switched off in the searches from it: (scope, hop, why)
    switched: Dict[Node, List[Tuple[Node, Hop, str]]] = field(default_factory=dict)
    #: the hops switched off in the search under way
    dropped: Optional[List[Tuple[Node, Hop, str]]] = None

    def memo(self, strict: bool, training: bool) -> Dict[Node, Optional[Tuple[Hop, ...]]]:
        return self.memos.setdefault((strict, training), {})

    def clear_searches(self) -> None:
        self.memos.clear()
        self.trains.clear()
        self.any_training = None
        self.switched.clear()
