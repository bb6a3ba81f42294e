"""``train.work_pool.in_processes``: each job's result reaches ``on_done`` as it ends."""

import pytest

from train.work_pool import in_processes


class _Bar:
    def __init__(self):
        self.ticks, self.closed = 0, False

    def update(self, n):
        self.ticks += n

    def close(self):
        self.closed = True


def doubled(x, bar):
    bar.update(1)
    return 2 * x


@pytest.mark.parametrize("workers", [1, 2])
def test_on_done__every_job_is_reported_once_with_its_own_result(workers):
    finished, bar = [], _Bar()
    results = in_processes(doubled, [{"x": x} for x in (3, 5, 7)], workers, bar,
                           on_done=lambda i, result: finished.append((i, result)))
    assert results == [6, 10, 14]
    assert sorted(finished) == [(0, 6), (1, 10), (2, 14)]
    assert bar.ticks == 3 and bar.closed
