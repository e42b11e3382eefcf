"""The bundled embedder: unit vectors, paraphrases close, batches equal singles."""

import numpy as np

from tutorialbook.memory.embedder import DIM, get_embedder

PAIRS = [
    ("How do I undo my last commit?", "Revert the most recent git commit"),
    ("The dough should double in size", "Let the bread dough rise until it is twice as big"),
    ("Castle early to keep your king safe", "Move the king to safety by castling soon"),
    ("Preheat the oven to 250 degrees", "Heat the oven up to 250 before baking"),
    ("Tighten the bolts in a star pattern", "Torque the wheel nuts crosswise"),
    ("Never force-push a shared branch", "Do not overwrite history on a branch others use"),
]


def test_paraphrases_are_nearest_neighbours():
    embedder = get_embedder()
    left = embedder.embed([a for a, _ in PAIRS])
    right = embedder.embed([b for _, b in PAIRS])
    similarity = left @ right.T
    assert list(similarity.argmax(axis=1)) == list(range(len(PAIRS)))


def test_vectors_are_unit_length_and_batches_match_singles():
    embedder = get_embedder()
    texts = ["short", "a much longer sentence about sourdough starters and their feeding " * 3, ""]
    batch = embedder.embed(texts)
    assert batch.shape == (3, DIM) and batch.dtype == np.float32
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)
    single = np.concatenate([embedder.embed([t]) for t in texts])
    assert np.allclose(batch, single, atol=1e-4)


def test_long_text_is_truncated_not_rejected():
    embedder = get_embedder()
    vector = embedder.embed(["word " * 2000])
    assert vector.shape == (1, DIM) and np.isfinite(vector).all()
    assert embedder.embed([]).shape == (0, DIM)
