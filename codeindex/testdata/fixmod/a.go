package fix

import "example.com/fix/sub"

// Base says hello.
type Base struct{}

// Hello greets.
func (b *Base) Hello() string { return "hello" }

// Greeter is anything that greets.
type Greeter interface {
	Hello() string
}

// Child embeds Base.
type Child struct {
	Base
	n int
}

// Use calls Hello through the interface.
func Use(g Greeter) string { return g.Hello() }

// Run calls Use, helper and sub.Twice.
func Run() int {
	c := &Child{}
	Use(c)
	_ = helper()
	return sub.Twice(K)
}

const K = 1

var V, W = sub.Twice(2), 3
