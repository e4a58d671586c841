"""A checked answer in the window: sentences the sources don't hold are marked and say why,
a Check line counts them, a click opens the supporting span, and an answer the documents
don't cover shows what was searched."""

from __future__ import annotations

import html

from nicegui.testing import User

from app.container import Services
from graph import prompts
from tests.running import eventually
from tests.ui_parts import add_file, answer_shows, contents, emit, llm, settled, text_of

BOILER = (
    "# Boiler\n\nThe boiler was serviced on 3 March 2024.\n\n"
    "It costs 120 euros a year to maintain.\n"
)
ANSWER = "It costs 150 euros a year to maintain. It was serviced on 3 March 2024."


async def send(user: User, text: str) -> None:
    user.find(marker="message-input").type(text)
    user.find(marker="message-input").trigger("keydown", {"key": "Enter"})


async def with_boiler(container: Services) -> None:
    await add_file(container, "boiler.md", BOILER.encode())
    await settled(container, "boiler.md")


def _has(user: User, marker: str) -> bool:
    """Whether the page shows ``marker`` now (the answer comes when the turn has run)."""
    try:
        user.find(marker=marker)
    except AssertionError:
        return False
    return True


def turn_of(user: User) -> str:
    """The data-turn of the last answer card (what docent.js sends with a click)."""
    body = user.find(marker="answer").elements
    return str(list(body)[-1].props["data-turn"])


async def test_a_wrong_number_is_marked_and_its_tooltip_names_it(
    user: User, container: Services, page: None
) -> None:
    await with_boiler(container)
    llm(container).enqueue(ANSWER)
    await user.open("/")
    await send(user, "How much does the boiler cost to maintain?")
    await eventually(lambda: bool(contents(user, "check-summary")), what="the answer checked")
    shown = contents(user, "answer")[-1]
    why = html.escape("The passage says 120, not 150.")
    claim = "docent-claim docent-claim-partly docent-claim-contradicts"
    assert f'class="{claim}" data-s="0" data-why="{why}"' in shown
    assert 'class="docent-claim docent-claim-supported" data-s="1"' in shown
    assert "It costs 150 euros a year to maintain" in text_of(shown)
    assert contents(user, "check-summary") == [
        "The first sentence contradicts the sources · 1 of 2 found"
    ]

    # Clicking the marked sentence opens the passage that is really there, highlighted.
    emit(user, "docent_claim", {"turn": turn_of(user), "s": 0})
    await user.should_see(marker="viewer")
    viewer = contents(user, "viewer-text")[-1]
    assert '<mark class="docent-span">It costs 120 euros a year to maintain.</mark>' in viewer
    assert 'id="docent-passage"' in viewer


async def test_a_reopened_chat_keeps_its_marks(user: User, container: Services, page: None) -> None:
    await with_boiler(container)
    llm(container).enqueue(ANSWER)
    turn = container.chat.start_turn(None, "How much does the boiler cost to maintain?")
    await turn.result()
    await user.open("/")
    user.find(marker="session").click()  # the one chat there is
    await eventually(lambda: bool(contents(user, "answer")), what="the saved chat")
    await eventually(lambda: bool(contents(user, "check-summary")), what="the answer checked")
    assert "docent-claim-partly" in contents(user, "answer")[-1]
    assert contents(user, "check-summary") == [
        "The first sentence contradicts the sources · 1 of 2 found"
    ]


async def test_an_answer_the_documents_dont_cover_shows_what_was_searched(
    user: User, container: Services, page: None
) -> None:
    llm(container).enqueue("The moon is made of cheese [1].")
    await user.open("/")
    await send(user, "What do my notes say the moon is made of?")
    await eventually(lambda: answer_shows(user, prompts.NOT_COVERED), what="the plain answer")
    await eventually(lambda: _has(user, "searched"), what="what was searched")
    asked = "What do my notes say the moon is made of?"
    assert contents(user, "searched-query") == [f"Searched for: “{asked}”"]
    assert contents(user, "searched-draft") == ["The moon is made of cheese."]
    await user.should_see(marker="searched-nearest")
    await user.should_see("notes.md", marker="searched-nearest")
    await user.should_not_see(marker="check")  # nothing of an answer left to count
    # What the model wrote is folded beneath the plain answer, marked unchecked.
    assert contents(user, "draft-text") == ["The moon is made of cheese."]
    draft = user.find(marker="draft").elements.pop()
    assert "unchecked" in str(draft.props.get("label"))

    # A reopened chat still has it.
    await user.open("/")
    user.find(marker="session").click()
    await eventually(lambda: _has(user, "draft-text"), what="the saved draft")
    assert contents(user, "draft-text") == ["The moon is made of cheese."]
