package main

import (
	"fmt"
	"strings"
)

// lcsTable builds the classic longest-common-subsequence DP table.
func lcsTable(a, b []string) [][]int {
	t := make([][]int, len(a)+1)
	for i := range t {
		t[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else if t[i+1][j] >= t[i][j+1] {
				t[i][j] = t[i+1][j]
			} else {
				t[i][j] = t[i][j+1]
			}
		}
	}
	return t
}

// diff prints a unified-ish line diff.
func diff(a, b []string) (out []string) {
	t := lcsTable(a, b)
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			out = append(out, "  "+a[i])
			i++
			j++
		case t[i+1][j] >= t[i][j+1]:
			out = append(out, "- "+a[i])
			i++
		default:
			out = append(out, "+ "+b[j])
			j++
		}
	}
	for ; i < len(a); i++ {
		out = append(out, "- "+a[i])
	}
	for ; j < len(b); j++ {
		out = append(out, "+ "+b[j])
	}
	return out
}

func editDistance(s, t string) int {
	a, b := []rune(s), []rune(t)
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func min(xs ...int) int {
	m := xs[0]
	for _, x := range xs[1:] {
		if x < m {
			m = x
		}
	}
	return m
}

func main() {
	before := strings.Split(`#!/bin/sh
set -e
cd /srv/app
git pull
make build
sudo systemctl restart app`, "\n")
	after := strings.Split(`#!/bin/sh
set -eu
cd /srv/app
git pull --ff-only
make build
make test
systemctl --user restart app`, "\n")
	for _, l := range diff(before, after) {
		fmt.Println(l)
	}
	fmt.Println()
	pairs := [][2]string{{"kitten", "sitting"}, {"flaw", "lawn"}, {"straße", "strasse"}, {"", "abc"}}
	for _, p := range pairs {
		fmt.Printf("edit(%q, %q) = %d\n", p[0], p[1], editDistance(p[0], p[1]))
	}
}
