"""Which texts share a model run: every text once, little padding, runs within their cap."""

from __future__ import annotations

import random

from models.batching import length_batches, run_cost


def padded(lengths: list[int], runs: list[list[int]]) -> int:
    return sum(len(run) * max(lengths[i] for i in run) for run in runs)


def test_every_text_runs_once_and_no_run_passes_its_token_cap() -> None:
    lengths = [random.Random(7).randint(2, 256) for _ in range(200)]

    runs = length_batches(lengths, max_tokens=1024)

    assert sorted(i for run in runs for i in run) == list(range(200))
    assert all(len(run) * max(lengths[i] for i in run) <= 1024 for run in runs)


def test_texts_of_one_length_share_runs_up_to_the_cap() -> None:
    assert [len(run) for run in length_batches([64] * 16, max_tokens=1024)] == [16]
    # 1024 tokens hold five texts of 200: eight make two runs, none of six.
    assert sorted(len(run) for run in length_batches([200] * 8, max_tokens=1024)) in (
        [3, 5],
        [4, 4],
    )


def test_short_and_long_texts_are_not_padded_together() -> None:
    lengths = [250, 3, 251, 4, 5, 3]

    runs = length_batches(lengths, max_tokens=1024)

    for run in runs:
        assert {lengths[i] > 100 for i in run} in ({True}, {False})
    assert padded(lengths, runs) < 600  # runs of 4 in length order would pad 4 × 250 + …


def test_a_text_longer_than_the_cap_runs_alone() -> None:
    assert sorted(length_batches([300, 300], max_tokens=256)) == [[0], [1]]


def test_runs_of_the_longest_texts_come_first() -> None:
    lengths = [random.Random(3).randint(2, 256) for _ in range(60)]

    longest = [max(lengths[i] for i in run) for run in length_batches(lengths, 1024)]

    assert longest == sorted(longest, reverse=True)


def total_cost(lengths: list[int], runs: list[list[int]]) -> float:
    return sum(run_cost(len(run), max(lengths[i] for i in run)) for run in runs)


def test_the_split_costs_no_more_than_runs_of_four_in_length_order() -> None:
    rng = random.Random(11)
    for _ in range(20):
        lengths = [rng.randint(2, 256) for _ in range(rng.randint(1, 80))]
        order = sorted(range(len(lengths)), key=lengths.__getitem__)
        fours = [order[i : i + 4] for i in range(0, len(order), 4)]

        best = total_cost(lengths, length_batches(lengths, 1024))

        assert best <= total_cost(lengths, fours) + 1e-9
