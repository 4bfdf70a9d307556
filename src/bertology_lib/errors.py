"""Exceptions with messages a reader can act on."""

from __future__ import annotations


class BertologyError(Exception):
    """Base class for errors raised by the library."""


class ParameterError(BertologyError, ValueError):
    """A notebook or CLI parameter has a wrong type, value or name.

    The message always names the offending value and what is allowed.
    """


class ModelNotAvailableError(BertologyError, OSError):
    """A model name could not be resolved (unknown, or the hub is unreachable)."""


class CacheError(BertologyError):
    """The artifact cache could not produce an entry."""
