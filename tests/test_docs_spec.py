"""``docs/rules-spec.md``, the kit's rules specification, stays true to the code: it names
every rule option, every ``rules-spec.md §N.M`` citation in the repository names one of
its sections, and nothing in the repository points to rules texts outside it.

Each check is a small function, shown to fail on a sample text before it runs on the
repository."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from zolik_env.dice.rules import DiceRules
from zolik_env.rummy.options import RuleSet

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "docs" / "rules-spec.md"
SCANNED_SUFFIXES = (".py", ".md", ".yaml", ".toml", ".sh")
SKIPPED_DIRS = {"__pycache__", "runs", "build", "dist", "node_modules"}

_HEADING = re.compile(r"^#{2,3}\s+(\d+(?:\.\d+)?)\.?\s", re.M)
_NUMBER = r"\d+(?:\.\d+)?"
_CITATION = re.compile(
    rf"rules-spec\.md[`\])]*((?:[ ,]*(?:and |or )?§\s*{_NUMBER}(?:\s*[-\u2013]\s*{_NUMBER})?)+)")
# ``RULES.md`` in capitals only: ``docs/rules.md`` is a page of the kit.
_JARGON = re.compile(r"RULES\.md|(?i:shared folder|seed 00\d|\bissue \d+)")


def option_names() -> list[str]:
    """Every Žolík rule option (``RuleSet`` fields but the preset name) and dice option."""
    rummy = [f.name for f in dataclasses.fields(RuleSet) if f.name != "name"]
    return rummy + [f.name for f in dataclasses.fields(DiceRules)]


def missing_options(spec: str, names: list[str]) -> list[str]:
    """The option names the spec never mentions as code (``name`` or ``name=...``)."""
    return [n for n in names if not re.search(rf"`{re.escape(n)}(?:=[^`]*)?`", spec)]


def spec_sections(spec: str) -> set[str]:
    """The numbers of the spec's ``##``/``###`` headings: ``{"1", "1.4", ...}``."""
    return set(_HEADING.findall(spec))


def bad_citations(text: str, sections: set[str]) -> list[str]:
    """The ``rules-spec.md §N.M`` numbers in ``text`` that name no section (ranges
    ``§2-4`` and lists ``§1.5, §1.8`` are checked number by number)."""
    cited = (number for match in _CITATION.finditer(text)
             for number in re.findall(_NUMBER, match.group(1)))
    return [n for n in cited if n not in sections]


def jargon(text: str) -> list[str]:
    """Mentions of rules texts outside the repository or of internal bookkeeping."""
    return _JARGON.findall(text)


def repo_files(root: Path, suffixes: tuple[str, ...] = SCANNED_SUFFIXES,
               skipped: tuple[Path, ...] = (Path(__file__),)) -> list[Path]:
    """The repository's text files with ``suffixes``: hidden folders (``.git``,
    ``.venv``), caches, run outputs and build metadata are skipped, and so are the
    ``skipped`` files (by default this test, which names the jargon it bans)."""
    found = []
    for path in sorted(root.rglob("*")):
        parts = path.relative_to(root).parts
        if any(p.startswith(".") or p in SKIPPED_DIRS or p.endswith(".egg-info")
               for p in parts[:-1]):
            continue
        if path.suffix in suffixes and path.is_file() and path not in skipped:
            found.append(path)
    return found


def findings(root: Path, check) -> dict[str, list[str]]:
    """``{relative path: check(text)}`` for the files of ``root`` where the check finds
    something."""
    out = {}
    for path in repo_files(root):
        found = check(path.read_text(encoding="utf-8", errors="replace"))
        if found:
            out[str(path.relative_to(root))] = found
    return out


# --- the checkers on samples


def test_missing_options__names_an_option_the_spec_omits():
    spec = "Set `opening_points=51` or `max_turns`; max_stock_rebuilds in prose only."
    assert missing_options(spec, ["opening_points", "max_turns", "max_stock_rebuilds"]) == [
        "max_stock_rebuilds"]


def test_spec_sections__reads_chapter_and_section_numbers():
    spec = "# Title\n## 1. Core\n### 1.4 Opening\n#### 9.9 too deep\ntext ## 7. no\n"
    assert spec_sections(spec) == {"1", "1.4"}


def test_bad_citations__finds_a_missing_section():
    text = ("see docs/rules-spec.md §1.4; docs/rules-spec.md §1.5, §1.9 and\n"
            "rules-spec.md §2-4; §7.7 alone is not a citation; `rules-spec.md` §8.1,\n"
            "[`rules-spec.md`](rules-spec.md) §6")
    assert bad_citations(text, {"1.4", "1.5", "2", "3", "4", "8.1"}) == ["1.9", "6"]
    assert bad_citations(text, {"1.4", "1.5", "1.9", "2", "4", "6", "8.1"}) == []


def test_jargon__finds_outside_references():
    text = "See RULES.md §1 in the shared folder (seed 002, issue 6); docs/rules.md is fine."
    assert jargon(text) == ["RULES.md", "shared folder", "seed 002", "issue 6"]
    assert jargon("docs/rules.md and rules-spec.md; seed 0 and seeds 0..9") == []


def test_findings__scans_text_files_but_not_hidden_folders(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text('"""Rules (RULES.md §1)."""\n')
    (tmp_path / "configs.yaml").write_text("# clean\n")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "lib.py").write_text("# RULES.md\n")
    (tmp_path / "notes.txt").write_text("RULES.md\n")
    assert findings(tmp_path, jargon) == {str(Path("pkg") / "mod.py"): ["RULES.md"]}


# --- the repository


def test_spec__mentions_every_rule_option():
    assert missing_options(SPEC.read_text(encoding="utf-8"), option_names()) == []


def test_spec__has_the_sections_code_cites_most():
    sections = spec_sections(SPEC.read_text(encoding="utf-8"))
    assert {"1", "1.3", "1.5", "1.8", "1.9", "1.10", "1.11", "2", "3", "4", "5"} <= sections


def test_citations__name_sections_of_the_spec():
    sections = spec_sections(SPEC.read_text(encoding="utf-8"))
    assert findings(ROOT, lambda text: bad_citations(text, sections)) == {}


def test_repository__points_to_no_rules_text_outside_it():
    assert findings(ROOT, jargon) == {}
