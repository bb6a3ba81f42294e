"""The first use of the kernels says that numba is compiling (``jit.announce_compile``):
once per process, on stderr, and only when some kernel has no usable on-disk cache."""

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

KERNELS = '''
from zolik_env.rummy.jit import kernel


@kernel
def double(x):
    return 2 * x
'''

SCRIPT = '''
import sys
sys.path.insert(0, sys.argv[1])
from zolik_env.rummy import jit
import fresh_kernels
first = jit.announce_compile([fresh_kernels.double], seconds=7)
assert fresh_kernels.double(21) == 42
again = jit.announce_compile([fresh_kernels.double], seconds=7)
print(first, again)
'''


def run(folder):
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(folder)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=True)
    return done.stdout.strip(), done.stderr


def test_announce_compile__only_when_a_kernel_has_no_cache(tmp_path):
    (tmp_path / "fresh_kernels.py").write_text(KERNELS, encoding="utf-8")
    out, err = run(tmp_path)  # a kernel never compiled: the notice, once
    assert out == "True False"
    assert err.count("first run only, about 7 s") == 1 and err.startswith("zolik: compiling")
    out, err = run(tmp_path)  # its cache is on disk now: nothing
    assert out == "False False" and err == ""
    (tmp_path / "fresh_kernels.py").write_text(KERNELS + "\n# changed\n", encoding="utf-8")
    out, err = run(tmp_path)  # a changed source invalidates the cache: the notice again
    assert out == "True False" and "first run only" in err


def test_game_init__is_quiet_when_the_core_is_cached():
    from zolik_env.rummy.game import compile_kernels

    compile_kernels()  # the suite's own set-up does this too (scripts/test.sh)
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent("""
            from zolik_env.rummy import game, rules
            game.init(rules.preset("sk", num_players=3), [0, 1])
        """)], cwd=ROOT, capture_output=True, text=True, timeout=300, check=True)
    assert done.stderr == ""
