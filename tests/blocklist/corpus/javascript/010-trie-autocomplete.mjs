// A trie that supports insert, prefix search with ranking by frequency, and deletion.
class TrieNode {
  constructor() {
    this.children = new Map();
    this.count = 0; // how many times the word ending here was inserted
  }
}

class Trie {
  root = new TrieNode();
  insert(word, times = 1) {
    let node = this.root;
    for (const ch of word) {
      if (!node.children.has(ch)) node.children.set(ch, new TrieNode());
      node = node.children.get(ch);
    }
    node.count += times;
  }
  #find(prefix) {
    let node = this.root;
    for (const ch of prefix) {
      node = node.children.get(ch);
      if (!node) return null;
    }
    return node;
  }
  *#walk(node, prefix) {
    if (node.count > 0) yield [prefix, node.count];
    for (const [ch, child] of [...node.children].sort()) yield* this.#walk(child, prefix + ch);
  }
  suggest(prefix, limit = 5) {
    const start = this.#find(prefix);
    if (!start) return [];
    return [...this.#walk(start, prefix)].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, limit);
  }
  delete(word) {
    const node = this.#find(word);
    if (!node || node.count === 0) return false;
    node.count = 0;
    return true;
  }
}

const history = `git status; git commit; git checkout main; git cherry-pick; git status;
grep -rn TODO; grep -i error; git status; git commit; gcc main.c; go build; go test;
go test; go vet; git checkout -b feature`;

const trie = new Trie();
for (const cmd of history.split(/;\s*/)) {
  const word = cmd.trim().split(/\s+/)[0] + (cmd.includes(' ') ? ' ' + cmd.trim().split(/\s+/)[1] : '');
  trie.insert(word);
}

for (const prefix of ['git ', 'go', 'gr', 'x']) {
  const hits = trie.suggest(prefix);
  const shown = hits.map(([w, n]) => `${w} (${n})`).join(', ') || '(none)';
  console.log(`${JSON.stringify(prefix).padEnd(7)} -> ${shown}`);
}
console.log('delete "go vet":', trie.delete('go vet'), '| again:', trie.delete('go vet'));
console.log('go ->', trie.suggest('go').map(([w]) => w).join(', '));
