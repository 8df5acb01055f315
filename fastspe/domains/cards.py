"""What a domain's dataset card says of it (``Domain.dataset_card_notes``, for ``fastspe bank export --hub``): the
card's shared parts (configs, features, how to score answers with fastspe) are ``fastspe.hub``'s."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

__all__ = ["CardNotes", "PAPER_CITATION"]

# The paper whose method (SPE = R x Q x E over certified optima) scores every domain's banks: a card's citation
# unless the domain names its own.
PAPER_CITATION = """@article{ling2026verifiable,
  title   = {Verifiable Efficiency Limits of Innate LLM Planning in Sliding Puzzles},
  author  = {Ling, Charles},
  journal = {arXiv preprint arXiv:2610.36415},
  year    = {2026},
  url     = {https://arxiv.org/abs/2610.36415}
}"""


@dataclass(frozen=True)
class CardNotes:
    """A domain's part of a dataset card.

    pretty_name : the card's title
    certification : Markdown: how each row's d* and certificate are certified, and how to re-check them
    columns : bank column -> what it holds, in words (a column without one is listed with its type only)
    tags : Hub tags beside fastspe's own
    citation : BibTeX the card asks users to cite (default: the paper)
    """

    pretty_name: str = ""
    certification: str = ""
    columns: Mapping[str, str] = field(default_factory=dict)
    tags: tuple[str, ...] = ()
    citation: str = PAPER_CITATION
