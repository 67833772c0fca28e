"""The default limits of docs/commands.md, in one place (imported by the command line at start-up, so
this module imports nothing)."""

MAX_ELEMENTS = 50_000_000  # elements of one tensor (--max-elements)
MAX_STEPS = 1_000_000  # executed statements (--max-steps)
MAX_DIMS = 64  # dimensions of one tensor (NumPy's limit)
MAX_SCRIPT_BYTES = 16 * 1024 * 1024  # bytes of one script (--max-script-bytes)
MAX_SEQUENCE = 1_000_000  # characters of a string, elements of a (flattened) list (a script's)
MAX_EVALS = 2_000  # re-runs of a script by `check` (--max-evals), two per checked element
