package main

import (
	"fmt"
	"sort"
	"strings"
)

type node struct {
	children map[rune]*node
	terminal bool
	weight   int
}

type Trie struct{ root *node }

func NewTrie() *Trie { return &Trie{root: &node{children: map[rune]*node{}}} }

func (t *Trie) Insert(word string, weight int) {
	n := t.root
	for _, r := range word {
		child, ok := n.children[r]
		if !ok {
			child = &node{children: map[rune]*node{}}
			n.children[r] = child
		}
		n = child
	}
	n.terminal = true
	n.weight += weight
}

type suggestion struct {
	word   string
	weight int
}

func (t *Trie) Complete(prefix string, limit int) []suggestion {
	n := t.root
	for _, r := range prefix {
		var ok bool
		if n, ok = n.children[r]; !ok {
			return nil
		}
	}
	var out []suggestion
	var walk func(*node, []rune)
	walk = func(n *node, acc []rune) {
		if n.terminal {
			out = append(out, suggestion{string(acc), n.weight})
		}
		for r, c := range n.children {
			walk(c, append(acc, r))
		}
	}
	walk(n, []rune(prefix))
	sort.Slice(out, func(i, j int) bool {
		if out[i].weight != out[j].weight {
			return out[i].weight > out[j].weight
		}
		return out[i].word < out[j].word
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

func main() {
	// Shell history used to rank completions.
	history := `git status
git commit -m "wip"
git checkout main
git status
go test ./...
go build
go test ./...
grep -rn TODO .
git status
make clean
make
go vet ./...
gofmt -w .`
	t := NewTrie()
	for _, line := range strings.Split(history, "\n") {
		t.Insert(line, 1)
	}
	for _, p := range []string{"git", "go ", "ma", "gre", "docker"} {
		res := t.Complete(p, 3)
		fmt.Printf("%-7q ->", p)
		if len(res) == 0 {
			fmt.Print(" (no suggestions)")
		}
		for _, s := range res {
			fmt.Printf(" [%s x%d]", s.word, s.weight)
		}
		fmt.Println()
	}
}
