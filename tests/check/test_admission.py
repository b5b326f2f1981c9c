"""The global admission of requests: priority slots with a movable limit, and the lag controller."""

from __future__ import annotations

import asyncio

import pytest

from linkfix.check.http.admission import LAG_HIGH, LAG_LOW, SHRINK_ABOVE, Admission, Slots


async def _holders(slots: Slots, priorities: list[float]) -> tuple[list[asyncio.Task], list[float]]:
    served: list[float] = []

    async def take(priority: float) -> None:
        await slots.acquire(priority)
        served.append(priority)

    tasks = [asyncio.ensure_future(take(p)) for p in priorities]
    await asyncio.sleep(0)
    return tasks, served


async def test_a_lowered_limit_takes_effect_as_places_come_back():
    slots = Slots(4)
    for _ in range(4):
        await slots.acquire(0)
    slots.set_limit(2)
    tasks, served = await _holders(slots, [1])
    slots.release()
    slots.release()  # two places went away with the lower limit ...
    await asyncio.sleep(0)
    assert served == []
    slots.release()  # ... the third is handed on
    await asyncio.sleep(0)
    assert served == [1]
    await asyncio.gather(*tasks)


async def test_a_raised_limit_wakes_waiters_best_first():
    slots = Slots(1)
    await slots.acquire(0)
    tasks, served = await _holders(slots, [5, -3, 2])
    slots.set_limit(3)
    await asyncio.sleep(0)
    assert served == [-3, 2]  # two new places, to the two best priorities
    slots.release()
    await asyncio.gather(*tasks)
    assert served == [-3, 2, 5]


async def test_urgent_requests_pass_the_limit_but_not_the_maximum():
    admission = Admission(3, minimum=1)
    admission.slots.set_limit(1)
    await admission.acquire(0)
    await admission.acquire(-10, urgent=True)  # past the adaptive limit of 1
    await admission.acquire(-10, urgent=True)
    assert admission.in_flight == 3
    late = asyncio.ensure_future(admission.acquire(-10, urgent=True))  # the maximum holds
    await asyncio.sleep(0)
    assert not late.done()
    for _ in range(3):
        admission.release()
    await asyncio.sleep(0)
    assert late.done() and admission.in_flight == 1
    admission.release()


async def test_the_limit_follows_the_loops_lag():
    admission = Admission(100, minimum=8)
    admission.in_flight = 80
    admission.adjust(LAG_HIGH * 2)
    assert admission.slots.limit == 100  # one late timer may be a GC pause
    admission.adjust(LAG_HIGH * 2)
    assert admission.slots.limit == 60  # lagging twice: 3/4 of what is in flight
    for _ in range(20):
        admission.in_flight = admission.slots.limit
        admission.adjust(LAG_HIGH * 2)
    assert admission.slots.limit == 24  # 32 in flight or fewer cannot be why the loop lags
    admission.adjust(LAG_LOW / 2)
    assert admission.slots.limit == 24  # punctual, but nobody waits: no reason to grow


async def test_the_limit_never_drops_below_one_hosts_share():
    admission = Admission(1000, minimum=50)
    for _ in range(20):
        admission.in_flight = admission.slots.limit
        admission.adjust(LAG_HIGH * 2)
    assert admission.slots.limit == 50


async def test_a_lag_with_few_requests_in_flight_is_not_theirs():
    admission = Admission(100, minimum=8)
    admission.in_flight = SHRINK_ABOVE
    for _ in range(5):
        admission.adjust(LAG_HIGH * 2)
    assert admission.slots.limit == 100  # reading a warm cache, say: fewer slots would not help


@pytest.mark.parametrize(("lag", "busy"), [
    (LAG_LOW / 2, 1.0),  # punctual
    (LAG_HIGH * 3, 0.3),  # late, but not from this process's work: the machine's
])  # fmt: skip
async def test_a_loop_with_requests_waiting_raises_the_limit_unless_its_own_work_lags(lag, busy):
    admission = Admission(100, minimum=8)
    admission.slots.set_limit(8)
    for _ in range(8):
        await admission.acquire(0)
    waiting = asyncio.ensure_future(admission.acquire(0))
    await asyncio.sleep(0)
    assert not waiting.done()
    admission.adjust(lag, busy)
    await asyncio.sleep(0)
    assert admission.slots.limit > 8 and waiting.done() and admission.in_flight == 9


async def test_the_limit_climbs_back_from_its_floor_in_a_few_looks():
    # A lag of the run's own making (a large page extracted between two turns) drops the limit
    # to one host's share; once the loop keeps up again, waiting requests must not queue for
    # seconds while it climbs back (each look is LAG_PERIOD apart).
    admission = Admission(320, minimum=8)
    admission.slots.set_limit(8)
    for _ in range(8):
        await admission.acquire(0)
    waiters = [asyncio.ensure_future(admission.acquire(0)) for _ in range(400)]
    await asyncio.sleep(0)
    looks = 0
    while admission.slots.limit < 320:
        admission.adjust(LAG_LOW / 2)
        looks += 1
    assert looks <= 10
    await asyncio.sleep(0)
    assert admission.in_flight == 320
    for waiter in waiters:
        waiter.cancel()
    await asyncio.gather(*waiters, return_exceptions=True)


async def test_a_lag_while_the_process_waited_for_a_core_keeps_the_limit():
    # The loop lags, but the process used a fifth of a core meanwhile: the machine is busy with
    # other work, and fewer requests in flight would only make this run slower.
    admission = Admission(100, minimum=8)
    admission.in_flight = 80
    for _ in range(5):
        admission.adjust(LAG_HIGH * 2, busy=0.2)
    assert admission.slots.limit == 100
    admission.adjust(LAG_HIGH * 2, busy=1.0)
    admission.adjust(LAG_HIGH * 2, busy=1.0)
    assert admission.slots.limit == 60  # its own work: lagging twice lowers it, as before
