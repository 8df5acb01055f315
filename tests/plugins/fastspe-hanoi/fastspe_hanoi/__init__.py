"""fastspe-hanoi: the Tower of Hanoi with forbidden moves as a fastspe planning domain, installed as a plugin
(entry point ``fastspe.domains: hanoi = fastspe_hanoi:DOMAIN``). ``domain.HanoiDomain`` says which module does what."""

from .domain import DOMAIN, HanoiDomain

__all__ = ["DOMAIN", "HanoiDomain"]
__version__ = "0.1.0"
