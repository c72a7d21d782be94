"""Response parts of a thread's listing (``GET /v1/memories?thread=``): the page's FOLLOWS edges and
context windows, so a client shows a conversation as ingest keeps it without a call per turn."""

from __future__ import annotations

from pydantic import Field

from graphmem.contract.types import Output


class FollowsLink(Output):
    """One FOLLOWS edge touching the page, from the earlier turn to the later one."""

    from_id: str = Field(alias="from")
    to_id: str = Field(alias="to")
    weight: float


class ThreadPage(Output):
    id: str = Field(description="The thread listed.")
    follows: list[FollowsLink] = Field(description="FOLLOWS edges of the page's turns (either end on the page).")
    windows: dict[str, list[str]] = Field(
        description="Per turn on the page: the ids its context window spans, in thread order (none: no window).")
