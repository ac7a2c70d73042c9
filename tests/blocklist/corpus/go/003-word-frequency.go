package main

import (
	"bufio"
	"fmt"
	"sort"
	"strings"
	"unicode"
)

const text = `It was the best of times, it was the worst of times, it was the age of
wisdom, it was the age of foolishness, it was the epoch of belief, it was the
epoch of incredulity, it was the season of Light, it was the season of Darkness,
it was the spring of hope, it was the winter of despair, we had everything
before us, we had nothing before us, we were all going direct to Heaven, we were
all going direct the other way.`

var stopWords = map[string]bool{
	"the": true, "of": true, "it": true, "was": true, "we": true, "to": true,
	"us": true, "all": true, "had": true, "were": true,
}

type wordCount struct {
	word  string
	count int
}

func main() {
	counts := map[string]int{}
	totalWords := 0
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Split(bufio.ScanWords)
	for sc.Scan() {
		w := strings.ToLower(strings.TrimFunc(sc.Text(), func(r rune) bool {
			return !unicode.IsLetter(r)
		}))
		if w == "" {
			continue
		}
		totalWords++
		if stopWords[w] {
			continue
		}
		counts[w]++
	}

	list := make([]wordCount, 0, len(counts))
	for w, c := range counts {
		list = append(list, wordCount{w, c})
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].count != list[j].count {
			return list[i].count > list[j].count
		}
		return list[i].word < list[j].word
	})

	fmt.Printf("total words: %d, distinct (non-stop): %d\n\n", totalWords, len(list))
	maxCount := list[0].count
	for _, wc := range list[:10] {
		bar := strings.Repeat("#", wc.count*30/maxCount)
		fmt.Printf("%-12s %2d %s\n", wc.word, wc.count, bar)
	}

	// Letter histogram
	letters := map[rune]int{}
	for _, r := range strings.ToLower(text) {
		if r >= 'a' && r <= 'z' {
			letters[r]++
		}
	}
	fmt.Println("\nmost common letters:")
	keys := make([]rune, 0, len(letters))
	for r := range letters {
		keys = append(keys, r)
	}
	sort.Slice(keys, func(i, j int) bool { return letters[keys[i]] > letters[keys[j]] })
	for _, r := range keys[:5] {
		fmt.Printf("  %c: %d\n", r, letters[r])
	}
}
