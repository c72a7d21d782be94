"""Evidence gate: extracted memories and relations are kept only when their quote is
found in the source text they claim to come from."""

from __future__ import annotations

from typing import Any

from graphmem.errors import EvidenceRejected
from graphmem.text import quote_found


def check_evidence(evidence: Any, field: str = "evidence") -> dict[str, str]:
    """Validate ``{"source_text", "quote"}``; raise EvidenceRejected saying why."""
    if not isinstance(evidence, dict):
        raise EvidenceRejected("extracted items need evidence {source_text, quote}", field=field)
    source_text = evidence.get("source_text")
    quote = evidence.get("quote")
    if not isinstance(source_text, str) or not source_text.strip():
        raise EvidenceRejected("evidence.source_text is missing or empty", field=f"{field}.source_text")
    if not isinstance(quote, str) or not quote.strip():
        raise EvidenceRejected("evidence.quote is missing or empty", field=f"{field}.quote")
    if not quote_found(source_text, quote):
        raise EvidenceRejected("evidence.quote does not occur in evidence.source_text "
                               "(compared after folding case and whitespace)", field=f"{field}.quote")
    return {"source_text": source_text, "quote": quote}
