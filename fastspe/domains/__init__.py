"""Planning domains: the ``Domain`` contract every domain fills, the codes and action vocabulary they share, and the
registry that finds them (fastspe's own, ``sliding`` and ``sokoban``, and any installed through the ``fastspe.domains``
entry-point group). Each domain is one folder: ``fastspe/domains/sliding/``, ``fastspe/domains/sokoban/``.
"""

from .._names import lazy_face

_NAMES = {
    "Domain": "contract", "Packed": "contract", "Option": "contract", "Design": "contract",
    "BankVerification": "contract", "Ui": "contract", "Verifier": "contract", "VerifierBoard": "contract",
    "prompt_hash": "contract", "STRATUM": "contract",
    "Vocabulary": "vocabulary", "DIRECTIONS": "vocabulary",
    "DEFAULT_DOMAIN": "registry", "DomainLoadError": "registry", "domain_named": "registry", "domain_of": "registry",
    "domain_names": "registry", "installed_domains": "registry",
}
__all__ = sorted(_NAMES)
__getattr__ = lazy_face(__name__, _NAMES)
