package main

import (
	"fmt"
	"regexp"
	"strings"
)

const doc = "# Project Setup\n\n" +
	"Install the tools first.\n\n" +
	"## Requirements\n\n" +
	"- Go 1.19+\n- `make`\n\n" +
	"## Installation\n\n" +
	"Don't pipe scripts straight into a shell:\n\n" +
	"```sh\n# Avoid this:\ncurl -fsSL https://example.com/install.sh | sh\n# Prefer downloading and reading it first.\n```\n\n" +
	"### From source\n\nRun `go build ./...`.\n\n" +
	"### Using Docker\n\nMount the socket only if you trust the image: `-v /var/run/docker.sock:/var/run/docker.sock`.\n\n" +
	"## FAQ & Troubleshooting\n\nSee *below*.\n\n" +
	"## Ünïcödé Headings Work Too\n"

var headingRE = regexp.MustCompile(`(?m)^(#{1,6})\s+(.+?)\s*#*$`)
var nonSlug = regexp.MustCompile(`[^\p{L}\p{N}\- ]+`)

func slugify(s string) string {
	s = strings.ToLower(s)
	s = nonSlug.ReplaceAllString(s, "")
	return strings.ReplaceAll(strings.TrimSpace(s), " ", "-")
}

// stripFences removes fenced code blocks so "# comments" inside them
// are not mistaken for headings.
func stripFences(md string) string {
	var b strings.Builder
	inFence := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if !inFence {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func main() {
	clean := stripFences(doc)
	seen := map[string]int{}
	fmt.Println("Table of contents:")
	for _, m := range headingRE.FindAllStringSubmatch(clean, -1) {
		level := len(m[1])
		title := m[2]
		slug := slugify(title)
		if n := seen[slug]; n > 0 {
			slug = fmt.Sprintf("%s-%d", slug, n)
		}
		seen[slug]++
		fmt.Printf("%s- [%s](#%s)\n", strings.Repeat("  ", level-1), title, slug)
	}

	codeRE := regexp.MustCompile("`([^`]+)`")
	fmt.Println("\nInline code spans:")
	for _, m := range codeRE.FindAllStringSubmatch(clean, -1) {
		fmt.Println("  ", m[1])
	}

	fences := strings.Count(doc, "```") / 2
	fmt.Printf("\nfenced blocks: %d, lines: %d\n", fences, strings.Count(doc, "\n"))
}
