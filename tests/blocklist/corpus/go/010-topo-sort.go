package main

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

var ErrCycle = errors.New("dependency cycle")

// topoSort uses Kahn's algorithm; ties are broken alphabetically so the
// output is stable.
func topoSort(deps map[string][]string) ([]string, error) {
	indeg := map[string]int{}
	users := map[string][]string{}
	for pkg, ds := range deps {
		if _, ok := indeg[pkg]; !ok {
			indeg[pkg] = 0
		}
		for _, d := range ds {
			if _, ok := indeg[d]; !ok {
				indeg[d] = 0
			}
			indeg[pkg]++
			users[d] = append(users[d], pkg)
		}
	}
	var ready []string
	for n, d := range indeg {
		if d == 0 {
			ready = append(ready, n)
		}
	}
	var order []string
	for len(ready) > 0 {
		sort.Strings(ready)
		n := ready[0]
		ready = ready[1:]
		order = append(order, n)
		for _, u := range users[n] {
			indeg[u]--
			if indeg[u] == 0 {
				ready = append(ready, u)
			}
		}
	}
	if len(order) != len(indeg) {
		var stuck []string
		for n, d := range indeg {
			if d > 0 {
				stuck = append(stuck, n)
			}
		}
		sort.Strings(stuck)
		return order, fmt.Errorf("%w among: %s", ErrCycle, strings.Join(stuck, ", "))
	}
	return order, nil
}

func main() {
	build := map[string][]string{
		"app":     {"http", "db", "config"},
		"http":    {"log", "config"},
		"db":      {"log", "config", "driver"},
		"driver":  {"log"},
		"config":  {"log"},
		"log":     nil,
		"cli":     {"app", "config"},
		"metrics": {"http"},
	}
	order, err := topoSort(build)
	if err != nil {
		fmt.Println("unexpected:", err)
		return
	}
	for i, p := range order {
		fmt.Printf("%d. %s\n", i+1, p)
	}

	build["log"] = []string{"metrics"}
	_, err = topoSort(build)
	if errors.Is(err, ErrCycle) {
		fmt.Println("detected:", err)
	}
}
