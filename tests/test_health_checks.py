"""The one shared health check: it backs off while nothing changes, takes a whole answer
from the server as a fresh reading, and never disturbs an answer that streams."""

from __future__ import annotations

import asyncio
import threading

from app.services.health import (
    CHECK_SECONDS,
    MOST_CHECK_SECONDS,
    MOST_RETRY_SECONDS,
    RETRY_SECONDS,
    HealthMonitor,
    HealthReport,
    Problem,
    next_wait,
)
from models.openai_chat import OpenAIChat
from tests.fakes.chat import FakeChatModel
from tests.fakes.openai_server import FakeOpenAIServer
from tests.running import eventually

MODEL = "qwen2.5-coder-1.5b-instruct"
ASK = [{"role": "user", "content": "When does the ferry leave?"}]


def test_checks_come_less_often_while_nothing_changes() -> None:
    well, down = HealthReport(True), HealthReport(True, problems=[Problem("server_down", "x")])
    waits, wait = [], None
    for _ in range(6):
        wait = next_wait(wait, well, changed=False)
        waits.append(wait)
    assert waits == [CHECK_SECONDS, 30.0, 60.0, MOST_CHECK_SECONDS, 120.0, 120.0]
    assert next_wait(120.0, down, changed=True) == RETRY_SECONDS  # something went wrong
    assert [next_wait(w, down, changed=False) for w in (5.0, 10.0, 20.0)] == [
        10.0,
        20.0,
        MOST_RETRY_SECONDS,
    ]
    assert next_wait(30.0, well, changed=True) == CHECK_SECONDS  # fixed: back to the start


async def test_a_whole_answer_counts_as_a_reading_and_a_stream_is_never_disturbed() -> None:
    with FakeOpenAIServer([MODEL], habits="llama-cpp-python") as llama:
        chat = OpenAIChat(llama.url, MODEL)
        monitor = HealthMonitor(chat)
        try:
            assert (await monitor.check_now()).problems == []
            assert "".join([p async for p in chat.stream_chat(ASK)]).startswith("Echo:")
            await monitor.check_due()  # the server just answered in full: nothing asked
            assert len(llama.requests_to("/v1/models")) == 1
            await monitor.check_due()  # nothing heard since: it asks
            assert len(llama.requests_to("/v1/models")) == 2
            llama.reply_gate = threading.Event()
            answer = asyncio.create_task(chat.complete_json(ASK))
            await eventually(lambda: llama.answering == 1, what="the model at work")
            during = [await monitor.check_due(), await monitor.check_now()]
            llama.reply_gate.set()
            assert await answer == {"echo": "When does the ferry leave?"}
        finally:
            await chat.aclose()
    assert all(report.problems == [] and report.models == [MODEL] for report in during)
    assert len(llama.requests_to("/v1/models")) == 2 and llama.cut_short == 0


async def test_a_check_that_fails_is_said_and_the_checks_go_on() -> None:
    # A check that raised (a closed client did) ended the checking task for good, and
    # stopping the app then raised that error before closing its stores and threads.
    chat = FakeChatModel()
    chat.health_failure = RuntimeError("Cannot send a request, as the client has been closed.")
    monitor = HealthMonitor(chat)
    monitor.start()
    try:
        await eventually(lambda: monitor.report.problems, what="the failed check said")
        assert "could not check the model server" in monitor.report.problems[0].message
        monitor.poke()
        await eventually(lambda: monitor.report.problems == [], what="the next check")
    finally:
        await monitor.stop()
