package main

import (
	"crypto/sha256"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

type job struct {
	id      int
	payload string
}

type result struct {
	jobID    int
	worker   int
	digest   string
	attempts int
}

// hashWork simulates CPU-bound work: repeatedly hashing the payload.
func hashWork(s string, rounds int) string {
	sum := sha256.Sum256([]byte(s))
	for i := 1; i < rounds; i++ {
		sum = sha256.Sum256(sum[:])
	}
	return fmt.Sprintf("%x", sum[:6])
}

func worker(id int, jobs <-chan job, results chan<- result, wg *sync.WaitGroup) {
	defer wg.Done()
	for j := range jobs {
		results <- result{jobID: j.id, worker: id, digest: hashWork(j.payload, 20000), attempts: 1}
	}
}

func main() {
	const numWorkers = 4
	words := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima")

	jobs := make(chan job)
	results := make(chan result, len(words))
	var wg sync.WaitGroup

	start := time.Now()
	for w := 1; w <= numWorkers; w++ {
		wg.Add(1)
		go worker(w, jobs, results, &wg)
	}
	go func() {
		for i, w := range words {
			jobs <- job{id: i, payload: w}
		}
		close(jobs) // workers exit their range loops
	}()
	go func() {
		wg.Wait()
		close(results)
	}()

	var all []result
	perWorker := map[int]int{}
	for r := range results {
		all = append(all, r)
		perWorker[r.worker]++
	}
	sort.Slice(all, func(i, j int) bool { return all[i].jobID < all[j].jobID })
	for _, r := range all {
		fmt.Printf("job %2d %-8s -> %s\n", r.jobID, words[r.jobID], r.digest)
	}
	total := 0
	for w := 1; w <= numWorkers; w++ {
		total += perWorker[w]
	}
	fmt.Printf("%d jobs done by %d workers in %v\n", total, numWorkers, time.Since(start).Round(time.Millisecond))
}
