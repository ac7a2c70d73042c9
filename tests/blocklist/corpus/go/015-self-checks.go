package main

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"unicode"
)

// Functions under test.

func Reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

func IsPalindrome(s string) bool {
	var clean []rune
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			clean = append(clean, r)
		}
	}
	return string(clean) == Reverse(string(clean))
}

func Chunk(xs []int, size int) [][]int {
	var out [][]int
	for size < len(xs) {
		xs, out = xs[size:], append(out, xs[:size:size])
	}
	return append(out, xs)
}

func CamelToSnake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// A minimal test harness in the spirit of `go test`.

type T struct {
	name   string
	failed bool
}

func (t *T) Errorf(format string, args ...interface{}) {
	t.failed = true
	fmt.Printf("    %s: "+format+"\n", append([]interface{}{t.name}, args...)...)
}

func run(name string, fn func(t *T)) bool {
	t := &T{name: name}
	fn(t)
	fmt.Printf("%s %s\n", map[bool]string{false: "ok  ", true: "FAIL"}[t.failed], name)
	return !t.failed
}

func main() {
	passed := 0
	tests := map[string]func(*T){}
	order := []string{"Reverse", "IsPalindrome", "Chunk", "CamelToSnake"}
	tests["Reverse"] = func(t *T) {
		cases := map[string]string{"": "", "abc": "cba", "héllo": "olléh", "日本語": "語本日"}
		for in, want := range cases {
			if got := Reverse(in); got != want {
				t.Errorf("Reverse(%q) = %q, want %q", in, got, want)
			}
		}
	}
	tests["IsPalindrome"] = func(t *T) {
		for _, s := range []string{"A man, a plan, a canal: Panama", "racecar", "No 'x' in Nixon"} {
			if !IsPalindrome(s) {
				t.Errorf("expected %q to be a palindrome", s)
			}
		}
		if IsPalindrome("golang") {
			t.Errorf("golang is not a palindrome")
		}
	}
	tests["Chunk"] = func(t *T) {
		got := Chunk([]int{1, 2, 3, 4, 5, 6, 7}, 3)
		want := [][]int{{1, 2, 3}, {4, 5, 6}, {7}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %v want %v", got, want)
		}
	}
	tests["CamelToSnake"] = func(t *T) {
		if got := CamelToSnake("parseHTTPRequest"); got != "parse_h_t_t_p_request" {
			t.Errorf("unexpected %q", got)
		}
		if got := CamelToSnake("UserID"); got != "user_i_d" {
			t.Errorf("unexpected %q", got)
		}
	}
	for _, name := range order {
		if run(name, tests[name]) {
			passed++
		}
	}
	fmt.Printf("%d/%d passed\n", passed, len(order))
	if passed != len(order) {
		os.Exit(1)
	}
}
