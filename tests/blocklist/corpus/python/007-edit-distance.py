from functools import lru_cache


def levenshtein(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def lcs(a: str, b: str) -> str:
    @lru_cache(maxsize=None)
    def go(i, j):
        if i == len(a) or j == len(b):
            return ""
        if a[i] == b[j]:
            return a[i] + go(i + 1, j + 1)
        left, right = go(i + 1, j), go(i, j + 1)
        return left if len(left) >= len(right) else right

    return go(0, 0)


def suggest(word, vocabulary, limit=3):
    scored = sorted(vocabulary, key=lambda w: (levenshtein(word, w), w))
    return [w for w in scored[:limit] if levenshtein(word, w) <= 2]


COMMANDS = ["status", "commit", "checkout", "branch", "merge", "rebase", "stash", "clone", "remote"]


def main():
    pairs = [("kitten", "sitting"), ("flaw", "lawn"), ("intention", "execution"), ("", "abc"), ("naïve", "naive")]
    for a, b in pairs:
        print(f"levenshtein({a!r}, {b!r}) = {levenshtein(a, b)}")

    print()
    for a, b in [("AGGTAB", "GXTXAYB"), ("ABCBDAB", "BDCABA")]:
        print(f"lcs({a}, {b}) = {lcs(a, b)!r}")

    print()
    for typo in ["comit", "stats", "rebsae", "chekout", "xyzzy"]:
        hints = suggest(typo, COMMANDS)
        msg = f"did you mean {' or '.join(hints)}?" if hints else "no suggestion"
        print(f"git: '{typo}' is not a command; {msg}")

    assert levenshtein("kitten", "sitting") == 3
    assert len(lcs("AGGTAB", "GXTXAYB")) == 4


if __name__ == "__main__":
    main()
