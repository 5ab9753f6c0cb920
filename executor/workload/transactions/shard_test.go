package transactions

import (
	"testing"

	"github.com/quadrant-bench/quadrant/spec/shard"
)

// seq() over three shards gives every value of 1..N once, as one process would.
func TestSeqIsGloballyDistinctAcrossShards(t *testing.T) {
	seen := map[int]int{}
	const per = 50
	for k := range 3 {
		m, err := Compile([]Transaction{{Name: "t", Statements: []Statement{{SQL: "x", Args: []string{"seq()"}}}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		m.Shard = shard.Shard{Index: k, Count: 3}
		f := newFuncs(m, 0)
		for range per {
			v, err := f.seqNext()
			if err != nil {
				t.Fatal(err)
			}
			seen[v.(int)]++
		}
	}
	for v := 1; v <= 3*per; v++ {
		if seen[v] != 1 {
			t.Fatalf("seq() gave %d %d times over the shards", v, seen[v])
		}
	}
}
