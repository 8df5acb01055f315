"""Request cost from per-million-token prices, a budget that stops before it is exceeded, estimates.

Before each request the budget reserves that request's worst case (an upper bound on its input
tokens plus ``max_tokens`` of output); after it, the reservation becomes the real cost. A request
whose worst case would take the total over the budget is not sent, so the budget holds even with
many requests in flight.
"""

from __future__ import annotations

import json
import math
import threading
from dataclasses import dataclass

from ..errors import UserError

# Chat framing around the prompt, in tokens (role markers etc.), added to the input bound.
MESSAGE_OVERHEAD_TOKENS = 32
# Tokenizers average about 4 characters of English per token; used only for the dry-run estimate.
CHARS_PER_TOKEN = 4.0


@dataclass(frozen=True)
class Pricing:
    """US dollars per million input and output tokens (reasoning tokens bill as output)."""

    price_in: float = 0.0
    price_out: float = 0.0

    def __post_init__(self):
        if not (0 <= self.price_in < math.inf and 0 <= self.price_out < math.inf):
            raise UserError(
                f"prices must be finite numbers >= 0, got --price-in {self.price_in} --price-out {self.price_out}"
            )

    @property
    def priced(self) -> bool:
        return self.price_in > 0 or self.price_out > 0

    def cost(self, input_tokens: int | None, output_tokens: int | None) -> float:
        return ((input_tokens or 0) * self.price_in + (output_tokens or 0) * self.price_out) / 1e6


def input_tokens_upper(prompt: str) -> int:
    """An upper bound on the prompt's input tokens: its UTF-8 bytes plus framing (a token is >= 1 byte)."""
    return len(prompt.encode("utf-8")) + MESSAGE_OVERHEAD_TOKENS


def conversation_tokens_upper(messages: list, tools: list | None = None) -> int:
    """An upper bound on the input tokens of sending ``messages`` (the OpenAI chat format) offering ``tools``: each
    message's text and tool calls as ``input_tokens_upper`` bounds a prompt, and the tools' JSON. One user message
    is bounded exactly as its prompt."""
    total = 0
    for m in messages:
        text = m.get("content") or ""
        for call in m.get("tool_calls") or ():
            text += call["function"]["name"] + call["function"]["arguments"]
        total += input_tokens_upper(text)
    if tools:
        total += len(json.dumps(tools).encode("utf-8"))
    return total


def input_tokens_estimate(prompt: str) -> int:
    """A typical count of the prompt's input tokens (about 4 characters per token)."""
    return int(len(prompt) / CHARS_PER_TOKEN) + MESSAGE_OVERHEAD_TOKENS


class Budget:
    """Spending against an optional limit in US dollars (thread-safe).

    Parameters
    ----------
    limit : float or None
        The most the run may spend; None for no limit.
    spent : float
        Already spent (earlier attempts of the same condition in the log).
    """

    def __init__(self, limit: float | None, spent: float = 0.0):
        if limit is not None and not 0 <= limit < math.inf:
            raise UserError(f"--budget must be a finite number >= 0, got {limit}")
        self.limit = limit
        self.spent = spent
        self._reserved = 0.0
        self._lock = threading.Lock()
        self.exhausted = False

    def reserve(self, worst_case: float) -> bool:
        """Reserve ``worst_case`` dollars for one request; False (and exhausted) if that could exceed the limit."""
        with self._lock:
            if self.limit is not None and self.spent + self._reserved + worst_case > self.limit:
                self.exhausted = True
                return False
            self._reserved += worst_case
            return True

    def settle(self, reserved: float, actual: float) -> None:
        """Replace a reservation by the request's actual cost."""
        with self._lock:
            self._reserved -= reserved
            self.spent += actual
