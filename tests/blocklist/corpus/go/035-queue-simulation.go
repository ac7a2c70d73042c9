package main

import (
	"container/heap"
	"fmt"
	"math"
	"math/rand"
	"strings"
)

// Discrete-event simulation of a post office with c counters (M/M/c queue).

type event struct {
	at   float64
	kind string // "arrive" or "depart"
	id   int
}

type events []event

func (e events) Len() int            { return len(e) }
func (e events) Less(i, j int) bool  { return e[i].at < e[j].at }
func (e events) Swap(i, j int)       { e[i], e[j] = e[j], e[i] }
func (e *events) Push(x interface{}) { *e = append(*e, x.(event)) }
func (e *events) Pop() interface{} {
	old := *e
	v := old[len(old)-1]
	*e = old[:len(old)-1]
	return v
}

type result struct {
	avgWait, maxWait, utilization float64
	served                        int
}

func simulate(counters int, arrivalRate, serviceRate float64, customers int, seed int64) result {
	rng := rand.New(rand.NewSource(seed))
	q := &events{}
	t := 0.0
	for i := 0; i < customers; i++ {
		t += rng.ExpFloat64() / arrivalRate
		heap.Push(q, event{t, "arrive", i})
	}
	arrivedAt := map[int]float64{}
	var waiting []int
	busy, served := 0, 0
	totalWait, maxWait, busyTime, lastT := 0.0, 0.0, 0.0, 0.0
	startService := func(id int, now float64) {
		w := now - arrivedAt[id]
		totalWait += w
		maxWait = math.Max(maxWait, w)
		busy++
		heap.Push(q, event{now + rng.ExpFloat64()/serviceRate, "depart", id})
	}
	for q.Len() > 0 {
		ev := heap.Pop(q).(event)
		busyTime += float64(busy) * (ev.at - lastT)
		lastT = ev.at
		switch ev.kind {
		case "arrive":
			arrivedAt[ev.id] = ev.at
			if busy < counters {
				startService(ev.id, ev.at)
			} else {
				waiting = append(waiting, ev.id)
			}
		case "depart":
			busy--
			served++
			if len(waiting) > 0 {
				next := waiting[0]
				waiting = waiting[1:]
				startService(next, ev.at)
			}
		}
	}
	return result{totalWait / float64(customers), maxWait, busyTime / (lastT * float64(counters)), served}
}

func main() {
	const arrivals, service = 1.0, 0.4 // per minute
	fmt.Printf("arrivals %.1f/min, each counter serves %.1f/min\n", arrivals, service)
	fmt.Printf("%-9s %10s %10s %8s\n", "counters", "avg wait", "max wait", "util")
	for c := 3; c <= 6; c++ {
		r := simulate(c, arrivals, service, 5000, 7)
		bar := strings.Repeat("▇", int(math.Min(r.avgWait, 40)))
		fmt.Printf("%-9d %9.2fm %9.2fm %7.1f%% %s\n", c, r.avgWait, r.maxWait, 100*r.utilization, bar)
	}
}
