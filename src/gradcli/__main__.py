"""The ``gradcli`` command and ``python -m gradcli``: Ctrl-C handling first, then the CLI."""

from __future__ import annotations


def main() -> None:
    """Install the Ctrl-C watcher, then load and run the command line."""
    from gradcli import interrupts

    interrupts.install()
    from gradcli.cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
