#!/usr/bin/env python3
"""Print an operator's dispatch registrations and computed per-key table.

    python tools/dispatch_table.py aten::add.Tensor
    python tools/dispatch_table.py --list            # every registered operator
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import torchlike  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("op", nargs="?", help="qualified name, e.g. aten::add.Tensor (aten:: may be omitted)")
    p.add_argument("--list", action="store_true", help="list every registered operator")
    a = p.parse_args(argv)
    if a.list or not a.op:
        print("\n".join(torchlike._C._dispatch_list_ops()))
        return 0
    try:
        print(torchlike._C._dispatch_dump(a.op))
        print("computed table:")
        print(torchlike._C._dispatch_dump_table(a.op))
    except ValueError as e:
        print(e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
