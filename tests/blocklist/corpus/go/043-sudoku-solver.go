package main

import (
	"fmt"
	"strings"
)

type Board [9][9]int

func Parse(s string) (Board, error) {
	var b Board
	s = strings.Join(strings.Fields(s), "")
	if len(s) != 81 {
		return b, fmt.Errorf("expected 81 cells, got %d", len(s))
	}
	for i, c := range s {
		switch {
		case c == '.' || c == '0':
		case c >= '1' && c <= '9':
			b[i/9][i%9] = int(c - '0')
		default:
			return b, fmt.Errorf("bad character %q at %d", c, i)
		}
	}
	return b, nil
}

func (b *Board) valid(r, c, v int) bool {
	for i := 0; i < 9; i++ {
		if b[r][i] == v || b[i][c] == v {
			return false
		}
	}
	br, bc := r/3*3, c/3*3
	for i := br; i < br+3; i++ {
		for j := bc; j < bc+3; j++ {
			if b[i][j] == v {
				return false
			}
		}
	}
	return true
}

// Solve fills the board by backtracking, always picking the empty cell
// with the fewest candidates first.
func (b *Board) Solve(steps *int) bool {
	bestR, bestC, bestN := -1, -1, 10
	for r := 0; r < 9; r++ {
		for c := 0; c < 9; c++ {
			if b[r][c] != 0 {
				continue
			}
			n := 0
			for v := 1; v <= 9; v++ {
				if b.valid(r, c, v) {
					n++
				}
			}
			if n < bestN {
				bestR, bestC, bestN = r, c, n
			}
		}
	}
	if bestR < 0 {
		return true
	}
	for v := 1; v <= 9; v++ {
		if b.valid(bestR, bestC, v) {
			b[bestR][bestC] = v
			*steps++
			if b.Solve(steps) {
				return true
			}
			b[bestR][bestC] = 0
		}
	}
	return false
}

func (b Board) String() string {
	var sb strings.Builder
	for r := 0; r < 9; r++ {
		if r%3 == 0 && r > 0 {
			sb.WriteString("------+-------+------\n")
		}
		for c := 0; c < 9; c++ {
			if c%3 == 0 && c > 0 {
				sb.WriteString("| ")
			}
			fmt.Fprintf(&sb, "%d ", b[r][c])
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

func main() {
	puzzle := `
		53..7.... 6..195... .98....6.
		8...6...3 4..8.3..1 7...2...6
		.6....28. ...419..5 ....8..79`
	b, err := Parse(puzzle)
	if err != nil {
		panic(err)
	}
	steps := 0
	if b.Solve(&steps) {
		fmt.Printf("solved in %d placements:\n%s", steps, b)
	} else {
		fmt.Println("no solution")
	}
	if _, err := Parse("12x"); err != nil {
		fmt.Println("expected error:", err)
	}
}
