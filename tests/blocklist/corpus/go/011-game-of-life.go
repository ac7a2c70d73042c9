package main

import (
	"fmt"
	"strings"
)

type Grid struct {
	w, h  int
	cells [][]bool
}

func Parse(pattern string) *Grid {
	lines := strings.Split(strings.Trim(pattern, "\n"), "\n")
	g := &Grid{w: len(lines[0]), h: len(lines)}
	g.cells = make([][]bool, g.h)
	for y, line := range lines {
		g.cells[y] = make([]bool, g.w)
		for x, ch := range line {
			g.cells[y][x] = ch == '#'
		}
	}
	return g
}

func (g *Grid) alive(x, y int) bool {
	// wrap around the edges (toroidal board)
	x = (x + g.w) % g.w
	y = (y + g.h) % g.h
	return g.cells[y][x]
}

func (g *Grid) Step() *Grid {
	next := &Grid{w: g.w, h: g.h, cells: make([][]bool, g.h)}
	for y := 0; y < g.h; y++ {
		next.cells[y] = make([]bool, g.w)
		for x := 0; x < g.w; x++ {
			n := 0
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if (dx != 0 || dy != 0) && g.alive(x+dx, y+dy) {
						n++
					}
				}
			}
			next.cells[y][x] = n == 3 || (n == 2 && g.cells[y][x])
		}
	}
	return next
}

func (g *Grid) Population() int {
	c := 0
	for _, row := range g.cells {
		for _, v := range row {
			if v {
				c++
			}
		}
	}
	return c
}

func (g *Grid) String() string {
	var b strings.Builder
	for _, row := range g.cells {
		for _, v := range row {
			if v {
				b.WriteRune('█')
			} else {
				b.WriteRune('·')
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

const glider = `
.#........
..#.......
###.......
..........
..........
..........
......##..
......##..
`

func main() {
	g := Parse(glider)
	for gen := 0; gen <= 8; gen++ {
		if gen%4 == 0 {
			fmt.Printf("generation %d, population %d\n%s\n", gen, g.Population(), g)
		}
		g = g.Step()
	}
}
