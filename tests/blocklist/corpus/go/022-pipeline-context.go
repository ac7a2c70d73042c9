package main

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"
)

// generate emits integers until the context is cancelled.
func generate(ctx context.Context, start int) <-chan int {
	out := make(chan int)
	go func() {
		defer close(out)
		for n := start; ; n++ {
			select {
			case out <- n:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// primes filters its input, fanning work out over several goroutines.
func primes(ctx context.Context, in <-chan int, workers int) <-chan int {
	out := make(chan int)
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range in {
				if big.NewInt(int64(n)).ProbablyPrime(20) {
					select {
					case out <- n:
					case <-ctx.Done():
						return
					}
				}
			}
		}()
	}
	go func() { wg.Wait(); close(out) }()
	return out
}

func collect(ctx context.Context, in <-chan int, want int) ([]int, error) {
	var got []int
	for {
		select {
		case n, ok := <-in:
			if !ok {
				return got, errors.New("input closed early")
			}
			got = append(got, n)
			if len(got) == want {
				return got, nil
			}
		case <-ctx.Done():
			return got, ctx.Err()
		}
	}
}

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	found, err := collect(ctx, primes(ctx, generate(ctx, 1_000_000), 3), 8)
	cancel()
	fmt.Println("first primes after one million (order may vary):", len(found), err)
	maxP := 0
	for _, p := range found {
		if p > maxP {
			maxP = p
		}
	}
	fmt.Println("all above 1e6:", maxP > 1_000_000)

	// A deadline that is too short: the slow stage never finishes.
	tctx, tcancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer tcancel()
	slow := make(chan int)
	go func() {
		defer close(slow)
		for i := 0; i < 3; i++ {
			select {
			case <-time.After(40 * time.Millisecond):
				select {
				case slow <- i:
				case <-tctx.Done():
					return
				}
			case <-tctx.Done():
				return
			}
		}
	}()
	got, err := collect(tctx, slow, 3)
	fmt.Printf("got %v before: %v (deadline exceeded: %t)\n", got, err, errors.Is(err, context.DeadlineExceeded))
	time.Sleep(10 * time.Millisecond) // let the producer observe cancellation
}
