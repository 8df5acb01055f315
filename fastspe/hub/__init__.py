"""Banks where researchers share data: a Hugging Face Hub dataset folder with its card (``export_hub``, ``fastspe bank
export --hub``), and a bank's rows as ``{question, answer, metadata}`` items with a per-item scorer (``BankItems``,
``score_answer``) for RL and reasoning-gym users.
"""

from typing import TYPE_CHECKING

from .._names import face_dir, lazy_face

if TYPE_CHECKING:  # what type checkers and IDEs see: the objects __getattr__ hands out on first use
    from .card import dataset_card
    from .export import export_hub, HubExport
    from .items import bank_items, BankItems, score_answer, write_items

_NAMES = {
    "export_hub": "export",
    "HubExport": "export",
    "dataset_card": "card",
    "BankItems": "items",
    "bank_items": "items",
    "score_answer": "items",
    "write_items": "items",
}
__all__ = ["bank_items", "BankItems", "dataset_card", "export_hub", "HubExport", "score_answer", "write_items"]
if not TYPE_CHECKING:  # hidden from type checkers, which then refuse a name the face does not have
    __getattr__ = lazy_face(__name__, _NAMES)
__dir__ = face_dir(__all__)
