"""The exceptions every call raises: the library's statuses, and the Python layer's own
refusals under the same names, so callers catch one family."""
from ._lib import fn

# votecl_status values (pinned forever by include/votecl/votecl-status.h)
INVALID_ARGUMENT = 1
UNSUPPORTED = 9
OUT_OF_RESOURCES = 12


class VoteclError(Exception):
    """A failed libvotecl call.

    Attributes: status (the votecl_status value), name ("VOTECL_INVALID_ARGUMENT", ...) and
    message (the library's message, naming the field at fault)."""

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        self.name = (fn.status_name(status) or b"VOTECL_?").decode()
        self.message = message or (fn.status_string(status) or b"").decode()
        super().__init__("%s: %s" % (self.name, self.message))


class InvalidArgument(VoteclError, ValueError):
    """VOTECL_INVALID_ARGUMENT: a parameter or input was wrong (the message names it)."""


class ClosedError(InvalidArgument):
    """A call on an object that was closed, or whose context was closed (a ValueError, as
    Python's own calls on a closed file raise)."""

    def __init__(self, message: str) -> None:
        super().__init__(INVALID_ARGUMENT, message)


class InvalidType(InvalidArgument, TypeError):
    """An InvalidArgument about an argument's type or dtype (also a TypeError)."""


def invalid(message: str) -> InvalidArgument:
    """An InvalidArgument raised by the Python layer itself (message: the field at fault)."""
    return InvalidArgument(INVALID_ARGUMENT, message)


class Unsupported(VoteclError, NotImplementedError):
    """VOTECL_UNSUPPORTED: something the library does not compute (the message names the
    limit)."""

    def __init__(self, message: str) -> None:
        super().__init__(UNSUPPORTED, message)


class OutOfResources(VoteclError, MemoryError):
    """VOTECL_OUT_OF_RESOURCES: the call needs more memory than a limit the caller set (the
    message names the figure and the limit, e.g. GHT's memory_limit; also a MemoryError)."""


def error(status: int, message: str) -> VoteclError:
    """The exception for a status the library returned."""
    if status == OUT_OF_RESOURCES:
        return OutOfResources(status, message)
    if status == INVALID_ARGUMENT:
        return InvalidArgument(status, message)
    if status == UNSUPPORTED:
        return Unsupported(message)
    return VoteclError(status, message)


def invalid_type(message: str) -> InvalidType:
    """An InvalidType raised by the Python layer (message: the argument and its dtype)."""
    return InvalidType(INVALID_ARGUMENT, message)
