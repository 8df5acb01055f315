"""Planning domains: the ``Domain`` contract every domain fills, the codes and action vocabulary they share, and the
registry that finds them (fastspe's own, ``sliding`` and ``sokoban``, and any installed through the ``fastspe.domains``
entry-point group). Each domain is one folder: ``fastspe/domains/sliding/``, ``fastspe/domains/sokoban/``.
"""

from typing import TYPE_CHECKING

from .._names import face_dir, lazy_face

if TYPE_CHECKING:  # what type checkers and IDEs see: the objects __getattr__ hands out on first use
    from .contract import (
        BankVerification,
        Design,
        Domain,
        Option,
        Packed,
        prompt_hash,
        STRATUM,
        Ui,
        Verifier,
        VerifierBoard,
    )
    from .registry import DEFAULT_DOMAIN, domain_named, domain_names, domain_of, DomainLoadError, installed_domains
    from .vocabulary import DIRECTIONS, Vocabulary

_NAMES = {
    "Domain": "contract",
    "Packed": "contract",
    "Option": "contract",
    "Design": "contract",
    "BankVerification": "contract",
    "Ui": "contract",
    "Verifier": "contract",
    "VerifierBoard": "contract",
    "prompt_hash": "contract",
    "STRATUM": "contract",
    "Vocabulary": "vocabulary",
    "DIRECTIONS": "vocabulary",
    "DEFAULT_DOMAIN": "registry",
    "DomainLoadError": "registry",
    "domain_named": "registry",
    "domain_of": "registry",
    "domain_names": "registry",
    "installed_domains": "registry",
}
__all__ = [
    "BankVerification",
    "DEFAULT_DOMAIN",
    "Design",
    "DIRECTIONS",
    "Domain",
    "domain_named",
    "domain_names",
    "domain_of",
    "DomainLoadError",
    "installed_domains",
    "Option",
    "Packed",
    "prompt_hash",
    "STRATUM",
    "Ui",
    "Verifier",
    "VerifierBoard",
    "Vocabulary",
]
__dir__ = face_dir(__all__)
if not TYPE_CHECKING:  # hidden from type checkers, which then refuse a name the face does not have
    __getattr__ = lazy_face(__name__, _NAMES)
