package measure

import (
	"testing"
	"time"
)

// Workers spread over nodes: each interval and the Total count every node's events, errors
// and cert failures apart, by the node of the worker that recorded them, and the columns
// node.NAME.* say them (a rate per interval, a count in the total); a cert failure is an
// error too.
func TestCountsPerNode(t *testing.T) {
	start := time.Now()
	c := NewCollector(CollectorOptions{Workers: 3, Start: start, MeasuredStart: start,
		Nodes: []string{"db", "db_node2"}, NodeOf: func(i int) int { return i % 2 }})
	for round := range 2 {
		c.Recorder(0).Event(Event{Latency: time.Millisecond})
		c.Recorder(1).Event(Event{Latency: time.Millisecond})
		c.Recorder(1).Error(1213, 0)
		c.Recorder(1).CertFailure(0)
		c.Recorder(2).Event(Event{Latency: time.Millisecond})
		iv := c.Cut(start.Add(time.Duration(round+1)*time.Second), 3, 0)
		if len(iv.Nodes) != 2 || iv.Nodes[0].Counts.Events != 2 || iv.Nodes[1].Counts.Events != 1 || iv.Nodes[1].Counts.CertFailures != 1 || iv.Nodes[0].Counts.Errors != 0 {
			t.Fatalf("interval %d nodes %+v", round+1, iv.Nodes)
		}
		got := map[string]float64{}
		for _, v := range IntervalValues(iv) {
			got[v.Name] = v.Value
		}
		if got["node.db.transactions"] != 2 || got["node.db_node2.cert_failures"] != 1 || got["cert_failures"] != 1 || got["errors"] != 1 {
			t.Errorf("interval %d columns %v", round+1, got)
		}
	}
	tot := c.Total()
	if tot.CertFailures != 2 || tot.Errors != 2 || len(tot.Nodes) != 2 || tot.Nodes[0].Counts.Events != 4 || tot.Nodes[1].Counts.CertFailures != 2 {
		t.Fatalf("total: cert failures %d, errors %d, nodes %+v", tot.CertFailures, tot.Errors, tot.Nodes)
	}
	_, family := TotalValues(tot)
	got := map[string]float64{}
	for _, v := range family {
		got[v.Name] = v.Value
	}
	if got["node.db.transactions"] != 4 || got["node.db_node2.transactions"] != 2 || got["node.db_node2.errors"] != 2 {
		t.Errorf("total columns %v", got)
	}
}

// Without nodes, no node column.
func TestNoNodesNoColumns(t *testing.T) {
	start := time.Now()
	c := NewCollector(CollectorOptions{Workers: 1, Start: start, MeasuredStart: start})
	c.Recorder(0).Event(Event{Latency: time.Millisecond})
	iv := c.Cut(start.Add(time.Second), 1, 0)
	for _, v := range IntervalValues(iv) {
		if len(v.Name) > 5 && v.Name[:5] == "node." {
			t.Errorf("column %s without nodes", v.Name)
		}
	}
}
