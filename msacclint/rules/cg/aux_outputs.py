"""cg.04: auxiliary outputs differentiated along with the loss.

- MSA507 (cg.04): ``value_and_grad``/``grad`` given a function (or a Cell of the file)
  every return of which is a tuple ``(loss, logits, ...)``, without ``has_aux=True``:
  MindSpore differentiates every output with a sensitivity of ones, so the gradient is
  that of ``loss + sum(aux)``.
"""

from __future__ import annotations

from typing import List, Optional

import libcst as cst

from msacclint.analysis.calls import UNKNOWN, argument, has_star_kwargs, literal
from msacclint.analysis.facts import facts
from msacclint.analysis.scopes import scopes
from msacclint.analysis.walk import OwnScope
from msacclint.diagnostics import Severity
from msacclint.rules.base import Invalid, Rule, Valid

GRAD_FUNCTIONS = ("mindspore.value_and_grad", "mindspore.grad", "mindspore.ops.value_and_grad", "mindspore.ops.grad")
_SIGNATURE = ("fn", "grad_position", "weights", "has_aux", "return_ids")
_NO_GRAD = ("stop_gradient",)


class _Returns(OwnScope):
    """The return statements of one function body (not of nested functions)."""

    def __init__(self) -> None:
        self.returns: List[cst.Return] = []
        self.yields = False

    def visit_Return(self, node: cst.Return) -> None:
        self.returns.append(node)

    def visit_Yield(self, node: cst.Yield) -> None:
        self.yields = True


def _differentiable(element: cst.BaseElement) -> bool:
    """Whether an output element carries a gradient: not a literal, not stop_gradient'ed."""
    value = element.value
    if isinstance(element, cst.StarredElement):
        return True
    if literal(value) is not UNKNOWN:
        return False
    if isinstance(value, cst.Call):
        func = value.func
        tail = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        if tail in _NO_GRAD:
            return False
    return True


def _names_a_loss(value: cst.BaseExpression) -> bool:
    """An output named as a loss term (``actor_loss``, ``self.kl_loss``)."""
    name = value.attr.value if isinstance(value, cst.Attribute) else value.value if isinstance(value, cst.Name) else ""
    return "loss" in name.lower()


def tuple_outputs(function: cst.FunctionDef) -> Optional[int]:
    """The number of outputs when every return of the function is a literal tuple of at
    least two elements of which more than the first carry gradient; else None."""
    finder = _Returns()
    function.body.visit(finder)
    if finder.yields or not finder.returns:
        return None
    sizes = set()
    for ret in finder.returns:
        value = ret.value
        if not isinstance(value, cst.Tuple) or len(value.elements) < 2:
            return None
        extra = [e for e in value.elements[1:] if _differentiable(e)]
        if not extra:
            return None
        if all(_names_a_loss(e.value) for e in [value.elements[0], *extra]):
            return None  # loss terms returned side by side: their sum is the total loss

        sizes.add(len(value.elements))
    return max(sizes)


def _class_named(module: cst.Module, name: str) -> Optional[cst.ClassDef]:
    for stmt in module.body:
        if isinstance(stmt, cst.ClassDef) and stmt.name.value == name:
            return stmt
    return None


def _method(cls: cst.ClassDef, name: str) -> Optional[cst.FunctionDef]:
    for stmt in cls.body.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name:
            return stmt
    return None


_IMPORTS = """
    import mindspore as ms
    from mindspore import nn, ops
    """


class AuxOutputsDifferentiated(Rule):
    code = "MSA507"
    name = "aux-outputs-differentiated"
    checklist = "cg.04"
    severity = Severity.ERROR
    group = "correctness"
    uses_facts = True
    message = "value_and_grad/grad of a function returning (loss, aux, ...) without has_aux=True differentiates every output"
    what = ("Reports `mindspore.value_and_grad`/`mindspore.grad` (and their `ops.` aliases) whose first argument is "
            "a function of the file (a module-level or nested function, a method through `self.`) or an "
            "instance of a Cell class of the file, every `return` of which returns a tuple of two or more "
            "outputs, when `has_aux` is not given. Outputs wrapped in `ops.stop_gradient` and literal "
            "constants do not count, nor a tuple whose outputs are all named as losses (`actor_loss, "
            "entropy_loss`): the sum of loss terms is the total loss, as `(a + b).backward()` would be."
            " Field check (docs/evaluation/field.md, issue 14 rules): no finding on the four tuning repositories of bench/field/protocol.toml (6,045 files), so its precision is not measured yet.")
    evidence = ("the differentiated function is resolved to its definition in the file (a function, a method of "
                "self or a Cell's construct) and every return statement of it returns a tuple; has_aux is not given")
    why = ("With `has_aux=False` MindSpore differentiates EVERY output of the function with a sensitivity of "
           "ones: the gradient is that of `loss + sum(logits) + ...`, not of the loss. PyTorch's "
           "`loss.backward()` differentiates the loss alone, so a forward function ported to return "
           "`(loss, logits)` for the metrics trains on a wrong gradient without any error (checked on 2.10: "
           "a weight gradient of [28, 40] without has_aux, [24, 34] with it).")
    example = """
    import mindspore as ms

    def forward_fn(x, y):
        logits = net(x)
        return loss_fn(logits, y), logits

    grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters)  # MSA507
    """
    use_instead = """
    import mindspore as ms

    def forward_fn(x, y):
        logits = net(x)
        return loss_fn(logits, y), logits

    grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters, has_aux=True)
    """
    fix_safety = ("No automatic fix: `has_aux=True` changes the gradients the code trained with (to the "
                  "right ones), and the value returned stays `(loss, (aux, ...))`, which callers may unpack.")
    versions = "`has_aux` exists since MindSpore 2.0 (`value_and_grad`/`grad` of 2.x); 1.x had GradOperation only."
    VALID = (
        Valid(use_instead, note="idiomatic"),
        Valid("""
            import mindspore as ms

            def forward_fn(x, y):
                logits = net(x)
                return loss_fn(logits, y)

            grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters)
            """, note="one output"),
        Valid("""
            import mindspore as ms
            from mindspore import ops

            def forward_fn(x, y):
                logits = net(x)
                return loss_fn(logits, y), ops.stop_gradient(logits)

            grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters)
            """, note="the auxiliary output carries no gradient"),
        Valid("""
            import mindspore as ms

            def forward_fn(x, y):
                if cond:
                    return loss_fn(net(x), y)
                return loss_fn(net(x), y), 0

            grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters)
            """, note="not every return is a tuple: not guessed at"),
        Valid("""
            import torch
            import mindspore

            def forward_fn(x, y):
                logits = net(x)
                return loss_fn(logits, y), logits

            grad_fn = torch.func.grad(forward_fn, has_aux=False)
            """, note="torch.func.grad is another API"),
        Valid("""
            import mindspore as ms

            def forward_fn(x, y):
                a, b = net(x)
                return a, b

            grad_fn = ms.grad(forward_fn, grad_position=(0, 1), has_aux=False)
            """, note="has_aux=False written out: both outputs meant"),
    )
    VALID = VALID + (
        Valid("""
            import mindspore as ms

            def forward_fn(x):
                actor_loss = -advantage(x).mean()
                entropy_loss = -c2 * entropy(x)
                return actor_loss, entropy_loss

            grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters)
            """, note="loss terms side by side: differentiating their sum is the point"),
    )
    INVALID = (
        Invalid(example, note="a forward function ported to return the logits for the metrics"),
        Invalid("""
            import mindspore as ms
            from mindspore import nn

            class Trainer:
                def forward(self, x, y):
                    out = self.net(x)
                    loss = self.loss(out, y)
                    return loss, out, y

                def build(self):
                    self.grad_fn = ms.value_and_grad(self.forward, None, self.opt.parameters)  # MSA507
            """, note="a method given through self"),
        Invalid("""
            import mindspore as ms
            from mindspore import nn

            class NetWithLoss(nn.Cell):
                def construct(self, x, y):
                    logits = self.net(x)
                    return self.loss(logits, y), logits

            net_with_loss = NetWithLoss()
            grad_fn = ms.grad(net_with_loss, None, opt.parameters)  # MSA507
            """, note="a Cell whose construct returns the logits too"),
    )

    def finish(self) -> None:
        f = facts(self.ctx)
        sc = None
        for call in f.called(*GRAD_FUNCTIONS):
            if has_star_kwargs(call) or argument(call, "has_aux", _SIGNATURE) is not None:
                continue
            fn = argument(call, "fn", _SIGNATURE)
            if fn is None:
                continue
            sc = sc or scopes(self.ctx)
            target = self._function(sc, call, fn.value)
            if target is None:
                continue
            count = tuple_outputs(target)
            if count is None:
                continue
            self.report(call, f"{target.name.value} returns {count} outputs and has_aux is not set: MindSpore "
                        "differentiates every output (the gradient of loss + the sum of the others); pass "
                        "has_aux=True so that only the first output is differentiated")

    def _function(self, sc, call: cst.Call, value: cst.BaseExpression) -> Optional[cst.FunctionDef]:
        fl = sc.owner(call)
        if isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name) and value.value.value == "self":
            if fl is None or not isinstance(fl.root, cst.FunctionDef):
                return None
            cls = sc.method_of.get(fl.root)
            return _method(cls, value.attr.value) if cls is not None else None
        if not isinstance(value, cst.Name):
            return None
        name = value.value
        if fl is not None:
            found = sc.resolve(fl, name, fl.order_of.get(call))
            if found is not None:
                _, definition = found
                made = definition.value
                if definition.index is None and isinstance(made, cst.Call) and isinstance(made.func, cst.Name):
                    if self.ctx.resolve(made.func) is None:
                        cls = _class_named(self.ctx.module, made.func.value)
                        if cls is not None:
                            return _method(cls, "construct")
                return None
        candidates = [d for d in sc.functions_named(name) if sc.method_of.get(d) is None]
        return candidates[0] if len(candidates) == 1 else None
