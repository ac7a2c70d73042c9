import re
import sys
import unittest


def slugify(title: str) -> str:
    slug = re.sub(r"[^\w\s-]", "", title.lower(), flags=re.ASCII)
    return re.sub(r"[\s_-]+", "-", slug).strip("-")


def parse_duration(text: str) -> int:
    """Parse '1h30m', '45s', '2h' into seconds."""
    units = {"h": 3600, "m": 60, "s": 1}
    parts = re.findall(r"(\d+)([hms])", text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise ValueError(f"bad duration: {text!r}")
    return sum(int(n) * units[u] for n, u in parts)


def chunk(items, size):
    if size < 1:
        raise ValueError("size must be >= 1")
    return [items[i:i + size] for i in range(0, len(items), size)]


class SlugifyTests(unittest.TestCase):
    def test_basic(self):
        self.assertEqual(slugify("Hello, World!"), "hello-world")

    def test_collapses_separators(self):
        self.assertEqual(slugify("  many   spaces -- and_underscores "), "many-spaces-and-underscores")

    def test_quotes_and_symbols(self):
        self.assertEqual(slugify('He said "rm -rf /" & left'), "he-said-rm-rf-left")


class DurationTests(unittest.TestCase):
    def test_values(self):
        cases = {"45s": 45, "2h": 7200, "1h30m": 5400, "1m1s": 61}
        for text, expected in cases.items():
            with self.subTest(text=text):
                self.assertEqual(parse_duration(text), expected)

    def test_rejects_garbage(self):
        for text in ["", "10", "1x", "1h 30m"]:
            with self.subTest(text=text):
                with self.assertRaises(ValueError):
                    parse_duration(text)


class ChunkTests(unittest.TestCase):
    def test_even_and_uneven(self):
        self.assertEqual(chunk([1, 2, 3, 4], 2), [[1, 2], [3, 4]])
        self.assertEqual(chunk([1, 2, 3], 2), [[1, 2], [3]])

    def test_empty(self):
        self.assertEqual(chunk([], 3), [])

    @unittest.skipIf(sys.platform == "win32", "posix only")
    def test_bad_size(self):
        self.assertRaises(ValueError, chunk, [1], 0)


if __name__ == "__main__":
    result = unittest.main(argv=["selfcheck", "-v"], exit=False).result
    print(f"ran={result.testsRun} failures={len(result.failures)} errors={len(result.errors)}")
    sys.exit(0 if result.wasSuccessful() else 1)
