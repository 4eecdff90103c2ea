"""`python -m graphmend ...`: runs the installed binary with the same arguments."""

import os
import sys

from graphmend import find_graphmend_bin


def main() -> None:
    binary = find_graphmend_bin()
    if sys.platform == "win32":
        import subprocess

        sys.exit(subprocess.call([binary, *sys.argv[1:]]))
    os.execv(binary, [binary, *sys.argv[1:]])


if __name__ == "__main__":
    main()
