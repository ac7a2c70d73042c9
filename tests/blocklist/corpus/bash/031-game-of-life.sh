#!/usr/bin/env bash
# Conway's Game of Life on a small toroidal grid, printed for a few generations.
set -uo pipefail   # no -e: (( )) evaluating to 0 is normal here

rows=10 cols=20 generations=4
declare -a grid=() next=()

# Seed: a glider and a blinker, drawn in a heredoc ('#' = alive).
r=0
while IFS= read -r line; do
    for (( c = 0; c < ${#line} && c < cols; c++ )); do
        [[ ${line:c:1} == '#' ]] && grid[r*cols+c]=1
    done
    (( ++r ))
done <<'EOF'
.#..................
..#.................
###.................
....................
....................
.............###....
....................
....................
....................
....................
EOF

show() {
    local r c line
    echo "generation $1 (alive: $(alive_count))"
    for (( r = 0; r < rows; r++ )); do
        line=""
        for (( c = 0; c < cols; c++ )); do
            (( ${grid[r*cols+c]:-0} )) && line+="#" || line+="."
        done
        echo "  $line"
    done
}

alive_count() { local n=0 v; for v in "${grid[@]}"; do (( n += v )); done; echo "$n"; }

step() {
    local r c dr dc n nr nc
    next=()
    for (( r = 0; r < rows; r++ )); do
        for (( c = 0; c < cols; c++ )); do
            n=0
            for dr in -1 0 1; do
                for dc in -1 0 1; do
                    (( dr == 0 && dc == 0 )) && continue
                    (( nr = (r + dr + rows) % rows, nc = (c + dc + cols) % cols ))
                    (( n += ${grid[nr*cols+nc]:-0} ))
                done
            done
            if (( n == 3 || (n == 2 && ${grid[r*cols+c]:-0}) )); then
                next[r*cols+c]=1
            fi
        done
    done
    grid=()
    for r in "${!next[@]}"; do grid[r]=1; done
}

for (( g = 0; g <= generations; g++ )); do
    show "$g"
    (( g < generations )) && step
done
echo "done after $generations generations"
