"""Structured optimization remarks, in the spirit of LLVM's -pass-remarks.

Each decision is a record (pass, kind, message, function, location, args); the human
text is a rendering of it. The message carries the seed's verbatim string.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

PASSED = "Passed"
MISSED = "Missed"
ANALYSIS = "Analysis"


@dataclass(frozen=True)
class Remark:
    pass_name: str  # fusion, distribution, tiling, interchange, licm, contraction, driver, internal
    kind: str  # Passed | Missed | Analysis
    message: str  # the seed's verbatim text first, e.g. "[STOP FUSION] unmatched trip count"
    function: str = ""
    location: str = ""
    args: dict[str, Any] = field(default_factory=dict)

    def render(self) -> str:
        where = f"{self.location}: " if self.location else ""
        fn = f" (in @{self.function})" if self.function else ""
        detail = self.args.get("detail") if isinstance(self.args, dict) else None
        extra = f" [{detail}]" if detail else ""
        return f"{where}{self.kind.lower()}: {self.message}{fn}{extra}"

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True, default=str)


class RemarkLog:
    """Collects remarks in decision order."""

    def __init__(self) -> None:
        self.remarks: list[Remark] = []

    def add(self, pass_name: str, kind: str, message: str, **kw: Any) -> Remark:
        r = Remark(pass_name, kind, message, **kw)
        self.remarks.append(r)
        return r

    def refused(self, pass_name: str, refusal, args: dict | None = None, **kw: Any) -> Remark:
        """The one place a Refusal becomes a Missed remark: its message, and its code and detail
        among the args."""
        full = {**(args or {}), "code": refusal.code.name, "reason": refusal.detail}
        if refusal.detail and refusal.detail not in refusal.message:
            full.setdefault("detail", refusal.detail)
        return self.add(pass_name, MISSED, refusal.message, args=full, **kw)

    def messages(self, pass_name: str | None = None) -> list[str]:
        return [r.message for r in self.remarks if pass_name is None or r.pass_name == pass_name]

    def __iter__(self):
        return iter(self.remarks)

    def __len__(self) -> int:
        return len(self.remarks)
