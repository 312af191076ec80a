"""Scale and throughput benchmark (not a test): a corpus of 2,000+ pages, ingest, latency, sustained q/s.

    .venv/bin/python benchmarks/scale_bench.py --source ../shared/benchmarks/contoso/docs \\
        --gold ../shared/benchmarks/contoso/ground_truth.jsonl --work /tmp/scale

1. Corpus: the source PDFs copied as many times as it takes to reach ``--pages`` into
   ``WORK/corpus`` (never into the repository), with a generated ``catalog.yaml`` that gives every
   copy its own document and policy id, title, ACL groups and jurisdiction (a mix of US-wide,
   state, contractor, executive and HR-admin scopes).
2. Ingest: ``benefitsbot ingest`` in a child process on the default embedded stack. Reports
   pages/s, chunks/s, the index size on disk and the peak RSS of the whole process tree (the
   command and its PDF-parsing worker), sampled through ``/proc``.
3. Latency: distinct questions (the gold questions rephrased by template: greetings, suffixes,
   case, a typo) asked one at a time through the real ``Pipeline``, question in and validated
   ``Answer`` out, each as one of several identities. There is no answer cache in the core.
4. Throughput: an open-loop load generator at fixed arrival rates, stepping up, with fresh
   distinct questions at every step. Latency counts from each question's scheduled arrival, so
   queueing is included. The result is the highest rate with p95 <= ``--slo-s``.
5. Optionally (``--slack-rates``) the same through the Slack front door with real signatures,
   using ``benchmarks/slack_load.py``.

Writes ``RESULTS/<name>.json`` and ``RESULTS/<name>-latency-vs-rate.png``. Every phase is bounded
in count and time; the load is loopback / in-process only.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import math
import os
import platform
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml
from tqdm import tqdm

REPO = Path(__file__).resolve().parents[1]
for _path in (REPO, REPO / "benchmarks"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from rag_core.access import mint_token  # noqa: E402
from rag_core.errors import BenefitsBotError  # noqa: E402
from rag_core.pipeline import Pipeline, build_pipeline  # noqa: E402
from rag_core.settings import CoreSettings  # noqa: E402

MARKER = ".scale-bench"  # only a work folder carrying this file is ever emptied
MIB = 1024 * 1024


# -- the corpus ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Scope:
    """Who may read one copy of the source documents."""

    label: str
    acl_groups: tuple[str, ...]
    jurisdiction: str


# Every group exists in deploy/rbac.yaml, so the Slack front door can resolve users into them.
SCOPES = (
    Scope("US", ("employees",), "US-ALL"),
    Scope("California", ("employees",), "US-CA"),
    Scope("New York", ("employees",), "US-NY"),
    Scope("Contractors", ("contractors",), "US-ALL"),
    Scope("Washington", ("employees",), "US-WA"),
    Scope("Executives", ("executives",), "US-ALL"),
    Scope("HR admins", ("hr-admins",), "US-ALL"),
    Scope("Texas", ("employees",), "US-TX"),
)


@dataclass(frozen=True)
class Identity:
    """An asker: each sees one to three copies of the corpus through the Qdrant pre-filter."""

    groups: tuple[str, ...]
    state: str | None


IDENTITIES = (
    Identity(("employees",), None),
    Identity(("employees",), "CA"),
    Identity(("employees",), "NY"),
    Identity(("employees",), "WA"),
    Identity(("employees",), "TX"),
    Identity(("contractors",), None),
    Identity(("executives", "employees"), "CA"),
    Identity(("hr-admins", "employees"), None),
)


@dataclass
class CorpusInfo:
    folder: str
    source_documents: int
    source_pages: int
    copies: int
    documents: int
    pages: int
    scopes: list[dict[str, Any]]


def count_pages(pdf: Path) -> int:
    import pdfplumber

    with pdfplumber.open(pdf) as document:
        return len(document.pages)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def prepare_work(work: Path) -> None:
    """Create ``work``, or empty it when an earlier run of this benchmark made it."""
    if work.exists() and any(work.iterdir()):
        if not (work / MARKER).exists():
            raise SystemExit(f"{work} is not empty and was not made by this benchmark; choose another --work")
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    (work / MARKER).write_text("scratch folder of benchmarks/scale_bench.py\n")


def build_corpus(source: Path, folder: Path, min_pages: int) -> CorpusInfo:
    """Copy every source PDF under distinct ids until the corpus holds at least ``min_pages``."""
    pdfs = sorted(source.glob("*.pdf"))
    if not pdfs:
        raise SystemExit(f"no PDFs in {source}")
    pages = {pdf: count_pages(pdf) for pdf in pdfs}
    source_pages = sum(pages.values())
    copies = math.ceil(min_pages / source_pages)
    documents: list[dict[str, Any]] = []
    for copy in range(copies):
        scope = SCOPES[copy % len(SCOPES)]
        edition = scope.label if copy < len(SCOPES) else f"{scope.label} {copy // len(SCOPES) + 1}"
        for pdf in pdfs:
            document_id = f"c{copy:02d}-{_slug(pdf.stem)}"
            target = folder / f"c{copy:02d}" / f"{pdf.stem}-{_slug(edition)}.pdf"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(pdf, target)
            documents.append(
                {
                    "file": target.relative_to(folder).as_posix(),
                    "document_id": document_id,
                    "policy_id": document_id,
                    "title": f"{pdf.stem.replace('_', ' ')} ({edition})",
                    "jurisdiction": scope.jurisdiction,
                    "acl_groups": list(scope.acl_groups),
                }
            )
    catalog = {
        "include": ["**/*.pdf"],
        "defaults": {"language": "en", "version": "1", "effective_date": "2026-01-01"},
        "documents": documents,
    }
    (folder / "catalog.yaml").write_text(yaml.safe_dump(catalog, sort_keys=False))
    return CorpusInfo(
        folder=str(folder),
        source_documents=len(pdfs),
        source_pages=source_pages,
        copies=copies,
        documents=len(documents),
        pages=source_pages * copies,
        scopes=[asdict(SCOPES[c % len(SCOPES)]) for c in range(copies)],
    )


# -- distinct questions ----------------------------------------------------------------------
PREFIXES = (
    "",
    "Quick question: ",
    "Can you tell me: ",
    "Hi! ",
    "hey, ",
    "I need to know: ",
    "Question about my benefits: ",
    "Sorry to bother you, ",
)
SUFFIXES = ("", " Thanks.", " Thanks!", " (for 2026)", " please", " Asking for open enrollment.")


def _with_typo(text: str, rng: random.Random) -> str:
    """Swap two inner letters of one longer word, as fast typing does."""
    words = text.split(" ")
    long_words = [i for i, w in enumerate(words) if len(w) >= 6 and w.isalpha()]
    if not long_words:
        return text
    i = rng.choice(long_words)
    word = words[i]
    j = rng.randrange(1, len(word) - 2)
    words[i] = word[:j] + word[j + 1] + word[j] + word[j + 2 :]
    return " ".join(words)


def distinct_questions(gold: Path, seed: int = 7) -> list[str]:
    """Every gold question under every template combination, deduplicated, in a seeded order."""
    bases = [json.loads(line)["question"].strip() for line in gold.read_text().splitlines() if line.strip()]
    rng = random.Random(seed)
    out: set[str] = set()
    for base, prefix, suffix, lower, typo in itertools.product(bases, PREFIXES, SUFFIXES, (False, True), (False, True)):
        text = base[0].lower() + base[1:] if prefix.endswith(", ") else base
        text = _with_typo(text, rng) if typo else text
        text = f"{prefix}{text}{suffix}"
        out.add(text.lower().rstrip("?") if lower else text)
    ordered = sorted(out)
    rng.shuffle(ordered)
    return ordered


@dataclass(frozen=True)
class Ask:
    question: str
    token: str


class AskSource:
    """Hands out each question once; ``take`` signs each with a token of the next identity."""

    def __init__(self, questions: Sequence[str], key: str) -> None:
        self._questions = iter(questions)
        self._identities = itertools.cycle(IDENTITIES)
        self._key = key
        self.used = 0

    def texts(self, count: int) -> list[str]:
        """The next ``count`` questions as plain text (the Slack front door signs its own identities)."""
        taken = list(itertools.islice(self._questions, count))
        self.used += len(taken)
        if len(taken) < count:
            raise SystemExit(f"ran out of distinct questions after {self.used}; add templates")
        return taken

    def take(self, count: int) -> list[Ask]:
        asks = []
        first = self.used
        for number, question in enumerate(self.texts(count), start=first):
            identity = next(self._identities)
            token = mint_token(
                self._key, subject=f"scale:{number}", acl_groups=identity.groups, state=identity.state, ttl_s=3 * 3600
            )
            asks.append(Ask(question, token))
        return asks


# -- measuring -------------------------------------------------------------------------------
def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile. A question that never finished counts as +inf, so enough of
    them make p95 infinite (the step fails) rather than vanish from the sample."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))]


def ms(seconds: float) -> float | None:
    return None if math.isnan(seconds) or math.isinf(seconds) else round(seconds * 1000, 1)


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _status_kib(pid: int, field_name: str) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field_name + ":"):
                return int(line.split()[1])
    return 0


def peak_rss_self_mib() -> float:
    return round(_status_kib(os.getpid(), "VmHWM") / 1024, 1)


class TreeMemory(threading.Thread):
    """Samples the RSS of a process and all its descendants through /proc.

    ``peak_total_mib`` is the highest sum seen at one instant (what the machine must hold);
    ``peaks`` is each process's own high-water mark (VmHWM, exact, read while it was alive).
    """

    def __init__(self, root: int, interval_s: float = 0.1) -> None:
        super().__init__(daemon=True)
        self.root = root
        self.interval_s = interval_s
        self.peak_total_kib = 0
        self.peaks: dict[int, tuple[str, int]] = {}
        self._stop_event = threading.Event()

    @staticmethod
    def _parents() -> dict[int, int]:
        parents = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as stat:
                        parents[int(entry)] = int(stat.read().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue  # exited while we looked
        return parents

    def _tree(self) -> list[int]:
        children: dict[int, list[int]] = {}
        for pid, parent in self._parents().items():
            children.setdefault(parent, []).append(pid)
        tree, todo = [], [self.root]
        while todo:
            pid = todo.pop()
            tree.append(pid)
            todo.extend(children.get(pid, []))
        return tree

    @staticmethod
    def _label(pid: int) -> str:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                argv = cmdline.read().decode(errors="replace").split("\0")
        except OSError:
            return "?"
        text = " ".join(argv)
        if "multiprocessing.spawn" in text:
            return "pdf-parsing worker"
        if "resource_tracker" in text:
            return "multiprocessing resource tracker"
        return "benefitsbot ingest" if "ingest" in argv else Path(argv[0]).name

    def sample(self) -> None:
        total = 0
        for pid in self._tree():
            try:
                total += _status_kib(pid, "VmRSS")
                peak = _status_kib(pid, "VmHWM")
            except OSError:
                continue
            label = self.peaks[pid][0] if pid in self.peaks else self._label(pid)
            self.peaks[pid] = (label, max(peak, self.peaks.get(pid, ("", 0))[1]))
        self.peak_total_kib = max(self.peak_total_kib, total)

    def run(self) -> None:
        while not self._stop_event.is_set():
            self.sample()
            self._stop_event.wait(self.interval_s)

    def stop(self) -> None:
        self._stop_event.set()
        self.join()

    def report(self) -> dict[str, Any]:
        return {
            "peak_rss_tree_mib": round(self.peak_total_kib / 1024, 1),
            "peak_rss_per_process_mib": {
                f"{label} (pid {pid})": round(kib / 1024, 1) for pid, (label, kib) in sorted(self.peaks.items())
            },
        }


def disk_usage(folder: Path) -> dict[str, float]:
    apparent = allocated = 0
    for root, _, files in os.walk(folder):
        for name in files:
            info = os.lstat(os.path.join(root, name))
            apparent += info.st_size
            allocated += info.st_blocks * 512
    return {"apparent_mib": round(apparent / MIB, 1), "on_disk_mib": round(allocated / MIB, 1)}


# -- phase 2: ingest -------------------------------------------------------------------------
def child_env(data_dir: Path) -> dict[str, str]:
    env = dict(
        os.environ,
        PYTHONPATH=str(REPO),
        BENEFITSBOT_DATA_DIR=str(data_dir),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
    )
    return env


def ingest(corpus: Path, data_dir: Path) -> dict[str, Any]:
    """``benefitsbot ingest`` as a user runs it; its own progress bar goes to stderr."""
    before = load_average()
    command = [sys.executable, "-m", "bot.cli", "ingest", str(corpus), "--data-dir", str(data_dir), "--json"]
    children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=REPO, env=child_env(data_dir), stdout=subprocess.PIPE, text=True)
    memory = TreeMemory(process.pid)
    memory.start()
    stdout, _ = process.communicate(timeout=3 * 3600)
    memory.stop()
    wall = time.perf_counter() - started
    # The command and its reaped worker: CPU time does not depend on how busy the shared machine is.
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_s = (children.ru_utime + children.ru_stime) - (children_before.ru_utime + children_before.ru_stime)
    try:
        summary = json.loads(stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"ingest failed (exit {process.returncode}):\n{stdout}") from None
    seconds = float(summary["seconds"])
    return {
        "command": " ".join(["benefitsbot", *command[3:]]),
        "exit_code": process.returncode,
        "documents": summary["documents"],
        "ingested": summary["ingested"],
        "failed": summary["failed"],
        "pages": summary["pages"],
        "chunks": summary["chunks"],
        "pages_without_text": sum(len(p) for p in summary["pages_without_text"].values()),
        "ingest_s": round(seconds, 1),
        "command_wall_s": round(wall, 1),
        "pages_per_s": round(summary["pages"] / seconds, 2),
        "chunks_per_s": round(summary["chunks"] / seconds, 2),
        "pages_per_s_wall": round(summary["pages"] / wall, 2),
        "cpu_s": round(cpu_s, 1),
        "pages_per_cpu_s": round(summary["pages"] / cpu_s, 2),
        "index_size": disk_usage(data_dir),
        **memory.report(),
        "largest_process_rss_mib_rusage": round(children.ru_maxrss / 1024, 1),  # kernel's own figure, a check
        "load_average_before": before,
        "load_average_after": load_average(),
    }


# -- phase 3: latency, one question at a time -------------------------------------------------
@dataclass
class Outcomes:
    """What the questions of one phase came back as."""

    latencies_s: list[float] = field(default_factory=list)
    answered: int = 0
    abstained: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    stage_ms: dict[str, list[float]] = field(default_factory=dict)

    def record(self, started: float, answer: Any) -> None:
        self.latencies_s.append(time.perf_counter() - started)
        if answer.abstained:
            self.abstained[answer.abstain_reason.value] += 1
        else:
            self.answered += 1
        for stage, value in answer.latency_ms.items():
            self.stage_ms.setdefault(stage, []).append(value)

    def summary(self) -> dict[str, Any]:
        values = self.latencies_s
        return {
            "questions": len(values),
            "p50_ms": ms(percentile(values, 50)),
            "p95_ms": ms(percentile(values, 95)),
            "max_ms": ms(max(values, default=math.nan)),
            "mean_ms": ms(statistics.fmean(v for v in values if math.isfinite(v))) if values else None,
            "answered": self.answered,
            "abstained": dict(self.abstained),
            "errors": dict(self.errors),
        }


async def ask(pipeline: Pipeline, item: Ask, outcomes: Outcomes, started: float) -> None:
    try:
        answer = await pipeline.answer(item.question, item.token)
    except BenefitsBotError as exc:
        outcomes.errors[type(exc).__name__] += 1
        outcomes.latencies_s.append(math.inf)
        return
    outcomes.record(started, answer)


async def sequential_latency(pipeline: Pipeline, asks: Sequence[Ask]) -> dict[str, Any]:
    before = load_average()
    outcomes = Outcomes()
    cpu_started = time.process_time()  # every thread of this process: the models' too
    for item in tqdm(asks, desc="latency", unit="q", leave=False):
        await ask(pipeline, item, outcomes, time.perf_counter())
    cpu_ms = (time.process_time() - cpu_started) * 1000 / max(1, len(asks))
    stages = {
        stage: {"p50_ms": round(percentile(v, 50), 1), "p95_ms": round(percentile(v, 95), 1)}
        for stage, v in outcomes.stage_ms.items()
    }
    return {
        **outcomes.summary(),
        "distinct_questions": len({a.question for a in asks}),
        "cpu_ms_per_question": round(cpu_ms, 1),
        "stage_ms": stages,
        "load_average_before": before,
        "load_average_after": load_average(),
    }


# -- phase 4: open-loop throughput -----------------------------------------------------------
async def open_loop_step(
    pipeline: Pipeline, asks: Sequence[Ask], rate: float, *, slo_s: float, abort_after_s: float, drain_s: float
) -> dict[str, Any]:
    """Send ``asks`` at ``rate`` per second whatever the answers do (open loop). A question's
    latency counts from when it was due, so a late sender does not hide queueing. Sending stops
    early once a question has been waiting ``abort_after_s`` (the rate is clearly too high);
    questions still open after ``drain_s`` are cancelled and count as infinitely slow."""
    load_before = load_average()
    outcomes = Outcomes()
    in_flight: dict[asyncio.Task[None], float] = {}
    start = time.perf_counter() + 0.05
    sent = 0
    overloaded = False
    bar = tqdm(total=len(asks), desc=f"{rate:g} q/s", unit="q", leave=False)
    cpu_started = time.process_time()

    def finished(task: asyncio.Task[None]) -> None:
        in_flight.pop(task, None)
        bar.update()

    for i, item in enumerate(asks):
        due = start + i / rate
        delay = due - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        if in_flight and time.perf_counter() - min(in_flight.values()) > abort_after_s:
            overloaded = True
            break
        task = asyncio.create_task(ask(pipeline, item, outcomes, due))
        in_flight[task] = due
        task.add_done_callback(finished)
        sent += 1
    send_s = time.perf_counter() - start
    pending = list(in_flight)
    if pending:
        _, still_open = await asyncio.wait(pending, timeout=drain_s)
        for task in still_open:
            task.cancel()
        await asyncio.gather(*still_open, return_exceptions=True)
        outcomes.latencies_s.extend([math.inf] * len(still_open))
    bar.close()
    unsent = len(asks) - sent
    outcomes.latencies_s.extend([math.inf] * unsent)  # questions the generator never got to send
    cpu_ms = (time.process_time() - cpu_started) * 1000 / max(1, sent)
    summary = outcomes.summary()
    p95 = percentile(outcomes.latencies_s, 95)
    return {
        "rate_per_s": rate,
        "planned": len(asks),
        "sent": sent,
        "achieved_rate_per_s": round(sent / send_s, 2) if send_s > 0 else None,
        "overloaded_stopped_early": overloaded,
        **summary,
        "cpu_ms_per_question": round(cpu_ms, 1),
        "meets_slo": bool(p95 <= slo_s) and not overloaded,
        "load_average_before": load_before,
        "load_average_after": load_average(),
    }


def step_count(rate: float, step_s: float, min_count: int, max_count: int) -> int:
    return max(min_count, min(max_count, round(rate * step_s)))


async def throughput(
    pipeline: Pipeline, source: AskSource, rates: Sequence[float], args: argparse.Namespace
) -> dict[str, Any]:
    """Step the arrival rate up until p95 breaks the SLO, then bisect (geometrically) between the
    last rate that held and the first that did not."""
    steps: list[dict[str, Any]] = []

    async def run(rate: float) -> bool:
        asks = source.take(step_count(rate, args.step_s, args.min_step_questions, args.max_step_questions))
        step = await open_loop_step(
            pipeline, asks, rate, slo_s=args.slo_s, abort_after_s=args.abort_after_s, drain_s=args.drain_s
        )
        steps.append(step)
        tqdm.write(
            f"  {rate:g} q/s: p50 {step['p50_ms']} ms, p95 {step['p95_ms']} ms, "
            f"{'meets' if step['meets_slo'] else 'misses'} the SLO"
        )
        await asyncio.sleep(args.pause_s)  # let the machine settle between steps
        return bool(step["meets_slo"])

    best: float | None = None
    failed: float | None = None
    for rate in rates:
        if await run(rate):
            best = rate
        else:
            failed = rate
            break
    if failed is not None:
        low = best if best is not None else failed / 4
        for _ in range(args.refine):
            middle = round(math.sqrt(low * failed), 2)
            if await run(middle):
                low = best = middle
            else:
                failed = middle
    return {
        "slo_p95_s": args.slo_s,
        "sustained_rate_per_s": best,
        "first_failing_rate_per_s": failed,
        "steps": sorted(steps, key=lambda s: s["rate_per_s"]),
    }


# -- phase 5: the Slack front door -----------------------------------------------------------
async def slack_steps(
    source: AskSource, data_dir: Path, rates: Sequence[float], args: argparse.Namespace
) -> list[dict[str, Any]]:
    """benchmarks/slack_load.py at each rate, with distinct questions; one core call per event
    (no channel mentions, which would cost two), the answer cache off."""
    import slack_load

    os.environ["BENEFITSBOT_DATA_DIR"] = str(data_dir)
    results = []
    for rate in rates:
        count = step_count(rate, args.step_s, args.min_step_questions, args.max_step_questions)
        options = argparse.Namespace(
            rate=rate,
            duration=count / rate,
            service="core",
            fake_delay_ms=0.0,
            mention_fraction=0.0,
            retry_fraction=0.05,
            redis_url=None,
            cache=False,
            settle_s=args.drain_s,
        )
        summary = await slack_load.run(options, questions=iter(source.texts(count)))
        answer_p95 = summary["answer"]["p95_ms"]
        summary["meets_slo"] = bool(summary["ok"] and answer_p95 is not None and answer_p95 <= args.slo_s * 1000)
        tqdm.write(f"  slack {rate:g} ev/s: answer p95 {answer_p95} ms, lost {summary['lost']}")
        results.append(summary)
        await asyncio.sleep(args.pause_s)
    return results


# -- report ----------------------------------------------------------------------------------
def machine() -> dict[str, Any]:
    with open("/proc/meminfo") as meminfo:
        total_kib = int(meminfo.readline().split()[1])
    return {
        "arch": platform.machine(),
        "cores": os.cpu_count(),
        "memory_gib": round(total_kib / MIB, 1),
        "python": platform.python_version(),
        "accelerator": "none (CPU only)",
    }


def commit() -> str:
    result = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True)
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO, capture_output=True, text=True
    ).stdout.strip()
    return result.stdout.strip() + ("+uncommitted" if dirty else "")


def plot(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    def series(steps: list[dict[str, Any]], key: str) -> tuple[list[float], list[float]]:
        points = [(s["rate_per_s"], s[key]) for s in steps if s.get(key) is not None]
        return [p[0] for p in points], [p[1] for p in points]

    figure, axes = plt.subplots(figsize=(7, 4.5))
    steps = report["throughput"]["steps"]
    for key, style in (("p50_ms", "o-"), ("p95_ms", "s-")):
        x, y = series(steps, key)
        axes.plot(x, y, style, label=f"pipeline in process, {key[:3]}")
    slack = [
        {"rate_per_s": s["rate_per_s"], **{f"{k}_ms": s["answer"][f"{k}_ms"] for k in ("p50", "p95")}}
        for s in report.get("slack", [])
    ]
    for key, style in (("p50_ms", "o--"), ("p95_ms", "s--")):
        x, y = series(slack, key)
        if x:
            axes.plot(x, y, style, label=f"Slack front door, {key[:3]}")
    axes.axhline(report["throughput"]["slo_p95_s"] * 1000, color="red", linestyle=":", label="p95 target")
    sustained = report["throughput"]["sustained_rate_per_s"]
    if sustained:
        axes.axvline(sustained, color="green", linestyle=":", label=f"sustained {sustained:g} q/s")
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    axes.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    axes.set_xlabel("arrival rate (distinct questions per second, open loop)")
    axes.set_ylabel("latency from arrival (ms)")
    corpus, m = report["corpus"], report["machine"]
    axes.set_title(
        f"{corpus['pages']} pages, {report['ingest'].get('chunks', '?')} chunks; "
        f"{m['arch']} {m['cores']} cores, CPU only",
        fontsize=10,
    )
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


# -- main ------------------------------------------------------------------------------------
def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, default=REPO.parent / "shared/benchmarks/contoso/docs")
    parser.add_argument("--gold", type=Path, default=REPO.parent / "shared/benchmarks/contoso/ground_truth.jsonl")
    parser.add_argument("--work", type=Path, default=Path("/tmp/scale"), help="scratch folder (emptied)")
    parser.add_argument("--pages", type=int, default=2000, help="at least this many pages")
    parser.add_argument("--reuse", action="store_true", help="keep the corpus and index of the last run")
    parser.add_argument("--latency-questions", type=int, default=300)
    parser.add_argument("--rates", default="0.5,1,2,4,8,16,32,64", help="arrival rates to step through (q/s)")
    parser.add_argument("--refine", type=int, default=2, help="bisection steps after the first failing rate")
    parser.add_argument("--slo-s", type=float, default=1.5, help="p95 target for the sustained rate")
    parser.add_argument("--step-s", type=float, default=30.0, help="seconds of arrivals per step")
    parser.add_argument("--min-step-questions", type=int, default=20)
    parser.add_argument("--max-step-questions", type=int, default=600)
    parser.add_argument("--abort-after-s", type=float, default=10.0, help="stop a step once a question waits this")
    parser.add_argument("--drain-s", type=float, default=60.0, help="max wait for a step's last answers")
    parser.add_argument("--pause-s", type=float, default=3.0)
    parser.add_argument(
        "--slack-rates",
        default="",
        help="also drive the Slack front door at these rates "
        "('auto': the sustained in-process rate and the first that failed)",
    )
    parser.add_argument("--results", type=Path, default=REPO / "benchmarks" / "results")
    parser.add_argument("--name", default=None, help="output file stem (default scale-<pages>p)")
    args = parser.parse_args(argv)
    if not (args.source.is_dir() and args.gold.is_file()):
        parser.error(f"--source {args.source} must be a folder of PDFs and --gold {args.gold} a JSONL file")
    if not (0 < args.step_s <= 300 and 0 < args.max_step_questions <= 2000 and args.drain_s <= 600):
        parser.error("steps are bounded: --step-s in (0, 300], --max-step-questions <= 2000, --drain-s <= 600")
    return args


def rates_of(text: str) -> list[float]:
    rates = [float(r) for r in text.split(",") if r.strip()]
    if any(not 0 < r <= 500 for r in rates):
        raise SystemExit("rates must be in (0, 500] questions per second")
    return rates


async def measure_queries(data_dir: Path, source: AskSource, args: argparse.Namespace) -> dict[str, Any]:
    settings = CoreSettings(BENEFITSBOT_DATA_DIR=data_dir)
    pipeline = build_pipeline(settings)
    try:
        await pipeline.warm_up()
        for item in source.take(5):  # the first questions pay for lazy loads a server pays at start
            probe = await pipeline.answer(item.question, item.token)
        latency = await sequential_latency(pipeline, source.take(args.latency_questions))
        latency["peak_rss_serving_process_mib"] = peak_rss_self_mib()
        tqdm.write(
            f"latency: p50 {latency['p50_ms']} ms, p95 {latency['p95_ms']} ms over "
            f"{latency['questions']} distinct questions"
        )
        load = await throughput(pipeline, source, rates_of(args.rates), args)
        load["peak_rss_serving_process_mib"] = peak_rss_self_mib()
    finally:
        await pipeline.aclose()
    return {"model": probe.model, "latency": latency, "throughput": load}


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    corpus_dir, data_dir = args.work / "corpus", args.work / "data"
    if args.reuse and (args.work / "report-corpus.json").exists():
        corpus = CorpusInfo(**json.loads((args.work / "report-corpus.json").read_text()))
        ingested = json.loads((args.work / "report-ingest.json").read_text())
    else:
        prepare_work(args.work)
        corpus = build_corpus(args.source, corpus_dir, args.pages)
        (args.work / "report-corpus.json").write_text(json.dumps(asdict(corpus)))
        tqdm.write(f"corpus: {corpus.documents} documents, {corpus.pages} pages in {corpus_dir}")
        ingested = ingest(corpus_dir, data_dir)
        (args.work / "report-ingest.json").write_text(json.dumps(ingested))
        tqdm.write(
            f"ingest: {ingested['pages']} pages, {ingested['chunks']} chunks in {ingested['ingest_s']} s "
            f"({ingested['pages_per_s']} pages/s), peak RSS {ingested['peak_rss_tree_mib']} MiB"
        )
    settings = CoreSettings(BENEFITSBOT_DATA_DIR=data_dir)
    source = AskSource(distinct_questions(args.gold), settings.rbac_signing_key.get_secret_value())
    queries = await measure_queries(data_dir, source, args)
    slack_rates = (
        rates_of(args.slack_rates)
        if args.slack_rates != "auto"
        else [
            r
            for r in (queries["throughput"]["sustained_rate_per_s"], queries["throughput"]["first_failing_rate_per_s"])
            if r
        ]
    )
    slack = await slack_steps(source, data_dir, slack_rates, args) if slack_rates else []
    return {
        "benchmark": "benchmarks/scale_bench.py",
        "command": " ".join(["benchmarks/scale_bench.py", *sys.argv[1:]]),
        "commit": commit(),
        "machine": machine(),
        "stack": queries["model"],
        "corpus": asdict(corpus),
        "ingest": ingested,
        "latency": queries["latency"],
        "throughput": queries["throughput"],
        "slack": slack,
        "distinct_questions_used": source.used,
        "identities": [asdict(i) for i in IDENTITIES],
    }


def main() -> None:
    args = parse_args()
    report = asyncio.run(main_async(args))
    name = args.name or f"scale-{report['corpus']['pages']}p"
    args.results.mkdir(parents=True, exist_ok=True)
    (args.results / f"{name}.json").write_text(json.dumps(report, indent=2) + "\n")
    plot(report, args.results / f"{name}-latency-vs-rate.png")
    print(
        json.dumps(
            {
                "ingest_pages_per_s": report["ingest"]["pages_per_s"],
                "index_mib": report["ingest"]["index_size"]["on_disk_mib"],
                "ingest_peak_rss_tree_mib": report["ingest"]["peak_rss_tree_mib"],
                "latency_p50_ms": report["latency"]["p50_ms"],
                "latency_p95_ms": report["latency"]["p95_ms"],
                "sustained_q_per_s": report["throughput"]["sustained_rate_per_s"],
                "results": str(args.results / f"{name}.json"),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
