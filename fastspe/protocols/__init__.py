"""How a trial's conversation goes: one answer (the paper's protocol), a tool the model may call before it answers
(``tools``), or the verifier's verdict sent back for another try (``feedback``). Shared by every domain: a domain
plays moves out for it through ``Domain.playout``."""
