"""Small string helpers whose documentation doubles as their tests.

>>> human_size(1536)
'1.5 KiB'
"""
import doctest


def human_size(n: int) -> str:
    """Format a byte count.

    >>> human_size(0)
    '0 B'
    >>> human_size(1023)
    '1023 B'
    >>> human_size(10 * 1024 ** 3)
    '10.0 GiB'
    """
    units = ["B", "KiB", "MiB", "GiB", "TiB"]
    size = float(n)
    for unit in units:
        if size < 1024 or unit == units[-1]:
            return f"{int(size)} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024


def redact(command: str) -> str:
    """Hide secrets in a logged command line.

    >>> redact("mysql -u root --password=hunter2 app")
    'mysql -u root --password=*** app'
    >>> redact('curl -H "Authorization: Bearer abc.def" https://example.com')
    'curl -H "Authorization: Bearer ***" https://example.com'
    >>> redact("sudo -S true")
    'sudo -S true'
    """
    import re
    command = re.sub(r"(--password=)\S+", r"\1***", command)
    return re.sub(r"(Bearer )[^\s\"']+", r"\1***", command)


def parse_bool(value):
    """Interpret common truthy/falsy strings.

    >>> [parse_bool(v) for v in ("yes", "No", "1", "off")]
    [True, False, True, False]
    >>> parse_bool("perhaps")
    Traceback (most recent call last):
        ...
    ValueError: not a boolean: 'perhaps'
    """
    v = value.strip().lower()
    if v in {"1", "yes", "true", "on"}:
        return True
    if v in {"0", "no", "false", "off"}:
        return False
    raise ValueError(f"not a boolean: {value!r}")


def columns(rows):
    r"""Align rows of strings into columns.

    >>> print(columns([["name", "size"], ["a.txt", "12"], ["longer.bin", "3"]]))
    name       size
    a.txt      12
    longer.bin 3
    >>> columns([]) == ""
    True
    """
    if not rows:
        return ""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join(" ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)


if __name__ == "__main__":
    results = doctest.testmod(verbose=False)
    print(f"doctest: {results.attempted} examples, {results.failed} failures")
    raise SystemExit(1 if results.failed else 0)
