"""An azure-core transport that remembers every request it sends (for request accounting)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from azure.core.pipeline.transport import AioHttpTransport


@dataclass(frozen=True)
class Sent:
    method: str
    path: str
    headers: dict[str, str]

    @property
    def is_query(self) -> bool:
        return self.headers.get("x-ms-documentdb-isquery") == "true"

    @property
    def partition_key(self) -> str | None:
        return self.headers.get("x-ms-documentdb-partitionkey")

    @property
    def epk_range(self) -> tuple[str, str] | None:
        start, end = self.headers.get("x-ms-start-epk"), self.headers.get("x-ms-end-epk")
        return (start, end) if start is not None and end is not None else None

    @property
    def range_id(self) -> str | None:
        return self.headers.get("x-ms-documentdb-partitionkeyrangeid")

    @property
    def fans_out(self) -> bool:
        """A query routed by no key, no key-prefix range, no physical range: a blind fan-out."""
        return (
            self.is_query
            and self.partition_key is None
            and not self.epk_range
            and self.range_id is None
        )


class SpyTransport(AioHttpTransport):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.sent: list[Sent] = []

    async def send(self, request: Any, **kwargs: Any) -> Any:
        headers = {k.lower(): str(v) for k, v in request.headers.items()}
        self.sent.append(Sent(request.method, urlsplit(request.url).path or "/", headers))
        return await super().send(request, **kwargs)

    def mark(self) -> int:
        return len(self.sent)

    def since(self, mark: int) -> list[Sent]:
        return self.sent[mark:]
