"""The installed kit: every package is listed in pyproject.toml, the YAML configs ship as
package data and are found by name from any directory, ``zolik --version`` and
``zolik configs`` work, and bad names fail in one line."""

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from cli.configs import KINDS, available, config_root, resolve_config

ROOT = Path(__file__).resolve().parents[1]
ZOLIK = Path(sys.executable).parent / "zolik"


def test_pyproject__lists_every_package_of_the_tree():
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    tree = {".".join(p.parent.relative_to(ROOT).parts)
            for top in ("zolik_env", "agents", "eval", "train", "play", "cli")
            for p in (ROOT / top).rglob("__init__.py")}
    assert set(setup["packages"]) == tree | {"zolik_configs"}
    assert setup["package-dir"]["zolik_configs"] == "configs"


def test_configs__packaged_and_resolved_by_name_or_path(tmp_path, monkeypatch):
    assert config_root().resolve() == (ROOT / "configs").resolve()  # the editable install
    assert {"cz_2p", "cz_4p"} <= set(available("ppo")) and available("eval") == ["default"]
    monkeypatch.chdir(tmp_path)
    for name in ("cz_2p", "ppo/cz_2p", "configs/ppo/cz_2p.yaml", "cz_2p.yaml"):
        assert resolve_config(name, "ppo").resolve() == ROOT / "configs/ppo/cz_2p.yaml"
    own = tmp_path / "cz_2p.yaml"
    own.write_text("seed: 3\n")
    assert resolve_config("cz_2p.yaml", "ppo").resolve() == own  # a path wins
    with pytest.raises(ValueError, match=r"no ppo config 'nope': ") as error:
        resolve_config("nope", "ppo")
    assert str(error.value).endswith("one of " + ", ".join(available("ppo")))
    assert all(available(kind) for kind in KINDS)


def run(*args, cwd):
    return subprocess.run([str(ZOLIK), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def test_zolik__version_configs_and_a_bad_name_outside_the_repository(tmp_path):
    from importlib.metadata import version

    assert run("--version", cwd=tmp_path).stdout.strip() == f"zolik {version('zolik')}"
    listed = run("configs", cwd=tmp_path).stdout
    assert "ppo   cz_2p" in listed and "dice  ppo_forced" in listed
    bad = run("train", "--config", "nope", cwd=tmp_path)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().count("\n") == 0 and "cz_2p" in bad.stderr


def test_train__packaged_config_by_name_from_another_directory(tmp_path, monkeypatch):
    from cli import train as cli
    from tests.train.conftest import TINY

    monkeypatch.chdir(tmp_path)
    tiny = {k: v for k, v in TINY.items() if k not in ("exp_name", "pool")}
    sets = [f"{k}={v}" for k, v in tiny.items()] + ["eval_every=0", "total_steps=64"]
    assert cli.main(["--config", "cz_2p", *(a for s in sets for a in ("--set", s))]) == 0
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert run_dir.name.startswith("ppo_cz2p__")


def test_main__steps_below_one_rollout_are_refused_in_one_line(tmp_path, monkeypatch):
    from cli import main_job

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit, match=r"--steps 100 is less than one rollout .* 8192"):
        main_job.main(["--steps", "100"])
    assert not (tmp_path / "runs").exists()
