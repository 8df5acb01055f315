"""What a trial asks: the prompt variant (the paper's, chain of thought, a template of the user's own), a system
prompt and worked examples, rendered for any domain through its contract, versioned and hashed.

``prompt_spec(...)`` settles a variant (``PromptSpec``: its hash, condition suffix and log fields); ``user_texts``
renders each board's user message; ``keep_prompts`` keeps the texts beside a run log (``NAME.prompts.jsonl``).
``docs/prompts.md`` is the guide.
"""

from .render import COT_INSTRUCTION, user_texts, warn_one_text
from .shots import refuse_evaluated_shots
from .sidecar import keep_prompts, prompt_text_of, read_specs, spec_of
from .spec import PAPER_SPEC, SPEC_VERSION, PromptSpec, Shot
from .template import PromptTemplate
from .variants import given_prompt_spec, prompt_spec, system_text

__all__ = [
    "PromptSpec",
    "Shot",
    "PromptTemplate",
    "PAPER_SPEC",
    "SPEC_VERSION",
    "COT_INSTRUCTION",
    "prompt_spec",
    "system_text",
    "given_prompt_spec",
    "user_texts",
    "refuse_evaluated_shots",
    "keep_prompts",
    "read_specs",
    "spec_of",
    "prompt_text_of",
    "warn_one_text",
]
