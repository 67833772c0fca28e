"""``python -m gradcli``: the same entry point as the ``gradcli`` command."""

from gradcli.cli import main

if __name__ == "__main__":
    main()
