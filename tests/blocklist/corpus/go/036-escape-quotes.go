package main

import (
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// shellQuote wraps s in single quotes for a POSIX shell, escaping any
// embedded single quotes as '\''.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`).MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\n") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

func main() {
	tricky := []string{
		`plain`,
		`it's`,
		`say "hi"`,
		"tab\tand\nnewline",
		`C:\Users\dev\file.txt`,
		`$(whoami) && echo pwned; rm -rf ~`,
		"<script>alert('x')</script>",
		"unicode ✓ and \u00e9",
		"",
	}
	fmt.Printf("%-40s | %-45s | %s\n", "Go %q", "shell", "csv")
	for _, s := range tricky {
		fmt.Printf("%-40s | %-45s | %s\n", strconv.Quote(s), shellQuote(s), csvField(s))
	}

	fmt.Println("\nHTML / URL / JSON escaping:")
	for _, s := range tricky[5:7] {
		j, _ := json.Marshal(s)
		fmt.Println(" html:", html.EscapeString(s))
		fmt.Println(" url: ", url.QueryEscape(s))
		fmt.Println(" json:", string(j))
	}

	// Round trips.
	for _, s := range tricky {
		q := strconv.Quote(s)
		back, err := strconv.Unquote(q)
		if err != nil || back != s {
			fmt.Println("round-trip failed for", q)
		}
	}
	fmt.Println("\nstrconv round-trips OK")

	raw := `a raw string keeps \n and \t and "quotes" literally`
	interp := "an interpreted one turns \\n into a newline:\n<-- here"
	fmt.Println(raw)
	fmt.Println(interp)
	fmt.Println(strconv.QuoteToASCII("naïve ☃"), strconv.QuoteRune('☃'), strconv.QuoteRuneToASCII('☃'))
	v, _ := strconv.Unquote(`'\u2603'`)
	fmt.Println("unquoted rune literal:", v)
	b := []byte(`{"msg":"line1\nline2 \"quoted\" \u00e9"}`)
	var m map[string]string
	json.Unmarshal(b, &m)
	fmt.Printf("decoded json: %q\n", m["msg"])
}
