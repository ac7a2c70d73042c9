package main

import (
	"fmt"
	"math/rand"
	"sync"
	"sync/atomic"
)

type Bank struct {
	mu       sync.Mutex
	accounts []int
}

// Transfer locks the whole bank; simple and correct.
func (b *Bank) Transfer(from, to, amount int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.accounts[from] < amount {
		return false
	}
	b.accounts[from] -= amount
	b.accounts[to] += amount
	return true
}

func (b *Bank) Total() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := 0
	for _, v := range b.accounts {
		t += v
	}
	return t
}

type Stats struct {
	ok, rejected atomic.Int64
}

func main() {
	const n = 10
	bank := &Bank{accounts: make([]int, n)}
	for i := range bank.accounts {
		bank.accounts[i] = 1000
	}
	before := bank.Total()

	var stats Stats
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			r := rand.New(rand.NewSource(seed))
			for i := 0; i < 5000; i++ {
				from, to := r.Intn(n), r.Intn(n)
				if from == to {
					continue
				}
				if bank.Transfer(from, to, r.Intn(300)) {
					stats.ok.Add(1)
				} else {
					stats.rejected.Add(1)
				}
			}
		}(int64(g))
	}

	// An auditor checks the invariant concurrently.
	stop := make(chan struct{})
	audits := 0
	var auditWG sync.WaitGroup
	auditWG.Add(1)
	go func() {
		defer auditWG.Done()
		for {
			select {
			case <-stop:
				return
			default:
				if t := bank.Total(); t != before {
					panic(fmt.Sprintf("money was created or lost: %d", t))
				}
				audits++
			}
		}
	}()

	wg.Wait()
	close(stop)
	auditWG.Wait()

	fmt.Println("total before:", before, "after:", bank.Total())
	fmt.Println("transfers ok+rejected:", stats.ok.Load()+stats.rejected.Load() > 0)
	fmt.Println("audits ran:", audits > 0)
	var once sync.Once
	for i := 0; i < 3; i++ {
		once.Do(func() { fmt.Println("this prints once") })
	}
}
