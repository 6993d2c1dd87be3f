"""`python -m benchmarks`: the same suite and options as `kaartlab bench`."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim.bench import DESCRIPTION, EPILOG, add_arguments, cmd_bench  # noqa: E402
from sim.errors import KernelError, SpecError  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=DESCRIPTION,
                                     epilog=EPILOG.replace("kaartlab bench", "python -m benchmarks"),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    args = parser.parse_args(argv)
    args.bench_command = "python -m benchmarks " + " ".join(sys.argv[1:] if argv is None else argv)
    try:
        return cmd_bench(args)
    except (SpecError, KernelError) as exc:
        print(f"python -m benchmarks: error: {exc}", file=sys.stderr)
        return 1 if isinstance(exc, KernelError) else 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
