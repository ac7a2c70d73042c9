package main

import (
	"container/list"
	"fmt"
	"strings"
)

// LRU is a fixed-capacity cache generic over key and value types.
type LRU[K comparable, V any] struct {
	cap     int
	ll      *list.List
	items   map[K]*list.Element
	hits    int
	miss    int
	onEvict func(K, V)
}

type entry[K comparable, V any] struct {
	key K
	val V
}

func NewLRU[K comparable, V any](capacity int, onEvict func(K, V)) *LRU[K, V] {
	return &LRU[K, V]{cap: capacity, ll: list.New(), items: map[K]*list.Element{}, onEvict: onEvict}
}

func (c *LRU[K, V]) Get(k K) (V, bool) {
	if el, ok := c.items[k]; ok {
		c.ll.MoveToFront(el)
		c.hits++
		return el.Value.(*entry[K, V]).val, true
	}
	c.miss++
	var zero V
	return zero, false
}

func (c *LRU[K, V]) Put(k K, v V) {
	if el, ok := c.items[k]; ok {
		el.Value.(*entry[K, V]).val = v
		c.ll.MoveToFront(el)
		return
	}
	c.items[k] = c.ll.PushFront(&entry[K, V]{k, v})
	if c.ll.Len() > c.cap {
		oldest := c.ll.Back()
		c.ll.Remove(oldest)
		e := oldest.Value.(*entry[K, V])
		delete(c.items, e.key)
		if c.onEvict != nil {
			c.onEvict(e.key, e.val)
		}
	}
}

func (c *LRU[K, V]) Keys() []K {
	var ks []K
	for el := c.ll.Front(); el != nil; el = el.Next() {
		ks = append(ks, el.Value.(*entry[K, V]).key)
	}
	return ks
}

// slowSquare pretends to be expensive so caching matters.
func slowSquare(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += n
	}
	return s
}

func main() {
	var evicted []string
	cache := NewLRU[int, int](3, func(k, v int) { evicted = append(evicted, fmt.Sprintf("%d=%d", k, v)) })
	lookup := func(n int) int {
		if v, ok := cache.Get(n); ok {
			return v
		}
		v := slowSquare(n)
		cache.Put(n, v)
		return v
	}
	for _, n := range []int{2, 3, 2, 4, 5, 2, 3, 3, 6, 2} {
		fmt.Printf("square(%d) = %2d  cache order: %v\n", n, lookup(n), cache.Keys())
	}
	fmt.Printf("hits=%d misses=%d evicted=[%s]\n", cache.hits, cache.miss, strings.Join(evicted, " "))

	pages := NewLRU[string, []byte](2, nil)
	pages.Put("/index.html", []byte("<h1>home</h1>"))
	pages.Put("/about.html", []byte("<h1>about</h1>"))
	pages.Get("/index.html")
	pages.Put("/contact.html", []byte("<h1>contact</h1>"))
	_, aboutCached := pages.Get("/about.html")
	fmt.Println("pages:", pages.Keys(), "about still cached:", aboutCached)
}
