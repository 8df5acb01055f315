"""What a trial asks: the prompt variant (the paper's, chain of thought, a template of the user's own), a system
prompt and worked examples, rendered for any domain through its contract, versioned and hashed."""
