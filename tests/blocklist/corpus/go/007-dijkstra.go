package main

import (
	"container/heap"
	"fmt"
	"math"
	"strings"
)

type edge struct {
	to     string
	weight int
}

type item struct {
	node string
	dist int
}

type pq []item

func (p pq) Len() int            { return len(p) }
func (p pq) Less(i, j int) bool  { return p[i].dist < p[j].dist }
func (p pq) Swap(i, j int)       { p[i], p[j] = p[j], p[i] }
func (p *pq) Push(x interface{}) { *p = append(*p, x.(item)) }
func (p *pq) Pop() interface{} {
	old := *p
	it := old[len(old)-1]
	*p = old[:len(old)-1]
	return it
}

func dijkstra(g map[string][]edge, src string) (map[string]int, map[string]string) {
	dist := map[string]int{}
	prev := map[string]string{}
	for n := range g {
		dist[n] = math.MaxInt
	}
	dist[src] = 0
	h := &pq{{src, 0}}
	for h.Len() > 0 {
		cur := heap.Pop(h).(item)
		if cur.dist > dist[cur.node] {
			continue
		}
		for _, e := range g[cur.node] {
			nd := cur.dist + e.weight
			if nd < dist[e.to] {
				dist[e.to] = nd
				prev[e.to] = cur.node
				heap.Push(h, item{e.to, nd})
			}
		}
	}
	return dist, prev
}

func path(prev map[string]string, dst string) []string {
	var p []string
	for n := dst; n != ""; n = prev[n] {
		p = append([]string{n}, p...)
	}
	return p
}

func main() {
	roads := `Amsterdam Utrecht 45
Amsterdam Haarlem 20
Haarlem Leiden 30
Leiden DenHaag 20
Utrecht Rotterdam 60
DenHaag Rotterdam 25
Utrecht Arnhem 65
Rotterdam Breda 50
Arnhem Nijmegen 20
Breda Eindhoven 60
Nijmegen Eindhoven 70`
	g := map[string][]edge{}
	for _, line := range strings.Split(roads, "\n") {
		var a, b string
		var w int
		if _, err := fmt.Sscanf(line, "%s %s %d", &a, &b, &w); err != nil {
			panic(err)
		}
		g[a] = append(g[a], edge{b, w})
		g[b] = append(g[b], edge{a, w})
	}
	dist, prev := dijkstra(g, "Amsterdam")
	for _, city := range []string{"Rotterdam", "Eindhoven", "Nijmegen", "Breda"} {
		fmt.Printf("%-10s %3d km via %s\n", city, dist[city], strings.Join(path(prev, city), " -> "))
	}
}
