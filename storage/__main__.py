"""``python -m storage backup SRC DEST`` and ``python -m storage restore SRC DEST``."""

from __future__ import annotations

import argparse
import sys

from .backup import backup_database, restore_database
from .errors import StorageError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m storage", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    backup = commands.add_parser("backup", help="copy a database, even while the bot runs")
    backup.add_argument("src")
    backup.add_argument("dest")
    restore = commands.add_parser("restore", help="replace a database (bot stopped) by a backup")
    restore.add_argument("src")
    restore.add_argument("dest")
    args = parser.parse_args(argv)
    try:
        if args.command == "backup":
            backup_database(args.src, args.dest)
            print(f"Backed up {args.src} to {args.dest}.")
        else:
            restore_database(args.src, args.dest)
            print(f"Restored {args.dest} from {args.src}.")
    except StorageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
