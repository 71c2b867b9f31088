"""The parts of a file's outline (msacclint.project.outline) read from expressions: the tests
a branch runs under, the parts of a module name built at run time, the calls that train,
evaluate or export, the literal strings a local name is assigned."""

from __future__ import annotations

import ast
import re
from typing import Any, List, Optional, Tuple

from msacclint.project.summary import ast_dotted as _dotted

#: method names whose call on an object trains, evaluates or exports (``model.train(...)``,
#: ``trainer.fit()``, ``loss.backward()`` of a torch-style port)
WORK_METHODS = frozenset({"train", "eval", "fit", "evaluate", "backward", "set_train", "train_step",
                          "train_one_step", "train_one_epoch", "eval_one_epoch"})
#: MindSpore names whose use trains, evaluates or exports (resolved through the imports when asked);
#: a checkpoint load alone is neither (a demo block may load pretrained weights and print a shape)
WORK_NAMES = frozenset({
    "Model", "value_and_grad", "grad", "GradOperation", "TrainOneStepCell", "TrainOneStepWithLossScaleCell",
    "export", "build_train_network", "Accuracy", "Top1CategoricalAccuracy",
    "Top5CategoricalAccuracy", "MAE", "MSE", "Loss", "Metric", "Adam", "AdamWeightDecay", "AdamW", "SGD", "Momentum",
    "RMSProp", "Lamb", "LARS", "Adagrad", "FTRL", "LazyAdam", "ProximalAdagrad", "Rprop", "ASGD", "Adadelta",
    "Adamax", "AdaFactor", "AdaSumByGradWrapCell", "thor",
})


def strings_of(node: Optional[ast.AST]) -> Optional[List[str]]:
    """The literal strings an expression may be (``"a"``, ``"a" if c else "b"``), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        body, orelse = strings_of(node.body), strings_of(node.orelse)
        return body + orelse if body is not None and orelse is not None else None
    return None


def name_parts(node: ast.AST) -> Tuple[Tuple[str, Any], ...]:
    """The parts of a module name built at run time: literal text and computed values."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return (("lit", node.value),)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return name_parts(node.left) + name_parts(node.right)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) \
            and isinstance(node.left.value, str):
        args = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        return _formatted(re.split(r"%[sr]", node.left.value), args)
    if isinstance(node, ast.JoinedStr):
        out: List[Tuple[str, Any]] = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                out.append(("lit", str(value.value)))
            elif isinstance(value, ast.FormattedValue):
                out.append(("hole", _dotted(value.value) or ""))
        return tuple(out)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str):
        if node.func.attr == "format" and not node.keywords:
            return _formatted(re.split(r"\{\}", node.func.value.value), node.args)
        if node.func.attr == "join" and len(node.args) == 1 and isinstance(node.args[0], (ast.List, ast.Tuple)):
            out = []
            for i, item in enumerate(node.args[0].elts):
                out.extend((("lit", node.func.value.value),) if i else ())
                out.extend(name_parts(item))
            return tuple(out)
    return (("hole", _dotted(node) or ""),)


def _formatted(pieces: List[str], args: List[ast.AST]) -> Tuple[Tuple[str, Any], ...]:
    if len(pieces) != len(args) + 1:
        return (("hole", ""),)
    out: List[Tuple[str, Any]] = []
    for i, piece in enumerate(pieces):
        if piece:
            out.append(("lit", piece))
        if i < len(args):
            out.extend(name_parts(args[i]))
    return tuple(out)


#: the comparisons a guard may hold, and what the ``else`` of each holds
_OPS = {ast.Eq: "==", ast.NotEq: "!=", ast.In: "in", ast.NotIn: "not in", ast.Is: "==", ast.IsNot: "!=",
        ast.Gt: ">", ast.GtE: ">=", ast.Lt: "<", ast.LtE: "<="}
_NEGATED = {"==": "!=", "!=": "==", "in": "not in", "not in": "in", ">": "<=", ">=": "<", "<": ">=", "<=": ">",
            "truthy": "falsy", "falsy": "truthy"}


def tests_of(test: ast.AST) -> List[Tuple[str, str, Any]]:
    """The tests of one value each that must all hold for a branch to run: ``a.b == lit``,
    ``a.b in (lits)``, ``a.b``, ``not a.b``, ``a.b is None``, ``a.b > 0``, joined by ``and``."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [t for value in test.values for t in tests_of(value)]
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = tests_of(test.operand)
        return [negated(inner[0])] if len(inner) == 1 else []
    subject = _dotted(test)
    if subject is not None:
        return [(subject, "truthy", None)]
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _OPS:
        left, right, op = test.left, test.comparators[0], _OPS[type(test.ops[0])]
        if _dotted(left) is None and _dotted(right) is not None and op in ("==", "!="):
            left, right = right, left
        subject, value = _dotted(left), _literal(right)
        if subject is not None and value is not _NO:
            if op in ("in", "not in") and not isinstance(value, tuple):
                return []
            return [(subject, op, value)]
    return []


def negated(test: Tuple[str, str, Any]) -> Tuple[str, str, Any]:
    subject, op, value = test
    return subject, _NEGATED[op], value


_NO = object()


def _literal(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool, type(None))):
        return node.value
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        items = [_literal(item) for item in node.elts]
        return _NO if any(item is _NO for item in items) else tuple(items)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and isinstance(node.operand.value, (int, float)):
        return -node.operand.value
    return _NO


def works(node: ast.Call, callee: str) -> bool:
    """A call that may train, evaluate or export: a method of ``WORK_METHODS`` on an object
    (``set_train(False)`` switches training off, ``eval()`` without a dataset is a torch-style
    mode switch), or a name of ``WORK_NAMES``."""
    last = callee.rsplit(".", 1)[-1]
    if last == "set_train":
        first = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "mode"), None)
        return not (isinstance(first, ast.Constant) and first.value is False)
    if last == "eval" and not node.args and not node.keywords:
        return False  # ``net.eval()``: a torch-style mode switch, not ``Model.eval(dataset)``
    if "." in callee and last in WORK_METHODS:
        return True
    return last in WORK_NAMES
