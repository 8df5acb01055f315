"""The inspect task's conversations: their opening under a prompt variant (``fastspe run``'s messages) and the
``tools`` protocol's turns, and what a log says of each.

The ``tools`` protocol (``planning(protocol="tools")``): the model may call ``apply_moves`` through inspect's own tool
machinery before it answers.

Each sample's tool is made for its bank row (a ``ToolDef`` over ``protocols.tool_text``, so its name, description and
results are the ones fastspe's runners send) and offered with ``use_tools``; ``generate`` resolves the tool calls of
one turn at a time, up to ``max_turns`` requests. (inspect's ``turn_limit`` raises only after a generation past the
limit, one request paid for nothing, so the loop counts its turns itself.) A conversation ends when the model answers
without a tool call, that text being its answer, or at ``max_turns``: then there is no answer, a format failure and
never a lost output, as in ``fastspe run --protocol tools``.

Prompt variants (``planning(prompt=..., system=..., shots=..., shots_bank=...)``): a sample's input is the opening
``fastspe run`` sends for its trial, and a log of such a task says which spec it asked with. The spec is settled by
``fastspe.prompting`` as for ``fastspe run`` (``given_prompt_spec``, ``user_texts``, ``PromptSpec.opening``); here it
only changes form: the opening's OpenAI-format messages become inspect's ``ChatMessageSystem``/``User``/``Assistant``
(the one user message of the paper prompt stays the plain text it always was, so its logs do not change). The task's
metadata keeps the spec's sidecar record (``SPEC_KEY``), each sample's its variant, spec hash and user message hash
(``SAMPLE_KEYS``); an import reads the spec back and refuses one that no longer hashes to what its samples were
asked with (an edited log).
"""

from __future__ import annotations

from typing import Mapping

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver, use_tools
from inspect_ai.tool import Tool, ToolDef

from .domains.contract import Domain, prompt_hash
from .domains.registry import DEFAULT_DOMAIN, domain_named
from .errors import UserError
from .prompting import PromptSpec
from .protocols.spec import DEFAULT_MAX_TURNS, END_ANSWER, END_MAX_TURNS, ONESHOT, TOOLS
from .protocols.tool_text import MOVES_ARGUMENT, TOOL_NAME, apply_moves_result, moves_description, tool_description

__all__ = [
    "ONESHOT",
    "TOOLS",
    "PROTOCOLS",
    "DEFAULT_MAX_TURNS",
    "check_protocol",
    "check_plays_out",
    "apply_moves_tool",
    "tool_conversation",
    "final_answer",
    "conversation_fields",
    "SPEC_KEY",
    "SAMPLE_KEYS",
    "chat_input",
    "spec_metadata",
    "sample_metadata",
    "spec_of_log",
    "check_sample_spec",
]

PROTOCOLS = (ONESHOT, TOOLS)  # feedback runs through `fastspe run --protocol feedback`


def check_protocol(protocol: str, max_turns: int) -> tuple[str, int]:
    """The protocol and its turn limit, checked (one ``UserError`` line for a bad one)."""
    if protocol not in PROTOCOLS:
        elsewhere = " (feedback: fastspe run --protocol feedback)" if protocol == "feedback" else ""
        raise UserError(f"protocol must be one of {', '.join(PROTOCOLS)}, got {protocol!r}{elsewhere}")
    if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
        raise UserError(f"max_turns must be a whole number of at least 1, got {max_turns!r}")
    return protocol, max_turns


def check_plays_out(domain: Domain) -> None:
    """Refuse the tools protocol for a domain that cannot play moves out for the model."""
    if not domain.plays_out:
        raise UserError(
            f"protocol tools needs a domain that plays moves out for the model, which the {domain.name} "
            "domain cannot do (it has no Domain.playout); run it one-shot"
        )


def apply_moves_tool(domain: Domain, row: Mapping) -> Tool:
    """The ``apply_moves`` tool of one bank row (a mapping of its columns)."""

    async def execute(moves: str) -> str:
        return apply_moves_result(domain, row, moves)

    return ToolDef(
        execute,
        name=TOOL_NAME,
        description=tool_description(domain),
        parameters={MOVES_ARGUMENT: moves_description(domain)},
    ).as_tool()


@solver
def tool_conversation(max_turns: int = DEFAULT_MAX_TURNS, domain_key: str = "fastspe_domain") -> Solver:
    """Offer the sample's ``apply_moves`` and let the model call it, one turn per request, until it answers without a
    tool call or has had ``max_turns`` requests. The sample's metadata holds its bank row and its domain's name
    (under ``domain_key``)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        domain = domain_named(state.metadata.get(domain_key, DEFAULT_DOMAIN))
        row = {name: state.metadata[name] for name in domain.bank_columns}
        state = await use_tools(apply_moves_tool(domain, row))(state, generate)
        for _ in range(max_turns):
            state = await generate(state, tool_calls="single")
            if state.completed or not state.output.message.tool_calls:
                break
        return state

    return solve


def final_answer(output: ModelOutput) -> str:
    """The answer a conversation ends with: the last output's text, or "" when it asked for a tool (the turns ran
    out: no answer, a format failure)."""
    if not output.choices:
        return ""
    return "" if output.message.tool_calls else output.completion


def conversation_fields(messages) -> dict:
    """What a run log's closing record says of a tools conversation (a sample's ``messages``): ``turns`` (the model's
    answered requests), ``tool_call_count`` and ``end_reason``."""
    turns = [m for m in messages if m.role == "assistant"]
    calls = sum(len(m.tool_calls or ()) for m in turns)
    ended = END_MAX_TURNS if turns and turns[-1].tool_calls else END_ANSWER
    return {"turns": len(turns), "tool_call_count": calls, "end_reason": ended}


# ---- prompt variants: a conversation's opening ----

SPEC_KEY = "fastspe_prompt_spec"  # the task's metadata: the spec's sidecar record (absent for the paper prompt)
# a sample's metadata: the log fields of its variant, under the task's own prefix (bank columns share the mapping)
SAMPLE_KEYS = {
    "prompt_variant": "fastspe_prompt_variant",
    "prompt_spec_sha256": "fastspe_prompt_spec_sha256",
    "prompt_text_sha256": "fastspe_prompt_text_sha256",
}
_MESSAGE = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}


def chat_input(spec: PromptSpec, text: str) -> str | list[ChatMessage]:
    """A sample's input for the board's user message ``text``: the text alone, or the spec's opening as messages."""
    opening = spec.opening(text)
    if opening is None:
        return text
    return [_MESSAGE[m["role"]](content=m["content"]) for m in opening]


def spec_metadata(spec: PromptSpec) -> dict:
    """The task's metadata of ``spec`` (none for the default: the paper prompt's logs stay as they were)."""
    return {} if spec.is_default else {SPEC_KEY: spec.sidecar_record()}


def sample_metadata(spec: PromptSpec, text: str) -> dict:
    """A sample's metadata of ``spec`` and its user message ``text`` (none for the default)."""
    if spec.is_default:
        return {}
    fields = {"prompt_variant": spec.label, "prompt_spec_sha256": spec.sha256, "prompt_text_sha256": prompt_hash(text)}
    return {SAMPLE_KEYS[name]: value for name, value in fields.items()}


def spec_of_log(metadata: dict | None, name: str) -> PromptSpec | None:
    """The spec a task's ``metadata`` keeps (None: the paper prompt alone); a ``UserError`` naming the log ``name``
    when the record is unreadable or no longer hashes to its own hash."""
    record = (metadata or {}).get(SPEC_KEY)
    if record is None:
        return None
    try:
        spec = PromptSpec.from_record(record)
    except (UserError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise UserError(f"{name}: the task's prompt spec ({SPEC_KEY}) cannot be read ({exc})") from None
    if spec.sha256 != record.get("prompt_spec_sha256"):
        raise UserError(
            f"{name}: the task's prompt spec ({SPEC_KEY}) does not hash to its prompt_spec_sha256 "
            "(the log was edited?); its answers cannot be bound to what was asked"
        )
    return spec


def check_sample_spec(spec: PromptSpec | None, metadata: dict | None, sample: str, name: str) -> None:
    """Refuse a sample asked with another spec than its task's (``spec``; None: the paper prompt, no spec hash)."""
    recorded = (metadata or {}).get(SAMPLE_KEYS["prompt_spec_sha256"])
    expected = None if spec is None else spec.sha256
    if recorded != expected:
        raise UserError(
            f"{name}: sample {sample!r} records prompt spec {recorded!r}, its task {expected!r} (the log "
            "was edited?); its answers cannot be bound to what was asked"
        )
