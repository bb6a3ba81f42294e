"""Dependency direction: the packages are floors, each importing only from its own floor
or below, and the module import graph has no cycle.

Floors, bottom up: the core (``zolik_env.rummy``, ``zolik_env.dice`` and the small
shared modules directly under ``zolik_env``), the envs (``zolik_env.envs``, the
``zolik_v0``/``kostky_v0`` entry modules, the kit-wide ``zolik_env.config_model`` and the
OpenSpiel adapter ``zolik_env.openspiel``: PettingZoo, Gymnasium, pydantic, pyspiel),
``agents``, ``eval``, ``train``, the web table ``play``, and the command package ``cli`` on
top (it may import everything; nothing imports it).
Inside ``agents`` the role subpackages are floors too (``AGENT_ROLES``): the shared
modules directly under ``agents``, then search, features, planner, learned and dice.
Every import counts, function-level ones included: there is no exemption for commands.
The core imports no pettingzoo, gymnasium or training library; the envs import no
training library.
"""

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("zolik_env", "agents", "eval", "train", "play", "cli")
FLOORS = ("core", "envs", "agents", "eval", "train", "play", "cli")
# agents' role subpackages, bottom up ("" = the shared modules directly under agents)
AGENT_ROLES = ("", "search", "features", "planner", "learned", "dice")
MAX_MODULES_PER_FOLDER = 12
TRAINING = ("torch", "stable_baselines3", "sb3_contrib")
HEAVY = ("pettingzoo", "gymnasium", *TRAINING)
# third-party packages each floor must not import (directly or in a function)
BANNED = {"core": set(HEAVY), "envs": set(TRAINING)}

PROBE = """
import json, sys
{imports}
print(json.dumps(sorted(m.split(".")[0] for m in sys.modules)))
"""


def loaded_top_modules(imports):
    """Top-level package names in ``sys.modules`` after running the ``imports`` line in a
    fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(imports=imports)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return set(json.loads(done.stdout))


@pytest.mark.parametrize("module", ["zolik_env.rummy", "zolik_env.rummy.rules", "zolik_env.dice"])
def test_cores__import_no_env_or_training_libraries(module):
    loaded = loaded_top_modules(f"import {module}")
    assert "zolik_env" in loaded
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_env_entry_points__load_no_training_library():
    loaded = loaded_top_modules("import zolik_env; from zolik_env import kostky_v0, zolik_v0")
    assert {"zolik_env", "pettingzoo", "gymnasium"} <= loaded
    assert not loaded & set(TRAINING), sorted(loaded & set(TRAINING))


def test_loaded_top_modules__sees_what_an_import_pulls_in():
    # The probe must be able to fail: it sees numpy arrive with the card module only, and
    # torch with the PPO agent.
    assert "numpy" in loaded_top_modules("import zolik_env.rummy.cards")
    assert "numpy" not in loaded_top_modules("import json")
    assert "torch" in loaded_top_modules("import agents.learned.ppo")


def module_name(path, root):
    """Dotted name of the module in ``path`` (a package's ``__init__.py`` names the package)."""
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_files(root, packages=PACKAGES):
    """``{dotted name: path}`` of every module under the ``packages`` of ``root``."""
    files = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            files[module_name(path, root)] = path
    return files


def imported_names(path, name):
    """Absolute dotted names that the module ``name`` in ``path`` imports, anywhere in the
    file; ``from a import b`` gives ``a.b`` (the caller decides whether it is a module or a
    name in ``a``). Parent packages, which Python imports first, are not edges: a package
    that re-exports its submodules is no cycle."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def imported_packages(path):
    """Top-level names of the absolute imports in one Python file."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def import_graph(root, packages=PACKAGES):
    """``(graph, third)``: per module, the project modules it imports (the longest
    importable prefix of each imported name) and the third-party top-level names."""
    files = module_files(root, packages)
    graph, third = {}, {}
    for name, path in files.items():
        graph[name], third[name] = set(), set()
        for imported in imported_names(path, name):
            if imported.split(".")[0] not in packages:
                third[name].add(imported.split(".")[0])
                continue
            parts = imported.split(".")
            target = next((".".join(parts[:i]) for i in range(len(parts), 0, -1)
                           if ".".join(parts[:i]) in files), None)
            if target is not None and target != name:
                graph[name].add(target)
    return graph, third


def floor_of(name):
    """Index in ``FLOORS`` of the module ``name``."""
    top = name.split(".")[0]
    if top != "zolik_env":
        return FLOORS.index(top)
    envs = name.startswith("zolik_env.envs") or name in ("zolik_env.zolik_v0",
                                                          "zolik_env.kostky_v0",
                                                          "zolik_env.config_model",
                                                          "zolik_env.openspiel")
    return FLOORS.index("envs" if envs else "core")


def floor_violations(graph, third):
    """``"a -> b (floor -> floor)"`` for every import of a higher floor, and
    ``"a -> lib (floor)"`` for every banned third-party import."""
    bad = []
    for name, targets in sorted(graph.items()):
        floor = floor_of(name)
        bad += [f"{name} -> {t} ({FLOORS[floor]} -> {FLOORS[floor_of(t)]})"
                for t in sorted(targets) if floor_of(t) > floor]
        bad += [f"{name} -> {lib} ({FLOORS[floor]})"
                for lib in sorted(third[name] & BANNED.get(FLOORS[floor], set()))]
    return bad


def find_cycle(graph):
    """One import cycle as a list of modules (first == last), or ``[]`` when acyclic."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        state[node] = "done"
        stack.pop()
        return []

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return []


def test_packages__import_only_their_own_floor_or_below():
    graph, third = import_graph(ROOT)
    assert {"zolik_env.rummy.game", "zolik_env.envs.zolik_aec", "cli.main"} <= set(graph)
    assert floor_violations(graph, third) == []


def test_modules__import_graph_has_no_cycle():
    graph, _ = import_graph(ROOT)
    assert find_cycle(graph) == []


def test_cli__is_imported_by_no_other_package():
    graph, _ = import_graph(ROOT)
    users = sorted(f"{a} -> {b}" for a, targets in graph.items() for b in targets
                   if b.split(".")[0] == "cli" and a.split(".")[0] != "cli")
    assert users == []


def write_tree(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_import_graph__resolves_every_import_form(tmp_path):
    write_tree(tmp_path, {
        "zolik_env/__init__.py": "",
        "zolik_env/rummy/__init__.py": "from . import cards\n",
        "zolik_env/rummy/cards.py": "import numpy as np\n",
        "zolik_env/rummy/game.py": "from .cards import X\nfrom zolik_env.rummy import cards\n"
                                   "def f():\n    from ..envs import aec\n",
        "zolik_env/rummy/render.py": "from zolik_env.rummy import NAME\n",
        "zolik_env/envs/__init__.py": "",
        "zolik_env/envs/aec.py": "import zolik_env.rummy.game\nimport gymnasium.spaces\n",
    })  # fmt: skip
    graph, third = import_graph(tmp_path, ("zolik_env",))
    assert graph["zolik_env.rummy"] == {"zolik_env.rummy.cards"}
    assert graph["zolik_env.rummy.game"] == {"zolik_env.rummy.cards", "zolik_env.envs.aec"}
    assert graph["zolik_env.rummy.render"] == {"zolik_env.rummy"}  # a name of the package
    assert graph["zolik_env.envs.aec"] == {"zolik_env.rummy.game"}
    assert third["zolik_env.envs.aec"] == {"gymnasium"}
    assert third["zolik_env.rummy.cards"] == {"numpy"}


def test_floor_violations__name_upward_and_banned_imports(tmp_path):
    write_tree(tmp_path, {
        "zolik_env/__init__.py": "",
        "zolik_env/rummy/game.py": "def f():\n    import torch\n",
        "zolik_env/envs/vec.py": "from stable_baselines3 import PPO\nimport gymnasium\n",
        "agents/planner/greedy.py": "from zolik_env.envs import vec\n",
        "eval/harness.py": "from agents.planner import greedy\n",
        "train/ppo.py": "from eval import harness\n",
        "cli/main.py": "import train.ppo\n",
        "eval/cli_like.py": "def main():\n    from cli import main\n",
    })  # fmt: skip
    graph, third = import_graph(tmp_path)
    assert floor_violations(graph, third) == [
        "eval.cli_like -> cli.main (eval -> cli)",
        "zolik_env.envs.vec -> stable_baselines3 (envs)",
        "zolik_env.rummy.game -> torch (core)",
    ]
    assert floor_of("zolik_env.zolik_v0") == FLOORS.index("envs")
    assert floor_of("zolik_env.seeds") == FLOORS.index("core")


def test_find_cycle__finds_a_cycle_through_a_function_level_import(tmp_path):
    write_tree(tmp_path, {
        "eval/tournament.py": "from eval import report\n",
        "eval/report.py": "from eval.plots import plot\n",
        "eval/plots.py": "def f():\n    from eval.tournament import run\n",
        "eval/stats.py": "import eval.report\n",
    })  # fmt: skip
    graph, _ = import_graph(tmp_path, ("eval",))
    assert find_cycle(graph) == ["eval.plots", "eval.tournament", "eval.report", "eval.plots"]
    graph["eval.plots"] = set()
    assert find_cycle(graph) == []


def test_imported_packages__finds_every_import_form(tmp_path):
    source = tmp_path / "sample.py"
    source.write_text(
        "import os, agents.base\nfrom eval.harness import play_match\n"
        "from train import ppo\nfrom . import sibling\n"
        "def f():\n    import torch\n",
        encoding="utf-8",
    )
    assert imported_packages(source) == {"os", "agents", "eval", "train", "torch"}
    assert "numpy" in imported_packages(ROOT / "zolik_env" / "rummy" / "cards.py")


def role_of(name):
    """Index in ``AGENT_ROLES`` of the agents module ``name``."""
    parts = name.split(".")
    role = parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in AGENT_ROLES) else ""
    return AGENT_ROLES.index(role)


def role_violations(graph):
    """``"a -> b (role -> role)"`` for every agents module importing a higher role."""
    return [f"{a} -> {b} ({AGENT_ROLES[role_of(a)] or 'agents'} -> "
            f"{AGENT_ROLES[role_of(b)] or 'agents'})"
            for a, targets in sorted(graph.items()) if a.split(".")[0] == "agents"
            for b in sorted(targets)
            if b.split(".")[0] == "agents" and role_of(b) > role_of(a)]


def test_agents__roles_import_only_their_own_role_or_below():
    graph, _ = import_graph(ROOT)
    assert {"agents.search.hand_search", "agents.planner.planner"} <= set(graph)
    assert role_violations(graph) == []


def test_role_violations__name_an_upward_import(tmp_path):
    write_tree(tmp_path, {
        "agents/__init__.py": "",
        "agents/base.py": "",
        "agents/search/__init__.py": "",
        "agents/search/pimc.py": "from agents import base\n",
        "agents/features/__init__.py": "",
        "agents/features/cards.py": "def f():\n    from agents.planner import choice\n",
        "agents/planner/__init__.py": "",
        "agents/planner/choice.py": "from agents.features import cards\n",
    })  # fmt: skip
    graph, _ = import_graph(tmp_path, ("agents",))
    assert role_violations(graph) == ["agents.features.cards -> agents.planner.choice "
                                      "(features -> planner)"]


def test_product_folders__hold_at_most_twelve_modules_under_agents():
    folders = [ROOT / "agents", *(ROOT / "agents" / r for r in AGENT_ROLES if r)]
    counts = {f.name: len([p for p in f.glob("*.py") if p.name != "__init__.py"])
              for f in folders}
    assert set(counts) >= {"agents", "planner", "learned"}
    assert max(counts.values()) <= MAX_MODULES_PER_FOLDER, counts
    found = {p.parent.name for p in (ROOT / "agents").rglob("*.py")}
    assert found <= {"agents", *AGENT_ROLES}, found  # every agents module sits in a role
