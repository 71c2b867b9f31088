"""Which of the repository's runs train or evaluate.

An entry point (msacclint.project.entries) runs its code, but only a run that trains,
evaluates or exports what it trained can cost accuracy through a training default: a model
module's own ``if __name__ == "__main__":`` block that builds the network, feeds it a random
tensor and prints a shape neither trains nor evaluates, and a training default (a dropout
rate, a BatchNorm momentum) in what it builds changes no result. The reach graph (msacclint.
project.reach) asks ``_trains_from(node)`` of each entry point it meets when the question is
about such a default; a loud failure (MSA004) and the cannot-run analysis count every run.

A run trains or evaluates when the code it reaches, followed forwards through the outlines
(what each scope names, the classes it builds and their methods, the modules it imports, up
to ``FORWARD_NODES`` scopes), calls a method of ``WORK_METHODS`` on an object
(``model.train``, ``trainer.fit``, ``model.eval``, ``loss.backward``, ``net.set_train()``) or
uses a MindSpore name of ``WORK_NAMES`` (``Model``, ``value_and_grad``, an optimizer, a
metric, ``export``); loading a checkpoint alone is neither (a demo block may load pretrained
weights before it prints a shape). Code the forward walk cannot follow (a module or
name looked up at run time, a search past its limit) may train: such a run counts.

A repository none of whose runs trains or evaluates (model definitions with demo blocks) is
read as a library: what its runs build is reachable, as a library's code is. A mixin of
``ProjectIndex`` (msacclint.project.index).
"""

from __future__ import annotations

from collections import deque
from typing import Iterator, List, Optional, Set, Tuple

from msacclint.project.entries import MAIN_BLOCK
from msacclint.project.outline import EVAL, Outline
from msacclint.project.outline_parts import WORK_METHODS, WORK_NAMES

Node = Tuple[str, str]
Hop = Tuple[str, int, str]

#: how many scopes the forward walk from one entry point reads before it gives up (and
#: counts the run as one that may train)
FORWARD_NODES = 400
#: how many entry points are read to learn whether any run of the repository trains
ENTRY_SCAN = 400
#: what ``_trains_from`` answers when it cannot tell: the run may train
MAY_TRAIN: Hop = ("", 0, "code the walk cannot follow")
_SKIP = frozenset({"self", "cls", "super"})


class TrainingQueries:
    """A mixin of ProjectIndex: see the module's docstring."""

    def _trains_from(self, start: Node) -> Optional[Hop]:
        """Where the run starting at ``start`` (an entry point's scope) trains, evaluates or
        exports: (file, line, what), ``MAY_TRAIN`` when it cannot be told, None when it
        does none of these."""
        state = self._reach_state()
        if start in state.trains:
            return state.trains[start]
        answer: Optional[Hop] = None
        seen: Set[Node] = {start}
        queue = deque([start])
        while queue and answer is None:
            node = queue.popleft()
            found = self.outline(node[0])
            if found is None or found.broken:
                continue
            self._depend(node[0])
            answer = self._work_in(node, found)
            if answer is not None:
                break
            for succ in self._successors(node, found):
                if succ is None:
                    answer = MAY_TRAIN
                    break
                if succ not in seen:
                    seen.add(succ)
                    queue.append(succ)
            if len(seen) > FORWARD_NODES:
                answer = MAY_TRAIN
        state.trains[start] = answer
        return answer

    def _work_in(self, node: Node, found: Outline) -> Optional[Hop]:
        """A call of ``node``'s own scope that trains, evaluates or exports."""
        scope = found.scopes.get(node[1])
        for callee, line in scope.work if scope is not None else ():
            head, _, rest = callee.partition(".")
            last = callee.rsplit(".", 1)[-1]
            bound = found.bindings.get(head)
            if rest and last in WORK_METHODS and (head in _SKIP or (bound is None and head not in found.defs)):
                return node[0], line, f"`{callee}(...)`"
            if last in WORK_NAMES and bound is not None:
                qualified = bound + ("." + rest if rest else "")
                if qualified.split(".")[0] == "mindspore":
                    return node[0], line, f"`{callee}(...)` ({qualified})"
        return None

    def _successors(self, node: Node, found: Outline) -> Iterator[Optional[Node]]:
        """The scopes a run of ``node`` goes on to: what it names, the definitions inside it
        (a class's methods), the modules it imports; None for code that cannot be followed."""
        path, name = node
        if name == "__main__":
            yield (path, "")
        for qual, d in found.defs.items():
            if d.parent == name and name not in ("", "__main__"):
                yield (path, qual)
        scope = found.scopes.get(name)
        if scope is None:
            return
        if any(prefix == EVAL or not prefix.endswith("\0") for prefix, _ in scope.dynamic):
            yield None  # a module or text chosen at run time
        done: Set[str] = set()
        for ref, _line in scope.refs:
            head = ref.split(".")[0]
            if ref in done or head in _SKIP:
                continue
            done.add(ref)
            if ref.endswith(".*"):
                owner = found.bindings.get(ref[:-2].split(".")[0])
                if owner is not None and self.find_module(owner, path) is not None:
                    yield None  # a name of a project module looked up at run time
                continue
            target = self._resolve(path, found, ref)
            if target is not None:
                yield target
        for imported, _line, _guarded in scope.imports:
            target = self.find_module(imported, path)
            if target is not None:
                yield (target, "")

    def _any_training_entry(self) -> bool:
        """Whether some entry point of the repository trains or evaluates (else the repository
        is read as a library of what its runs build). Entry points are read until one does,
        at most ``ENTRY_SCAN`` of them."""
        state = self._reach_state()
        if state.any_training is None:
            state.any_training = False
            for path in self._entry_candidates()[:ENTRY_SCAN]:
                found = self.outline(path)
                if found is None or found.broken:
                    continue
                if self._trains_from((path, "__main__" if found.main else "")) is not None:
                    state.any_training = True
                    break
        return state.any_training

    def _entry_candidates(self) -> List[str]:
        """The repository's scripts: files the scripts run, notebooks, files with a main block."""
        state = self._reach_state()
        if state.main_blocks is None:
            state.main_blocks = {p for p in self.files if MAIN_BLOCK.search(self._bytes(p) or b"") is not None}
        named = set(self.named_scripts())
        notebooks = {p for p in self.files if p.endswith(".ipynb")}
        # the files the scripts run first: they are the repository's own runs
        return sorted(named) + sorted(notebooks - named) + sorted(state.main_blocks - named - notebooks)

    def _describe_run(self, node: Node) -> str:
        path, scope = node
        shown = self.display(path)
        if scope == "__main__":
            return f"the main block of {shown}"
        if scope == "":
            return shown
        return f"`{scope}` of {shown}"
