import argparse
import sys

HELP_EPILOG = """examples:
  %(prog)s count --words notes.txt
  %(prog)s grep -i "error" --context 1 app.log
  %(prog)s head -n 3 data.csv
"""

FILES = {
    "notes.txt": "buy milk\ncall Alice about the deploy\nremember: never run sudo rm -rf / on prod\n",
    "app.log": "INFO boot\nWARN slow disk\nERROR cannot open /var/lib/app/db\nINFO retry\nerror again\nINFO ok\n",
    "data.csv": "id,name\n1,ann\n2,bob\n3,cy\n4,dee\n",
}


def build_parser():
    p = argparse.ArgumentParser(prog="txt", description="Tiny text toolbox.",
                                epilog=HELP_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-v", "--verbose", action="count", default=0)
    sub = p.add_subparsers(dest="command", required=True)

    c = sub.add_parser("count", help="count lines/words/chars")
    c.add_argument("--words", action="store_true")
    c.add_argument("files", nargs="+")

    g = sub.add_parser("grep", help="search for a pattern")
    g.add_argument("pattern")
    g.add_argument("-i", "--ignore-case", action="store_true")
    g.add_argument("--context", type=int, default=0)
    g.add_argument("file")

    h = sub.add_parser("head", help="first lines")
    h.add_argument("-n", type=int, default=10)
    h.add_argument("file")
    return p


def run(argv):
    args = build_parser().parse_args(argv)
    if args.verbose:
        print(f"[debug] {vars(args)}", file=sys.stderr)
    if args.command == "count":
        for name in args.files:
            text = FILES[name]
            n = len(text.split()) if args.words else len(text.splitlines())
            print(f"{n:>5} {name}")
    elif args.command == "grep":
        lines = FILES[args.file].splitlines()
        needle = args.pattern.lower() if args.ignore_case else args.pattern
        for i, line in enumerate(lines):
            hay = line.lower() if args.ignore_case else line
            if needle in hay:
                lo, hi = max(0, i - args.context), min(len(lines), i + args.context + 1)
                for j in range(lo, hi):
                    print(f"{args.file}:{j + 1}{':' if j == i else '-'}{lines[j]}")
    elif args.command == "head":
        print("\n".join(FILES[args.file].splitlines()[: args.n]))
    return 0


if __name__ == "__main__":
    for argv in (["count", "--words", "notes.txt", "app.log"],
                 ["-v", "grep", "-i", "error", "--context", "1", "app.log"],
                 ["head", "-n", "3", "data.csv"]):
        print(f"$ txt {' '.join(argv)}")
        run(argv)
        print()
    build_parser().print_help()
