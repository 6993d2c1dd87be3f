"""What a user names: games, rule parameters, policies, arms and studies. Compiles nothing."""
from sim.errors import SpecError

__all__ = ["SpecError"]
