"""The toolkit's one worker pool: how it ends. ``Pool.terminate`` hung ``zeroe search -j 2`` for
good one run in a few hundred (CI ran out of time): a worker killed while it sent a result kept
the result queue's lock, and the pool's task thread waited for it forever."""
from __future__ import annotations

import time

import pytest

from zeroe_assets.parallel import worker_pool

JOBS = 20


def _job(job):
    folder, i = job
    if i == 0:
        raise ValueError("job 0 fails")
    time.sleep(0.2)
    (folder / str(i)).write_text("done")
    return i


def test_an_error_ends_the_pool_without_killing_a_worker(tmp_path, terminated):
    with pytest.raises(ValueError, match="job 0 fails"):
        with worker_pool(2) as pool:
            list(pool.imap(_job, [(tmp_path, i) for i in range(JOBS)]))
    assert terminated == []
    assert len(list(tmp_path.iterdir())) < JOBS - 1  # the jobs not yet started were skipped


def test_a_finished_pool_gives_every_result_in_order(tmp_path, terminated):
    with worker_pool(2) as pool:
        assert list(pool.imap(_job, [(tmp_path, i) for i in range(1, 6)])) == [1, 2, 3, 4, 5]
        assert sorted(pool.imap_unordered(_job, [(tmp_path, i) for i in range(6, 9)])) == \
            [6, 7, 8]
    assert terminated == []


def test_ctrl_c_still_terminates(tmp_path, terminated):
    with pytest.raises(KeyboardInterrupt):
        with worker_pool(2) as pool:
            next(pool.imap(_job, [(tmp_path, i) for i in range(1, JOBS)]))
            raise KeyboardInterrupt
    assert len(terminated) == 1
