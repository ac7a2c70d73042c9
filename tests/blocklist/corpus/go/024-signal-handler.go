package main

import (
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// A long-running service usually waits for SIGINT/SIGTERM to shut down
// gracefully and reloads its config on SIGHUP. Here the process signals
// itself so the demo finishes on its own.

type server struct {
	mu       sync.Mutex
	reloads  int
	handled  int
	stopping bool
}

func (s *server) serve(id int, done <-chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
			s.mu.Lock()
			s.handled++
			s.mu.Unlock()
		}
	}
}

func main() {
	pid := syscall.Getpid()
	fmt.Println("running with a pid:", pid > 0, "parent pid known:", os.Getppid() >= 0)

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGUSR1, syscall.SIGTERM, os.Interrupt)
	defer signal.Stop(sigs)

	srv := &server{}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go srv.serve(i, done, &wg)
	}

	go func() {
		self, _ := os.FindProcess(pid)
		for _, s := range []os.Signal{syscall.SIGHUP, syscall.SIGUSR1, syscall.SIGHUP, syscall.SIGTERM} {
			time.Sleep(20 * time.Millisecond)
			if err := self.Signal(s); err != nil {
				fmt.Println("signal failed:", err)
			}
		}
	}()

	timeout := time.After(3 * time.Second)
loop:
	for {
		select {
		case s := <-sigs:
			switch s {
			case syscall.SIGHUP:
				srv.reloads++
				fmt.Println("SIGHUP: reloading configuration, reload #", srv.reloads)
			case syscall.SIGUSR1:
				srv.mu.Lock()
				fmt.Println("SIGUSR1: status requested, requests handled so far > 0:", srv.handled > 0)
				srv.mu.Unlock()
			case syscall.SIGTERM, os.Interrupt:
				fmt.Println("received", s, "- shutting down gracefully")
				break loop
			}
		case <-timeout:
			fmt.Println("no shutdown signal; exiting anyway")
			break loop
		}
	}
	close(done)
	wg.Wait()
	fmt.Printf("stopped cleanly after %d reloads\n", srv.reloads)
}
