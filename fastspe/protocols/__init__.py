"""How a trial's conversation goes: one answer (the paper's protocol), a tool the model may call before it answers
(``tools``), or the verifier's verdict sent back for another try (``feedback``). Shared by every domain: a domain
plays moves out for it through ``Domain.playout``."""

from typing import TYPE_CHECKING

from .._names import face_dir, lazy_face

if TYPE_CHECKING:  # what type checkers and IDEs see: the objects __getattr__ hands out on first use
    from .conversation import Conversation, Protocol, ToolCall, TurnOutcome
    from .spec import (
        DEFAULT_MAX_ROUNDS,
        DEFAULT_MAX_TURNS,
        FEEDBACK,
        ONESHOT,
        ONESHOT_SPEC,
        PROTOCOL_NAMES,
        protocol_spec,
        ProtocolSpec,
        TOOLS,
        TURN,
    )
    from .texts import feedback, read_plan, tool_definition, tool_result
    from .tool_text import apply_moves_result, TOOL_NAME

# loaded on first use: the CLI's option parsing needs ``spec`` only
_NAMES = {
    "Conversation": "conversation",
    "Protocol": "conversation",
    "ToolCall": "conversation",
    "TurnOutcome": "conversation",
    "DEFAULT_MAX_ROUNDS": "spec",
    "DEFAULT_MAX_TURNS": "spec",
    "FEEDBACK": "spec",
    "ONESHOT": "spec",
    "ONESHOT_SPEC": "spec",
    "PROTOCOL_NAMES": "spec",
    "TOOLS": "spec",
    "TURN": "spec",
    "ProtocolSpec": "spec",
    "protocol_spec": "spec",
    "TOOL_NAME": "tool_text",
    "apply_moves_result": "tool_text",
    "feedback": "texts",
    "read_plan": "texts",
    "tool_definition": "texts",
    "tool_result": "texts",
}
__all__ = [
    "apply_moves_result",
    "Conversation",
    "DEFAULT_MAX_ROUNDS",
    "DEFAULT_MAX_TURNS",
    "FEEDBACK",
    "feedback",
    "ONESHOT",
    "ONESHOT_SPEC",
    "Protocol",
    "PROTOCOL_NAMES",
    "protocol_spec",
    "ProtocolSpec",
    "read_plan",
    "tool_definition",
    "TOOL_NAME",
    "tool_result",
    "ToolCall",
    "TOOLS",
    "TURN",
    "TurnOutcome",
]
__dir__ = face_dir(__all__)
if not TYPE_CHECKING:  # hidden from type checkers, which then refuse a name the face does not have
    __getattr__ = lazy_face(__name__, _NAMES)
