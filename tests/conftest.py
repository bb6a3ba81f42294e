"""Fixtures shared by test modules."""

import pytest


@pytest.fixture(scope="module")
def local_ray():
    """A local Ray instance with 2 CPUs for one test module (the [ray] extra)."""
    ray = pytest.importorskip("ray", reason="the [ray] extra (scripts/setup.sh installs it)")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    yield ray
    ray.shutdown()
