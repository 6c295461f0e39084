"""``python -m qgpuctl``, for hosts where the console script is not on PATH."""

from qgpuctl.cli.app import main

if __name__ == "__main__":
    main()
