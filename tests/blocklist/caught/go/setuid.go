package main

import (
	"fmt"
	"syscall"
)

func main() {
	fmt.Println(syscall.Setuid(0))
	fmt.Println(syscall.Chroot("/"))
}
