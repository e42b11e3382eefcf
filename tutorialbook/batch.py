"""Batch ingest that scales out: a folder's files read in parallel, by worker processes on this
machine (``workers``) or by Ray tasks on a cluster (``ray``), every worker writing to the one store.

Each file is written in its turn, in the folder's order: a worker reads, transcribes and embeds
its file at once (most of a video's ingest, and nothing of it is written), then waits until every
file before it is committed and refined (or has failed) before it consolidates, commits and
refines. Consolidation files a tutorial into the book as the earlier ones left it (which chapter
it joins, which skill it extends, where a new node goes) and refinement repairs it before the next
is filed, so the turn makes the book a batch writes the one a single process writes, row for row.
It is also what keeps two workers from filing into one book at once: the store's locks are local
files (memory/store.py), which reach neither other machines nor object storage; the turn is held
by the coordinator (this process), so it does.

A worker that dies (killed, out of memory) loses nothing committed: its unfinished commit stays
hidden from reads and its file is given to a new worker, once, which rolls that commit back and
ingests the file again; a file whose workers die twice is reported failed, its unfinished commit
rolled back in its turn. Re-running a batch adds nothing (each file is found stored).

A worker is replaced by a fresh process after ``Settings.worker_files`` files (a Ray worker
after as many tasks, Ray's ``max_calls``): a process that has written many commits holds native
memory LanceDB's write path does not give back, which a fresh process on the same store does not
(README "Memory"); starting again and loading the models costs 3.5-4.8 s here, per that many files.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait as wait_any
from pathlib import Path
from typing import Any, Callable, cast

from tutorialbook.acquire.sources import content_hash
from tutorialbook.common import Progress
from tutorialbook.config import Settings
from tutorialbook.errors import TutorialbookError
from tutorialbook.ingest import Ingestion, Place, _title_from, folder_report, tutorial_id_of
from tutorialbook.models import FileStatus, IngestReport, TutorialReport

#: how many times a file is given to a new worker after its worker died
RETRIES = 1
MAX_WORKERS = 64
#: a private local Ray (``ray="local"``): its shared-object store, kept small (files' results are small)
RAY_OBJECT_STORE_BYTES = 96 * 2**20


@dataclass(frozen=True)
class FileJob:
    """One file of a batch: where it stands in the folder's order, and how to ingest it."""

    index: int
    path: str
    book: str
    title: str | None
    domain: str
    refine_rounds: int
    agent: str | None
    document: Place = Place()  # where the page stands in its manual


def ingest_batch(ingestion: Ingestion, opener: Callable[[Settings], Ingestion], source: str, book: str = "default",
                 title: str | None = None, domain: str = "auto", refine_rounds: int = 1, agent: str | None = None,
                 workers: int = 1, ray: str | None = None, progress: Progress | None = None) -> IngestReport:
    """Ingest a folder (or file) as ``Ingestion.ingest`` does, with the same report, with ``workers``
    processes on this machine, or as Ray tasks when ``ray`` is given: an address ("auto", "host:port",
    "ray://host:10001"), "local" (a private Ray on this machine), or any value when this process is
    already connected (``ray.init()`` was called). One worker and no Ray, or a single file: the plain
    ingest in this process. ``opener`` (picklable: a module's function) gives a worker process its
    ingestion service on the batch's settings."""
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= MAX_WORKERS:
        raise TutorialbookError("workers", f"must be a whole number from 1 to {MAX_WORKERS}, got {workers!r}")
    files, folder, documents = ingestion.ingest_files(source, book, title, domain, refine_rounds)
    if workers == 1 and not ray or not folder:
        return ingestion.ingest(source, book, title, domain, progress=progress, refine_rounds=refine_rounds,
                                agent=agent)
    warnings = ingestion._recover_abandoned()  # before any worker writes, as a plain ingest does
    jobs = [FileJob(n, str(path), book, title, domain, refine_rounds, agent, documents[path])
            for n, path in enumerate(files)]
    coordinator = _Coordinator(ingestion, jobs, progress)
    worker = _Worker(opener, ingestion.settings)
    if ray:
        _run_ray(coordinator, worker, ray, workers)
    else:
        _run_local(coordinator, worker, workers)
    reports = [r for r in coordinator.reports if r is not None]
    statuses = cast(list[FileStatus], coordinator.statuses)  # every file has finished: each has its status
    return folder_report(book, source, folder, files, reports, statuses, warnings)


@dataclass(frozen=True)
class _Worker:
    """How a worker process (or Ray task) gets its ingestion service: the opener and the settings."""

    opener: Callable[[Settings], Ingestion]
    settings: Settings


def ingest_file(worker: _Worker, job: FileJob, turn: Callable[[], None]) -> tuple[TutorialReport | None, FileStatus]:
    """The per-file function of a batch, in a worker process or a Ray task: ``Ingestion.ingest_one``
    on this process's service, writing when ``turn`` returns."""
    ingestion = _service(worker)
    return ingestion.ingest_one(Path(job.path), job.book, job.title, job.domain, _quiet, None,
                                job.refine_rounds, job.agent, ingestion._llm(), folder=True, turn=turn,
                                document=job.document)


_SERVICES: dict[str, Ingestion] = {}


def _service(worker: _Worker) -> Ingestion:
    """This process's service on the batch's store (a worker keeps its models loaded between files)."""
    key = repr(worker)
    if key not in _SERVICES:
        _SERVICES[key] = worker.opener(worker.settings)
    return _SERVICES[key]


def _quiet(done: float, total: float, message: str) -> None:
    pass


class _Coordinator:
    """The batch's state, kept by the process that started it: whose turn it is, what became of
    each file."""

    def __init__(self, ingestion: Ingestion, jobs: list[FileJob], progress: Progress | None):
        self.ingestion, self.jobs, self.progress = ingestion, jobs, progress
        self.reports: list[TutorialReport | None] = [None] * len(jobs)
        self.statuses: list[FileStatus | None] = [None] * len(jobs)
        self.finished = [False] * len(jobs)
        self.first_open = 0  # every file before it is finished: it holds the turn
        self.attempts = [0] * len(jobs)  # how many workers died on each file
        self.deaths: dict[int, str] = {}  # file -> how its last worker died
        self.dead: set[int] = set()  # files whose workers died on every attempt, not yet closed

    def may_write(self, index: int) -> bool:
        return index <= self.first_open

    def finish(self, index: int, report: TutorialReport | None, status: FileStatus) -> None:
        if report is not None and index in self.deaths:
            report.warnings.append(f"its first worker died ({self.deaths[index]}); another ingested it again")
        self.reports[index], self.statuses[index], self.finished[index] = report, status, True
        if self.progress:
            self.progress(sum(self.finished), len(self.jobs), f"{Path(status.source).name}: {status.status}")
        self._advance()

    def died(self, index: int, how: str, attempts: int = 1) -> bool:
        """A worker died on this file (after ``attempts`` tries): True when it is to be tried again."""
        self.attempts[index] += attempts
        self.deaths[index] = how
        if self.attempts[index] <= RETRIES:
            return True
        self.dead.add(index)
        self._advance()
        return False

    def _advance(self) -> None:
        """Move the turn past finished files. A file whose workers all died is closed in its turn
        (nobody else writes then): the commit a dead worker left is rolled back first."""
        while self.first_open < len(self.jobs):
            index = self.first_open
            if index in self.dead:
                self.dead.discard(index)
                self.statuses[index], self.finished[index] = self._failed(self.jobs[index]), True
            if not self.finished[index]:
                return
            self.first_open += 1

    def _failed(self, job: FileJob) -> FileStatus:
        reason = f"its worker process died ({self.deaths[job.index]}) on each of {self.attempts[job.index]} attempts"
        try:
            row = self.ingestion.store.get("tutorials", tutorial_id_of(job.book, content_hash(Path(job.path))))
            if row is not None and row["status"] != "ready":
                self.ingestion._recover(row, job.agent, why="its batch worker died")
                reason += "; its unfinished commit was rolled back"
            elif row is not None:
                reason += "; it was committed, but its refinement is unfinished (ingest it again to resume)"
        except Exception as exc:  # noqa: BLE001 - then the next ingest rolls it back
            reason += f"; its unfinished commit stays hidden and the next ingest rolls it back ({exc})"
        if self.progress:
            self.progress(sum(self.finished) + 1, len(self.jobs), f"{Path(job.path).name}: failed")
        return FileStatus(source=job.path, status="failed", title=_title_from(Path(job.path)), reason=reason)

    @property
    def done(self) -> bool:
        return all(self.finished)


# -- worker processes on this machine -------------------------------------------------------------

def _run_local(coordinator: _Coordinator, worker: _Worker, workers: int) -> None:  # noqa: C901 - one supervision loop
    context = multiprocessing.get_context("spawn")  # LanceDB's and the models' threads do not survive fork
    queue = deque(coordinator.jobs)
    live: dict = {}  # connection -> [process, job or None, files done]
    retired: list = []  # workers told to stop after their share of files, reaped once they exit
    share = worker.settings.worker_files
    waiting: dict[int, Connection] = {}  # file index -> the connection of the worker waiting for its turn

    def start() -> None:
        ours, theirs = context.Pipe()
        process = context.Process(target=_worker, args=(theirs, worker), daemon=True, name="tutorialbook-batch")
        process.start()
        theirs.close()
        live[ours] = [process, None, 0]

    def hand_out() -> None:
        for conn, slot in live.items():
            if slot[1] is None and queue:
                slot[1] = queue.popleft()
                conn.send(("file", slot[1]))

    def grant() -> None:
        for index in [i for i in waiting if coordinator.may_write(i)]:
            waiting.pop(index).send(("go",))

    def receive(conn, message) -> None:
        if message[0] == "turn":
            waiting[message[1]] = conn
        elif message[0] == "done":
            _, index, report, status = message
            slot = live[conn]
            slot[1], slot[2] = None, slot[2] + 1
            coordinator.finish(index, report, status)
            if share and slot[2] >= share:  # its share done: a fresh process takes its place
                live.pop(conn)
                conn.send(("stop",))
                conn.close()
                retired.append(slot[0])

    def bury(conn) -> None:
        process, job, _ = live.pop(conn)
        process.join(5)
        conn.close()
        if job is not None:
            waiting.pop(job.index, None)
            if coordinator.died(job.index, _exit(process.exitcode)):
                queue.appendleft(job)  # first: it holds the turn, or soon will

    try:
        while not coordinator.done:
            retired[:] = [p for p in retired if p.is_alive()]  # reaps the ones that have exited
            busy = sum(slot[1] is not None for slot in live.values())
            while len(live) < min(workers, busy + len(queue)):
                start()
            hand_out()
            grant()
            sentinels = {slot[0].sentinel: conn for conn, slot in live.items()}
            for ready in wait_any([*live, *sentinels]):
                conn = sentinels.get(ready, ready)
                if conn not in live:
                    continue
                closed = False
                try:
                    while conn in live and conn.poll():
                        receive(conn, conn.recv())
                except (EOFError, OSError):
                    closed = True
                if conn in live and (closed or not live[conn][0].is_alive()):
                    bury(conn)
    finally:
        for conn in live:
            try:
                conn.send(("stop",))
            except OSError:
                pass
        for process in [slot[0] for slot in live.values()] + retired:  # idle now (or interrupted): nothing
            process.join(2)                                                # of theirs is left to commit
            if process.is_alive():
                process.terminate()


def _worker(conn, worker: _Worker) -> None:
    """A worker process: ingests the files it is handed, asking for each one's turn before writing."""
    try:
        while True:
            message = conn.recv()
            if message[0] == "stop":
                return
            job: FileJob = message[1]

            def turn(job=job) -> None:
                conn.send(("turn", job.index))
                if conn.recv() != ("go",):
                    raise RuntimeError("the batch stopped")

            report, status = ingest_file(worker, job, turn)
            conn.send(("done", job.index, report, status))
    except (KeyboardInterrupt, EOFError):
        return


def _exit(code: int | None) -> str:
    if code is not None and code < 0:
        import signal

        return f"killed by {signal.Signals(-code).name}"
    return f"exit code {code}"


# -- Ray tasks ------------------------------------------------------------------------------------

def _run_ray(coordinator: _Coordinator, worker: _Worker, address: str, workers: int) -> None:
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        # an optional extra ([ray]); unused-ignore: where it is installed it is found
        import ray  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        raise TutorialbookError("ray", "Ray is not installed: pip install 'tutorialbook[ray]'") from None
    started = not ray.is_initialized()
    if started:
        if address == "local":
            ray.init(num_cpus=max(workers, 1) if workers > 1 else None, include_dashboard=False,
                     object_store_memory=RAY_OBJECT_STORE_BYTES, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    try:
        turns: Any = ray.remote(num_cpus=0)(_Turns).remote()  # an actor handle: its methods are called with .remote()
        task = ray.remote(num_cpus=1, max_retries=RETRIES, max_calls=worker.settings.worker_files)(_ray_file)
        # at most as many tasks in flight as the cluster has CPUs (or `workers`): the file holding
        # the turn is always among them, so the ones waiting for it never fill the cluster
        parallel = workers if workers > 1 else max(1, int(ray.cluster_resources().get("CPU", 1)))
        pending = deque(coordinator.jobs)
        running: dict = {}
        while not coordinator.done:
            while pending and len(running) < parallel:
                job = pending.popleft()
                running[task.remote(worker, job, turns)] = job
            if not running:
                break
            ready, _ = ray.wait(list(running), num_returns=1)
            job = running.pop(ready[0])
            try:
                report, status = ray.get(ready[0])
            except Exception as exc:  # noqa: BLE001 - its worker died on every attempt Ray made
                coordinator.died(job.index, _short(exc), attempts=RETRIES + 1)
            else:
                coordinator.finish(job.index, report, status)
            ray.get(turns.advance.remote(coordinator.first_open))
    finally:
        if started:
            ray.shutdown()


def _ray_file(worker: _Worker, job: FileJob, turns) -> tuple[TutorialReport | None, FileStatus]:
    import ray

    return ingest_file(worker, job, lambda: ray.get(turns.wait.remote(job.index)))


class _Turns:
    """A Ray actor the tasks wait on for their turn; the coordinator moves it on."""

    def __init__(self):
        self.first_open = 0
        self.changed = None

    async def wait(self, index: int) -> None:
        import asyncio

        self.changed = self.changed or asyncio.Condition()
        async with self.changed:
            await self.changed.wait_for(lambda: index <= self.first_open)

    async def advance(self, first_open: int) -> None:
        import asyncio

        self.changed = self.changed or asyncio.Condition()
        async with self.changed:
            self.first_open = first_open
            self.changed.notify_all()


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 200 else text[:199] + "…"
