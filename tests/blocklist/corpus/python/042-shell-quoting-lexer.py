r"""Split command lines the way a POSIX shell would, and show how quoting changes things.

Raw strings are used for the regexes so that \s and \" reach the regex engine untouched.
"""
import re
import shlex

COMMAND_LINES = [
    r'grep -rn "TODO: fix" src/',
    r"echo 'single quotes keep $HOME and \n literal'",
    r'echo "double quotes expand $HOME but not \$HOME"',
    r'find . -name "*.py" -exec wc -l {} \;',
    r'printf "%s\n" "a \"quoted\" word" plain\ space',
    r"sh -c 'rm -rf /tmp/build && mkdir -p /tmp/build'",
]

TOKEN = re.compile(r"""
      '(?P<single>[^']*)'            # single-quoted: no escapes at all
    | "(?P<double>(?:\\.|[^"\\])*)"  # double-quoted: backslash escapes allowed
    | (?P<bare>(?:\\.|[^\s'"\\])+)   # unquoted run, backslash escapes one char
    | (?P<space>\s+)
""", re.VERBOSE)


def my_split(line):
    words, current, pos = [], None, 0
    while pos < len(line):
        m = TOKEN.match(line, pos)
        if not m:
            raise ValueError(f"unterminated quote at column {pos}: {line[pos:]!r}")
        pos = m.end()
        if m.group("space"):
            if current is not None:
                words.append(current)
                current = None
            continue
        if m.group("single") is not None:
            piece = m.group("single")
        elif m.group("double") is not None:
            # Like shlex, only \" and \\ are escapes inside double quotes (no $ expansion here).
            piece = re.sub(r'\\(["\\])', r"\1", m.group("double"))
        else:
            piece = re.sub(r"\\(.)", r"\1", m.group("bare"))
        current = (current or "") + piece
    if current is not None:
        words.append(current)
    return words


def main():
    for line in COMMAND_LINES:
        ours, stdlib = my_split(line), shlex.split(line)
        status = "same" if ours == stdlib else "DIFFERENT"
        print(f"$ {line}\n    -> {ours}  [{status}]")
        assert ours == stdlib

    args = ["touch", "my file.txt", "it's", "$(whoami)", "a;b"]
    quoted = shlex.join(args)
    print("\nshlex.join:", quoted)
    assert shlex.split(quoted) == args
    for bad in ['echo "open', "echo 'also open"]:
        try:
            my_split(bad)
        except ValueError as exc:
            print("error:", exc)


if __name__ == "__main__":
    main()
