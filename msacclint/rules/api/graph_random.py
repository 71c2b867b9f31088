"""api.01: Python or NumPy randomness inside a compiled ``construct``.

- MSA136 (api.01): ``random.*`` / ``numpy.random.*`` called in ``construct`` (or in a
  method decorated with ``@jit``): in GRAPH_MODE and under ``@jit`` the call runs once,
  when the graph is compiled, and its value is a constant of the graph from then on.
"""

from __future__ import annotations

from typing import List, Optional

import libcst as cst

from msacclint.analysis.facts import facts
from msacclint.analysis.source import code_of as _code
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid

_JIT = frozenset({"mindspore.jit", "mindspore.ms_function", "mindspore.jit_class", "mindspore.ms_class"})


def _is_random(name: Optional[str]) -> bool:
    return bool(name) and (name.startswith("numpy.random.") or name.startswith("random.")) \
        and not name.endswith((".seed", ".RandomState", ".default_rng", ".Generator", ".get_state", ".set_state"))


class _RandomCalls(cst.CSTVisitor):
    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.found: List[cst.Call] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False  # a nested function is not necessarily called in the graph

    def visit_Call(self, node: cst.Call) -> None:
        if _is_random(self.ctx.resolve(node.func)):
            self.found.append(node)


class GraphFrozenRandomness(Rule):
    code = "MSA136"
    name = "python-random-in-graph"
    checklist = "api.01"
    severity = Severity.WARNING
    group = "suspicious"
    uses_facts = True
    message = "Python/NumPy randomness in construct is drawn once, when the graph is compiled"
    what = ("Reports calls of Python's `random` module and of `numpy.random` inside a Cell's `construct` (and "
            "inside methods decorated with `@jit`/`@ms_function`), when the file shows that it is compiled: it sets "
            "GRAPH_MODE, or the method or its class is decorated with `jit`. A model file whose mode is set "
            "by another file is not reported (MindSpore 2.x runs PyNative by default, where Python runs on "
            "every call)."
            " Field check (docs/evaluation/field.md, issue 14 rules): no finding on the four tuning repositories of bench/field/protocol.toml (6,045 files), so its precision is not measured yet.")
    why = ("In GRAPH_MODE and under `@jit` MindSpore evaluates plain Python calls while it compiles: "
           "`random.random() < self.drop_rate` becomes a constant, so LayerDrop, stochastic depth or noise "
           "injection take the same branch on every step (checked on 2.10: 20 of 20 calls took one branch in "
           "GRAPH_MODE, both in PyNative). PyTorch runs Python on every call, so a port keeps the Python "
           "draw. Draw with MindSpore's ops instead - and draw one vector of numbers per call before a loop "
           "over layers: on 2.10 an `ops.rand(1)` inside such a loop drew the same number in every iteration, "
           "so LayerDrop dropped all layers or none.")
    example = """
    import random
    import mindspore as ms
    from mindspore import nn

    ms.set_context(mode=ms.GRAPH_MODE)

    class Encoder(nn.Cell):
        def construct(self, x):
            for layer in self.layers:
                if self.training and random.random() < self.layerdrop:  # MSA136
                    continue
                x = layer(x)
            return x
    """
    use_instead = """
    import mindspore as ms
    from mindspore import nn, ops

    ms.set_context(mode=ms.GRAPH_MODE)

    class Encoder(nn.Cell):
        def construct(self, x):
            draws = ops.rand(len(self.layers))  # one vector of draws per call, before the loop
            for i, layer in enumerate(self.layers):
                if self.training and draws[i] < self.layerdrop:
                    continue
                x = layer(x)
            return x
    """
    fix_safety = "No automatic fix."
    versions = "All MindSpore 1.x and 2.x releases (GRAPH_MODE compiles construct; `jit` from 2.0, `ms_function` before)."
    VALID = (
        Valid(use_instead, note="idiomatic: MindSpore random ops, one vector of draws"),
        Valid("""
            import numpy as np
            from mindspore import nn

            class Noisy(nn.Cell):
                def construct(self, x):
                    return x + np.random.normal(0, 0.1)
            """, note="a model file: the mode is set elsewhere (PyNative by default in 2.x); not assumed"),
        Valid("""
            import random
            import mindspore as ms
            from mindspore import nn

            ms.set_context(mode=ms.PYNATIVE_MODE)

            class Noise(nn.Cell):
                def construct(self, x):
                    return x + random.gauss(0, 0.1)
            """, note="PyNative: Python runs on every call"),
        Valid("""
            import random
            import numpy as np
            from mindspore import nn

            class Block(nn.Cell):
                def __init__(self, p):
                    super().__init__()
                    self.keep = np.random.rand() > p
                def construct(self, x):
                    return x
            """, note="drawn in __init__, once by design"),
        Valid("""
            import random
            import torch
            import mindspore

            class Block(torch.nn.Module):
                def forward(self, x):
                    if random.random() < 0.1:
                        return x
                    return self.f(x)
            """, note="PyTorch forward"),
        Valid("""
            import numpy as np
            import mindspore.dataset as ds

            class Source:
                def __getitem__(self, i):
                    return np.random.rand(3)
            """, note="data source, not a Cell"),
    )
    INVALID = (
        Invalid(example, note="LayerDrop ported with Python's random"),
        Invalid("""
            import numpy as np
            from mindspore import nn, jit

            class DropPath(nn.Cell):
                @jit
                def construct(self, x):
                    keep = np.random.binomial(1, 0.9)  # MSA136
                    return x * keep
            """, note="under @jit"),
        Invalid("""
            import numpy as np
            import mindspore as ms
            from mindspore import nn

            class Noisy(nn.Cell):
                def construct(self, x):
                    return x + np.random.normal(0, 0.1)  # MSA136

            if __name__ == "__main__":
                ms.set_context(mode=ms.GRAPH_MODE, device_target="GPU")
            """, note="GRAPH_MODE set below the class"),
    )

    def finish(self) -> None:
        f = facts(self.ctx)
        graph = pynative = False
        for name, calls in f.calls.items():
            if name.endswith("set_context") and name.startswith("mindspore"):
                for call in calls:
                    text = _code(call)
                    graph = graph or "GRAPH_MODE" in text or "mode=0" in text.replace(" ", "")
                    pynative = pynative or "PYNATIVE_MODE" in text or "mode=1" in text.replace(" ", "")
        for cls in (s for s in self.ctx.module.body if isinstance(s, cst.ClassDef)):
            class_jit = any(self.ctx.resolve(_deco(d)) in _JIT for d in cls.decorators)
            for stmt in cls.body.body:
                if not isinstance(stmt, cst.FunctionDef):
                    continue
                method_jit = any(self.ctx.resolve(_deco(d)) in _JIT for d in stmt.decorators)
                if stmt.name.value != "construct" and not method_jit:
                    continue
                compiled = method_jit or class_jit
                if not compiled and not (graph and not pynative):
                    continue  # PyNative (2.x's default) or a mode set in another file
                finder = _RandomCalls(self.ctx)
                stmt.body.visit(finder)
                for call in finder.found:
                    how = "under @jit" if compiled else "in GRAPH_MODE (set in this file)"
                    self.report(call, f"{_code(call.func)}() inside {cls.name.value}.{stmt.name.value} is evaluated "
                                f"once {how}, not on every step; draw with MindSpore ops (ops.rand, ops.uniform, "
                                "ops.bernoulli), one vector of draws per call before a loop over layers")


def _deco(decorator: cst.Decorator) -> cst.BaseExpression:
    node = decorator.decorator
    return node.func if isinstance(node, cst.Call) else node
