package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
)

var ErrNotFound = errors.New("not found")
var ErrInsufficientFunds = errors.New("insufficient funds")

type ValidationError struct {
	Field string
	Value interface{}
	Msg   string
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("invalid %s=%v: %s", e.Field, e.Value, e.Msg)
}

type Account struct {
	ID      string
	Balance int
}

type Store struct{ accounts map[string]*Account }

func (s *Store) Get(id string) (*Account, error) {
	a, ok := s.accounts[id]
	if !ok {
		return nil, fmt.Errorf("account %q: %w", id, ErrNotFound)
	}
	return a, nil
}

func (s *Store) Transfer(from, to string, amount int) (err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("transfer %s->%s failed: %w", from, to, err)
		}
	}()
	if amount <= 0 {
		return &ValidationError{"amount", amount, "must be positive"}
	}
	src, err := s.Get(from)
	if err != nil {
		return err
	}
	dst, err := s.Get(to)
	if err != nil {
		return err
	}
	if src.Balance < amount {
		return fmt.Errorf("need %d, have %d: %w", amount, src.Balance, ErrInsufficientFunds)
	}
	src.Balance -= amount
	dst.Balance += amount
	return nil
}

func safeDivide(a, b int) (q int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	return a / b, nil
}

func main() {
	s := &Store{accounts: map[string]*Account{"alice": {"alice", 100}, "bob": {"bob", 20}}}
	attempts := []struct {
		from, to string
		amount   int
	}{{"alice", "bob", 30}, {"bob", "alice", 500}, {"carol", "bob", 5}, {"alice", "bob", -4}}
	for _, a := range attempts {
		err := s.Transfer(a.from, a.to, a.amount)
		var ve *ValidationError
		switch {
		case err == nil:
			fmt.Println("ok:", a.from, "->", a.to, a.amount)
		case errors.Is(err, ErrInsufficientFunds):
			fmt.Println("declined:", err)
		case errors.Is(err, ErrNotFound):
			fmt.Println("unknown account:", err)
		case errors.As(err, &ve):
			fmt.Printf("validation on field %q: %v\n", ve.Field, err)
		default:
			fmt.Println("unexpected:", err)
		}
	}
	fmt.Println("balances:", s.accounts["alice"].Balance, s.accounts["bob"].Balance)

	_, err := os.Open("/work/does/not/exist.txt")
	var pe *fs.PathError
	if errors.As(err, &pe) && errors.Is(err, fs.ErrNotExist) {
		fmt.Printf("open failed: op=%s path=%s\n", pe.Op, pe.Path)
	}
	if _, err := strconv.Atoi("12a"); err != nil {
		var ne *strconv.NumError
		fmt.Println("number error:", errors.As(err, &ne), ne.Func, errors.Is(err, strconv.ErrSyntax))
	}
	q, err := safeDivide(10, 0)
	fmt.Println("safeDivide:", q, err)
	joined := fmt.Errorf("batch: %w; also %v", ErrNotFound, "timeout")
	fmt.Println(joined, errors.Unwrap(joined) == ErrNotFound)
}
