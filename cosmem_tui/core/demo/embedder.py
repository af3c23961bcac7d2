"""The demo's own embeddings: deterministic, offline, and near when texts share words.

A real embeddings deployment is not there on the demo, but a recall probe on it must
still mean something: a turn that talks about e-mail follow-ups should be nearer to
another about e-mail than to one about a password reset. ``DemoEmbedder`` gets that
from feature hashing, folded into the demo policy's 8 dimensions:

* each word (lower-cased, without the commonest function words) and each of its
  character trigrams stands for a fixed pseudo-random direction (a BLAKE2b digest of
  the feature, so the same on every machine and every run; ``hash()`` is salted);
* a word's vector is its own direction plus a lighter share of its trigrams' (so
  "renew" and "renews" are near), computed once per word;
* a text's vector is the sum of its words' vectors, normalised to length 1.

Texts that share words share terms of that sum, so their cosine is larger on average
than that of texts that share none (whose directions are unrelated); in 8 dimensions
that is a tendency, not a rule for every pair. The vectors are labelled "demo
embeddings" wherever the console shows a result computed from them.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence

DIMENSIONS = 8  # the demo container's vector embedding policy (generator.demo_container)
LABEL = "demo embeddings"
TRIGRAM_WEIGHT = 0.35  # a word's trigrams together, against the word itself (1.0)
DECIMALS = 4  # as the earlier demo vectors were stored: short, and exact in JSON
_QUANTUM = 10**DECIMALS

_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")
# Words that every turn has: left out, or every text would be near every other.
_STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "hi",
        "hello",
        "hey",
        "i",
        "i'm",
        "i've",
        "if",
        "in",
        "is",
        "it",
        "it's",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "please",
        "so",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "they",
        "this",
        "to",
        "up",
        "us",
        "was",
        "we",
        "were",
        "what",
        "when",
        "which",
        "will",
        "with",
        "would",
        "you",
        "your",
        "you're",
    ]
)


class DemoEmbedder:
    """``model.recall.Embedder`` for the demo workspace: no model, no download, no network."""

    def __init__(self, dimensions: int = DIMENSIONS) -> None:
        self._dimensions = dimensions
        self._words: dict[str, tuple[float, ...]] = {}

    @property
    def label(self) -> str:
        return LABEL

    @property
    def dimensions(self) -> int:
        return self._dimensions

    async def embed(self, text: str) -> tuple[float, ...]:
        return tuple(self.vector(text))

    def vector(self, text: str) -> list[float]:
        """The embedding of ``text``: unit length, rounded to ``DECIMALS`` places; all
        zeros when the text has no word that counts (no direction to point in)."""
        return self._unit(self._sum(text))

    def vector_of_parts(self, parts: Sequence[str], cache: dict[str, list[float]]) -> list[float]:
        """The embedding of the parts joined by spaces (the same words, so the same
        vector up to rounding), each part's sum kept in ``cache``: a demo build embeds
        ~49,000 texts made of ~40,000 distinct user and agent messages."""
        sums = [cache.get(part) or self._cache_sum(part, cache) for part in parts]
        return self._unit([sum(column) for column in zip(*sums, strict=True)])

    def _cache_sum(self, part: str, cache: dict[str, list[float]]) -> list[float]:
        summed = cache[part] = self._sum(part)
        return summed

    def _sum(self, text: str) -> list[float]:
        words = self._words
        vectors = [
            words.get(word) or self._learn(word)
            for word in _WORD.findall(text.lower())
            if word not in _STOP_WORDS
        ]
        if not vectors:
            return [0.0] * self._dimensions
        return [sum(column) for column in zip(*vectors, strict=True)]

    def _unit(self, total: list[float]) -> list[float]:
        norm = math.hypot(*total)
        if not norm:
            return [0.0] * self._dimensions
        # round(x) / 10**d is round(x, d) to the last bit here, at a third of the cost.
        scale = _QUANTUM / norm
        return [round(v * scale) / _QUANTUM for v in total]

    def _learn(self, word: str) -> tuple[float, ...]:
        vector = self._words[word] = self._word_vector(word)
        return vector

    def _word_vector(self, word: str) -> tuple[float, ...]:
        vec = list(self._direction("w:" + word))
        padded = f"<{word}>"
        trigrams = [padded[i : i + 3] for i in range(len(padded) - 2)]
        share = TRIGRAM_WEIGHT / len(trigrams)
        for trigram in trigrams:
            for i, value in enumerate(self._direction("t:" + trigram)):
                vec[i] += share * value
        return tuple(vec)

    def _direction(self, feature: str) -> tuple[float, ...]:
        # One byte per dimension, centred: a fixed pseudo-random direction per feature.
        digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=self._dimensions).digest()
        return tuple((b - 127.5) / 127.5 for b in digest)
