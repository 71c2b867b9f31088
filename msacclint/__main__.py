import sys

from msacclint.frontends.cli import main

if __name__ == "__main__":
    sys.exit(main())
