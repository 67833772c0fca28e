"""The ``gradcli`` command and ``python -m gradcli``: Ctrl-C handling first, then the command."""

from __future__ import annotations


def main() -> None:
    """Install the Ctrl-C watcher, then read argv and run the command (``launch.main``)."""
    from gradcli import interrupts

    interrupts.install()
    from gradcli.launch import main as launch_main

    launch_main()


if __name__ == "__main__":
    main()
