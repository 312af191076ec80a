"""The platform-neutral Answerer: scopes, audience tokens, cache isolation, privacy of logs."""

from __future__ import annotations

import logging
import time

import pytest

from bot.answering import Answerer, Audience
from bot.identity import Identity
from bot.observability import Metrics
from bot.reply import PRIVATE_NOTE, TOO_LARGE_NOTE, ReplyKind
from bot.store import MemoryStore
from tests.bot.harness import RBAC_KEY, make_settings
from tests.fakes.answer_service import CANARIES, FakeAnswerService

pytestmark = pytest.mark.unit


def ident(user: str, *groups: str, state: str | None = "CA") -> Identity:
    return Identity("slack", user, frozenset(groups), state)


def answerer(**settings: object) -> tuple[Answerer, FakeAnswerService]:
    service = FakeAnswerService(key=RBAC_KEY)
    return Answerer(make_settings(**settings), service, MemoryStore(), Metrics()), service


async def ask(a: Answerer, user: Identity | None, q: str = "canary code?", **kw: object):  # type: ignore[no-untyped-def]
    return await a.ask(q, user, platform="slack", user_id=user.user_id if user else "U?", **kw)  # type: ignore[arg-type]


async def test_answer_cache_is_never_shared_across_scopes() -> None:
    a, service = answerer()
    exec_out = await ask(a, ident("U1", "employees", "executives"))
    emp_out = await ask(a, ident("U2", "employees"))
    assert CANARIES["executives"] in exec_out.public.text
    assert CANARIES["executives"] not in emp_out.public.text
    assert len(service.calls) == 2
    await ask(a, ident("U3", "employees"))  # same scope as U2: served from cache
    assert len(service.calls) == 2
    assert a.metrics.registry.get_sample_value("benefitsbot_answer_cache_hits_total") == 1.0


async def test_cache_key_includes_state_history_and_index_version() -> None:
    a, service = answerer()
    await ask(a, ident("U1", "employees", state="CA"))
    await ask(a, ident("U2", "employees", state="NY"))
    assert len(service.calls) == 2
    await ask(a, ident("U1", "employees", state="CA"), thread_key="t1")
    await ask(a, ident("U1", "employees", state="CA"), thread_key="t1")  # now with history
    assert len(service.calls) == 3
    service.version = "fake-index-2"
    await ask(a, ident("U1", "employees", state="CA"))
    assert len(service.calls) == 4


async def test_no_index_version_means_no_cache() -> None:
    a, service = answerer()
    service.version = None
    await ask(a, ident("U1", "employees"))
    await ask(a, ident("U1", "employees"))
    assert len(service.calls) == 2


async def test_no_groups_never_calls_core() -> None:
    a, service = answerer()
    for user in (None, ident("U1")):
        out = await ask(a, user)
        assert out.public.kind == ReplyKind.NO_ACCESS
        assert out.public.text == a.settings.abstain_texts["low_similarity"]  # indistinguishable
    assert service.calls == []


async def test_one_audience_token_per_distinct_scope() -> None:
    a, service = answerer()
    asker = ident("U1", "employees", "executives")
    members = [ident(f"M{i}", "employees") for i in range(5)] + [ident("M9", "employees", "executives")]
    out = await ask(a, asker, audience=Audience(members=members))
    public_call, private_call = service.calls
    assert [sorted(c.acl_groups) for c in public_call.audience] == [["employees"]]
    assert private_call.audience == []
    assert out.note == PRIVATE_NOTE and out.private is not None


async def test_unknown_member_blocks_public_answer_without_core_call_for_it() -> None:
    a, service = answerer()
    out = await ask(a, ident("U1", "employees"), audience=Audience(members=[ident("M1", "employees"), None]))
    assert out.public.kind == ReplyKind.NO_ACCESS
    assert len(service.calls) == 1 and service.calls[0].audience == []  # only the private answer
    assert out.private is not None and CANARIES["employees"] in out.private.text


async def test_too_large_audience_answers_privately() -> None:
    a, _ = answerer()
    out = await ask(a, ident("U1", "employees"), audience=Audience(members=(), too_large=True))
    assert out.public.kind == ReplyKind.NOTICE and out.public.text == TOO_LARGE_NOTE
    assert out.private is not None and CANARIES["employees"] in out.private.text


async def test_overlong_question_is_refused() -> None:
    a, service = answerer(MAX_QUESTION_CHARS=20)
    out = await ask(a, ident("U1", "employees"), "x" * 21)
    assert out.public.kind == ReplyKind.NOTICE and service.calls == []


async def test_logs_do_not_contain_question_user_or_token(caplog: pytest.LogCaptureFixture) -> None:
    a, service = answerer()
    with caplog.at_level(logging.DEBUG):
        await ask(a, ident("USECRETUSER", "employees"), "What is my canary code, I am pregnant?")
    logs = "\n".join(r.getMessage() for r in caplog.records)
    assert "pregnant" not in logs and "USECRETUSER" not in logs and "v1." not in logs
    assert "question handled" in logs and "<redacted" in logs


async def test_log_queries_true_logs_the_question(caplog: pytest.LogCaptureFixture) -> None:
    a, _ = answerer(LOG_QUERIES=True)
    with caplog.at_level(logging.INFO):
        await ask(a, ident("U1", "employees"), "dental deductible?")
    assert "dental deductible?" in "\n".join(r.getMessage() for r in caplog.records)


async def test_tokens_are_genuine_and_short_lived() -> None:
    a, service = answerer()
    await ask(a, ident("U1", "employees", state="CA"))
    claims = service.calls[0].claims
    assert claims.acl_groups == {"employees"} and claims.state == "CA"
    assert "U1" not in claims.subject  # the subject is a hashed reference
    assert claims.expires_at - time.time() <= a.settings.rbac_token_ttl_s


class _StubPipeline:
    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.closed = False
        self.warmed = False

    async def warm_up(self) -> None:
        self.warmed = True

    async def index_version(self) -> str:
        if self.fail:
            from rag_core.errors import IndexUnavailable

            raise IndexUnavailable("the index is empty; run `benefitsbot ingest PATH` first")
        return "v42"

    async def aclose(self) -> None:
        self.closed = True


@pytest.mark.parametrize("fail", [False, True])
async def test_core_service_warms_up_off_the_loop_and_reports_readiness(fail: bool) -> None:
    import threading

    from bot.core_service import CoreAnswerService

    stub = _StubPipeline(fail)
    loaded_in: list[str] = []

    def build() -> _StubPipeline:
        loaded_in.append(threading.current_thread().name)
        return stub

    service = CoreAnswerService(build)  # type: ignore[arg-type]
    assert await service.ready() == (False, "loading models and opening the index")
    await service.start()
    if fail:
        with pytest.raises(Exception, match="index is empty"):
            await service.index_version()
    else:
        assert await service.index_version() == "v42"
    assert stub.warmed  # word lists and tokenizer loaded before the first question
    ok, detail = await service.ready()
    assert ok is (not fail)
    assert detail == ("index v42" if not fail else "the index is empty; run `benefitsbot ingest PATH` first")
    assert loaded_in and loaded_in[0] != threading.main_thread().name
    await service.close()
    assert stub.closed
