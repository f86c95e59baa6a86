package redact

import (
	"container/list"
	"sync"
	"time"
)

// cache keeps decisions per caller for a short TTL: at most callers
// callers (least recently used evicted) of at most entries decisions each
// (a full caller drops its expired decisions, then all of them). A nil
// *cache keeps nothing.
type cache struct {
	mu      sync.Mutex
	callers int
	entries int
	ttl     time.Duration
	now     func() time.Time
	lru     *list.List // of *callerCache, most recent first
	byKey   map[string]*list.Element
}

type decisionKey struct {
	typ string
	id  int64
}

type decision struct {
	allowed bool
	expires time.Time
}

type callerCache struct {
	key       string
	decisions map[decisionKey]decision
}

func newCache(callers, entries int, ttl time.Duration, now func() time.Time) *cache {
	return &cache{callers: callers, entries: entries, ttl: ttl, now: now, lru: list.New(), byKey: map[string]*list.Element{}}
}

func (c *cache) get(caller, typ string, id int64) (allowed, hit bool) {
	if c == nil || caller == "" {
		return false, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[caller]
	if !ok {
		return false, false
	}
	c.lru.MoveToFront(el)
	cc := el.Value.(*callerCache)
	k := decisionKey{typ, id}
	d, ok := cc.decisions[k]
	if !ok {
		return false, false
	}
	if !c.now().Before(d.expires) {
		delete(cc.decisions, k)
		return false, false
	}
	return d.allowed, true
}

func (c *cache) put(caller, typ string, id int64, allowed bool) {
	if c == nil || caller == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	el, ok := c.byKey[caller]
	if !ok {
		el = c.lru.PushFront(&callerCache{key: caller, decisions: map[decisionKey]decision{}})
		c.byKey[caller] = el
		for c.lru.Len() > c.callers {
			old := c.lru.Back()
			c.lru.Remove(old)
			delete(c.byKey, old.Value.(*callerCache).key)
		}
	} else {
		c.lru.MoveToFront(el)
	}
	cc := el.Value.(*callerCache)
	if len(cc.decisions) >= c.entries {
		for k, d := range cc.decisions {
			if !now.Before(d.expires) {
				delete(cc.decisions, k)
			}
		}
		if len(cc.decisions) >= c.entries {
			clear(cc.decisions)
		}
	}
	cc.decisions[decisionKey{typ, id}] = decision{allowed: allowed, expires: now.Add(c.ttl)}
}
