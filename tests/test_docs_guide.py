"""The docs hold together: ``docs/training.md`` stays a guide of at most 400 lines (the
measured history lives in ``docs/results/``), every relative Markdown link of the README
and ``docs/`` reaches an existing file and, into a Markdown file, an existing heading,
``docs/style.md`` has its sections and walk-throughs, and every house-rules citation names
``docs/style.md`` and one of its sections.

Each check is a small function, shown to fail on a planted sample before it runs on the
repository."""

from __future__ import annotations

import re
from pathlib import Path

from tests import test_docs_spec as docs_spec

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "training.md"
STYLE = ROOT / "docs" / "style.md"
GUIDE_MAX_LINES = 400
WALK_THROUGHS = ("Adding a rule option", "Adding a preset", "Adding an agent")
SCANNED_SUFFIXES = (".py", ".md", ".yaml", ".toml", ".sh", ".txt", ".cfg")
OLD_NAME = "STYLE" + ".md"  # the house rules' former, absent file (spelt so as not to cite it)

_FENCE = re.compile(r"^```.*?^```[^\n]*$", re.M | re.S)
_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"\[[^\]]*\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)
_STYLE_CITATION = re.compile(r"style\.md[`\])]*\s*§\s*(\d+)")
_STYLE_SECTION = re.compile(r"^##\s+(\d+)\.\s", re.M)


def prose(text: str) -> str:
    """``text`` without its fenced code blocks, and with inline code spans made plain words
    (a link whose text is code stays a link; a link written inside code is not one)."""
    return _CODE.sub("code", _FENCE.sub("", text))


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: the text of its links, lowercase, punctuation but
    hyphens, underscores and spaces dropped, each space a hyphen."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """The anchors of a Markdown page's headings; a repeated heading gets ``-1``, ``-2``."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for heading in _HEADING.findall(_FENCE.sub("", text)):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(page: Path, root: Path) -> list[str]:
    """``"target (why)"`` for every relative link of ``page`` whose file does not exist, or
    whose ``#anchor`` names no heading of the Markdown file it points into."""
    bad = []
    for target in _LINK.findall(prose(page.read_text(encoding="utf-8"))):
        if _SCHEME.match(target):
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists() or root.resolve() not in (file, *file.parents):
            bad.append(f"{target} (no such file)")
        elif anchor and file.suffix == ".md" and anchor not in anchors(
                file.read_text(encoding="utf-8")):
            bad.append(f"{target} (no heading #{anchor} in {file.name})")
    return bad


def doc_pages(root: Path) -> list[Path]:
    """README.md and every Markdown page under ``docs/``."""
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def repo_files(root: Path) -> list[Path]:
    """The repository's text files of ``SCANNED_SUFFIXES`` (``test_docs_spec.repo_files``)."""
    return docs_spec.repo_files(root, SCANNED_SUFFIXES, ())


def style_citations(text: str) -> list[str]:
    """The section numbers of the ``style.md §N`` citations in ``text``."""
    return _STYLE_CITATION.findall(text)


def style_sections(text: str) -> set[str]:
    """The numbers of ``docs/style.md``'s ``## N. Title`` sections."""
    return set(_STYLE_SECTION.findall(text))


# --- the checkers on samples


def test_slug__follows_githubs_anchors():
    assert slug("Warm start: learning the planner's moves first") == (
        "warm-start-learning-the-planners-moves-first")
    assert slug("Prioritised opponents (`pool_focus`)") == "prioritised-opponents-pool_focus"
    assert slug("Pět kostek: the pipeline's yardstick") == "pět-kostek-the-pipelines-yardstick"
    assert slug("See [the guide](../training.md)") == "see-the-guide"
    assert anchors("# A\n## B\n```\n## C\n```\n## B\n") == {"a", "b", "b-1"}


def test_broken_links__finds_a_missing_file_and_a_missing_heading(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text("# Guide\n\n## Pretrained bots\n",
                                                encoding="utf-8")
    page = tmp_path / "README.md"
    page.write_text(
        "[ok](docs/guide.md#pretrained-bots) [ok](docs/guide.md) [ok](#top) "
        "[web](https://example.org/x.md#y) `[in code](nowhere.md)`\n"
        "[gone](docs/missing.md) [bad anchor](docs/guide.md#strength)\n"
        "```bash\n[fenced](nowhere.md)\n```\n# Top\n", encoding="utf-8")
    assert broken_links(page, tmp_path) == [
        "docs/missing.md (no such file)",
        "docs/guide.md#strength (no heading #strength in guide.md)"]
    assert broken_links(tmp_path / "docs" / "guide.md", tmp_path) == []


def test_style_citations__read_section_numbers():
    text = "(docs/style.md §2); see `docs/style.md` §10 and style.md§5; STYLE §3 is not one"
    assert style_citations(text) == ["2", "10", "5"]
    assert style_sections("# T\n## 1. One\n## 10. Ten\n### 10.1 no\n") == {"1", "10"}


def test_repo_files__skip_hidden_folders(tmp_path):
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "lib.py").write_text(OLD_NAME, encoding="utf-8")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(f'"""See {OLD_NAME} §2."""\n', encoding="utf-8")
    cites = [p.relative_to(tmp_path) for p in repo_files(tmp_path)
             if OLD_NAME in p.read_text(encoding="utf-8")]
    assert cites == [Path("pkg") / "mod.py"]


# --- the repository


def test_training_guide__is_at_most_400_lines_and_links_to_the_results():
    text = GUIDE.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= GUIDE_MAX_LINES
    assert "results/README.md" in text
    assert (ROOT / "docs" / "results" / "README.md").exists()


def test_doc_links__reach_existing_files_and_headings():
    pages = doc_pages(ROOT)
    assert GUIDE in pages and len(pages) > 20, "the scan must see the docs and the results"
    bad = {str(p.relative_to(ROOT)): broken_links(p, ROOT) for p in pages}
    assert {page: links for page, links in bad.items() if links} == {}


def test_results__every_study_has_its_date_and_commit_and_an_index_entry():
    results = ROOT / "docs" / "results"
    index = (results / "README.md").read_text(encoding="utf-8")
    for study in sorted(results.glob("*.md")):
        if study.name == "README.md":
            continue
        head = "\n".join(study.read_text(encoding="utf-8").splitlines()[:20])
        assert re.search(r"20\d\d-\d\d-\d\d", head), f"{study.name}: no date in its head"
        assert re.search(r"`[0-9a-f]{7}`|not be pinned|not pinned", head), study.name
        assert f"]({study.name})" in index, f"{study.name} is not in the index"


def test_style__has_its_sections_and_the_three_walk_throughs():
    text = STYLE.read_text(encoding="utf-8")
    assert style_sections(text) == {str(n) for n in range(1, 11)}
    walk_throughs = text[text.index("## 10."):]
    for title in WALK_THROUGHS:
        assert re.search(rf"^### {title}$", walk_throughs, re.M), title


def test_repository__cites_the_house_rules_by_their_file_and_sections():
    sections = style_sections(STYLE.read_text(encoding="utf-8"))
    files = repo_files(ROOT)
    assert Path(__file__) in files and STYLE in files, "the scan must see the repository"
    texts = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8", errors="replace")
             for p in files if p != Path(__file__)}
    assert [name for name, text in texts.items() if OLD_NAME in text] == []
    assert sum(len(style_citations(text)) for text in texts.values()) >= 8
    bad = {name: [n for n in style_citations(text) if n not in sections]
           for name, text in texts.items()}
    assert {name: numbers for name, numbers in bad.items() if numbers} == {}
