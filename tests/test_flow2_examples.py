"""The bundled mixed-precision example shows the flow rules of mp.* / cg.* / wi.*."""

from pathlib import Path

from helpers import check

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "train_mixed_precision.py"


def test_mixed_precision_example_reports_its_bugs():
    text = EXAMPLE.read_text()
    found = {(d.code, d.line) for d in check(text, ["MSA401", "MSA402", "MSA403", "MSA404", "MSA405", "MSA501",
                                                     "MSA502", "MSA503", "MSA505", "MSA506"], path=str(EXAMPLE))}
    lines = text.splitlines()

    def line_of(marker):
        return next(i for i, line in enumerate(lines, 1) if marker in line)

    expected = {("MSA503", line_of("# MSA503")), ("MSA505", line_of("# MSA505")), ("MSA506", line_of("# MSA506")),
                ("MSA401", line_of("# MSA401")), ("MSA403", line_of("# MSA403"))}
    assert found == expected


def test_fixing_the_order_silences_msa401():
    text = EXAMPLE.read_text()
    clip = "    grads = ops.clip_by_global_norm(grads, 1.0)               # MSA401: still scaled\n"
    unscale = "    grads = loss_scaler.unscale(grads)\n"
    assert clip + unscale in text
    swapped = text.replace(clip + unscale, unscale + clip)
    assert [d for d in check(swapped, ["MSA401"]) if d.code == "MSA401"] == []
