class TrieNode:
    __slots__ = ("children", "count", "terminal")

    def __init__(self):
        self.children = {}
        self.count = 0
        self.terminal = False


class Trie:
    def __init__(self, words=()):
        self.root = TrieNode()
        for w in words:
            self.insert(w)

    def insert(self, word, weight=1):
        node = self.root
        for ch in word:
            node = node.children.setdefault(ch, TrieNode())
        node.terminal = True
        node.count += weight

    def _find(self, prefix):
        node = self.root
        for ch in prefix:
            node = node.children.get(ch)
            if node is None:
                return None
        return node

    def __contains__(self, word):
        node = self._find(word)
        return bool(node and node.terminal)

    def complete(self, prefix, limit=5):
        start = self._find(prefix)
        if start is None:
            return []
        found = []
        stack = [(start, prefix)]
        while stack:
            node, text = stack.pop()
            if node.terminal:
                found.append((node.count, text))
            for ch, child in node.children.items():
                stack.append((child, text + ch))
        found.sort(key=lambda t: (-t[0], t[1]))
        return [w for _, w in found[:limit]]


HISTORY = """
git status
git commit -m "fix"
git checkout main
git status
ls -la
ls -la
ls -la
grep -rn TODO src
python manage.py migrate
python manage.py runserver
python -m pytest -q
git commit --amend
"""


def main():
    trie = Trie()
    for line in HISTORY.strip().splitlines():
        trie.insert(line)

    for prefix in ["git", "git c", "py", "ls", "docker", ""]:
        print(f"{prefix!r:10} -> {trie.complete(prefix, limit=3)}")

    assert "ls -la" in trie
    assert "ls" not in trie
    assert trie.complete("ls")[0] == "ls -la"
    assert trie.complete("docker") == []
    print("trie checks ok")


if __name__ == "__main__":
    main()
