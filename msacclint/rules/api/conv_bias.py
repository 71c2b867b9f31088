"""MSA108 (MS-CONV-02, warning): ``nn.Conv*d`` without ``has_bias`` (MindSpore: no bias, PyTorch:
bias) whose output provably does not go into a normalisation layer. Conv followed by
BatchNorm/GroupNorm/LayerNorm/InstanceNorm is the idiom (the norm's shift replaces the bias) and
is never reported; neither is any conv whose output this linter cannot follow (built in a helper,
handed to another class, returned, used in arithmetic)."""

from __future__ import annotations

from typing import Dict, Optional

import libcst as cst

from msacclint.analysis.cells import SEQUENTIAL, cells, self_attr
from msacclint.analysis.flow import flow
from msacclint.analysis.losses import is_builtin_loss
from msacclint.rules.api.conv_layers import (
    LOSS_FUNCTIONS,
    activation_function,
    bias_left_default,
    builds,
    conv_fixes,
    conv_name,
    keeps_shift,
    step_kind,
    transpose_size_differs,
)
from msacclint.rules.base import Invalid, Rule, Valid
from msacclint.rules.examples import fill
from msacclint.rules.fixtures.nets import cell, module
from msacclint.rules.table import TableRuleMixin, called


def _head(conv: str, act: str = "nn.ReLU()", imports: str = "import mindspore.nn as nn") -> str:
    """A module of one Head whose ``conv`` feeds an activation (``act``) and nothing else."""
    return module(imports, cell("Head", init=f"self.conv = {conv}\nself.act = {act}",
                                construct="return self.act(self.conv(x))"), tight=True)


#: a segmentation head whose 1x1 classifier conv gives the logits, and the model that builds
#: it, upsamples them and computes the loss ({after}: what the model does with the head's output)
_SEG_MODEL = """
    from mindspore import nn, ops

    class SegHead(nn.Cell):
        def __init__(self, channels, num_labels):
            super().__init__()
            self.fuse = nn.Conv2d(channels, channels, 3, has_bias=False)
            self.bn = nn.BatchNorm2d(channels)
            self.act = nn.ReLU()
            self.classifier = {classifier}

        def construct(self, x):
            x = self.act(self.bn(self.fuse(x)))
            return self.classifier(x)

    class SegModel(nn.Cell):
        def __init__(self, backbone, channels, num_labels):
            super().__init__()
            self.backbone = backbone
            self.head = SegHead(channels, num_labels)
            self.norm = nn.BatchNorm2d(num_labels)
            self.loss_fn = nn.CrossEntropyLoss(ignore_index=255)

        def construct(self, images, labels):
            logits = {after}
            logits = ops.interpolate(logits, size=images.shape[2:], mode="bilinear")
            return self.loss_fn(logits, labels)
"""


def _segmentation(classifier: str, after: str = "self.head(self.backbone(images))") -> Dict[str, str]:
    return {"src/__init__.py": "", "src/seg.py": fill(_SEG_MODEL, classifier=classifier, after=after),
            "train.py": "from src.seg import SegModel\n\nmodel = SegModel(None, 256, 19)\n"}


#: a package that replaces nn.Conv2d with its own class (an injection module imported by the
#: package), the class taking MindSpore's parameters with ``{default}`` as has_bias's default
_INJECTION = """
    import mindspore.nn as nn
    from mindspore.common import dtype as mstype

    class Conv2d(nn.Cell):
        def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode='same', padding=0,
                     dilation=1, group=1, has_bias={default}, weight_init=None, bias_init=None,
                     data_format='NCHW', dtype=mstype.float32):
            super().__init__()
            self.has_bias = has_bias

    nn.Conv2d = Conv2d
"""
_INJECTED_STEM = """
    from mindspore import nn, ops

    class PatchStem(nn.Cell):
        def __init__(self, width):
            super().__init__()
            self.proj = {conv}

        def construct(self, x):
            return ops.gelu(self.proj(x))
"""


def _injected(default: str, conv: str) -> Dict[str, str]:
    """A package whose injection module replaces nn.Conv2d, and a stem built with it."""
    return {"pkg/__init__.py": "from pkg import injection\n", "pkg/injection.py": fill(_INJECTION, default=default),
            "pkg/stem.py": fill(_INJECTED_STEM, conv=conv)}


class ConvBiasDefault(TableRuleMixin, Rule, entry_id="MS-CONV-02"):
    code = "MSA108"
    group = "port"
    name = "conv-bias-default"
    message = "conv without has_bias: MindSpore's conv has no bias (PyTorch's has one) and no norm layer follows"
    what = ("Reports `nn.Conv1d/2d/3d` and `nn.Conv*Transpose` calls without `has_bias` whose output "
            "this linter can follow and which does not go into a normalisation layer: in `construct` "
            "(`self.act(self.conv(x))`, `x = self.conv(x); x = self.act(x)`, a functional activation "
            "such as `ops.gelu(self.conv(x))`) or as the next element of a list/`SequentialCell`. A final "
            "classifier conv counts too: its output goes into a MindSpore loss as the logits, in the Cell "
            "itself or, when the Cell returns it, in a class of the file that builds the Cell (past reshapes "
            "and `ops.interpolate`). Conv followed by BatchNorm/GroupNorm/LayerNorm/InstanceNorm is "
            "never reported, nor is a conv whose output goes anywhere the linter cannot follow.")
    why = ("`has_bias` defaults to False in MindSpore and `bias` to True in PyTorch. Before a norm "
           "layer the bias is redundant, but a conv feeding an activation, a pooling or the output "
           "(detection and segmentation heads, generators) silently loses capacity, and a PyTorch "
           "checkpoint's conv.bias is silently not loaded.")
    example = """
        import mindspore.nn as nn
        class Head(nn.Cell):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(256, 256, 3)  # MSA108
                self.act = nn.ReLU()

            def construct(self, x):
                return self.act(self.conv(x))
    """
    use_instead = """
        import mindspore.nn as nn
        self.conv = nn.Conv2d(256, 256, 3, has_bias=True)
    """
    fix_safety = ("Unsafe fix: `has_bias=True`, the PyTorch meaning; it adds parameters. Keep this "
                  "behaviour (not a fix; `--add-explicit` only): `has_bias=False`.")
    versions = "has_bias=False is the default in every MindSpore version checked (1.5 to 2.10)."
    VALID = (
        Valid(module("import mindspore.nn as nn", cell("Block", init="""
            self.conv = nn.Conv2d(64, 64, 3)
            self.bn = nn.BatchNorm2d(64)
            self.relu = nn.ReLU()
        """, construct="return self.relu(self.bn(self.conv(x)))"), tight=True), note="conv -> BatchNorm: the idiom"),
        Valid(module("import mindspore.nn as nn", cell("Block", init="""
            self.conv = nn.Conv2d(64, 64, 3)
            self.gn = nn.GroupNorm(8, 64)
            self.act = nn.ReLU()
        """, construct="""
            x = self.conv(x)
            x = self.gn(x)
            return self.act(x)
        """), tight=True)),
        Valid("""
            import mindspore.nn as nn
            layers = nn.SequentialCell([nn.Conv2d(3, 64, 3), nn.BatchNorm2d(64), nn.ReLU()])
        """),
        Valid(_head("nn.Conv2d(256, 80, 1, has_bias=True)", act="nn.Sigmoid()")),
        Valid("""
            import torch.nn as nn
            class Head(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(256, 80, 1)
                    self.act = nn.ReLU()

                def forward(self, x):
                    return self.act(self.conv(x))
        """),
        Valid(_head("mint.nn.Conv2d(256, 80, 1)", imports="from mindspore import mint, nn")),
        Valid(module("import mindspore.nn as nn", cell("Head", params="norm_layer", init="""
            self.conv = nn.Conv2d(256, 256, 3)
            self.norm = norm_layer(256)
        """, construct="return self.norm(self.conv(x))"), tight=True), note="the norm layer comes from a parameter: cannot tell, stay silent"),
        Valid(module("import mindspore.nn as nn", cell("Head", init="self.conv = nn.Conv2d(256, 80, 1)",
                                                   construct="return self.conv(x)"), tight=True), note="returned: the caller may normalise it"),
        Valid("""
            import mindspore.nn as nn
            def conv3x3(cin, cout):
                return nn.Conv2d(cin, cout, 3)
        """, note="built in a helper: the flow is not visible here"),
        Valid(module("import mindspore.nn as nn", cell("SeparableConv", params="c", init="""
            self.depthwise = nn.Conv2d(c, c, 3, group=c)
            self.pointwise = nn.Conv2d(c, c, 1)
        """, construct="return self.pointwise(self.depthwise(x))"), tight=True), note="depthwise -> pointwise -> returned: the caller may normalise"),
        Valid(module("import mindspore.nn as nn", cell("SeparableConv", params="c", init="""
            self.depthwise = nn.Conv2d(c, c, 3, group=c)
            self.pointwise = nn.Conv2d(c, c, 1, has_bias=True)
            self.act = nn.ReLU()
        """, construct="return self.act(self.pointwise(self.depthwise(x)))"), tight=True), note="the next linear layer's bias absorbs the missing shift"),
        Valid(_head("nn.Conv2d(256, 256, 3, has_bias=cfg.bias)")),
        Valid("""
            from mindspore import nn, ops
            class AudioStem(nn.Cell):
                def __init__(self, mels, width):
                    super().__init__()
                    self.conv1 = nn.Conv1d(mels, width, 3, pad_mode='pad', padding=1, has_bias=True)
                    self.conv2 = nn.Conv1d(width, width, 3, pad_mode='pad', padding=1)
                    self.norm = nn.BatchNorm1d(width)

                def construct(self, x):
                    x = ops.gelu(self.conv1(x))
                    return ops.gelu(self.norm(self.conv2(x)))
        """, note="a bias given, and a conv whose output a BatchNorm takes before the activation"),
        Valid("""
            from mindspore import nn, ops
            class Fuse(nn.Cell):
                def __init__(self, c):
                    super().__init__()
                    self.conv = nn.Conv2d(c, c, 1)

                def construct(self, x, y):
                    return ops.concat((self.conv(x), y), axis=1)
        """, note="a function whose effect is not an activation: not followed"),
        Valid(files={
            "pkg/__init__.py": "from pkg import injection\n",
            "pkg/injection.py": """
                import mindspore.nn as nn

                class Conv1d(nn.Cell):
                    def __init__(self, cin, cout, kernel_size, has_bias=True):
                        super().__init__()
                        self.conv = nn.Conv2d(cin, cout, (1, kernel_size), has_bias=has_bias)

                nn.Conv1d = Conv1d
            """,
            "pkg/stem.py": """
                from mindspore import nn, ops
                class AudioStem(nn.Cell):
                    def __init__(self, mels, width):
                        super().__init__()
                        self.conv1 = nn.Conv1d(mels, width, 3)

                    def construct(self, x):
                        return ops.gelu(self.conv1(x))
            """}, note="the project replaces nn.Conv1d with its own class (a monkeypatch): MindSpore's default "
                       "says nothing about it"),
        Valid(files=_segmentation("nn.Conv2d(channels, num_labels, 1, has_bias=True)"),
              note="multi-file: the classifier conv of a segmentation head keeps its bias"),
        Valid(files=_segmentation("nn.Conv2d(channels, num_labels, 1)",
                                  after="self.norm(self.head(self.backbone(images)))"),
              note="multi-file look-alike: the model normalises the head's output before the loss"),
        Valid(files=_injected("True", "nn.Conv2d(3, 96, 4, stride=4)"),
              note="the project's replacement of nn.Conv2d takes MindSpore's parameters but gives has_bias "
                   "PyTorch's default: this conv has a bias"),
        Valid(files=_injected("False", "nn.Conv2d(3, 96, 4, stride=4, has_bias=True)"),
              note="the replacement keeps MindSpore's has_bias=False, and the bias is asked for"),
        Valid("""
            import torch.nn as nn
            import torch.nn.functional as F
            class AudioStem(nn.Module):
                def __init__(self, mels, width):
                    super().__init__()
                    self.conv1 = nn.Conv1d(mels, width, 3, padding=1)

                def forward(self, x):
                    return F.gelu(self.conv1(x))
        """, note="torch's Conv1d has a bias"),
    )
    INVALID = (
        Invalid(_head("nn.Conv2d(256, 256, 3)  # MSA108"),
                explicit_fixed=_head("nn.Conv2d(256, 256, 3, has_bias=False)"),
                unsafe_fixed=_head("nn.Conv2d(256, 256, 3, has_bias=True)"), note="a PyTorch head ported line by line"),
        Invalid("""
            from mindspore import nn
            class Stem(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.conv1 = nn.Conv2d(3, 32, 3, pad_mode='pad', padding=1)  # MSA108
                    self.pool = nn.MaxPool2d(2, 2)
                    self.act = nn.SiLU()

                def construct(self, x):
                    x = self.conv1(x)
                    x = self.pool(x)
                    x = self.act(x)
                    return x
        """, note="conv -> pool -> activation: the pool passes the missing shift on"),
        Invalid("""
            import mindspore.nn as nn
            head = nn.SequentialCell([nn.Conv2d(64, 64, 3), nn.ReLU(), nn.Conv2d(64, 1, 1)])  # MSA108
        """),
        Invalid("""
            from mindspore import nn, ops
            class AudioStem(nn.Cell):
                def __init__(self, mels, width):
                    super().__init__()
                    self.conv1 = nn.Conv1d(mels, width, 3, pad_mode='pad', padding=1)  # MSA108
                    self.conv2 = nn.Conv1d(width, width, 3, stride=2, pad_mode='pad', padding=1)  # MSA108

                def construct(self, x):
                    x = ops.gelu(self.conv1(x))
                    return ops.gelu(self.conv2(x))
        """, note="a functional activation (torch's F.gelu ported as ops.gelu) takes the output"),
        Invalid(files=_segmentation("nn.Conv2d(channels, num_labels, 1)  # MSA108"),
                message_contains="reaches the loss nn.CrossEntropyLoss as logits",
                note="multi-file: a final classifier conv with no norm after it: the head returns its output, the "
                     "model upsamples it and hands it to the loss as the logits (a ported HF/PyTorch head loses the "
                     "classifier bias, and the checkpoint's classifier.bias is not loaded)"),
        Invalid(files=_injected("False", "nn.Conv2d(3, 96, 4, stride=4)  # MSA108"),
                message_contains="nn.Conv2d here is the project's replacement, Conv2d at",
                note="the project replaces nn.Conv2d with its own class (an injection module), which keeps "
                     "MindSpore's parameters and has_bias=False: read as MindSpore's"),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        #: ``self.x = nn.Conv2d(...)`` calls without has_bias; the Cell map is only built for them
        self._attr_convs = set()
        self._parallel = set()

    def visit_Assign(self, node: cst.Assign) -> None:
        if not isinstance(node.value, cst.Call) or not any(
                isinstance(t.target, cst.Attribute) for t in node.targets):
            return
        name = conv_name(self.ctx, node.value)
        if name is not None and self._candidate(node.value, name):
            self._attr_convs.add(node.value)

    def finish(self) -> None:
        if not self._attr_convs:
            return
        for info in cells(self.ctx).classes.values():
            for attr in info.attrs.values():
                if attr.value not in self._attr_convs:
                    continue
                name = conv_name(self.ctx, attr.value)
                activation = self._attr_fate(info, attr.name, {attr.name})
                if activation is not None:
                    self._report(attr.value, name, activation)

    def _attr_fate(self, info, attr_name: str, seen, classes=frozenset()) -> Optional[str]:
        """The activation (or loss) the output of ``self.<attr_name>`` reaches before any norm,
        when every path is known; None when any path is unknown or normalised. An output the
        Cell returns is followed into the classes of the file that build it (``classes``: the
        ones on the way)."""
        consumers = info.consumers(attr_name)
        functions = info.functions.get(attr_name, set())
        returned = attr_name in info.returned
        if not (consumers or functions or returned) or attr_name in info.escapes_elsewhere:
            return None
        found = None
        if returned:
            found = self._returned_fate(info, classes | {info.name})
            if found is None:
                return None
        for function in sorted(functions, key=str):
            reached = activation_function(function)
            if reached is None:
                return None  # a function whose effect on a shift is not known
            found = found or reached
        for consumer in sorted(consumers):
            attr = info.attrs.get(consumer)
            if attr is None:
                return None
            if attr.callee in SEQUENTIAL:
                reached = self._sequence_fate(attr.element_nodes, 0)
            elif is_builtin_loss(attr.callee):
                reached = f"the loss self.{consumer} as logits"
            else:
                kind = step_kind(attr.callee, attr.value)
                if kind == "act":
                    reached = f"self.{consumer}"
                elif kind == "through" and consumer not in seen:
                    reached = self._attr_fate(info, consumer, seen | {consumer}, classes)
                else:
                    reached = None
            if reached is None:
                return None
            found = found or reached
        return found

    def _returned_fate(self, info, classes) -> Optional[str]:
        """Where the output a Cell returns goes: the activation or loss it reaches in every
        class of the file that builds the Cell (``self.head = Head(...)``), followed through
        their ``construct`` (reshapes and interpolation keep a per-channel shift); None when
        no class of the file builds it or any path is unknown or normalised."""
        found = None
        parents = [(parent, name) for parent in cells(self.ctx).classes.values() if parent.name not in classes
                   for name, attr in parent.attrs.items() if builds(attr.value, info.name)]
        if not parents:
            return None
        for parent, name in parents:
            reached = self._attr_fate(parent, name, {name}, classes)
            if reached is None:
                reached = self._loss_in_construct(parent, name)
            if reached is None:
                return None
            found = found or reached
        return found

    def _loss_in_construct(self, info, attr_name: str) -> Optional[str]:
        """``logits = self.head(x); logits = ops.interpolate(logits, ...); loss = loss_fct(logits,
        labels)``: the output of ``self.<attr_name>`` reaches a MindSpore loss as its logits
        (past reshapes and interpolation, in the construct of ``info``) and goes nowhere else
        but into the returned value."""
        construct = info.construct
        if construct is None:
            return None
        fl = flow(self.ctx, construct)
        held = set()
        losses = {}
        for name, defs in fl.defs.items():
            for d in defs:
                if isinstance(d.value, cst.Call) and is_builtin_loss(self.ctx.resolve(d.value.func)):
                    losses[name] = self.ctx.resolve(d.value.func)
        for event in fl.events:
            node = event.node
            if not isinstance(node, cst.Assign) or len(node.targets) != 1 \
                    or not isinstance(node.targets[0].target, cst.Name):
                continue
            value, target = node.value, node.targets[0].target.value
            if isinstance(value, cst.Call) and self_attr(value.func) == attr_name:
                held.add(target)
            elif keeps_shift(self.ctx, value, held):
                held.add(target)
            elif target in held:
                held.discard(target)
        for event in fl.events:
            node = event.node
            if not isinstance(node, cst.Call) or not node.args:
                continue
            first = node.args[0].value
            callee = self.ctx.resolve(node.func)
            local = node.func.value if isinstance(node.func, cst.Name) else None
            attr = self_attr(node.func)
            loss = losses.get(local) if local else (info.attrs[attr].callee if attr in info.attrs else callee)
            if isinstance(first, cst.Name) and first.value in held and (is_builtin_loss(loss) or
                                                                        (callee or "") in LOSS_FUNCTIONS):
                return f"the loss {(loss or callee or '').replace('mindspore.', '', 1)} as logits"
        return None

    def _sequence_fate(self, items, start: int) -> Optional[str]:
        for item in items[start:]:
            if not isinstance(item, cst.Call):
                return None
            callee = called(self.ctx, item)
            kind = step_kind(callee, item)
            if kind == "act":
                return callee.replace("mindspore.", "", 1)
            if kind == "stop":
                return None
        return None

    def visit_List(self, node: cst.List) -> None:
        if node not in self._parallel:
            self._sequence([e.value for e in node.elements if isinstance(e, cst.Element)])

    def visit_Tuple(self, node: cst.Tuple) -> None:
        if node not in self._parallel:
            self._sequence([e.value for e in node.elements if isinstance(e, cst.Element)])

    def visit_Call(self, node: cst.Call) -> None:
        callee = called(self.ctx, node)
        if callee == "mindspore.nn.SequentialCell":
            self._sequence([a.value for a in node.args if a.keyword is None and not a.star])
        elif callee == "mindspore.nn.CellList" and node.args:
            self._parallel.add(node.args[0].value)  # CellList elements need not run in order

    def _sequence(self, items) -> None:
        for index, current in enumerate(items):
            name = conv_name(self.ctx, current)
            if name is None or not self._candidate(current, name):
                continue
            activation = self._sequence_fate(items, index + 1)
            if activation is not None:
                self._report(current, name, activation)

    def _candidate(self, call: cst.Call, name: str) -> bool:
        return bias_left_default(call, name) and not transpose_size_differs(call, name)

    def _report(self, call: cst.Call, name: str, consumer: str) -> None:
        # a sequence inside a SequentialCell attr is seen both as a list and as an attr
        if any(r.node is call for r in self.reports):
            return
        short = name.replace("mindspore.", "", 1)
        self.report(call, f"{short} without has_bias has no bias in MindSpore (PyTorch's conv has one), and its "
                    f"output reaches {consumer} before any norm layer; write has_bias=True to keep the "
                    f"PyTorch layer, or has_bias=False if no bias is intended",
                    conv_fixes(call, {"has_bias": "False"}, {"has_bias": "True"}))
