"""The arena: two levels play mirrored deals — every deal twice, seats swapped (with three
or four seats, once for every way of sharing the seats between the two levels) — and the
result is reported with a 95% Wilson interval and an Elo difference.

>>> r = arena("gin", "easy", "beginner", deals=20, seed=1, processes=1, progress=False)
>>> r.games, r.wins_a + r.wins_b + r.draws
(40, 40)
>>> 0.0 <= r.ci95[0] <= r.win_rate <= r.ci95[1] <= 1.0
True
"""
from __future__ import annotations

import math
import os
import signal
import sys
import threading
import time
from concurrent.futures import as_completed
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from types import ModuleType
from typing import Any, Iterator, Mapping, SupportsIndex

import numpy as np

from .ai import SEARCH_LEVELS, ai_module, check_budget, decide, derived_seed, level_name
from .errors import OptionError, shown, signed
from .game import game_module, game_scores, resolve_game_options
from .kernels import levels
from .variants import int_range, is_positive_int, seed_value

Z95 = 1.959963984540054
_CHUNK = 8   # deals per task sent to a worker process
_ORPHAN_CHECK_SECONDS = 0.5     # how often a worker checks that the arena's process lives
_EXIT_ORPHANED = 3              # a worker's exit status when that process died
_FEEDER_EXIT_SECONDS = 5        # the longest an arena waits for its task queue's thread to end
# The arena plans every batch and keeps every game's result: a million deals hold over
# 300 MB. A longer match is several seeds, each naming its own deals.
MAX_DEALS = 1_000_000
_is_deal_count = int_range(1, MAX_DEALS)


@dataclass(frozen=True)
class ArenaResult:
    """The outcome of :func:`arena`, and the settings it was played under.

    ``variant``, ``level_a``, ``level_b``, ``deals`` and ``seed`` name the match;
    ``options`` are the game options it was played with, defaults filled in; ``iterations`` and
    ``budget_ms`` the search size per decision, None when not given (neither given: the levels'
    default budgets); ``backend`` where the games ran, ``"processes"`` or ``"ray"``.

    ``games`` is ``deals`` times the games of a deal (:func:`seat_splits`: 2 with two seats, 6
    with three, 14 with four); ``wins_a``, ``wins_b`` and ``draws`` (games nobody won) add up
    to it. A game is A's when a seat of A's wins it. ``win_rate`` is A's share of the decided
    games, None when no game is decided; ``ci95`` its Wilson 95% interval as (low, high),
    (0.0, 1.0) when no game is decided. ``mean_score_diff`` is A's final score minus B's, per
    game (gin: the hand's points, won or lost by A; with more than two seats, the mean score of
    A's seats minus that of B's).
    ``elo_diff`` is A's Elo advantage that ``win_rate`` implies, None when ``win_rate`` is
    None, 0 or 1. ``seconds`` is the wall time of the games.
    """
    variant: str
    level_a: str
    level_b: str
    deals: int
    seed: int
    options: dict[str, Any]
    iterations: int | None
    budget_ms: float | None
    backend: str
    games: int
    wins_a: int
    wins_b: int
    draws: int
    win_rate: float | None
    ci95: tuple[float, float]
    mean_score_diff: float
    elo_diff: float | None
    seconds: float

    def to_json(self) -> dict[str, Any]:
        """Every field, as ``meldmind arena --json`` prints them."""
        return asdict(self)


def wilson_interval(wins: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion; with no trials (``n`` 0), all of (0.0, 1.0).

    >>> tuple(round(x, 4) for x in wilson_interval(60, 100))
    (0.502, 0.6906)
    >>> wilson_interval(0, 0)
    (0.0, 1.0)
    >>> wilson_interval(5, 5)[1], wilson_interval(0, 3)[0]
    (1.0, 0.0)
    """
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # exact at the edges, where rounding would leave the interval a hair short of the rate
    return (0.0 if wins == 0 else max(0.0, centre - half),
            1.0 if wins == n else min(1.0, centre + half))


def elo_difference(win_rate: float) -> float | None:
    """Elo points that make ``win_rate`` the expected score.

    >>> round(elo_difference(0.64), 1)
    100.0
    """
    if not 0.0 < win_rate < 1.0:
        return None
    return 400.0 * math.log10(win_rate / (1.0 - win_rate))


def deal_seed_of(seed: int, deal: int) -> int:
    """The seed deal ``deal`` of an arena seeded ``seed`` is dealt from."""
    return derived_seed(seed, "deal", deal)


def ai_seed_of(seed: int, deal: int, *a_seats: int) -> int:
    """The AIs' seed in the game of deal ``deal`` where level A sits in seats ``a_seats``:
    one-way from the arena's seed, as the deal's is, so no AI can compute its deal from it."""
    return derived_seed(seed, "ai", deal, *a_seats)


def seat_splits(num_players: int) -> list[tuple[int, ...]]:
    """A's seats in each game of a deal: every way of giving A some seats and B the others,
    each with its mirror (the seats swapped), so that equal levels win alike. With two seats,
    A in seat 0 and then in seat 1.

    >>> seat_splits(2)
    [(0,), (1,)]
    >>> seat_splits(3)
    [(0,), (1,), (0, 1), (2,), (0, 2), (1, 2)]
    """
    return [tuple(s for s in range(num_players) if mask >> s & 1)
            for mask in range(1, (1 << num_players) - 1)]


def _play(variant: str, options: dict, deal_seed: int, seat_levels: tuple[str, ...],
          iterations: int | None, budget_ms: float | None, ai_seed: int
          ) -> tuple[list[float], list[float]]:
    """One game; seat s is played by ``seat_levels[s]``. Its returns and final scores
    (``game_scores``: CardVerse's cumulative scores, whose returns only say who won the game;
    gin's hand points, which its winner scores)."""
    module = game_module(variant)
    kernel, ai = module.KERNEL, ai_module(variant)
    params = module.make_params(options)
    state = kernel.new_state(params, np.int64(deal_seed))
    searching = any(level in SEARCH_LEVELS for level in seat_levels)
    # a budget bounds searches only: levels without one play the same games either way
    if budget_ms is None or not searching:
        numbers = np.array([levels.NAMES.index(name) for name in seat_levels], np.int64)
        counts = np.array([iterations if iterations is not None else ai.default_iterations(n)
                           for n in numbers], np.int64)
        seed = np.int64(ai_seed)
        progress = ai.new_progress(seed)
        # Ctrl-C is seen between kernel calls: a search's moves (milliseconds each) are played
        # one a call, so that an arena on this process stops within a move, not a game
        per_call = 1 if searching else -1
        while not kernel.is_terminal(state):
            ai.play_out(state, numbers, counts, seed, progress, per_call)
    else:
        obs = np.zeros(kernel.OBS_SIZE, np.int64)
        step = 0
        while not kernel.is_terminal(state):
            seat = int(kernel.current_player(state))
            kernel.observe(state, seat, obs)
            choice = decide(variant, seat_levels[seat], obs,
                            seed=derived_seed(ai_seed, "move", step), iterations=iterations,
                            budget_ms=budget_ms)
            kernel.apply_action(state, choice.action)
            step += 1
    out = np.zeros(len(seat_levels), np.float64)
    kernel.returns(state, out)
    return out.tolist(), [float(s) for s in game_scores(module, state, len(seat_levels))]


def _play_deals(variant: str, options: dict, level_a: str, level_b: str, seed: int,
                deals: list[int], iterations: int | None, budget_ms: float | None
                ) -> list[tuple[tuple[float, float], ...]]:
    """For each deal, a game for each of :func:`seat_splits`: (A's return - B's, A's final
    score - B's), each side's the mean over its seats."""
    num_players = int(options.get("num_players", 2))
    results = []
    for deal in deals:
        dealt_from = deal_seed_of(seed, deal)
        games = []
        for a_seats in seat_splits(num_players):
            seats = tuple(level_a if s in a_seats else level_b for s in range(num_players))
            returns, scores = _play(variant, options, dealt_from, seats, iterations, budget_ms,
                                    ai_seed_of(seed, deal, *a_seats))
            games.append((_side_difference(returns, a_seats), _side_difference(scores, a_seats)))
        results.append(tuple(games))
    return results


def _side_difference(values: list[float], a_seats: tuple[int, ...]) -> float:
    """The mean of ``values`` over A's seats minus their mean over B's."""
    a = [v for s, v in enumerate(values) if s in a_seats]
    b = [v for s, v in enumerate(values) if s not in a_seats]
    return sum(a) / len(a) - sum(b) / len(b)


def _single_thread_worker() -> None:
    import numba
    numba.set_num_threads(1)  # the workers already use the cores


def _play_deals_on_one_thread(*args: Any) -> list[tuple[tuple[float, float], ...]]:
    """``_play_deals`` in a Ray worker, which may have run other tasks before."""
    _single_thread_worker()
    return _play_deals(*args)


BACKENDS = ("auto", "ray", "processes")


def _ray_backend(backend: str):
    """The ``ray`` module when the games go to Ray, else None. ``auto`` uses Ray only when there
    is a Ray cluster to use (``ray.init`` already called, or ``RAY_ADDRESS`` set): starting a
    local one takes seconds and gains nothing over local processes on one machine."""
    if backend not in BACKENDS:
        raise OptionError(f"backend must be one of {', '.join(BACKENDS)}, not {shown(backend)}")
    # a cluster in use means ray is imported already, or RAY_ADDRESS names one: else importing
    # it (a quarter of a second) is not worth it
    if backend == "processes" or (backend == "auto" and "ray" not in sys.modules
                                  and not os.environ.get("RAY_ADDRESS")):
        return None
    ray = _import_ray()
    if ray is None:
        if backend == "ray":
            raise OptionError("the ray backend needs Ray: pip install 'meldmind[ray]'")
        if os.environ.get("RAY_ADDRESS"):   # a cluster was asked for: not run here unnoticed
            raise OptionError("RAY_ADDRESS names a Ray cluster, but Ray is not installed: "
                              "pip install 'meldmind[ray]', or pass backend='processes' "
                              "(--backend processes)")
        return None
    if backend == "auto" and not (ray.is_initialized() or os.environ.get("RAY_ADDRESS")):
        return None
    if not ray.is_initialized():
        try:
            ray.init(log_to_driver=False)   # joins RAY_ADDRESS's cluster, or starts a local one
        except ConnectionError as error:    # Ray's word for a cluster it cannot reach
            raise OptionError(f"no Ray cluster at RAY_ADDRESS={shown(os.environ.get('RAY_ADDRESS'))}"
                              f": {error}") from None
    return ray


def _import_ray() -> ModuleType | None:
    """The ``ray`` module, or None when Ray is not installed. Something else that imports as
    ``ray`` is no Ray either: a folder named ray imports as a namespace package (Ray's own
    temp folder /tmp/ray, for a script run from /tmp)."""
    try:
        import ray
    except ImportError:
        return None
    return ray if hasattr(ray, "is_initialized") else None


def _run_on_ray(ray, jobs: list[tuple], in_flight: int | None, done) -> list:
    """One Ray task per job, at most ``in_flight`` at a time (None: as the cluster allows);
    ``done(part)`` is called as each task ends. The parts come back in the jobs' order."""
    task = ray.remote(num_cpus=1)(_play_deals_on_one_thread)
    waiting: dict[Any, int] = {}     # Ray object ref -> job index
    parts: list[Any] = [None] * len(jobs)
    queue = list(enumerate(jobs))
    while queue or waiting:
        while queue and (in_flight is None or len(waiting) < in_flight):
            index, job = queue.pop(0)
            waiting[task.remote(*job)] = index
        ready, _ = ray.wait(list(waiting), num_returns=1)
        index = waiting.pop(ready[0])
        parts[index] = ray.get(ready[0])
        done(parts[index])
    return parts


def _local_worker(arena_pid: int) -> None:
    """A local worker process: one numba thread, and Ctrl-C left to the arena's own process,
    which stops the workers itself rather than have each print its interruption. Should that
    process die without stopping them (SIGKILL, or SIGTERM, which Python does not catch), the
    worker exits on its own: it would otherwise play on for nobody, and hold its memory."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):      # blocked at its start, and now ignored
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _single_thread_worker()

    def exit_with_the_arena() -> None:
        while os.getppid() == arena_pid:    # an orphan gets another parent
            time.sleep(_ORPHAN_CHECK_SECONDS)
        os._exit(_EXIT_ORPHANED)

    threading.Thread(target=exit_with_the_arena, daemon=True).start()


@contextmanager
def _sigint_held_while_workers_start() -> Iterator[None]:
    """A terminal's Ctrl-C reaches the workers too, and one still starting, before its
    initializer ignores it, would print a traceback. So the workers start with SIGINT blocked
    (the mask survives exec), and a Ctrl-C meanwhile waits here until they exist (POSIX)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    import multiprocessing.resource_tracker
    # starting a worker starts this tracker if it is not running, and that unblocks SIGINT in
    # the calling thread (Python 3.11): so it is started first
    multiprocessing.resource_tracker.ensure_running()
    started_with = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, started_with)


def _run_on_processes(jobs: list[tuple], processes: int, done) -> list:
    """The jobs on local processes (in this one when ``processes`` is 1), in the jobs' order. A
    worker that dies (killed, out of memory) fails the arena with ``BrokenProcessPool``.

    The workers are loky's: started afresh like multiprocessing's spawned ones (numba's threads
    do not survive a fork), but without running the caller's ``__main__`` again, which they do
    not need. So a script needs no ``if __name__ == "__main__":`` guard, and one read from stdin
    works too."""
    parts: list[Any] = [None] * len(jobs)
    if processes == 1:
        for index, job in enumerate(jobs):
            parts[index] = _play_deals(*job)
            done(parts[index])
        return parts
    from loky import ProcessPoolExecutor  # only an arena on several processes needs it

    pool = ProcessPoolExecutor(max_workers=min(processes, len(jobs)), initializer=_local_worker,
                               initargs=(os.getpid(),))
    try:
        with _sigint_held_while_workers_start():
            futures = {pool.submit(_play_deals, *job): index for index, job in enumerate(jobs)}
        for future in as_completed(futures):
            parts[futures[future]] = future.result()
            done(parts[futures[future]])
    except BaseException:
        # Ctrl-C or an error: the batches under way are stopped, not waited for (a batch of
        # full CardVerse games runs for minutes), and the rest never start
        _shut_down(pool, kill_workers=True)
        raise
    _shut_down(pool, kill_workers=False)
    return parts


def _shut_down(pool, *, kill_workers: bool) -> None:
    """Stop ``pool``, and wait for the thread that fed its task queue, which loky leaves to end on
    its own. That thread may drop the last references to the queue's semaphores, and so unlink
    them; should the process exit meanwhile (a CLI arena's does at once), one is unlinked but
    never struck off loky's resource tracker, which then prints two warnings after the arena's
    last line."""
    call_queue = getattr(pool, "_call_queue", None)     # loky's own, which shutdown drops
    pool.shutdown(wait=True, kill_workers=kill_workers)
    feeder = getattr(call_queue, "_thread", None)
    if feeder is not None:
        # it has its stop signal, and a few small tasks at most to send before it: the bound is
        # for a pipe that no worker reads any more
        feeder.join(timeout=_FEEDER_EXIT_SECONDS)


def arena(variant: str, level_a: str, level_b: str, *, deals: SupportsIndex = 1000,
          seed: SupportsIndex = 0, processes: SupportsIndex | None = None,
          budget_ms: float | None = None, iterations: SupportsIndex | None = None,
          options: Mapping[str, Any] | None = None, progress: bool = True,
          backend: str = "auto") -> ArenaResult:
    """Play ``deals`` mirrored deals of ``level_a`` against ``level_b``: each twice, seats
    swapped, or with three or four seats (CardVerse's ``num_players``) once for each way of
    sharing the seats between the two levels (:func:`seat_splits`).

    Search levels use ``iterations`` determinizations per decision, or ``budget_ms`` per
    decision, or their default budget.

    Deal ``d`` is dealt from ``deal_seed_of(seed, d)`` and its games' AIs are seeded from
    ``ai_seed_of(seed, d, *a)`` (``a``: A's seats), both one-way, so no AI can compute its deal from
    its seed, and every seed names its own deals.

    ``backend`` says where the games run. ``"processes"``: local processes, ``processes`` of
    them (default: one per core), which need no ``if __name__ == "__main__":`` guard in the
    calling script; with 1, this process, where a Ctrl-C waits for the move under way, or for
    a game of levels that do not search, played in one call (native code, which Python cannot
    interrupt). ``"ray"``: one Ray task per batch of deals, on the cluster of ``RAY_ADDRESS``
    or a local Ray instance, at most ``processes`` tasks at a time
    (default: as many as the cluster runs). ``"auto"``: Ray when a Ray cluster is in use
    (``ray.init`` called, or ``RAY_ADDRESS`` set), else local processes. With ``iterations`` or
    the default budgets the result does not depend on the backend; under ``budget_ms`` each
    decision stops on time, so games with a search level differ from run to run on any backend.
    """
    a, b = level_name(level_a), level_name(level_b)
    module = game_module(variant)
    options = resolve_game_options(module, variant, options)
    if not _is_deal_count(deals):
        raise OptionError(f"deals must be an integer from 1 to {MAX_DEALS:,} (a longer match: "
                          f"several seeds, each naming its own deals), not {shown(deals)}")
    if processes is not None and not is_positive_int(processes):
        raise OptionError(f"processes must be a positive integer, not {shown(processes)}")
    check_budget(iterations, budget_ms)
    seed = seed_value(seed)
    # numpy's integers as Python ints, which the result's JSON can write
    deals = int(deals)
    processes = None if processes is None else int(processes)
    iterations = None if iterations is None else int(iterations)
    budget_ms = None if budget_ms is None else float(budget_ms)
    ray = _ray_backend(backend)
    jobs = [(variant, options, a, b, seed, list(range(i, min(i + _CHUNK, deals))), iterations,
             budget_ms) for i in range(0, deals, _CHUNK)]
    started = time.perf_counter()
    bar = progress_bar(deals, f"{variant} {a} vs {b}", progress)
    try:
        if ray is not None:
            parts = _run_on_ray(ray, jobs, processes, lambda part: bar.update(len(part)))
        else:
            parts = _run_on_processes(jobs, processes or os.cpu_count() or 1,
                                      lambda part: bar.update(len(part)))
    finally:
        bar.close()
    games = [game for part in parts for pair in part for game in pair]
    wins_a = sum(returned > 0 for returned, _ in games)
    wins_b = sum(returned < 0 for returned, _ in games)
    decided = wins_a + wins_b
    # with no game decided there is no win rate to report, nor an Elo difference from it
    rate = wins_a / decided if decided else None
    return ArenaResult(
        variant, a, b, deals, seed, options=options, iterations=iterations, budget_ms=budget_ms,
        backend="processes" if ray is None else "ray", games=len(games), wins_a=wins_a,
        wins_b=wins_b, draws=len(games) - decided, win_rate=rate,
        ci95=wilson_interval(wins_a, decided),
        mean_score_diff=float(np.mean([score for _, score in games])),
        elo_diff=None if rate is None else elo_difference(rate),
        seconds=time.perf_counter() - started)


def progress_bar(total: int, label: str, enabled: bool = True, unit: str = "deal"):
    """A tqdm bar on stderr for ``total`` units of a long run (the arena's deals, a benchmark's
    deal pairs), moved by ``update(n)``; ``close()`` takes it off the screen."""
    from tqdm import tqdm

    class Bar(tqdm):
        # without the thread that tqdm starts for every bar, even a disabled one, and leaves
        # running in the embedder's process: it redraws stalled bars, and this one moves once a
        # batch, seconds apart, each move drawn (miniters=1)
        monitor_interval = 0

    # no stderr at all under pythonw, or when started with it closed
    return Bar(total=total, desc=label, unit=unit, disable=not enabled or sys.stderr is None,
               file=sys.stderr, leave=False, miniters=1)


def format_table(results: list[ArenaResult]) -> str:
    """A readable results table, one row per match."""
    header = ("variant", "A", "B", "deals", "games", "A wins", "B wins", "draws", "A win rate",
              "95% interval", "score diff", "Elo", "time")
    rows = [header]
    for r in results:
        elo = signed(r.elo_diff, 0) if r.elo_diff is not None else "—"
        rate = f"{r.win_rate:.1%}" if r.win_rate is not None else "—"
        rows.append((r.variant, r.level_a, r.level_b, str(r.deals), str(r.games), str(r.wins_a),
                     str(r.wins_b), str(r.draws), rate,
                     f"{r.ci95[0]:.1%} – {r.ci95[1]:.1%}", signed(r.mean_score_diff, 2), elo,
                     f"{r.seconds:.1f}s"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
