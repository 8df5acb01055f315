"""The connection limiter: a freed slot wakes exactly one waiter, a cut strands nobody, a rise wakes one waiter per
new slot, a stop wakes them all, and no slot is lost under many threads (checked by plain counting)."""

from __future__ import annotations

import random
import signal
import threading
import time

import pytest

from fastspe.runners.retry import RATE_LIMIT, SERVER, AdaptiveLimiter


class Waiters:
    """Threads each blocked in ``limiter.acquire(stop)``; ``got`` holds what each acquire returned."""

    def __init__(self, limiter: AdaptiveLimiter, n: int, stop: threading.Event | None = None):
        self.limiter, self.got, self._lock = limiter, [], threading.Lock()
        before = limiter.waiting
        self.threads = [threading.Thread(target=self._wait, args=(stop,), daemon=True) for _ in range(n)]
        for t in self.threads:
            t.start()
        until(lambda: limiter.waiting == before + n)

    def _wait(self, stop):
        slot = self.limiter.acquire(stop)
        with self._lock:
            self.got.append(slot)

    def join(self):
        for t in self.threads:
            t.join(5)
        assert not any(t.is_alive() for t in self.threads)


def until(condition, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.001)


def settle() -> None:
    time.sleep(0.05)  # a thread wrongly woken would have returned by now


def test_a_freed_slot_wakes_exactly_one_waiter_first_come_first_served():
    limiter = AdaptiveLimiter(2)
    held = [limiter.acquire(), limiter.acquire()]
    waiters = Waiters(limiter, 5)
    for n in range(1, 3):
        limiter.release(held.pop(), None)
        until(lambda: len(waiters.got) == n)
        settle()
        assert len(waiters.got) == n and limiter.waiting == 5 - n and limiter.active == 2
    for _ in range(3):
        limiter.release(0, None)
    waiters.join()
    assert waiters.got == [0] * 5 and limiter.active == 2


def test_a_cut_strands_no_waiter_and_a_rise_wakes_one_per_new_slot():
    limiter = AdaptiveLimiter(4)
    held = [limiter.acquire() for _ in range(4)]
    first = Waiters(limiter, 3)
    for slot in held[:3]:  # each freed slot goes to a waiter at once: the window is not over
        limiter.release(slot, RATE_LIMIT)
    until(lambda: len(first.got) == 3)
    limiter.release(held[3], RATE_LIMIT)  # the window ends: four 429s of four, the limit halves
    assert limiter.limit == 2 and limiter.cuts == 1 and limiter.active == 3
    second = Waiters(limiter, 3)
    limiter.release(first.got[0], None)  # 3 -> 2 in flight: still at the new limit, nobody may go
    settle()
    assert second.got == [] and limiter.waiting == 3
    limiter.release(first.got[1], None)  # 1 in flight: one slot free, one waiter goes (in epoch 1)
    until(lambda: len(second.got) == 1)
    settle()
    assert second.got == [1] and limiter.waiting == 2 and limiter.active == 2
    # A clean window of two completions sent in epoch 1 raises the limit to 3: one new slot, one more waiter.
    limiter.release(second.got[0], None)  # counted (1 of 2); its slot goes to the next waiter
    until(lambda: len(second.got) == 2)
    limiter.release(second.got[1], None)  # counted (2 of 2): limit 3, and 3 - 1 = 2 slots free for the last waiter
    until(lambda: len(second.got) == 3)
    assert limiter.limit == 3 and limiter.waiting == 0
    limiter.release(first.got[2], None)  # sent before the cut: not counted
    limiter.release(second.got[2], None)
    assert limiter.active == 0
    first.join(), second.join()


def test_a_rise_wakes_exactly_as_many_waiters_as_new_slots():
    limiter = AdaptiveLimiter(4)
    for _ in range(4):
        limiter.release(limiter.acquire(), RATE_LIMIT)  # one overloaded window: limit 2
    assert limiter.limit == 2
    a, b = limiter.acquire(), limiter.acquire()
    waiters = Waiters(limiter, 4)
    limiter.release(a, None)  # 1 of the window of 2; the slot goes to one waiter
    until(lambda: len(waiters.got) == 1)
    limiter.release(b, None)  # the window ends clean: limit 3, so this slot and the new one go to two waiters
    until(lambda: len(waiters.got) == 3)
    settle()
    assert limiter.limit == 3 and limiter.active == 3 and limiter.waiting == 1 and len(waiters.got) == 3
    limiter.close()
    waiters.join()


def test_a_stop_wakes_every_waiter():
    limiter, stop = AdaptiveLimiter(1), threading.Event()
    slot = limiter.acquire()
    waiters = Waiters(limiter, 6, stop)
    t = time.monotonic()
    limiter.close()
    waiters.join()
    assert waiters.got == [None] * 6 and time.monotonic() - t < 1 and limiter.acquire() is None
    # Without close: a stop met by a handed-over slot passes the slot on, so one release ends all the waits.
    limiter = AdaptiveLimiter(1)
    slot = limiter.acquire()
    waiters = Waiters(limiter, 6, stop := threading.Event())
    stop.set()
    limiter.release(slot, None)
    waiters.join()
    assert waiters.got == [None] * 6 and limiter.active == 0 and limiter.acquire() == 0


def test_no_slot_is_lost_or_doubled_under_many_threads():
    limiter = AdaptiveLimiter(6)
    lock, active, peak, over, done = threading.Lock(), [0], [0], [], [0]

    def work(seed):
        rng = random.Random(seed)
        for _ in range(300):
            slot = limiter.acquire()
            with lock:
                active[0] += 1
                peak[0] = max(peak[0], active[0])
                if active[0] > limiter.max_limit:
                    over.append(active[0])
            time.sleep(rng.random() * 0.0005)
            with lock:
                active[0] -= 1
                done[0] += 1
            limiter.release(slot, rng.choice([None, None, None, RATE_LIMIT, SERVER]))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert done[0] == 40 * 300 and not over and peak[0] >= 2
    assert limiter.active == 0 and limiter.waiting == 0
    held = [limiter.acquire() for _ in range(limiter.limit)]  # every slot is free again, none waits
    assert len(held) == limiter.limit and limiter.active == limiter.limit


def test_ctrl_c_in_a_wait_leaves_no_trace():
    """The sender's main thread waits in ``acquire``: Ctrl-C there leaves the queue, and loses no slot."""
    limiter = AdaptiveLimiter(1)
    slot = limiter.acquire()
    main = threading.main_thread().ident
    timer = threading.Timer(0.1, lambda: signal.pthread_kill(main, signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        limiter.acquire()
    timer.join()
    assert limiter.waiting == 0
    limiter.release(slot, None)
    assert limiter.active == 0 and limiter.acquire() == 0
