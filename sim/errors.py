"""The one error type for bad user input; the CLI prints its message and exits non-zero."""


class SpecError(ValueError):
    """A study, arm, rule value, player count, deck or path that cannot be used, with why."""


class KernelError(RuntimeError):
    """A kernel reported a bug (an illegal move, lost card, endless game): the batch is not scored."""
