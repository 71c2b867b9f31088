"""Small helpers the tests share."""

from msacclint.engine import registry
from msacclint.engine.fixes import fix_source
from msacclint.engine.runner import check_source
from msacclint.engine.settings import Settings


def settings(codes=None, **kw):
    enabled = frozenset(codes) if codes is not None else frozenset(registry.all_codes())
    return Settings(enabled=enabled, **kw)


def check(code_text, codes=None, path="train.py", **kw):
    return check_source(code_text, path, settings(codes, **kw))


def fixed(code_text, codes, unsafe=False, **kw):
    s = settings(codes, **kw)
    text, _ = fix_source(code_text, lambda t: check_source(t, "train.py", s), unsafe=unsafe)
    return text
