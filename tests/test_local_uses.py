"""analysis/local_uses.py: every use of a local name in a function, classified."""

import libcst as cst
from helpers import settings

from msacclint.analysis.context import FileContext
from msacclint.analysis.imports import ImportTable
from msacclint.analysis.local_uses import local_uses

CODE = """\
import mindspore as ms

def export_last(path, x):
    net = Net()
    net.set_train(False)
    ms.load_param_into_net(net, ms.load_checkpoint(path))
    ms.export(net, x, file_name="net", file_format="MINDIR")
    model = ms.Model(net, optimizer=net)
    def inner():
        return net
    return net.trainable_params()[0] + 1, [net]
"""


def test_each_use_is_classified_with_its_call():
    module = cst.parse_module(CODE)
    ctx = FileContext(path="export.py", source=CODE, module=module, imports=ImportTable.from_module(module),
                      settings=settings())
    function = module.body[1]
    uses = [(u.kind, u.callee, u.position, u.keyword) for u in local_uses(ctx, function, "net")]
    assert uses == [
        ("assigned", None, None, None),
        ("receiver", "set_train", None, None),
        ("argument", "mindspore.load_param_into_net", 0, None),
        ("argument", "mindspore.export", 0, None),
        ("argument", "mindspore.Model", 0, None),
        ("argument", "mindspore.Model", None, "optimizer"),
        ("other", None, None, None),   # the closure ``inner`` reads the outer object
        ("receiver", "trainable_params", None, None),
        ("other", None, None, None),   # a list element
    ]


def test_a_nested_function_with_its_own_parameter_of_that_name_is_not_a_use():
    code = "def f():\n    net = Net()\n    def g(net):\n        return net\n    return g\n"
    module = cst.parse_module(code)
    ctx = FileContext(path="f.py", source=code, module=module, imports=ImportTable.from_module(module),
                      settings=settings())
    assert [u.kind for u in local_uses(ctx, module.body[0], "net")] == ["assigned"]
