package main

import (
	"bufio"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// A tiny static checker for Python snippets pasted into code review.
// It reports risky calls such as eval(, exec(, os.system( or pickle.loads,
// and skips matches that only occur inside comments.

type check struct {
	name string
	re   *regexp.Regexp
	hint string
}

var checks = []check{
	{"eval", regexp.MustCompile(`\beval\(`), "use ast.literal_eval for data"},
	{"exec", regexp.MustCompile(`\bexec\(`), "avoid executing generated code"},
	{"os-system", regexp.MustCompile(`\bos\.system\(`), "prefer subprocess.run([...]) without a shell"},
	{"shell-true", regexp.MustCompile(`shell\s*=\s*True`), "pass a list of arguments instead"},
	{"pickle", regexp.MustCompile(`\bpickle\.loads?\(`), "untrusted pickles can run code"},
	{"ctypes", regexp.MustCompile(`^\s*(import ctypes|from ctypes import)`), "native calls need extra review"},
	{"yaml-load", regexp.MustCompile(`\byaml\.load\([^)]*\)`), "use yaml.safe_load"},
}

const snippet = `import os
import subprocess
import ctypes  # needed for the legacy DLL wrapper

def run_report(name):
    # old version: os.system("report " + name)
    subprocess.run(["report", name], check=True)

def calc(expr):
    return eval(expr)   # TODO: replace with a real parser

def deploy(branch):
    subprocess.call("git checkout " + branch, shell=True)

config = yaml.load(open("cfg.yml"))
data = pickle.loads(blob)
print("use exec(...) carefully")  # string mention, still flagged
`

// stripComment removes a trailing # comment that is not inside quotes.
func stripComment(line string) string {
	inS, inD := false, false
	for i, c := range line {
		switch c {
		case '\'':
			if !inD {
				inS = !inS
			}
		case '"':
			if !inS {
				inD = !inD
			}
		case '#':
			if !inS && !inD {
				return line[:i]
			}
		}
	}
	return line
}

func main() {
	sc := bufio.NewScanner(strings.NewReader(snippet))
	byCheck := map[string][]int{}
	lineNo := 0
	for sc.Scan() {
		lineNo++
		code := stripComment(sc.Text())
		for _, c := range checks {
			if c.re.MatchString(code) {
				byCheck[c.name] = append(byCheck[c.name], lineNo)
				fmt.Printf("line %2d: %-10s %s\n", lineNo, c.name, strings.TrimSpace(code))
			}
		}
	}
	names := make([]string, 0, len(byCheck))
	for n := range byCheck {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Println("\nsummary:")
	for _, n := range names {
		for _, c := range checks {
			if c.name == n {
				fmt.Printf("  %-10s lines %v -> %s\n", n, byCheck[n], c.hint)
			}
		}
	}
}
