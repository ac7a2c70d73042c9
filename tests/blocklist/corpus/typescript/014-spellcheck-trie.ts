// Spell checker: a trie for dictionary lookups plus bounded Levenshtein search for suggestions.
class TrieNode {
  readonly children = new Map<string, TrieNode>();
  word: string | null = null;
}

class Dictionary {
  private readonly root = new TrieNode();
  private count = 0;

  constructor(words: Iterable<string>) {
    for (const w of words) this.add(w);
  }

  add(word: string): void {
    let node = this.root;
    for (const ch of word.toLowerCase()) {
      let next = node.children.get(ch);
      if (!next) node.children.set(ch, (next = new TrieNode()));
      node = next;
    }
    if (node.word === null) this.count++;
    node.word = word.toLowerCase();
  }

  has(word: string): boolean {
    let node: TrieNode | undefined = this.root;
    for (const ch of word.toLowerCase()) if (!(node = node.children.get(ch))) return false;
    return node.word !== null;
  }

  get size(): number { return this.count; }

  /** Words within `maxDist` edits, found by walking the trie with one DP row per node. */
  suggest(word: string, maxDist = 2): Array<{ word: string; dist: number }> {
    const target = word.toLowerCase();
    const results: Array<{ word: string; dist: number }> = [];
    const firstRow = Array.from({ length: target.length + 1 }, (_, i) => i);
    const walk = (node: TrieNode, ch: string, prev: number[]): void => {
      const row = [prev[0] + 1];
      for (let i = 1; i <= target.length; i++) {
        const cost = target[i - 1] === ch ? 0 : 1;
        row.push(Math.min(row[i - 1] + 1, prev[i] + 1, prev[i - 1] + cost));
      }
      if (node.word !== null && row[target.length] <= maxDist) results.push({ word: node.word, dist: row[target.length] });
      if (Math.min(...row) <= maxDist) for (const [c, child] of node.children) walk(child, c, row);
    };
    for (const [c, child] of this.root.children) walk(child, c, firstRow);
    return results.sort((a, b) => a.dist - b.dist || a.word.localeCompare(b.word));
  }
}

const words = `the quick brown fox jumps over lazy dog receive received from believe separate definitely
necessary accommodate occurrence government environment restaurant weird their there
they're calendar library february tomorrow until beginning argument`.split(/\s+/);
const dict = new Dictionary(words);
console.log(`dictionary has ${dict.size} words`);

const text = "Teh quik brown fox definately recieved an arguement from thier goverment tomorow, weird!";
const tokens = text.match(/[A-Za-z']+/g) ?? [];
let misspelled = 0;
for (const t of tokens) {
  if (dict.has(t) || t.length <= 2) continue;
  misspelled++;
  const s = dict.suggest(t).slice(0, 3);
  console.log(`${t.padEnd(12)} -> ${s.length ? s.map((x) => `${x.word}(${x.dist})`).join(', ') : 'no suggestions'}`);
}
console.log(`${misspelled} of ${tokens.length} words flagged`);
