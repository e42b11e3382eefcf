"""The one error type users see: it names the bad field and why, so an agent can fix its call."""


class TutorialbookError(ValueError):
    """Bad input or an impossible request. ``field`` names the argument at fault."""

    def __init__(self, field: str, reason: str):
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


class NotFound(TutorialbookError):
    """An id (book, node, skill, tutorial, lesson) that the store does not hold."""


class NothingToLearn(TutorialbookError):
    """A readable source that holds no text to learn from (a page of links only, headings with
    nothing under them): a lone file's error, a folder's skipped file. ``heading``: the top
    heading of a page of headings only (a manual's chapter page that is a menu of its section
    pages), which the pages below it are filed under."""

    def __init__(self, field: str, reason: str, heading: str | None = None):
        super().__init__(field, reason)
        self.heading = heading


class Cancelled(Exception):
    """The caller cancelled a long operation; nothing of it was committed."""
