import re
import textwrap
import unicodedata
from collections import Counter

TEXT = """
Le café était plein. « Encore un crème ? » demanda la serveuse — mais Zoë préférait
le thé. Straße, naïve, façade, coöperate: the English loanwords kept their accents.
日本語のテキストも少し混ざっています。Ελληνικά: καλημέρα κόσμε! Привет, мир!
The café's façade was repainted; the café reopened. Café au lait, s'il vous plaît.
"""

STOPWORDS = {"le", "la", "the", "un", "mais", "was", "their", "de", "au", "s", "il", "vous"}


def strip_accents(s):
    decomposed = unicodedata.normalize("NFKD", s)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def words(text):
    return re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?", text.casefold())


def scripts(text):
    counts = Counter()
    for ch in text:
        if ch.isalpha():
            name = unicodedata.name(ch, "UNKNOWN")
            counts[name.split()[0]] += 1
    return counts


def main():
    tokens = words(TEXT)
    print(f"{len(tokens)} tokens, {len(set(tokens))} distinct")
    freq = Counter(strip_accents(t) for t in tokens if t not in STOPWORDS)
    print("top words (accents folded):")
    for word, n in freq.most_common(6):
        print(f"  {word:<10} {n}")

    print("\ncharacters by script:", dict(scripts(TEXT).most_common()))
    print("casefold vs lower:", "Straße".lower(), "|", "Straße".casefold())
    print("NFC == NFD?", unicodedata.normalize("NFC", "é") == unicodedata.normalize("NFD", "é"))
    print("len of 'Zoë' NFC/NFD:", len(unicodedata.normalize("NFC", "Zoë")), len(unicodedata.normalize("NFD", "Zoë")))

    para = " ".join(TEXT.split())
    print("\nwrapped to 50 columns:")
    print(textwrap.fill(para, width=50, initial_indent="> ", subsequent_indent="> "))
    print("\nshortened:", textwrap.shorten(para, width=60, placeholder=" […]"))
    print(textwrap.dedent("""
        indented block
          keeps relative
        indentation
    """).strip())


if __name__ == "__main__":
    main()
