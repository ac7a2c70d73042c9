package main

import (
	"errors"
	"fmt"
	"strings"
)

// Token kinds produced by a small POSIX-ish shell lexer. It is meant for
// displaying and auditing command lines, not for running them.
type Kind int

const (
	Word Kind = iota
	Pipe
	And
	Or
	Semi
	Background
	Redirect
)

var kindNames = [...]string{"WORD", "PIPE", "AND", "OR", "SEMI", "BG", "REDIR"}

func (k Kind) String() string { return kindNames[k] }

type Token struct {
	Kind Kind
	Text string
}

// operators are tried in order, so two-character forms come first.
var operators = []Token{
	{Or, "||"}, {And, "&&"}, {Redirect, ">>"},
	{Pipe, "|"}, {Background, "&"}, {Semi, ";"}, {Redirect, ">"}, {Redirect, "<"},
}

func Lex(src string) ([]Token, error) {
	var toks []Token
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			toks = append(toks, Token{Word, cur.String()})
			cur.Reset()
			inWord = false
		}
	}
	rs := []rune(src)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == ' ' || c == '\t':
			flush()
		case c == '\'':
			inWord = true
			for i++; i < len(rs) && rs[i] != '\''; i++ {
				cur.WriteRune(rs[i]) // no escapes inside single quotes
			}
			if i >= len(rs) {
				return nil, errors.New("unterminated single quote")
			}
		case c == '"':
			inWord = true
			for i++; i < len(rs) && rs[i] != '"'; i++ {
				if rs[i] == '\\' && i+1 < len(rs) && strings.ContainsRune(`"\$`+"`", rs[i+1]) {
					i++
				}
				cur.WriteRune(rs[i])
			}
			if i >= len(rs) {
				return nil, errors.New("unterminated double quote")
			}
		case c == '\\' && i+1 < len(rs):
			inWord = true
			i++
			cur.WriteRune(rs[i])
		case strings.ContainsRune("|&;<>", c):
			flush()
			rest := string(rs[i:])
			for _, op := range operators {
				if strings.HasPrefix(rest, op.Text) {
					toks = append(toks, op)
					i += len(op.Text) - 1
					break
				}
			}
		default:
			inWord = true
			cur.WriteRune(c)
		}
	}
	flush()
	return toks, nil
}

func main() {
	lines := []string{
		`ls -la /tmp | grep "\.log$" > logs.txt`,
		`make build && ./bin/app --name='Jane Doe' || echo "build failed: \"$?\""`,
		`sleep 1 & wait; echo done >> out.log`,
		`echo it\'s escaped; printf 'münchen\n'`,
		`:(){ :|:& };:`,
		`echo "unterminated`,
	}
	for _, l := range lines {
		toks, err := Lex(l)
		fmt.Println("$", l)
		if err != nil {
			fmt.Println("   error:", err)
			continue
		}
		for _, t := range toks {
			fmt.Printf("   %-5s %q\n", t.Kind, t.Text)
		}
	}
}
