"""turnwire: one agent, every agent-chat wire format, one store."""

from turnwire.convert import convert
from turnwire.errors import InputError, TurnwireError, UnknownFormatError

__all__ = ["InputError", "TurnwireError", "UnknownFormatError", "convert"]
__version__ = "0.1.0"
