"""MSA404 on the network a Cell is given and casts in ``__init__``: float16 training only
when this file trains that Cell (by Model.train, a step cell or value_and_grad)."""

from helpers import check

LOSS_CELL = """import mindspore as ms
from mindspore import nn

class NetWithLoss(nn.Cell):
    def __init__(self, backbone, loss_fn):
        super().__init__()
        self.backbone = backbone.to_float(ms.float16)
        self.loss_fn = loss_fn

    def construct(self, x, y):
        return self.loss_fn(self.backbone(x), y)

"""
CAST_LINE = 7


def lines(code):
    return [d.line for d in check(code, ["MSA404"]) if d.code == "MSA404"]


def test_value_and_grad_of_the_loss_cell_is_reported():
    code = LOSS_CELL + ("net_with_loss = NetWithLoss(build_net(), nn.MSELoss())\n"
                        "opt = nn.Adam(net_with_loss.trainable_params())\n"
                        "grad_fn = ms.value_and_grad(net_with_loss, None, opt.parameters)\n"
                        "for x, y in ds:\n    loss, grads = grad_fn(x, y)\n    opt(grads)\n")
    assert lines(code) == [CAST_LINE]


def test_a_loss_cell_only_evaluated_is_silent_though_another_model_trains():
    code = LOSS_CELL + ("def main(ds):\n"
                        "    scorer = ms.Model(NetWithLoss(build_net(), nn.MSELoss()))\n"
                        "    scorer.eval(ds)\n"
                        "    model = ms.Model(other_net, nn.MSELoss(), opt)\n"
                        "    model.train(3, ds)\n")
    assert lines(code) == []


def test_a_layer_the_cell_builds_itself_is_silent():
    code = LOSS_CELL.replace("self.backbone = backbone.to_float(ms.float16)",
                             "self.backbone = nn.Dense(4, 4).to_float(ms.float16)")
    code += "model = ms.Model(NetWithLoss(None, nn.MSELoss()), optimizer=opt)\nmodel.train(3, ds)\n"
    assert lines(code) == []


def test_the_loss_cell_wrapped_again_is_followed():
    code = LOSS_CELL + ("step = nn.TrainOneStepCell(nn.WithGradCell(NetWithLoss(build_net(), nn.MSELoss())), opt)\n"
                        "for x, y in ds:\n    step(x, y)\n")
    assert lines(code) == [CAST_LINE]
