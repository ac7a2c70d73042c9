package main

import (
	"fmt"
	"sort"
)

// UnionFind with path compression and union by rank.
type UnionFind struct {
	parent, rank []int
	sets         int
}

func NewUnionFind(n int) *UnionFind {
	uf := &UnionFind{parent: make([]int, n), rank: make([]int, n), sets: n}
	for i := range uf.parent {
		uf.parent[i] = i
	}
	return uf
}

func (u *UnionFind) Find(x int) int {
	for u.parent[x] != x {
		u.parent[x] = u.parent[u.parent[x]]
		x = u.parent[x]
	}
	return x
}

func (u *UnionFind) Union(a, b int) bool {
	ra, rb := u.Find(a), u.Find(b)
	if ra == rb {
		return false
	}
	switch {
	case u.rank[ra] < u.rank[rb]:
		u.parent[ra] = rb
	case u.rank[ra] > u.rank[rb]:
		u.parent[rb] = ra
	default:
		u.parent[rb] = ra
		u.rank[ra]++
	}
	u.sets--
	return true
}

type Edge struct {
	A, B   int
	Weight float64
}

func main() {
	sites := []string{"HQ", "Depot", "Mill", "Farm", "Port", "Mine", "Lab"}
	cables := []Edge{
		{0, 1, 4.2}, {0, 2, 7.5}, {1, 2, 2.9}, {1, 3, 6.1}, {2, 3, 3.3},
		{2, 4, 8.8}, {3, 4, 5.0}, {3, 5, 9.7}, {4, 5, 2.2}, {0, 6, 11.0}, {5, 6, 3.9},
	}
	sort.Slice(cables, func(i, j int) bool { return cables[i].Weight < cables[j].Weight })

	uf := NewUnionFind(len(sites))
	var tree []Edge
	total := 0.0
	for _, e := range cables {
		if uf.Union(e.A, e.B) {
			tree = append(tree, e)
			total += e.Weight
		} else {
			fmt.Printf("skip %-5s - %-5s %4.1f km (would form a cycle)\n", sites[e.A], sites[e.B], e.Weight)
		}
	}
	fmt.Println("\nminimum cable plan:")
	for _, e := range tree {
		fmt.Printf("  %-5s - %-5s %4.1f km\n", sites[e.A], sites[e.B], e.Weight)
	}
	fmt.Printf("total %.1f km, %d cables, connected: %t\n", total, len(tree), uf.sets == 1)

	// Connected components of a sparse friendship graph.
	uf2 := NewUnionFind(8)
	for _, p := range [][2]int{{0, 1}, {1, 2}, {3, 4}, {5, 6}, {6, 7}, {7, 5}} {
		uf2.Union(p[0], p[1])
	}
	groups := map[int][]int{}
	for i := 0; i < 8; i++ {
		r := uf2.Find(i)
		groups[r] = append(groups[r], i)
	}
	fmt.Println("components:", uf2.sets)
	var roots []int
	for r := range groups {
		roots = append(roots, r)
	}
	sort.Ints(roots)
	for _, r := range roots {
		fmt.Println("  ", groups[r])
	}
}
