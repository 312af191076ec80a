"""`benefitsbot eval`: the metrics contract, leakage accounting, --details, and calibration."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

import pytest

from rag_core.cli import main
from rag_core.errors import InvalidInput
from rag_core.eval.gold import GoldRow, apply_labels, load_gold
from rag_core.eval.harness import calibrate, evaluate, score_row
from rag_core.eval.metrics import RowResult, compute
from rag_core.types import Answer, Citation, DocumentMeta
from tests.rag_core.conftest import SIGNING_KEY, TODAY, FixtureCorpus
from tests.rag_core.corpus_factory import CANARY_DOCS, CANARY_QUESTIONS, DOCS

REQUIRED_KEYS = {
    "n",
    "hit_at_1",
    "hit_at_5",
    "hit_at_10",
    "mrr",
    "citation_page_match",
    "answer_accuracy",
    "abstain_precision",
    "abstain_recall",
    "conflict_handled",
    "leakage",
    "latency_ms",
}

GOLD: list[dict[str, object]] = [
    {
        "id": "t-deductible",
        "question": "What is the medical plan deductible?",
        "expect": "answer",
        "sources": ["docs/medical-plan-2026.md#page=1"],
        "must_include": ["$1,250"],
        "category": "answerable",
    },
    {
        "id": "t-ca-leave",
        "question": "How many weeks of parental leave do I get?",
        "expect": "answer",
        "sources": ["docs/parental-leave-ca-2026.md"],
        "must_include": ["16 weeks"],
        "user": {"groups": ["employees"], "state": "CA"},
        "category": "jurisdiction",
    },
    {
        "id": "t-401k-future",
        "question": "What is the 401(k) company match?",
        "expect": "answer",
        "sources": ["docs/retirement-401k-2027.md#page=1"],
        "must_include": ["6%"],
        "as_of": "2027-01-02",
        "category": "temporal",
    },
    {
        "id": "t-spanish",
        "question": "¿Cuántas semanas de permiso parental tengo?",
        "expect": "answer",
        "sources": ["docs/parental-leave-us-2026-es.md#page=1"],
        "must_include": ["12 semanas"],
        "category": "language",
    },
    {
        "id": "t-pet",
        "question": "Does the company offer pet insurance for my dog?",
        "expect": "abstain",
        "category": "unanswerable",
    },
    {
        "id": "t-exec-as-employee",
        "question": CANARY_QUESTIONS["executives"],
        "expect": "abstain",
        "category": "rbac",
    },
    {
        "id": "t-ny-leave",
        "question": "How many weeks of parental leave do I get?",
        "expect": "conflict",
        "user": {"groups": ["employees"], "state": "NY"},
        "category": "conflict",
    },
    {
        "id": "t-oop",
        "question": "What is the HMO out-of-pocket maximum?",
        "expect": "conflict",
        "must_include": ["$6,000", "$6,350"],
        "category": "conflict",
    },
]


def write_gold(path: Path, rows: list[dict[str, object]] = GOLD) -> Path:
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    return path


def row_result(**overrides: object) -> RowResult:
    values: dict[str, object] = dict(
        id="r",
        expect="answer",
        abstained=False,
        reason=None,
        first_hit_rank=1,
        has_sources=True,
        cited_match=True,
        must_include=["$1,250"],
        answer="It is $1,250.",
        leaked=[],
        invalid_citations=[],
        latency_ms={"total": 10.0, "embed": 2.0},
    )
    values.update(overrides)
    return RowResult(**values)  # type: ignore[arg-type]


# -- metrics (unit) ----------------------------------------------------------------------------------------


@pytest.mark.unit
def test_metric_keys_and_values() -> None:
    rows = [
        row_result(id="a", first_hit_rank=1),
        row_result(id="b", first_hit_rank=3, cited_match=False, answer="It is $2,000."),
        row_result(id="c", first_hit_rank=None, cited_match=False),
        row_result(
            id="d",
            expect="abstain",
            abstained=True,
            reason="low_similarity",
            has_sources=False,
            first_hit_rank=None,
            must_include=[],
            answer="",
        ),
        row_result(id="e", expect="answer", abstained=True, reason="low_similarity", first_hit_rank=7, answer=""),
        row_result(
            id="f",
            expect="conflict",
            abstained=True,
            reason="conflict",
            has_sources=False,
            first_hit_rank=None,
            must_include=[],
            answer="",
        ),
        row_result(
            id="g",
            expect="abstain",
            abstained=False,
            has_sources=False,
            first_hit_rank=None,
            must_include=[],
            answer="Something.",
            leaked=["executive-car-allowance-2026_p1_c00"],
        ),
    ]
    metrics = compute(rows)
    assert REQUIRED_KEYS <= set(metrics)
    assert metrics["n"] == 7
    # Answerable-with-sources rows: a (rank 1), b (rank 3), c (miss), e (rank 7).
    assert metrics["hit_at_1"] == 0.25
    assert metrics["hit_at_5"] == 0.5
    assert metrics["hit_at_10"] == 0.75
    assert metrics["mrr"] == round((1 + 1 / 3 + 0 + 1 / 7) / 4, 4)
    assert metrics["citation_page_match"] == round(1 / 3, 4)  # a, b, c answered with sources
    assert metrics["answer_accuracy"] == round(2 / 3, 4)  # a and c say $1,250; b does not
    assert metrics["abstain_precision"] == round(2 / 3, 4)  # d, e, f abstained; e should have answered
    assert metrics["abstain_recall"] == 0.5  # d abstained, g did not
    assert metrics["conflict_handled"] == 1.0
    assert metrics["leakage"] == 1
    assert set(metrics["latency_ms"]) == {"total", "embed"}
    for stats in metrics["latency_ms"].values():
        assert set(stats) == {"p50", "p95"} and stats["p50"] <= stats["p95"]


@pytest.mark.unit
def test_metric_without_applicable_rows_is_null() -> None:
    metrics = compute([row_result(id="a"), row_result(id="b", first_hit_rank=2)])
    assert metrics["abstain_precision"] is None  # nothing abstained
    assert metrics["abstain_recall"] is None  # nothing should have
    assert metrics["conflict_handled"] is None  # no conflict rows
    assert metrics["hit_at_1"] == 0.5
    assert json.loads(json.dumps(metrics))["conflict_handled"] is None  # printed as null

    empty = compute([])
    assert empty["n"] == 0 and empty["leakage"] == 0 and empty["latency_ms"] == {}
    for key in REQUIRED_KEYS - {"n", "leakage", "latency_ms"}:
        assert empty[key] is None, key


@pytest.mark.unit
def test_conflict_row_answered_must_show_every_value() -> None:
    both = row_result(expect="conflict", must_include=["$6,000", "$6,350"], answer="$6,000 ... $6,350")
    one = row_result(expect="conflict", must_include=["$6,000", "$6,350"], answer="$6,000 only")
    wrong_abstention = row_result(expect="conflict", abstained=True, reason="low_similarity", answer="")
    assert compute([both])["conflict_handled"] == 1.0
    assert compute([one])["conflict_handled"] == 0.0
    assert compute([wrong_abstention])["conflict_handled"] == 0.0


# -- leakage (unit) ----------------------------------------------------------------------------------------


def _metas() -> tuple[dict[str, str], dict[str, DocumentMeta]]:
    docs = {
        d.document_id: DocumentMeta(
            **{
                **d.catalog_entry(),
                "effective_date": date.fromisoformat(d.effective_date),
                "acl_groups": tuple(d.acl_groups),
                "overrides": tuple(d.overrides),
            }
        )
        for d in DOCS
    }
    return {k: v.file for k, v in docs.items()}, docs


def _answer(retrieved: list[str], cited: list[str] = ()) -> Answer:  # type: ignore[assignment]
    return Answer(
        query_id="q",
        answer="x",
        abstained=not cited,
        hr_contact="h",
        model="m",
        retrieved=retrieved,
        citations=[
            Citation(chunk_id=c, document_id=c.rsplit("_p", 1)[0], title="t", page=1, source_uri="u", score=0.5)
            for c in cited
        ],
    )


@pytest.mark.unit
def test_leakage_counts_chunks_the_user_may_not_see() -> None:
    files, docs = _metas()
    employee = GoldRow(id="r", question="q", expect="abstain")
    exec_chunk = f"{CANARY_DOCS['executives']}_p1_c00"
    result = score_row(employee, _answer(["medical-plan-2026_p1_c00", exec_chunk]), files, docs, TODAY)
    assert result.leaked == [exec_chunk]
    # Cited counts too, as do chunks of documents the manifest does not know.
    result = score_row(employee, _answer([], ["ghost-doc_p1_c00", "medical-plan-2026_p1_c00"]), files, docs, TODAY)
    assert result.leaked == ["ghost-doc_p1_c00"]
    # Date and jurisdiction are part of visibility: the 2027 plan before 2027, the CA policy without CA.
    result = score_row(
        employee,
        _answer(["retirement-401k-2027_p1_c00", "parental-leave-ca-2026_p1_c00"]),
        files,
        docs,
        TODAY,
    )
    assert sorted(result.leaked) == ["parental-leave-ca-2026_p1_c00", "retirement-401k-2027_p1_c00"]
    # A user without groups may see nothing.
    nobody = GoldRow(id="r", question="q", expect="abstain", user={"groups": []})
    result = score_row(nobody, _answer(["medical-plan-2026_p1_c00"]), files, docs, TODAY)
    assert result.leaked == ["medical-plan-2026_p1_c00"]


@pytest.mark.unit
def test_score_row_locates_hits_and_citations_by_file_and_page() -> None:
    files, docs = _metas()
    row = GoldRow(
        id="r",
        question="q",
        expect="answer",
        sources=["docs/medical-plan-2026.md#page=1"],
        must_include=["$1,250"],
    )
    answer = _answer(["hmo-plan-2026_p1_c00", "medical-plan-2026_p1_c00"], ["medical-plan-2026_p1_c00"])
    result = score_row(row, answer, files, docs, TODAY)
    assert result.first_hit_rank == 2
    assert result.cited_match is True
    assert result.cited_sources == ["docs/medical-plan-2026.md#page=1"]
    assert result.invalid_citations == [] and result.leaked == []


@pytest.mark.unit
def test_gold_keeps_must_not_include(tmp_path: Path) -> None:
    row = {
        "id": "g",
        "question": "What's the PPO deductible?",
        "expect": "answer",
        "as_of": "2025-06-01",
        "must_include": ["$1,000"],
        "must_not_include": ["$1,250"],
    }
    loaded = load_gold(write_gold(tmp_path / "gold.jsonl", [row]))[0]
    assert loaded.must_not_include == ["$1,250"]  # type: ignore[attr-defined]


@pytest.mark.unit
def test_answer_labels_merge_by_id_and_reject_unknown_ids(tmp_path: Path) -> None:
    rows = load_gold(
        write_gold(
            tmp_path / "gold.jsonl",
            [
                {"id": "a", "question": "q1", "expect": "answer", "sources": ["x.pdf#page=1"]},
                {"id": "b", "question": "q2", "expect": "answer", "must_include": ["kept"]},
            ],
        )
    )
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"id": "a", "must_include": ["$20", "$50"]}) + "\n", encoding="utf-8")
    merged = apply_labels(rows, labels)
    assert [r.must_include for r in merged] == [["$20", "$50"], ["kept"]]
    assert merged[0].sources == ["x.pdf#page=1"]

    labels.write_text(json.dumps({"id": "zz", "must_include": ["x"]}) + "\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match="zz"):
        apply_labels(rows, labels)
    labels.write_text(json.dumps({"id": "a", "question": "no question text here"}) + "\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match="invalid answer label"):
        apply_labels(rows, labels)


# -- calibration (unit) ------------------------------------------------------------------------------------


@pytest.mark.unit
def test_calibrate_picks_the_safest_cutoff_that_keeps_answerable_rows(tmp_path: Path) -> None:
    def row(i: int, expect: str) -> GoldRow:
        return GoldRow(id=f"r{i}", question="q", expect=expect)  # type: ignore[arg-type]

    pairs = [(row(i, "answer"), s) for i, s in enumerate([0.62, 0.66, 0.71, 0.8, 0.9])] + [
        (row(10 + i, "abstain"), s) for i, s in enumerate([0.2, 0.31, 0.38, 0.45])
    ]
    plot = tmp_path / "out" / "calibration.png"
    result = calibrate(pairs, "all-MiniLM-L6-v2", plot)
    chosen = result["chosen"]
    # Every cutoff in (0.45, 0.62] keeps all answerable rows and abstains all the others; ties go high.
    assert chosen["cutoff"] == pytest.approx(0.62)
    assert chosen["answerable_kept"] == 1.0 and chosen["unanswerable_abstained"] == 1.0
    assert result["answerable"] == 5 and result["unanswerable"] == 4
    assert [p["cutoff"] for p in result["curve"]] == sorted(p["cutoff"] for p in result["curve"])
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert plot.stat().st_size > 1000


@pytest.mark.unit
def test_calibrate_prefers_keeping_answerable_rows_over_perfect_abstention(tmp_path: Path) -> None:
    def row(i: int, expect: str) -> GoldRow:
        return GoldRow(id=f"r{i}", question="q", expect=expect)  # type: ignore[arg-type]

    answerable = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95]
    pairs = [(row(i, "answer"), s) for i, s in enumerate(answerable)] + [(row(99, "abstain"), 0.58)]
    result = calibrate(pairs, "m", None)
    # "Losing answerable questions below 95% is worse than an extra low-similarity answer":
    # 0.50 keeps all ten; anything above 0.58 (to abstain on the one) loses two of them.
    assert result["chosen"]["answerable_kept"] >= 0.95
    assert result["chosen"]["cutoff"] <= 0.5


# -- the real harness over the fixture corpus --------------------------------------------------------------


@pytest.mark.integration
@pytest.mark.asyncio(loop_scope="session")
async def test_evaluate_over_the_fixture_corpus(fixture_corpus: FixtureCorpus, tmp_path: Path) -> None:
    pipeline, _ = fixture_corpus.pipeline()
    rows = load_gold(write_gold(tmp_path / "gold.jsonl"))
    results = await evaluate(pipeline, rows, progress=False)
    assert [r.id for r in results] == [r.id for r in rows]
    by_id = {r.id: r for r in results}
    assert not by_id["t-deductible"].abstained and "$1,250" in by_id["t-deductible"].answer
    assert by_id["t-ny-leave"].reason == "conflict"
    assert by_id["t-pet"].reason == "low_similarity"
    metrics = compute(results)
    assert REQUIRED_KEYS <= set(metrics)
    assert metrics["n"] == len(GOLD)
    assert metrics["hit_at_10"] == 1.0
    assert metrics["hit_at_1"] is not None and metrics["hit_at_1"] >= 0.75
    assert metrics["mrr"] >= 0.75
    assert metrics["citation_page_match"] == 1.0
    assert metrics["answer_accuracy"] == 1.0
    assert metrics["abstain_recall"] == 1.0
    assert metrics["abstain_precision"] == 1.0
    assert metrics["conflict_handled"] == 1.0
    assert metrics["leakage"] == 0
    for stage in ("scope", "rewrite", "embed", "retrieve", "gate", "total"):
        assert set(metrics["latency_ms"][stage]) == {"p50", "p95"}


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The CLI reads its settings from the environment: pin them, and keep any .env out of reach."""
    for name in (
        "OPENAI_API_KEY",
        "COHERE_API_KEY",
        "QDRANT_URL",
        "SIMILARITY_CUTOFF",
        "UNKNOWN_WORD_CUTOFF",
        "RERANKER",
        "LOG_QUERIES",
        "RETRIEVAL_TOP_K",
        "RETRIEVAL_CANDIDATES",
        "MAX_CONTEXT_CHUNKS",
        "MAX_CONTEXT_TOKENS",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("BENEFITSBOT_TODAY", TODAY.isoformat())
    monkeypatch.setenv("RBAC_SIGNING_KEY", SIGNING_KEY)
    monkeypatch.setenv("EMBEDDING_PROVIDER", "local")
    monkeypatch.setenv("GENERATOR", "extractive")
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    return workdir


@pytest.mark.integration
def test_eval_cli_json_and_details(
    fixture_corpus: FixtureCorpus, cli_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = write_gold(tmp_path / "gold.jsonl")
    details = tmp_path / "details.jsonl"
    data_dir = tmp_path / "data"  # its own index: the session's Edge shard stays open elsewhere
    code = main(
        [
            "eval",
            str(gold),
            "--corpus",
            str(fixture_corpus.corpus_dir),
            "--data-dir",
            str(data_dir),
            "--json",
            "--details",
            str(details),
            "--no-progress",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    metrics = json.loads(out.strip().splitlines()[-1])
    assert REQUIRED_KEYS <= set(metrics)
    assert metrics["n"] == len(GOLD)
    assert metrics["leakage"] == 0
    assert metrics["answer_accuracy"] == 1.0
    assert all(set(v) == {"p50", "p95"} for v in metrics["latency_ms"].values())
    lines = details.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(GOLD)
    parsed = [json.loads(line) for line in lines]
    assert [p["id"] for p in parsed] == [r["id"] for r in GOLD]
    for p in parsed:
        assert {
            "id",
            "expect",
            "abstained",
            "reason",
            "retrieved_sources",
            "cited_sources",
            "answer",
            "first_hit_rank",
            "leaked",
            "decided_by",
            "best_reading",
        } <= set(p)
        # which stage abstained (None for an answer), so a run says where each abstention was decided
        assert (p["decided_by"] is None) == (not p["abstained"])
    deductible = parsed[0]
    assert isinstance(deductible["best_reading"], float)  # the reader's best logit, for gate studies
    assert deductible["cited_sources"] == ["docs/medical-plan-2026.md#page=1"]
    assert deductible["first_hit_rank"] == 1

    # --calibrate on the index the first run built: a chosen cutoff and a PNG.
    plot = tmp_path / "calibration.png"
    code = main(["eval", str(gold), "--data-dir", str(data_dir), "--calibrate", "--plot", str(plot), "--no-progress"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["model"] == "bge-small-en-v1.5"
    assert 0.1 <= report["chosen"]["cutoff"] <= 0.95
    assert report["answerable"] == 4 and report["unanswerable"] == 2
    assert plot.read_bytes()[:4] == b"\x89PNG"

    # Without --json: the human table, with the headline hit@k marked and nulls printed.
    code = main(
        [
            "eval",
            str(write_gold(tmp_path / "two.jsonl", GOLD[:2])),
            "--data-dir",
            str(data_dir),
            "--no-progress",
            "--k",
            "10",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert re.search(r"^hit_at_10 +1\.0  <-$", out, re.MULTILINE), out
    assert re.search(r"^conflict_handled +None$", out, re.MULTILINE)
    assert "latency total" in out


@pytest.mark.unit
def test_an_invalid_gold_row_is_a_clear_cli_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from rag_core.cli import main

    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"id": "q1", "question": "What is the deductible?", "expect": "answer"}\n{"id": "q2"}\n')
    assert main(["eval", str(gold), "--data-dir", str(tmp_path / "data")]) == 2
    err = capsys.readouterr().err
    assert f"{gold}:2: invalid gold row" in err and "Traceback" not in err
    assert main(["eval", str(tmp_path / "missing.jsonl")]) == 2
    assert "No such file" in capsys.readouterr().err


@pytest.mark.unit
def test_calibration_plot_without_matplotlib_says_which_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from rag_core.errors import InvalidInput

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as in the default install
    pairs = [(GoldRow(id="r1", question="q", expect="answer"), 0.7)]  # type: ignore[arg-type]
    assert calibrate(pairs, "bge-small-en-v1.5", None)["answerable"] == 1  # no plot asked: fine
    with pytest.raises(InvalidInput, match=r"benefitsbot\[eval\]"):
        calibrate(pairs, "bge-small-en-v1.5", tmp_path / "curve.png")
