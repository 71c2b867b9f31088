"""MSA101 (MS-DROP-01, error): a dropout value that reads as the wrong probability — a drop rate
given as keep_prob (``nn.Dropout(0.1)``, ``nn.Dropout(drop_rate)``, ``keep_prob=drop_rate``), or a
keep probability given as p (``p=1 - proj_drop``, ``p=keep_prob``, ``p=0.9``)."""

from __future__ import annotations

import libcst as cst

from msacclint.analysis.calls import is_number, literal
from msacclint.analysis.liveness import forward_owner
from msacclint.analysis.names import one_minus, says_keep
from msacclint.diagnostics import Applicability, Severity
from msacclint.rules.api.dropout_values import (
    DROPOUT,
    DROPOUT_KEEP_APIS,
    DROPOUT_PRIMITIVES,
    FUNCTIONAL_DROPOUT,
    DropoutRule,
    keep_named,
    keep_reads_as_drop,
    numeric,
    p_fix,
    p_reads_as_keep,
    reading_value,
    reads_wrong,
    silent_keep,
    silent_p,
    with_p,
)
from msacclint.rules.base import FixSpec, Invalid, Valid
from msacclint.rules.examples import fill
from msacclint.rules.fixtures.api import (
    DROPOUT_PRIMITIVE_CELL,
    GRAPHORMER_ATTENTION,
    GRAPHORMER_CONFIG,
    LONG_ATTENTION,
    MODEL_READING_CONFIG,
    cell_dropout,
    config_case,
    ext_cell,
    forwarded_head,
    head_call_site,
    long_case,
    nn_dropout,
    own_dropout,
)
from msacclint.rules.fixtures.dropout_flags import flag_case
from msacclint.rules.fixtures.reach import computed_import, demo_block, helper_switch, uncalled_method
from msacclint.rules.table import called

#: the layer of the examples about what runs (msacclint.rules.fixtures.reach): the bug and its fix
_DROP, _FIXED = "nn.Dropout(0.1)  # MSA101", "nn.Dropout(p=0.1)"

class DropoutWrongProbability(DropoutRule):
    functional = True
    code = "MSA101"
    name = "dropout-wrong-probability"
    checklist = "api.01"
    severity = Severity.ERROR
    group = "correctness"
    evidence = ('The value is resolved: a literal, a module constant, a local assignment, a parameter default, what '
                'the callers pass, or a config value shows a drop rate given as keep_prob (or a keep probability given '
                'as p); a name and its default must agree. The positional port `nn.Dropout(drop_rate)` whose value '
                'could not be resolved is reported from its name alone as a warning that says so (on held-out code '
                'such name-only findings were true 3 times in 26: the names of model zoos hold keep probabilities as '
                'often as drop rates); it is info when every value the project gives is one that the branch around '
                'the call excludes (`if config.dropout_p:` with a default of 0.0). Calls inside `construct` (MSA204), calls that also pass `p=` and values it '
                'cannot read are not reported.')
    message = "nn.Dropout is given a drop rate where it expects a keep probability"
    what = ("Reports `nn.Dropout` calls whose value reads as the other probability: a drop rate "
            "passed as keep_prob (first positional argument, or `keep_prob=`) — a literal below "
            "0.5 or a name that says drop — and a keep probability passed as `p=` — `1 - <drop "
            "name>`, a name that says keep, or a literal above 0.5. The functional `ops.dropout` and "
            "`mint.nn.functional.dropout` take the drop probability (`p`, their second argument) and are read "
            "the same way, as is the `DropoutExt` primitive that a Cell builds in `__init__` and calls with `p` "
            "in `construct`.")
    why = ("In MindSpore 2.10 `nn.Dropout`'s first parameter is still `keep_prob`. A PyTorch "
           "`nn.Dropout(0.1)` ported as is keeps 10 % of the activations and scales them by 10: "
           "heavy noise that slows or stops convergence, with no warning. The reverse mistake "
           "appears after a mechanical keep_prob→p migration: `p=1 - drop` drops almost "
           "everything.")
    example = """
        import mindspore.nn as nn
        self.drop = nn.Dropout(0.1)           # MSA101: keeps 10 %
        self.attn = nn.Dropout(p=1 - attn_drop)
    """
    use_instead = """
        import mindspore.nn as nn
        self.drop = nn.Dropout(p=0.1)
        self.attn = nn.Dropout(p=attn_drop)
    """
    fix_safety = ("Unsafe: the fix changes behaviour to what the code most likely meant "
                  "(`nn.Dropout(0.1)` becomes `nn.Dropout(p=0.1)`).")
    VALID = (
        Valid(nn_dropout("p=0.1")),
        Valid(nn_dropout("keep_prob=0.9")),
        Valid(nn_dropout("1 - drop_rate"), note="reported by MSA102, not MSA101"),
        Valid(files=own_dropout("1 - 0.1"), note="multi-file: the project's keep_prob Dropout given 1 - rate"),
        Valid(files=ext_cell("drop_prob"), note="multi-file: the DropoutExt Cell hands on its drop probability"),
        Valid(files=ext_cell("keep_prob", rate="0.5"),
              note="multi-file look-alike: every call passes 0.5, a keep probability equal to the drop one"),
        Valid(files=own_dropout("0.1", param="p", inner="nn.Dropout(p=p)"),
              note="multi-file look-alike: the project's own Dropout hands its parameter to nn.Dropout's p, a drop "
                   "rate"),
        Valid("""
            import mindspore.nn as nn

            class GAT(nn.Cell):
                def construct(self, attention):
                    return nn.Dropout(0.1)(attention)
        """, note="built inside construct: inert in any mode, MSA204's finding, not a keep_prob mistake"),
        Valid("""
            import mindspore.nn as nn
            class Fusion(nn.Cell):
                def __init__(self, dropout=0.1):
                    super().__init__()
                    self.drop = nn.Dropout(dropout, p=dropout)
        """, note="p= given too: MindSpore reads p and ignores the positional keep_prob"),
        Valid("""
            import mindspore.nn as nn

            class Block(nn.Cell):
                def __init__(self, drop_rate):
                    super().__init__()
                    self.drop = nn.Dropout(drop_rate)

            def build(drop_rate=0.1):
                return Block(1 - drop_rate)
        """, note="the only caller passes 1 - drop_rate: the parameter holds a keep probability, whatever its name"),
        Valid("""
            import mindspore.nn as nn

            class FeedForward(nn.Cell):
                def __init__(self, dim, dropout=1.0):
                    super().__init__()
                    self.drop = nn.Dropout(dropout)

            class Block(nn.Cell):
                def __init__(self, dim, dropout):
                    super().__init__()
                    self.ff = FeedForward(dim, dropout=dropout)
        """, note="the caller's value is unknown: the name and the default (a keep probability, 1.0) decide together"),
        Valid("""
            import mindspore.nn as nn
            DROPOUT_RATE = 0.7

            class MLP(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.drop = nn.Dropout(DROPOUT_RATE)
        """, note="a module constant is judged by its value (keep 0.7, MSA102's warning), not by its name"),
        Valid(nn_dropout("")),
        Valid("""
            import torch.nn as nn
            drop = nn.Dropout(0.1)
        """),
        Valid("""
            from mindspore import mint
            drop = mint.nn.Dropout(0.1)
        """),
        Valid("""
            import mindspore.nn as nn
            drop = nn.Dropout2d(0.1)  # Dropout2d's p is a drop rate
        """),
        Valid("""
            from tensorflow.keras.layers import Dropout
            drop = Dropout(0.1)
        """),
        Valid("""
            import mindspore
            class Dropout:
                def __init__(self, p): ...
            drop = Dropout(0.1)
        """),
        Valid(nn_dropout("p=cfg.dropout")),
        Valid("""
            import mindspore.nn as nn
            def head(training):
                dropout_ratio = 0.5
                if not training:
                    dropout_ratio = 1.0
                return nn.Dropout(p=1 - dropout_ratio)
        """, note="the local name says drop but is only ever assigned keep values: p is 0.5 or 0"),
        Valid("""
            import mindspore.nn as nn
            def head(dropout_rate=0.2):
                dropout_rate = 1 - dropout_rate
                return nn.Dropout(p=1 - dropout_rate)
        """, note="the name was turned into a keep probability first: p is the original rate"),
        Valid("""
            import mindspore.nn as nn
            class PositionalEncoding(nn.Cell):
                def __init__(self, d_model=512, dropout=0.9):
                    super().__init__()
                    self.dropout = nn.Dropout(p=1 - dropout)
        """, note="the parameter's default (0.9) says it holds a keep probability, whatever its name"),
        Valid("""
            import mindspore.nn as nn
            class InceptionAux(nn.Cell):
                def __init__(self, drop_rate=0.7):
                    super().__init__()
                    self.dropout = nn.Dropout(p=drop_rate)
        """, note="GoogLeNet's auxiliary head drops 70 %: name and default agree on a drop rate"),
        Valid(nn_dropout("keep_prob=cfg.dropout_prob"),
              note="keep_prob= written out, value unknown: model zoos call keep probabilities 'dropout_prob'"),
        Valid(nn_dropout("p=1 - config.transformer_dropout_rate"),
              note="how the keep_prob -> p migration wrote a keep probability; the name alone cannot tell"),
        Valid(files=head_call_site("p", "0.2"), note="multi-file: correct call site"),
        Valid(files=flag_case("0.1"), note="multi-file: the script's --dropout flag is a drop rate, handed to p="),
        Valid(files=flag_case("0.9", passed="1 - args.dropout"),
              note="multi-file look-alike: a keep-probability flag, turned into the drop rate where it is handed on"),
        Valid(files=head_call_site("keep_prob", "0.9"), note="multi-file: lookalike keep value"),
        Valid(files=config_case("ratio", "0.9"), note="multi-file: lookalike yaml keep"),
        Valid(files={
        "graphormer/__init__.py": "",
        "graphormer/configuration_graphormer.py": GRAPHORMER_CONFIG,
        "graphormer/modeling_graphormer.py": fill(GRAPHORMER_ATTENTION, p="1 - config.attention_keep_prob", mark=""),
        }, note="a config attribute that holds a keep probability, given as 1 - keep (another file)"),
    )
    VALID = VALID + (
        Valid(files=forwarded_head("0.9"),
              note="multi-file lookalike: what every caller forwards is a keep probability"),
        Valid("""
            from mindspore import ops

            def attend(probs, attn_drop=0.1, training=True):
                return ops.dropout(probs, p=attn_drop, training=training)
        """, note="functional dropout given its drop rate"),
        Valid("""
            from mindspore import ops

            def attend(probs, keep_prob=0.9, training=True):
                return ops.dropout(probs, p=1 - keep_prob, training=training)
        """, note="look-alike: 1 - a keep probability is the drop rate"),
        Valid("""
            import torch.nn.functional as F

            def attend(probs, attn_drop=0.1):
                return F.dropout(probs, 1 - attn_drop)
        """, note="torch's functional dropout is not MindSpore's"),
        Valid(files=config_case("transformer_dropout_rate", "0.9"),
              note="multi-file: a config key named for a drop rate that holds a keep probability (0.9): the value "
                   "decides, not the name"),
        Valid(DROPOUT_PRIMITIVE_CELL.format(attr="drop_prob", mark=""),
              note="the DropoutExt primitive given its drop probability"),
        Valid(DROPOUT_PRIMITIVE_CELL.replace("ops.auto_generate.DropoutExt()", "ops.Dropout(keep_prob=1.0 - drop_prob)")
              .replace("x, p=self.{attr}, seed=self.seed, offset=self.offset", "x")
              .format(attr="keep_prob", mark=""),
              note="the older Dropout primitive takes keep_prob in its constructor"),
        Valid(nn_dropout("0.9, 0.1"),
              note="a second positional argument is p, which MindSpore uses: the first is never read"),
        Valid(files=long_case("self.dropout"),
              note="multi-file: the config's attention rate kept on self and given to the functional dropout as p"),
        Valid(files=dict(long_case("1-self.dropout"), **{"model/modeling.py": fill(LONG_ATTENTION, p="1-self.dropout",
                                                                                   mark="") + """
    def set_keep(self, keep):
        self.dropout = keep
"""}), note="the attribute is reassigned by another method: __init__'s value is not the only one it holds"),
        Valid(nn_dropout("0.1, False"),
              note="a bool as p raises TypeError when the layer is built: loud, not silent"),
    )
    INVALID = (
        Invalid("""
            import mindspore.nn as nn
            class Head(nn.Cell):
                def __init__(self, c, drop_rate=0.0):
                    super().__init__()
                    if drop_rate > 0:
                        self.drop = nn.Dropout(p=1 - drop_rate)  # MSA101
        """, severity=Severity.WARNING, message_contains="its only value found makes p=1",
                note="p=1 - rate whose only value, 0, would raise: the callers' rates are misread (a warning)"),
        Invalid(DROPOUT_PRIMITIVE_CELL.format(attr="keep_prob", mark="  # MSA101"),
                note="a keep probability carried over to the DropoutExt primitive's p"),
        Invalid("""
            from mindspore import ops

            def attend(probs, attn_drop=0.1, training=True):
                return ops.dropout(probs, p=1 - attn_drop, training=training)  # MSA101
        """, note="a keep_prob=1 - rate port carried over to the functional dropout's p"),
        Invalid("""
            from mindspore import mint

            def attend(probs, attention_keep_prob=0.9):
                return mint.nn.functional.dropout(probs, attention_keep_prob)  # MSA101
        """, note="a keep probability as the second argument"),
        Invalid(files=forwarded_head("0.1", mark="  # MSA101"), severity="error",
                note="multi-file: the rate reaches the class through a builder's **kwargs"),
        Invalid(files={
        "graphormer/__init__.py": "",
        "graphormer/configuration_graphormer.py": GRAPHORMER_CONFIG,
        "graphormer/modeling_graphormer.py": fill(GRAPHORMER_ATTENTION, p="1 - config.attention_dropout",
                                                  mark="  # MSA101"),
        }, note="a drop rate from an annotated config class of another file, flipped into a keep probability"),
        Invalid(nn_dropout("0.1", "  # MSA101"), fixed=nn_dropout("0.1"), unsafe_fixed=nn_dropout("p=0.1")),
        Invalid(nn_dropout("p=0.9", "  # MSA101"), severity=Severity.WARNING,
                message_contains="assumed from the value alone: p=0.9 drops 90 %",
                note="a drop probability of 0.9 written as a number: only its size says it was a keep probability "
                     "(a warning that says so)"),
        Invalid("""
            import mindspore.nn as nn
            class Block(nn.Cell):
                def __init__(self, drop_rate):
                    super().__init__()
                    self.drop = nn.Dropout(drop_rate)  # MSA101
        """),
        Invalid("""
            import mindspore.nn as nn
            class Block(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.head = self._make_head()

                def _make_head(self):
                    return nn.SequentialCell([nn.Dense(8, 8), nn.Dropout(0.1)])  # MSA101

                def construct(self, x):
                    return self.head(x)
        """, note="built by a helper of __init__: a live layer, unlike one built in construct"),
        Invalid("""
            import mindspore.nn as nn

            class Block(nn.Cell):
                def __init__(self, drop_rate):
                    super().__init__()
                    self.drop = nn.Dropout(drop_rate)  # MSA101

            def build():
                return Block(0.1)
        """, note="the caller passes a drop rate: the port keeps 10 %"),
        Invalid("""
            import mindspore.nn as nn
            DROPOUT_RATE = 0.3

            class MLP(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.drop = nn.Dropout(DROPOUT_RATE)  # MSA101
        """, note="a module constant below 0.5: keeps 30 %"),
        Invalid("""
            import mindspore.nn as nn
            def head():
                drop_rate = 0.2
                return nn.Dropout(keep_prob=drop_rate)  # MSA101
        """, unsafe_fixed="""
            import mindspore.nn as nn
            def head():
                drop_rate = 0.2
                return nn.Dropout(p=drop_rate)
        """),
        Invalid("""
            import mindspore.nn as nn
            def proj(proj_drop=0.1):
                return nn.Dropout(p=1 - proj_drop)  # MSA101
        """, unsafe_fixed="""
            import mindspore.nn as nn
            def proj(proj_drop=0.1):
                return nn.Dropout(p=proj_drop)
        """),
        Invalid("""
            from mindspore.nn import Dropout as D
            drop = D(p=0.9)  # MSA101
        """),
        Invalid(nn_dropout("p=keep_prob", "  # MSA101")),
        Invalid("""
            import mindspore.nn as nn
            def rnn(dropout=0.1):
                return nn.Dropout(p=float(1 - dropout))  # MSA101
        """),
        Invalid("""
            import mindspore.nn as nn
            def head():
                rate = 0.1
                return nn.Dropout(rate)  # MSA101
        """),
        Invalid(cell_dropout("Head", "c, drop_rate", "drop", "drop_rate", "  # MSA101"), severity=Severity.WARNING, message_contains="assumed from the name drop_rate",
                note="a drop-sounding name whose value is not resolved: a warning that says what it assumed"),
        Invalid(cell_dropout("Attention", "dim, attn_drop=0.0", "attn_drop", "attn_drop", "  # MSA101"), severity=Severity.WARNING, message_contains="its only value found, 0, raises",
                note="a drop name whose default 0.0 would raise as keep_prob: a warning about the callers' values"),
        Invalid(cell_dropout("Attention", "dim, attn_drop=0.0", "attn_drop", "attn_drop", "  # MSA101")
                + "\nblock = Attention(64, attn_drop=0.1)\n", note="the same layer given 0.1 by its caller: resolved, an error"),
        Invalid(files=head_call_site("keep_prob", "0.2", mark="  # MSA101", extra="self.fc = nn.Dense(c, 2)"),
                note="multi-file: bug call site"),
        Invalid(files=ext_cell("keep_prob", mark="  # MSA101"),
                note="multi-file: a value decided elsewhere: the keep probability a DropoutExt Cell computes "
                     "(1 - drop_prob, default 0.5) is handed on as p; the callers' rates come from configs the "
                     "linter cannot read, and the neutral default shows nothing, so the names decide"),
        Invalid(files=own_dropout("0.1", mark="  # MSA101"), message_contains="hands its keep_prob to ops.Dropout",
                note="multi-file: the project's own Dropout (another file) hands its first parameter to "
                     "ops.Dropout's keep_prob; a drop rate passed to it is the keep_prob mistake"),
        Invalid(files={"src/__init__.py": "", "src/config.py": "RATE = 0.1\n",
                       "src/model.py": fill(MODEL_READING_CONFIG, package="src", key="RATE", mark="  # MSA101")},
                note="multi-file: bug constant module"),
        Invalid(files=config_case("ratio", "0.1", "  # MSA101"), note="multi-file: bug yaml"),
        Invalid(files=flag_case("0.9", mark="  # MSA101"), message_contains="the value is 0.9 at",
                note="multi-file: the model says p= (the keep/p migration), but the training script's --dropout "
                     "flag still defaults to the keep probability 0.9, which reaches p"),
        Invalid(files=flag_case("0.1", param="keep_prob", default="0.9", keyword="keep_prob", mark="  # MSA101"),
                note="multi-file: the other way round: the flag's drop rate 0.1 reaches keep_prob="),
        Invalid(files={
            "src/__init__.py": "",
            "src/head.py": """
                import mindspore.nn as nn

                class Head(nn.Cell):
                    def __init__(self, channels, num_classes=1000, has_dropout=False):
                        super(Head, self).__init__()
                        layers = [nn.Flatten(), nn.Dropout(0.2)] if has_dropout else [nn.Flatten()]  # MSA101
                        self.head = nn.SequentialCell(layers)
                        self.fc = nn.Dense(channels, num_classes)
            """,
            "src/net.py": """
                from src.head import Head

                head = Head(1280, num_classes=10)
            """,
        }, severity=Severity.WARNING, message_contains="dormant: built only when `has_dropout` turns it on",
            note="multi-file: the layer exists only when a switch is on that no caller in the project turns on: "
                 "a dormant warning (a caller passing has_dropout=True makes it an error)"),
        Invalid(files=long_case("1-self.dropout", "  # MSA101"), severity=Severity.WARNING,
                message_contains="assumed: the unannotated config parameter is a LongConfig",
                note="multi-file: an unannotated config parameter read as the one config class the file imports "
                     "(a warning that says so), its rate kept on self, flipped into p"),
    )
    # what runs (msacclint.project.reach): the same drop rate where only a demo block, a value no
    # run supplies, or nothing at all reaches it is dormant, a warning that says why
    VALID = VALID + (
        Valid(files=demo_block(_FIXED), note="multi-file: the fix, in a class only a demo block builds"),
        Valid(files=computed_import(_FIXED, fine=_FIXED), note="multi-file: the fix, in a module a computed name loads"),
        Valid(files=uncalled_method(_FIXED), note="multi-file: the fix, in a method nothing calls"),
        Valid(files=helper_switch(_FIXED), note="multi-file: the fix, behind a switch no training run turns on"),
    )
    INVALID = INVALID + (
        Invalid(files=demo_block(_DROP), severity=Severity.WARNING, message_contains="neither trains nor evaluates",
                note="multi-file: only the model module's own main block builds Gate, feeding it a random tensor "
                     "and printing a shape; the repository's training run builds Head: dormant"),
        Invalid(files=demo_block(_DROP, trained="Gate"), note="multi-file look-alike: a run that trains Gate"),
        Invalid(files=computed_import(_DROP, fine=_FIXED), severity=Severity.WARNING,
                message_contains="no value supplied for it names models.large",
                note="multi-file: train.py loads models.<args.arch>, and the argparse default is small: "
                     "models/large.py is dormant"),
        Invalid(files=computed_import(_DROP, fine=_FIXED, run="--arch large"),
                note="multi-file look-alike: a command line of the repository passes --arch large"),
        Invalid(files=uncalled_method(_DROP), severity=Severity.WARNING,
                message_contains="nothing the repository runs calls the method `Net.spare_head`",
                note="multi-file: Net is trained, but nothing calls its method spare_head"),
        Invalid(files=uncalled_method(_DROP, call='getattr(net, "spare_head")()'),
                note="multi-file look-alike: the training run calls it through getattr with its name"),
        Invalid(files=helper_switch(_DROP), severity=Severity.WARNING,
                message_contains="built only when `legacy` turns it on",
                note="multi-file: only net_v1 passes legacy=True, and the training run builds net_v2"),
        Invalid(files=helper_switch(_DROP, trained="net_v1"), note="multi-file look-alike: the training run builds net_v1"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        super().visit_Call(node)
        if self.ctx.project is not None and node.args and \
                not (called(self.ctx, node) or "mindspore.").startswith("mindspore."):
            self._project_dropout(node)

    def _project_dropout(self, call: cst.Call) -> None:
        """``Dropout(config.hidden_dropout_prob)`` where ``Dropout`` is a class of another file
        of the project whose parameter goes, unchanged, to a MindSpore dropout's ``keep_prob``
        (``ops.Dropout(keep_prob)``, ``nn.Dropout(keep_prob=...)``): the argument is a keep
        probability, whatever the class is called, and one that reads as a drop rate is the
        keep_prob mistake of ``nn.Dropout(drop_rate)``."""
        from msacclint.analysis.imports import dotted
        from msacclint.analysis.snapshot import signatures_for

        name = dotted(call.func)
        project = self.ctx.project
        found = project.resolve_from(self.ctx, name) if name is not None else None
        if found is None or found[0] != "class" or not found[2].params:
            return
        path, cls = found[1], found[2]
        params = [p for p, _ in cls.params]
        positional = [a for a in call.args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
        arg, param = (positional[0], params[0]) if positional else next(
            ((a, k) for k, a in keywords.items() if k in params), (None, None))
        if arg is None or any(a.star for a in call.args):
            return
        kept = [(api, where) for api, role, where in project.handed_to(path, cls, param,
                                                                          signatures_for(self.ctx.settings))
                if role == "keep_prob" and (api in DROPOUT_KEEP_APIS)]
        if not kept:
            return
        if forward_owner(self.ctx, self.scope) is not None:
            return
        self._layer = DROPOUT
        alternatives = self.readings(arg.value, call)
        if not reads_wrong(alternatives, keep_reads_as_drop):
            return
        resolved = reads_wrong(alternatives, keep_reads_as_drop, silent_keep)
        api, where = kept[0]
        shown = cst.Module([]).code_for_node(arg.value)
        short = api.replace("mindspore.", "", 1)
        assumed = "" if resolved else (f" (assumed from the name {shown}: no value of it was resolved; a value of "
                                       "0.5 or more would be a keep probability, as intended)")
        self.report(call, f"{name}({shown}): {cls.name} ({where.where()}) hands its {param} to {short}'s "
                    f"keep_prob, the KEEP probability, so this drops {self._drop_share(literal(arg.value))}; pass "
                    f"the keep probability, 1 - {shown}{assumed}", severity=None if resolved else Severity.WARNING,
                    related=[(where.path, where.line, f"{cls.name} hands {param} to {short}'s keep_prob")])

    def check(self, call, keep, p, by_position):
        if keep is not None:
            value = literal(keep.value)
            # keep_prob= written out is a deliberate choice: a drop-sounding name alone does not
            # outweigh it (model zoos name keep probabilities "dropout_prob"); a value does
            evidence = None if by_position else silent_keep
            alternatives = self.readings(keep.value, call)
            if reads_wrong(alternatives, keep_reads_as_drop, evidence):
                how = "its first argument" if by_position else "keep_prob"
                shown = cst.Module([]).code_for_node(keep.value)
                # an error needs a value; a drop-sounding name alone is an assumption
                # (a keep_prob of 0 raises when the layer is built: such a value is no evidence)
                resolved = reads_wrong(alternatives, keep_reads_as_drop, silent_keep)
                raising = any(reading_value(*r) is not None and not silent_keep(r) for g in alternatives for r in g)
                assumed = "" if resolved else (
                    f" (assumed from the name {shown}: " + ("its only value found, 0, raises when the layer is "
                                                              "built, so only the values callers pass can drop "
                                                              "silently" if raising else "no value of it was resolved")
                    + "; a value of 0.5 or more would be a keep probability, as intended)")
                severity = None if resolved else Severity.WARNING
                if resolved and self._assumption():
                    severity, assumed = Severity.WARNING, self._assumption()
                if not resolved and self._excluded:
                    shown_values = sorted({f"{v.value:g}" + (f" at {v.evidence.where()}" if v.evidence else "")
                                           for v in self._excluded})
                    assumed += (f" (info: every value the project gives it ({', '.join(shown_values[:3])}) is one "
                                "the branch around this call excludes, so the layer is built only with a rate "
                                "configured elsewhere)")
                    severity = Severity.INFO
                self.report(call, f"nn.Dropout({'' if by_position else 'keep_prob='}{shown}): {how} is the KEEP "
                            f"probability in MindSpore, so this drops {self._drop_share(value)}; "
                            f"for a drop rate write p={shown}{assumed}",
                            p_fix(f"pass it as p={shown}", Applicability.UNSAFE, call, keep, keep.value),
                            severity=severity)
                return
        if p is not None:
            self.check_p(call, p)

    def check_p(self, call: cst.Call, p: cst.Arg) -> None:
        """``p`` of nn.Dropout or of a functional dropout: a keep probability given as the
        drop probability."""
        inner = one_minus(p.value)
        # p=1 - <drop name> is how keep_prob=<x> was migrated to p: the name alone cannot say
        # whether x held a keep probability all along; a value, or p=<keep name>, can
        evidence = lambda r: silent_p(r) or keep_named(r)  # noqa: E731  (p=1 raises: loud)
        alternatives = self.readings(p.value, call)
        if says_keep(p.value) and one_minus(p.value) is None and alternatives and \
                all(group and all(p_reads_as_keep(r) for r in group) for group in alternatives):
            # ``p=self.keep_prob``: the code names the value a keep probability, and every value
            # it is followed to agrees (``keep_prob = 1.0 - drop_prob``)
            alternatives = [group + [(p.value, False)] for group in alternatives]
        severity, assumed = None, ""
        if not reads_wrong(alternatives, p_reads_as_keep, evidence):
            # the only values found make p=1 (a rate of 0 under ``p=1 - rate``), which raises when
            # the layer is built: the value shows what the name means (a drop rate), but only the
            # other values callers may pass are misread silently
            if not reads_wrong(alternatives, p_reads_as_keep, numeric):
                return
            severity = Severity.WARNING
            assumed = (" (its only value found makes p=1, which raises when the layer is built, so only the "
                       "values callers pass are misread silently)")
        if self._assumption():
            severity, assumed = Severity.WARNING, assumed + self._assumption()
        written = literal(p.value)
        if inner is None and not says_keep(p.value) and is_number(written):
            # a drop probability written as a number: only its size says it was meant as a keep
            # probability (p=0.7 may be a deliberate strong drop); the intent is an assumption
            severity = Severity.WARNING
            assumed += (f" (assumed from the value alone: p={written:g} drops {round(written * 100):g} %, an unusual "
                        "rate; if it is intended, nothing is wrong)")
        shown = cst.Module([]).code_for_node(p.value)
        fix = None
        if inner is not None:
            # a positional p keeps its place (arguments may follow it)
            fixed = with_p(call, p, inner) if p.keyword is not None else call.with_changes(
                args=[a.with_changes(value=inner) if a is p else a for a in call.args])
            if fixed is not None:
                fix = FixSpec(f"use p={cst.Module([]).code_for_node(inner)}", Applicability.UNSAFE, [(call, fixed)])
        name = FUNCTIONAL_DROPOUT.get(self._layer) or DROPOUT_PRIMITIVES.get(self._layer, "nn.Dropout")
        if p.keyword is None:
            self.report(call, f"{name}(..., {shown}): its second argument is the DROP probability, but this "
                        f"value reads as a keep probability{assumed}", fix, severity=severity)
            return
        self.report(call, f"{name}(p={shown}): p is the DROP probability, but this value reads "
                    f"as a keep probability{assumed}", fix, severity=severity)

    @staticmethod
    def _drop_share(value) -> str:
        if is_number(value):
            return f"{round((1 - value) * 100):g} % of the activations"
        return "1 minus the intended rate"

