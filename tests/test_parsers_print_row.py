"""One print() of several expressions answers on one line, in the order of its arguments.

``print(torch.__version__, torch.version.cuda)`` prints ``2.1.0+cu121 12.1``: the informal
reader took the next line's first version for *every* expression on the command line, so
torch.version.cuda became "2.1.0+cu121" (a wrong fact that then feeds the driver checks). Now
the values go to their own expressions by position when the counts agree, and when they do not
the next line is no one expression's answer.

The transcripts below are constructed from Python's print() semantics (arguments joined by one
space; one print per line), with the command as users and READMEs write it; they test layout,
not a diagnosis.
"""

from __future__ import annotations

from envdoctor.parsers import informal

ONE_PRINT = ('$ python -c "import torch; print(torch.__version__, torch.version.cuda, '
             'torch.cuda.is_available())"\n2.1.0+cu121 12.1 False\n')
THREE_PRINTS = ('$ python -c "import torch; print(torch.__version__); print(torch.version.cuda); '
                'print(torch.cuda.is_available())"\n2.1.0+cu121\n12.1\nTrue\n')


def test_values_go_to_their_own_arguments():
    part = informal.parse(ONE_PRINT)
    assert str(part.values["frameworks.torch.version"]) == "2.1.0+cu121"
    assert str(part.values["frameworks.torch.cuda"]) == "12.1"
    assert part.live["torch"]["cuda_available"] is False


def test_one_print_per_expression_reads_one_line_each():
    part = informal.parse(THREE_PRINTS)
    assert str(part.values["frameworks.torch.cuda"]) == "12.1"
    assert part.live["torch"]["cuda_available"] is True


def test_counts_that_disagree_bind_nothing_from_the_next_line():
    # three arguments, two values (a wrapped or cut answer): no guessing which is which
    cut = ONE_PRINT.replace("2.1.0+cu121 12.1 False", "2.1.0+cu121 12.1")
    part = informal.parse(cut)
    assert "frameworks.torch.cuda" not in part.values
    # a single expression keeps reading its answer from the next line, as before
    single = '>>> print(torch.version.cuda)\n11.8\n'
    assert str(informal.parse(single).values["frameworks.torch.cuda"]) == "11.8"
