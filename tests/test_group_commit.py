"""Group commit: items submitted while a commit runs are committed together, next; one
writer alone commits at once; a failed commit reaches every item of its batch and no other."""

import threading

import pytest

from tutorialbook.memory.group_commit import GroupCommit


def test_one_writer_commits_at_once_and_gets_its_result():
    batches = []
    group = GroupCommit(lambda items: batches.append(list(items)) or [i * 10 for i in items])
    assert [group.submit(n) for n in (1, 2, 3)] == [10, 20, 30]
    assert batches == [[1], [2], [3]]


def test_items_that_arrive_during_a_commit_are_the_next_batch():
    first_in, release = threading.Event(), threading.Event()
    batches = []

    def commit(items):
        batches.append(list(items))
        if items == ["first"]:
            first_in.set()
            assert release.wait(30)
        return [f"{item} done" for item in items]

    group = GroupCommit(commit)
    results = {}

    def submit(item):
        results[item] = group.submit(item)

    leader = threading.Thread(target=submit, args=("first",))
    leader.start()
    assert first_in.wait(30)
    others = [threading.Thread(target=submit, args=(f"w{n}",)) for n in range(5)]
    for t in others:
        t.start()
    while group.queued < 5:  # the five wait behind the first commit
        threading.Event().wait(0.01)
    release.set()
    for t in [leader, *others]:
        t.join(30)
    assert batches[0] == ["first"]
    assert len(batches) == 2 and sorted(batches[1]) == [f"w{n}" for n in range(5)]
    assert results == {item: f"{item} done" for item in ["first", *(f"w{n}" for n in range(5))]}
    assert group.queued == 0


def test_a_failed_commit_fails_its_batch_and_the_next_batch_still_commits():
    first_in, release = threading.Event(), threading.Event()

    def commit(items):
        if items == ["first"]:
            first_in.set()
            assert release.wait(30)
        if "bad" in items:
            raise OSError("disk full")
        return list(items)

    group = GroupCommit(commit)
    outcomes = {}

    def submit(item):
        try:
            outcomes[item] = group.submit(item)
        except OSError as exc:
            outcomes[item] = f"error: {exc}"

    leader = threading.Thread(target=submit, args=("first",))
    leader.start()
    assert first_in.wait(30)
    waiting = [threading.Thread(target=submit, args=(item,)) for item in ("bad", "good")]
    for t in waiting:
        t.start()
    while group.queued < 2:
        threading.Event().wait(0.01)
    release.set()
    for t in [leader, *waiting]:
        t.join(30)
    # "bad" and "good" were one batch: both hear of its failure; the first's commit stands
    assert outcomes == {"first": "first", "bad": "error: disk full", "good": "error: disk full"}
    assert group.submit("later") == "later"  # leadership was handed on, not lost


def test_a_commit_must_answer_every_item():
    group = GroupCommit(lambda items: [])
    with pytest.raises(RuntimeError, match="0 results for 1 items"):
        group.submit("x")
    group = GroupCommit(lambda items: list(items))
    assert group.submit("y") == "y"
