"""How a trial's conversation goes: one answer (the paper's protocol), a tool the model may call before it answers
(``tools``), or the verifier's verdict sent back for another try (``feedback``). Shared by every domain: a domain
plays moves out for it through ``Domain.playout``."""

from .._names import lazy_face

# loaded on first use: the CLI's option parsing needs ``spec`` only
_NAMES = {
    "Conversation": "conversation", "Protocol": "conversation", "ToolCall": "conversation",
    "TurnOutcome": "conversation", "DEFAULT_MAX_ROUNDS": "spec", "DEFAULT_MAX_TURNS": "spec", "FEEDBACK": "spec",
    "ONESHOT": "spec", "ONESHOT_SPEC": "spec", "PROTOCOL_NAMES": "spec", "TOOLS": "spec", "TURN": "spec",
    "ProtocolSpec": "spec", "protocol_spec": "spec", "TOOL_NAME": "tool_text", "apply_moves_result": "tool_text", "feedback": "texts", "read_plan": "texts",
    "tool_definition": "texts", "tool_result": "texts",
}
__all__ = sorted(_NAMES)
__getattr__ = lazy_face(__name__, _NAMES)
