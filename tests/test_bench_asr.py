"""bench/asr.py's word error rate: normalised words and edit distance, checked by hand."""

from __future__ import annotations

from bench import asr


def test_wer_words_spell_numbers_and_drop_punctuation():
    assert asr.words("Mix 350 grams, then fold: e4-pawn!") == \
        "mix three hundred and fifty grams then fold e4 pawn".split()
    assert asr.spell(1005) == "one thousand and five" and asr.spell(40) == "forty"


def test_edit_distance_counts_substitutions_deletions_and_insertions():
    assert asr.edits("a b c".split(), "a x c d".split()) == 2
    assert asr.edits("a b c".split(), []) == 3
    assert asr.edits([], "a".split()) == 1


def test_words_dropped_are_reference_words_aligned_to_nothing_heard():
    assert asr.align("a b c d".split(), "a x d".split()) == ([False, True, False], 1)  # b or c substituted
    assert asr.align("a b c".split(), []) == ([], 3)
    assert asr.align("a b".split(), "a b c".split()) == ([False, False, True], 0)  # an insertion drops nothing
    assert asr.align("one two three four".split(), "one two".split())[1] == 2  # a lost sentence end
