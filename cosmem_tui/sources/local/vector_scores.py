"""Exact VectorDistance scores of a probe's candidates, in bulk with numpy.

Turning 1,536 float64 per candidate into Python floats was most of an exact probe's
time; numpy reads the stored bytes as they are and scores a chunk of rows at once.
Imported by the probe only (numpy costs start-up time no view should pay).

Every score is a function of its own vector and the query alone, so a vector from the
vectors table and the same one parsed from a body score the same to the last bit: the
dot product is an elementwise product then a sum along the row (numpy sums a contiguous
row pairwise, in an order set by its length only), never a BLAS matrix-vector product,
whose rounding may change with a row's place in the matrix and with the kernel chosen.
Euclidean sums the squared differences the same way (exact near zero, unlike a formula
through the dot product). Cosine divides the dot product by the norms computed with
``math.hypot``: the stored norm, or the body's vector's computed as the build does.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from cosmem_tui.model.recall import Distance
from cosmem_tui.sources.local.vector_table import StoredVector

CHUNK = 512  # rows scored at once: 6 MB at 1,536 dims, however large the scope
Floats = npt.NDArray[np.float64]


class BulkScorer:
    """Collects candidates' vectors (those of the query's length) and scores them, in
    the order added. ``add_*`` say False for a vector the service would skip."""

    def __init__(self, query: Sequence[float], distance: Distance) -> None:
        self.dims = len(query)
        self._distance = distance
        self._query = np.array(query, dtype=np.float64)
        self._query_norm = math.hypot(*query)
        self._packer = struct.Struct(f"<{self.dims}d")  # the vectors table's layout
        self._work: Floats = np.empty((CHUNK, self.dims))
        # A chunk's vectors as bytes: one join and one frombuffer read them all, far
        # cheaper than copying each into an array row.
        self._blobs: list[bytes] = []
        self._norms: list[float] = []
        self._scored: list[Floats] = []

    def add_stored(self, stored: StoredVector) -> bool:
        """A vector from the vectors table: finite float64 and its norm, as built."""
        if stored.dims != self.dims:
            return False
        self._add(stored.vector, stored.norm)
        return True

    def add_numbers(self, vector: list[float]) -> bool:
        """A vector from a body (``recall.vector_of``: no bools in it)."""
        if len(vector) != self.dims:
            return False
        try:
            packed = self._packer.pack(*vector)  # struct.error for an element no number
        except struct.error:
            return False  # undefined, as in Cosmos SQL
        self._add(packed, math.hypot(*vector))  # the norm the build stores
        return True

    def _add(self, vector: bytes, norm: float) -> None:
        self._blobs.append(vector)
        self._norms.append(norm)
        if len(self._blobs) == CHUNK:
            self._score_chunk()

    def scores(self) -> Floats:
        """The score of every vector added, in the order added."""
        if self._blobs:
            self._score_chunk()
        return np.concatenate(self._scored) if self._scored else np.empty(0)

    def _score_chunk(self) -> None:
        n = len(self._blobs)
        rows = np.frombuffer(b"".join(self._blobs), dtype="<f8").reshape(n, self.dims)
        work = self._work[:n]
        if self._distance is Distance.EUCLIDEAN:
            np.subtract(rows, self._query, out=work)
            np.multiply(work, work, out=work)
            scores = np.sqrt(work.sum(axis=1))
        else:
            np.multiply(rows, self._query, out=work)
            scores = work.sum(axis=1)
            if self._distance is Distance.COSINE:
                norms = np.array(self._norms) * self._query_norm
                # A vector of no direction (zero norm) has cosine 0.0, as the fake's.
                with np.errstate(divide="ignore", invalid="ignore"):
                    scores = np.where(norms != 0.0, scores / norms, 0.0)
        self._scored.append(scores)
        self._blobs, self._norms = [], []


def may_rank(firsts: Floats, k: int) -> Sequence[int]:
    """The positions of the values (smaller is closer) that can be among the k closest:
    each at least as close as the k-th closest, all of a tie at the k-th included, so a
    sort by the full key (score, id, keys) picks the same k as a sort of them all.
    All of them when a score is NaN (it compares as neither closer nor farther)."""
    if not 0 < k < len(firsts) or np.isnan(firsts).any():
        return range(len(firsts))
    kth = firsts[firsts.argpartition(k - 1)[k - 1]]
    positions: list[int] = (firsts <= kth).nonzero()[0].tolist()
    return positions
