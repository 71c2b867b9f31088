"""Codes the engine itself reports: input it could not check, and rules that crashed."""

from msacclint.diagnostics import Severity
from msacclint.rules.base import Rule


class UncheckableFile(Rule):
    code = "MSA001"
    checklist = "tool.01"
    severity = Severity.ERROR
    group = "tool"
    evidence = ("The parser's or the decoder's own error on this file.")
    name = "uncheckable-file"
    message = "file could not be checked"
    what = ("Reports a file that msacclint could not read as Python source: a syntax error, "
            "bytes that are not UTF-8, NUL bytes, or a file that vanished or cannot be opened; and, once per "
            "run, input the project layer could not read (a malformed, huge or alias-bomb YAML file). "
            "A file is reported once, however many checks meet it; when the project layer could not read it "
            "either, the message adds that what it defines is unknown to other files. "
            "What the project layer notes about the code, not its input, is info: a module "
            "shadowed by a package, and a config file the code reads that is not in the repository (the "
            "message names it and the line that reads it; a file the code writes is never looked up). "
            "Circular imports are valid Python and never reported: they are followed as Python runs them.")
    why = ("A file that is silently skipped is a file whose accuracy problems nobody sees. "
           "The run goes on with the other files; this finding says which one was left out and why.")
    example = "import mindspore.nn as nn\n\n\ndef train(:\n    pass\n"
    use_instead = ("# Fix the syntax error or the encoding (save the file as UTF-8), or exclude the file.\n"
                   "import mindspore.nn as nn\n\n\ndef train():\n    pass\n")


class RuleCrashed(Rule):
    code = "MSA002"
    checklist = "tool.02"
    severity = Severity.ERROR
    group = "tool"
    evidence = ('The exception itself: the rule raised on this file.')
    name = "rule-crashed"
    message = "internal error in a rule"
    what = "Reports that one rule raised an exception on a file, naming the rule and the error."
    why = ("An internal error must neither stop the run nor hide what the other rules found. "
           "Please report it with the file that triggers it.")
    example = "(no example: this code means msacclint has a bug)"
    use_instead = "Report the bug; meanwhile `--ignore` the crashing rule's code for that file."
