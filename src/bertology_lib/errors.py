"""Exceptions with messages a reader can act on."""

from __future__ import annotations


class BertologyError(Exception):
    """Base class for errors raised by the library."""


class ParameterError(BertologyError, ValueError):
    """A notebook or CLI parameter has a wrong type, value or name.

    The message always names the offending value and what is allowed.
    """

    def _render_traceback_(self) -> list[str]:
        """What IPython shows for it (in Jupyter, and in the cell output papermill reports): the one line with the
        message, no traceback; the message already names the value and what is allowed."""
        return [f"{type(self).__name__}: {self}"]


class ModelNotAvailableError(BertologyError, OSError):
    """A model name could not be resolved (unknown, or the hub is unreachable)."""


class CacheError(BertologyError):
    """The artifact cache could not produce an entry."""
