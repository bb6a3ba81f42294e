"""``docs/rules.md``: every example runs as shown, and the rule-options table is the one
``docs/gen_rules_table.py`` generates from ``rules.option_table()``."""

import doctest
import importlib.util
import re
from pathlib import Path

import pytest

from zolik_env.rummy import rules

DOCS = Path(__file__).resolve().parents[2] / "docs"
RULES_DOC = DOCS / "rules.md"


def load_generator():
    spec = importlib.util.spec_from_file_location("gen_rules_table", DOCS / "gen_rules_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pycon_blocks(text):
    return re.findall(r"```pycon\n(.*?)```", text, flags=re.DOTALL)


def run_examples(text):
    """Run the ``pycon`` blocks in order, sharing names; returns (failed, attempted)."""
    parser, globs = doctest.DocTestParser(), {}
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for index, block in enumerate(pycon_blocks(text)):
        test = parser.get_doctest(block, globs, f"rules.md block {index}", str(RULES_DOC), 0)
        runner.run(test, clear_globs=False)
        globs = test.globs  # the next block sees the names this one defined
    return runner.summarize(verbose=False)


def test_rules_doc__examples_run_as_shown():
    failed, attempted = run_examples(RULES_DOC.read_text(encoding="utf-8"))
    assert attempted >= 30
    assert failed == 0, "see the doctest report above"


def test_run_examples__reports_a_wrong_output():
    failed, attempted = run_examples("```pycon\n>>> 1 + 1\n3\n```\n")
    assert (failed, attempted) == (1, 1)


def test_rules_doc__option_table_is_up_to_date():
    generator = load_generator()
    text = RULES_DOC.read_text(encoding="utf-8")
    assert generator.update(text) == text, "run: python docs/gen_rules_table.py"
    assert generator.main(["--check"]) == 0


def test_gen_rules_table__every_option_has_a_row():
    generator = load_generator()
    table = generator.render_table(rules.option_table()).splitlines()
    assert len(table) == 2 + len(rules.option_table())
    assert "| `opening_points` | `42` | `51` | `40` | `0..200` |" in "\n".join(table)
    text = RULES_DOC.read_text(encoding="utf-8")
    stale = generator.update(text, rules.option_table()[:-1])
    assert "| `match_target` |" in text and "| `match_target` |" not in stale


def test_gen_rules_table__needs_both_markers():
    with pytest.raises(ValueError):
        load_generator().update("no markers here")
