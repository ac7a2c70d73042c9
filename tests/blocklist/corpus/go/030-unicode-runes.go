package main

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

func main() {
	samples := []string{
		"hello",
		"naïve café",
		"日本語のテキスト",
		"Ελληνικά",
		"emoji: 👍🏽 and 🇳🇱",
		"tab\there, quote\", backslash\\",
	}
	for _, s := range samples {
		fmt.Printf("%-32q bytes=%2d runes=%2d valid=%t\n", s, len(s), utf8.RuneCountInString(s), utf8.ValidString(s))
	}

	// Rune literals and escapes.
	runes := []rune{'a', 'é', '\n', '\t', '\'', '\\', '\x41', '\u00e9', '\U0001F600', 'ß'}
	for _, r := range runes {
		fmt.Printf("%q U+%04X len=%d letter=%t space=%t\n", r, r, utf8.RuneLen(r), unicode.IsLetter(r), unicode.IsSpace(r))
	}

	// Iterating by byte vs by rune.
	s := "añb"
	fmt.Print("bytes:")
	for i := 0; i < len(s); i++ {
		fmt.Printf(" %02x", s[i])
	}
	fmt.Print("\nrunes:")
	for i, r := range s {
		fmt.Printf(" %d:%c", i, r)
	}
	fmt.Println()

	// Case mapping and script classification.
	word := "Straße İstanbul ǅemal"
	fmt.Println(strings.ToUpper(word), "|", strings.ToLower(word), "|", strings.ToTitle(word))
	counts := map[string]int{}
	for _, r := range "Hello, Мир! こんにちは 123" {
		switch {
		case unicode.Is(unicode.Latin, r):
			counts["latin"]++
		case unicode.Is(unicode.Cyrillic, r):
			counts["cyrillic"]++
		case unicode.In(r, unicode.Hiragana, unicode.Katakana):
			counts["kana"]++
		case unicode.IsDigit(r):
			counts["digit"]++
		case unicode.IsPunct(r):
			counts["punct"]++
		}
	}
	fmt.Println(counts)

	// Safely truncate to n runes without splitting a character.
	trunc := func(s string, n int) string {
		if utf8.RuneCountInString(s) <= n {
			return s
		}
		return string([]rune(s)[:n]) + "…"
	}
	fmt.Println(trunc("日本語のテキスト", 3), trunc("short", 10))

	// Invalid UTF-8 is replaced with U+FFFD when ranging.
	bad := "ok\xffok"
	for _, r := range bad {
		if r == utf8.RuneError {
			fmt.Println("found invalid byte sequence")
		}
	}
	fmt.Println(strings.ToValidUTF8(bad, "?"))
	fmt.Println(strings.Map(func(r rune) rune {
		if unicode.IsUpper(r) {
			return unicode.ToLower(r)
		}
		return unicode.ToUpper(r)
	}, "Swap Case ÄÖÜ"))
}
