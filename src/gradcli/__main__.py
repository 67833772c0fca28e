"""The ``gradcli`` command and ``python -m gradcli``: Ctrl-C handling first, then the command."""

from __future__ import annotations

import gc


def main() -> None:
    """Install the Ctrl-C watcher, then read argv and run the command (``launch.main``), the
    collector paused while the process starts."""
    try:
        gc.disable()
        from gradcli import interrupts

        interrupts.install()
    except KeyboardInterrupt:  # Ctrl-C before the watcher is up: the same quiet exit
        raise SystemExit(130) from None  # interrupts.EXIT_INTERRUPTED, which may not be loaded
    from gradcli.launch import main as launch_main

    launch_main(gc_paused=True)


if __name__ == "__main__":
    main()
